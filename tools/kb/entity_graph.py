"""The statute entity graph of Law GraphRAG: token chunks of statutes, the entities and relations the model
extracts from them, their merge, the graph writes, and the community-report context packing.

Everything here is deterministic; the model calls that feed it live in :mod:`tools.pipelines.entity_index`.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from tools.kb.port import GraphStore
from tools.law.articles import Article
from tools.llm.tokens import count_tokens, group_by_tokens

ENTITY_TYPES = ("主体", "机关", "客体", "行为", "义务", "权利", "责任", "程序", "概念")
EntityType = Literal["主体", "机关", "客体", "行为", "义务", "权利", "责任", "程序", "概念"]


# Bounds keep the largest valid extraction within the reply budget (IndexConfig.max_output_tokens): an
# unbounded reply from the 1.5B model ran past 768 tokens, was cut off and failed every retry.
class ExtractedEntity(BaseModel):
    name: str = Field(min_length=1, max_length=20, description="实体名称，使用条文原词")
    type: EntityType
    description: str = Field(min_length=1, max_length=60, description="依据本段条文对实体的一句话描述")


class ExtractedRelation(BaseModel):
    source: str = Field(min_length=1, max_length=20)
    target: str = Field(min_length=1, max_length=20)
    description: str = Field(min_length=1, max_length=60, description="两实体在条文中的关系")
    strength: int = Field(ge=1, le=10, description="关系强度 1-10")


class Extraction(BaseModel):
    """What one chunk yields (GraphRAG's entity/relationship extraction, as structured output)."""

    entities: list[ExtractedEntity] = Field(max_length=10)
    relations: list[ExtractedRelation] = Field(max_length=10)


class Finding(BaseModel):
    summary: str = Field(min_length=1, max_length=60)
    explanation: str = Field(min_length=1, max_length=150, description="说明，并以 [法律简称:条号] 引用条文")


class CommunityReport(BaseModel):
    """A community report as GraphRAG writes it: title, summary, impact rating and findings."""

    title: str = Field(min_length=1, max_length=40)
    summary: str = Field(min_length=1, max_length=200)
    rating: float = Field(ge=0, le=10, description="该社区在法律实务中的重要程度 0-10")
    rating_explanation: str = Field(min_length=1, max_length=60)
    findings: list[Finding] = Field(min_length=1, max_length=3)


@dataclass(frozen=True)
class Chunk:
    """Consecutive articles of one law, at most ``chunk_tokens`` long (an over-long article stands alone)."""

    law: str
    article_ids: tuple[str, ...]
    lines: tuple[str, ...]
    """One ``[id] text`` line per article (article texts may contain newlines of their own)."""

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def id(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:16]


def chunk_articles(articles: Sequence[Article], chunk_tokens: int) -> list[Chunk]:
    """Token-budgeted chunks that never split an article, so every entity maps back to article ids."""
    lines = [f"[{article.id}] {article.text}" for article in articles]
    return [
        Chunk(articles[g[0]].law, tuple(articles[i].id for i in g), tuple(lines[i] for i in g))
        for g in group_by_tokens(lines, chunk_tokens)
    ]


_SPACE_RE = re.compile(r"\s+")


def entity_key(name: str) -> str:
    """Same-name entities merge: names compared without spaces, brackets and letter case."""
    return _SPACE_RE.sub("", name).strip("《》“”\"'（）()").upper()


@dataclass
class Entity:
    """A merged entity: every description any chunk gave it, and the articles that mention it."""

    key: str
    name: str
    types: Counter[str] = field(default_factory=Counter)
    descriptions: list[str] = field(default_factory=list)
    article_ids: set[str] = field(default_factory=set)
    description: str = ""
    """The final description: the single one, or the model's summary of several (set by the indexer)."""

    @property
    def type(self) -> str:
        return self.types.most_common(1)[0][0] if self.types else "概念"


@dataclass
class Relation:
    """A merged relation between two entity keys (undirected; weights add up as in GraphRAG)."""

    source: str
    target: str
    descriptions: list[str] = field(default_factory=list)
    weight: float = 0.0


@dataclass
class MergedGraph:
    entities: dict[str, Entity]
    relations: dict[tuple[str, str], Relation]
    dropped_relations: int = 0
    """Relations whose ends were not among the chunk's entities (the model named something it did not list)."""

    def degree(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for source, target in self.relations:
            counts[source] += 1
            counts[target] += 1
        return counts


def merge_extractions(extractions: Sequence[tuple[Chunk, Extraction]]) -> MergedGraph:
    """Merge per-chunk extractions: same-name entities become one, with their descriptions and articles."""
    entities: dict[str, Entity] = {}
    relations: dict[tuple[str, str], Relation] = {}
    dropped = 0
    for chunk, extraction in extractions:
        texts = dict(zip(chunk.article_ids, chunk.lines, strict=True))
        local: set[str] = set()
        for item in extraction.entities:
            key = entity_key(item.name)
            if not key:
                continue
            entity = entities.setdefault(key, Entity(key=key, name=item.name.strip()))
            entity.types[item.type] += 1
            if item.description not in entity.descriptions:
                entity.descriptions.append(item.description.strip())
            # The articles whose text names the entity; if the model paraphrased, the whole chunk.
            mentioned = {a for a, text in texts.items() if item.name.strip() in text}
            entity.article_ids |= mentioned or set(chunk.article_ids)
            local.add(key)
        for rel in extraction.relations:
            source, target = entity_key(rel.source), entity_key(rel.target)
            if source not in local or target not in local or source == target:
                dropped += 1
                continue
            pair = (source, target) if source < target else (target, source)
            relation = relations.setdefault(pair, Relation(*pair))
            relation.weight += rel.strength
            if rel.description not in relation.descriptions:
                relation.descriptions.append(rel.description.strip())
    for entity in entities.values():
        entity.description = entity.description or "；".join(entity.descriptions)
    return MergedGraph(entities, relations, dropped)


def entity_line(entity: Entity, degree: int) -> str:
    articles = "、".join(sorted(entity.article_ids)[:6])
    return f"{entity.name}|{entity.type}|{entity.description}|条文：{articles}|度：{degree}"


def relation_line(relation: Relation, graph: MergedGraph) -> str:
    names = graph.entities[relation.source].name, graph.entities[relation.target].name
    return f"{names[0]} — {names[1]}|{'；'.join(relation.descriptions)}|权重：{relation.weight:g}"


def pack_community_context(
    members: Sequence[str], graph: MergedGraph, budget: int, child_reports: Sequence[str] = ()
) -> tuple[str, bool]:
    """GraphRAG's report context: the community's relations by combined degree of their ends (descending),
    each with its two entities, until ``budget`` tokens. When the raw elements do not fit and sub-community
    reports exist, those reports come first and the raw elements fill what is left. Returns the context and
    whether everything fitted."""
    degree = graph.degree()
    chosen = set(members)
    edges = sorted(
        (r for pair, r in graph.relations.items() if pair[0] in chosen and pair[1] in chosen),
        key=lambda r: (-(degree[r.source] + degree[r.target]), r.source, r.target),
    )
    raw_entities = [entity_line(graph.entities[k], degree[k]) for k in sorted(chosen, key=lambda k: -degree[k])]
    raw_edges = [relation_line(r, graph) for r in edges]
    full = _render(raw_entities, raw_edges, [])
    if count_tokens(full) <= budget:
        return full, True
    reports: list[str] = []
    used = 0
    for report in child_reports:
        cost = count_tokens(report)
        if used + cost > budget * 0.6:
            break
        reports.append(report)
        used += cost
    entity_lines: list[str] = []
    edge_lines: list[str] = []
    seen: set[str] = set()
    for relation in edges:
        additions = [
            entity_line(graph.entities[k], degree[k]) for k in (relation.source, relation.target) if k not in seen
        ]
        line = relation_line(relation, graph)
        cost = sum(count_tokens(a) for a in additions) + count_tokens(line)
        if used + cost > budget:
            break
        entity_lines += additions
        edge_lines.append(line)
        seen |= {relation.source, relation.target}
        used += cost
    for key in sorted(chosen - seen, key=lambda k: -degree[k]):  # isolated members, if room remains
        line = entity_line(graph.entities[key], degree[key])
        if used + count_tokens(line) > budget:
            break
        entity_lines.append(line)
        used += count_tokens(line)
    return _render(entity_lines, edge_lines, reports), False


def _render(entities: Sequence[str], edges: Sequence[str], reports: Sequence[str]) -> str:
    parts = []
    if reports:
        parts.append("子社区报告：\n" + "\n\n".join(reports))
    parts.append("实体（名称|类型|描述|条文|度）：\n" + ("\n".join(entities) or "（无）"))
    parts.append("关系（实体 — 实体|描述|权重）：\n" + ("\n".join(edges) or "（无）"))
    return "\n\n".join(parts)


def report_text(report: CommunityReport) -> str:
    """A report as one block of text: what sub-community substitution, the map step and the index embed."""
    findings = "\n".join(f"- {f.summary}：{f.explanation}" for f in report.findings)
    return f"# {report.title}\n{report.summary}\n重要程度：{report.rating:g}（{report.rating_explanation}）\n{findings}"


_CLEAR = "MATCH (n) WHERE n:Entity OR n:EntityCommunity DETACH DELETE n"
_WRITE_ENTITIES = """
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
SET e.name = row.name, e.type = row.type, e.description = row.description, e.degree = row.degree
WITH e, row
UNWIND row.articles AS article_id
MATCH (a:Article {id: article_id})
MERGE (e)-[:MENTIONED_IN]->(a)
"""
_WRITE_RELATIONS = """
UNWIND $rows AS row
MATCH (s:Entity {id: row.source}), (t:Entity {id: row.target})
MERGE (s)-[r:RELATED]->(t)
SET r.description = row.description, r.weight = row.weight
"""
_WRITE_COMMUNITIES = """
UNWIND $rows AS row
MERGE (c:EntityCommunity {id: row.id})
SET c.level = row.level, c.parent = row.parent, c.size = row.size, c.title = row.title, c.summary = row.summary,
    c.rating = row.rating, c.report = row.report, c.articles = row.articles
WITH c, row
UNWIND row.members AS member
MATCH (e:Entity {id: member})
MERGE (e)-[:IN_COMMUNITY]->(c)
"""
_COMMUNITIES = """
MATCH (c:EntityCommunity) WHERE c.level <= $level
RETURN c.id AS id, c.level AS level, c.parent AS parent, c.size AS size, c.title AS title, c.rating AS rating,
       c.report AS report, c.articles AS articles
ORDER BY c.rating DESC, c.size DESC, c.id
"""
_ENTITIES = """
MATCH (e:Entity) WHERE e.id IN $ids
OPTIONAL MATCH (e)-[:MENTIONED_IN]->(a:Article)
RETURN e.id AS id, e.name AS name, e.type AS type, e.description AS description, e.degree AS degree,
       collect(a.id) AS articles
"""
_RELATIONS_OF = """
MATCH (s:Entity)-[r:RELATED]-(t:Entity) WHERE s.id IN $ids
RETURN DISTINCT s.id AS source, t.id AS target, s.name AS source_name, t.name AS target_name,
       r.description AS description, r.weight AS weight
"""
_COMMUNITIES_OF = """
MATCH (e:Entity)-[:IN_COMMUNITY]->(c:EntityCommunity) WHERE e.id IN $ids AND c.level <= $level
RETURN c.id AS id, c.level AS level, c.parent AS parent, c.title AS title, c.rating AS rating, c.report AS report,
       count(e) AS hits
ORDER BY hits DESC, c.rating DESC
"""
_PARENTS = "MATCH (c:EntityCommunity) WHERE c.parent <> '' RETURN DISTINCT c.parent AS id"
_COUNTS = """
MATCH (e:Entity) WITH count(e) AS entities
OPTIONAL MATCH (:Entity)-[r:RELATED]->(:Entity) WITH entities, count(r) AS relations
OPTIONAL MATCH (c:EntityCommunity) RETURN entities, relations, count(c) AS communities
"""
_WRITE_BATCH = 200


@dataclass(frozen=True)
class StoredCommunity:
    """A community as written: its members (entity keys), report and the article ids the report cites."""

    id: str
    level: int
    parent: str | None
    members: list[str]
    report: CommunityReport
    articles: list[str]


class EntityGraphRepository:
    """The statute entity graph on any :class:`GraphStore` (parameterised Cypher only)."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store

    def replace(self, graph: MergedGraph, communities: Sequence[StoredCommunity]) -> None:
        """Write the whole entity graph, replacing the previous one (it is rebuilt from cached extractions)."""
        self.store.query(_CLEAR)
        degree = graph.degree()
        entity_rows = [
            {
                "id": e.key,
                "name": e.name,
                "type": e.type,
                "description": e.description,
                "degree": degree[e.key],
                "articles": sorted(e.article_ids),
            }
            for e in graph.entities.values()
        ]
        relation_rows = [
            {"source": r.source, "target": r.target, "description": "；".join(r.descriptions), "weight": r.weight}
            for r in graph.relations.values()
        ]
        community_rows = [
            {
                "id": c.id,
                "level": c.level,
                "parent": c.parent or "",
                "size": len(c.members),
                "title": c.report.title,
                "summary": c.report.summary,
                "rating": c.report.rating,
                "report": report_text(c.report),
                "articles": c.articles,
                "members": c.members,
            }
            for c in communities
        ]
        for cypher, rows in ((_WRITE_ENTITIES, entity_rows), (_WRITE_RELATIONS, relation_rows)):
            for start in range(0, len(rows), _WRITE_BATCH):
                self.store.query(cypher, {"rows": rows[start : start + _WRITE_BATCH]})
        for start in range(0, len(community_rows), _WRITE_BATCH):
            self.store.query(_WRITE_COMMUNITIES, {"rows": community_rows[start : start + _WRITE_BATCH]})
        self.store.compact()

    def communities(self, level: int) -> list[dict[str, Any]]:
        """The reports that cover the graph at ``level``, most important first: that level's communities and
        the leaves above it (a community Leiden did not split has no children one level down)."""
        return self._at_level(self.store.read(_COMMUNITIES, {"level": level}), level)

    def _at_level(self, rows: list[dict[str, Any]], level: int) -> list[dict[str, Any]]:
        parents = {row["id"] for row in self.store.read(_PARENTS)}
        return [row for row in rows if row["level"] == level or row["id"] not in parents]

    def entities(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        return self.store.read(_ENTITIES, {"ids": list(ids)})

    def relations_of(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        return self.store.read(_RELATIONS_OF, {"ids": list(ids)})

    def communities_of(self, ids: Sequence[str], level: int) -> list[dict[str, Any]]:
        """The communities (as :meth:`communities` selects them) the given entities belong to."""
        return self._at_level(self.store.read(_COMMUNITIES_OF, {"ids": list(ids), "level": level}), level)

    def counts(self) -> dict[str, int]:
        rows = self.store.read(_COUNTS)
        return {k: int(v) for k, v in rows[0].items()} if rows else {"entities": 0, "relations": 0, "communities": 0}
