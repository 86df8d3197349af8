"""Read-only views of the knowledge graph for people: counts per label and type, one article's card."""

from __future__ import annotations

from typing import Any

from tools.errors import InputError
from tools.kb.consultations import ConsultationRepository
from tools.kb.offences import OffenceRepository
from tools.kb.port import GraphStore

_NODES = "MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS n ORDER BY label"
_EDGES = "MATCH ()-[r]->() RETURN type(r) AS type, count(r) AS n ORDER BY type"
_ARTICLE = """
MATCH (a:Article {id: $id})
OPTIONAL MATCH (a)-[:DEFINES]->(ch:Charge)
WITH a, collect(DISTINCT ch.name) AS charges
OPTIONAL MATCH (i:Interpretation)-[:INTERPRETS]->(a)
WITH a, charges, collect(DISTINCT i.title) AS interpretations
OPTIONAL MATCH (c:Case)-[:CITES]->(a)
RETURN a.id AS id, a.law_full AS law, a.label AS label, a.chapter AS chapter, a.text AS text,
       a.checklist_model AS checklist_model, charges, interpretations, count(DISTINCT c) AS cases
"""
CONSULTATIONS_SHOWN = 10
"""Answered consultations an article's card lists (the first by id)."""
_CHECKLIST = "MATCH (:Article {id: $id})-[:HAS_CHECK]->(c:CheckItem) RETURN c.text AS text ORDER BY c.order"


def graph_stats(store: GraphStore) -> dict[str, dict[str, int]]:
    """{"nodes": {label: n}, "edges": {type: n}} over the whole graph."""
    return {
        "nodes": {r["label"]: int(r["n"]) for r in store.read(_NODES)},
        "edges": {r["type"]: int(r["n"]) for r in store.read(_EDGES)},
    }


def article_card(store: GraphStore, article_id: str) -> dict[str, Any]:
    """An article with its charges (or, in the India pack, offences), interpretations, checklist, the number
    of cases citing it and the answered consultations citing it."""
    rows = store.read(_ARTICLE, {"id": article_id})
    if not rows:
        raise InputError(f"no article {article_id!r} in the knowledge graph (ids look like 刑法:264 or 刑法:133-1)")
    card = dict(rows[0])
    card["checklist"] = [r["text"] for r in store.read(_CHECKLIST, {"id": article_id})]
    card["offences"] = OffenceRepository(store).of_articles([article_id])
    card["consultations"] = [
        {"id": c.id, "question": c.question, "source": c.source}
        for c in ConsultationRepository(store).citing(article_id, CONSULTATIONS_SHOWN)
    ]
    return card
