"""Statute ingestion into both stores, idempotent and resumable.

Each article carries a content hash. An article counts as ingested only when the vector store and the
graph both hold it with the current hash, so a run killed between (or inside) batches is completed by the
next run, and MERGE/upsert semantics make repeating a batch harmless: no duplicates, nothing lost.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from tools.corpus.cail import Case
from tools.corpus.charge_rules import ChargeRules
from tools.corpus.consultations import Consultation
from tools.corpus.halves import half_of
from tools.corpus.interpretations import Interpretation, chunk_document, provisions
from tools.corpus.laws_db import LawInfo, load_articles
from tools.errors import InputError, listing
from tools.kb.cases import CaseRepository
from tools.kb.charges import ChargeRepository
from tools.kb.consultations import ConsultationRepository
from tools.kb.interpretations import InterpretationRepository
from tools.kb.ontology import FeatureExtractor, Features, OntologyRepository
from tools.kb.port import GraphStore
from tools.kb.sources import SourceRepository
from tools.kb.statutes import StatuteRepository
from tools.law.articles import CRIMINAL_LAW, Article, short_law_name
from tools.retrieval.vectors import (
    CASES,
    CONSULTATIONS,
    IN_FORCE,
    INTERPRETATIONS,
    STATUTES,
    ChromaVectors,
    Metadata,
)


@dataclass
class IngestReport:
    """What one ingestion run did."""

    laws: list[str] = field(default_factory=list)
    total: int = 0
    """Articles in the selected laws."""
    added: int = 0
    """Articles not present before."""
    updated: int = 0
    """Articles present with a different (or incomplete) content."""
    unchanged: int = 0
    """Articles already ingested with the same content."""


def ingest_charges(rules: ChargeRules, charges: ChargeRepository, statutes: StatuteRepository) -> int:
    """Write the charges in force and their DEFINES edges, retiring charges no longer in force; the Criminal
    Law must be ingested first."""
    if statutes.counts().get(CRIMINAL_LAW, 0) == 0:
        raise InputError("charges link to Criminal Law articles: run `jurisgraph ingest --laws 刑法` first")
    charges.upsert(rules.articles, rules.aliases)
    # The rules are the whole set: a charge written by earlier (or misparsed) rules and no longer in them goes.
    charges.retire_others(rules.articles)
    statutes.store.compact()
    return len(rules.articles)


@dataclass
class InterpretationReport:
    """What one interpretation ingestion did."""

    files: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    chunks: int = 0
    """Chunks written (vectors) by this run."""
    links: int = 0
    """INTERPRETS edges of the interpretations written by this run."""


def ingest_interpretations(
    interpretations: Sequence[Interpretation],
    vectors: ChromaVectors,
    repo: InterpretationRepository,
    batch_size: int,
    on_plan: Callable[[int], None] = lambda _total: None,
    on_batch: Callable[[int], None] = lambda _done: None,
) -> InterpretationReport:
    """Write interpretations whose content changed or is missing: chunks to the ``interpretations``
    collection, nodes and INTERPRETS edges to the graph. An interpretation counts as done only once its
    hash is set in the graph, which happens after both stores hold it, so a killed run resumes cleanly; a
    collection that lost every chunk (a wiped vector store) has every interpretation written again."""
    done = repo.hashes() if vectors.count(INTERPRETATIONS) else {}
    report = InterpretationReport(files=len(interpretations))
    todo = [i for i in interpretations if done.get(i.id) != i.content_hash]
    report.unchanged = len(interpretations) - len(todo)
    report.updated = sum(1 for i in todo if i.id in done)
    report.added = len(todo) - report.updated
    on_plan(sum(len(i.chunks) for i in todo))
    for interp in todo:
        # Chunks of an older version may have other labels; drop them all before writing the new ones.
        vectors.delete_where(INTERPRETATIONS, "interpretation", interp.id)
        for start in range(0, len(interp.chunks), batch_size):
            batch = interp.chunks[start : start + batch_size]
            vectors.upsert(
                INTERPRETATIONS,
                [c.id for c in batch],
                [chunk_document(interp, c) for c in batch],
                [
                    {
                        "interpretation": interp.id,
                        "label": c.label,
                        "cites": ",".join(c.cites),
                        IN_FORCE: not interp.repealed_by,
                    }
                    for c in batch
                ],
            )
            on_batch(len(batch))
        repo.upsert(interp)
        repo.mark_done(interp)
        report.chunks += len(interp.chunks)
        report.links += len(interp.cites)
    if todo:
        repo.store.compact()
    return report


def ingest_cases(
    cases: Sequence[Case],
    vectors: ChromaVectors,
    repo: CaseRepository,
    batch_size: int,
    on_plan: Callable[[int], None] = lambda _total: None,
    on_batch: Callable[[int], None] = lambda _done: None,
) -> IngestReport:
    """Write new or changed cases to the ``cases`` collection and the Fact graph (vectors first, graph last).
    An id another source already holds is refused before anything is written, naming both sources."""
    in_graph = own_ids("case", cases, repo.stored([c.id for c in cases]))
    return _write_changed(
        CASES,
        cases,
        in_graph,
        vectors,
        lambda c: c.fact,
        lambda c: {
            "source": c.source,
            "charges": ",".join(c.charges),
            "articles": ",".join(c.articles),
            # Chroma stores no null: a judgment without a sentence has no term key.
            **({} if c.term_months is None else {"term_months": c.term_months}),
            "hash": c.content_hash,
        },
        repo.upsert,
        repo.store,
        batch_size,
        on_plan,
        on_batch,
    )


class _Hashed(Protocol):
    """What :func:`pending` reads of an article, case or consultation."""

    @property
    def id(self) -> str: ...

    @property
    def content_hash(self) -> str: ...


class _Document(_Hashed, Protocol):
    """What :func:`_write_changed` reads of a case or consultation."""

    @property
    def source(self) -> str: ...


H = TypeVar("H", bound=_Hashed)
D = TypeVar("D", bound=_Document)


def own_ids(kind: str, items: Sequence[D], stored: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """id -> content hash of ``items`` already in the graph (``stored``: id -> (hash, source)); an id that
    belongs to another source is an InputError naming both, raised before anything is written: the second
    file would otherwise take the first one's records over without a word."""
    clashes = [(d.id, stored[d.id][1], d.source) for d in items if d.id in stored and stored[d.id][1] != d.source]
    if clashes:
        first, theirs, ours = clashes[0]
        raise InputError(
            f"{len(clashes)} {kind} id(s) of {ours!r} already belong to source {theirs!r} (first: {first!r}); "
            f"give them other ids or `jurisgraph remove --source {theirs}` first"
        )
    return {item_id: stored_hash for item_id, (stored_hash, _) in stored.items()}


def pending(
    collection: str, items: Sequence[H], in_graph: Mapping[str, str], vectors: ChromaVectors
) -> tuple[list[H], int]:
    """The items either store lacks with their current content hash (``in_graph``: id -> hash in the graph),
    and how many of those neither store holds at all (the rest are updates or resumptions)."""
    in_vectors = {i: str(m.get("hash", "")) for i, m in vectors.metadata(collection, [d.id for d in items]).items()}
    todo = [d for d in items if in_graph.get(d.id) != d.content_hash or in_vectors.get(d.id) != d.content_hash]
    return todo, sum(1 for d in todo if d.id not in in_graph and d.id not in in_vectors)


def _write_changed(
    collection: str,
    items: Sequence[D],
    in_graph: Mapping[str, str],
    vectors: ChromaVectors,
    text_of: Callable[[D], str],
    metadata_of: Callable[[D], Metadata],
    write_graph: Callable[[Sequence[D]], None],
    store: GraphStore,
    batch_size: int,
    on_plan: Callable[[int], None],
    on_batch: Callable[[int], None],
) -> IngestReport:
    """Write the items whose content hash either store lacks (``in_graph``: id -> hash in the graph), a batch
    at a time, vectors first and graph last: the graph hash is what marks an item done, so a killed run
    resumes."""
    report = IngestReport(laws=sorted({d.source for d in items}), total=len(items))
    todo, report.added = pending(collection, items, in_graph, vectors)
    report.updated = len(todo) - report.added
    report.unchanged = len(items) - len(todo)
    on_plan(len(todo))
    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        vectors.upsert(collection, [d.id for d in batch], [text_of(d) for d in batch], [metadata_of(d) for d in batch])
        write_graph(batch)
        on_batch(len(batch))
    if todo:
        store.compact()
    return report


def ingest_consultations(
    consultations: Sequence[Consultation],
    vectors: ChromaVectors,
    repo: ConsultationRepository,
    batch_size: int,
    on_plan: Callable[[int], None] = lambda _total: None,
    on_batch: Callable[[int], None] = lambda _done: None,
) -> IngestReport:
    """Write new or changed consultations to the ``consultations`` collection (the question embedded, the
    cited articles and the answer's reasoning as metadata) and the graph (vectors first, graph last: the graph
    hash marks one done). An id another source already holds is refused before anything is written, naming
    both sources."""
    in_graph = own_ids("consultation", consultations, repo.stored([c.id for c in consultations]))
    return _write_changed(
        CONSULTATIONS,
        consultations,
        in_graph,
        vectors,
        lambda c: c.question,
        lambda c: {
            "source": c.source,
            "articles": ",".join(c.articles),
            "reasoning": c.reasoning,
            "half": half_of(c.id),
            "hash": c.content_hash,
        },
        repo.upsert,
        repo.store,
        batch_size,
        on_plan,
        on_batch,
    )


REMEMBERED_SOURCE = "remembered"
"""The source of answers a user chose to keep (``ask --remember``); ``jurisgraph remove --source remembered``."""


def remember_answer(
    question: str, response: str, article_ids: Sequence[str], vectors: ChromaVectors, repo: ConsultationRepository
) -> Consultation:
    """Store an answer a user accepted as an answered consultation citing ``article_ids``, so that later
    questions like it find those articles; asking the same question again replaces it."""
    if not article_ids:
        raise InputError("this answer has no Legal Basis: there is nothing for later questions to learn from it")
    digest = hashlib.sha256(question.encode("utf-8")).hexdigest()[:16]
    consultation = Consultation(
        f"{REMEMBERED_SOURCE}-{digest}", REMEMBERED_SOURCE, question, response, tuple(article_ids)
    )
    ingest_consultations([consultation], vectors, repo, batch_size=1)
    return consultation


def build_ontology(
    repo: OntologyRepository,
    extractor: FeatureExtractor,
    k: int,
    recompute: bool = False,
    on_plan: Callable[[int], None] = lambda _total: None,
    on_batch: Callable[[int], None] = lambda _done: None,
) -> dict[str, int]:
    """Extract features for cases that have none (all with ``recompute``), then rebuild kNN and communities.

    Features are stored per batch, so an interrupted LLM extraction keeps what it finished.
    """
    cases = repo.cases()
    stored = {} if recompute else repo.stored_features()
    todo = [(case_id, fact) for case_id, fact, done in cases if recompute or not done]
    on_plan(len(todo))
    batch: dict[str, Features] = {}
    for case_id, fact in todo:
        batch[case_id] = extractor(fact)
        if len(batch) >= 50:
            repo.write_features(batch)
            stored |= batch
            on_batch(len(batch))
            batch = {}
    if batch:
        repo.write_features(batch)
        stored |= batch
        on_batch(len(batch))
    ids = [case_id for case_id, _, _ in cases]
    empty: Features = {}
    counts = repo.rebuild_structure(ids, [stored.get(i, empty) for i in ids], k)
    repo.store.compact()
    return {"extracted": len(todo), **counts}


def remove_source(
    source: str,
    vectors: ChromaVectors,
    cases: CaseRepository,
    interpretations: InterpretationRepository,
    consultations: ConsultationRepository,
) -> tuple[str, int]:
    """Delete one source's nodes, edges and vectors and nothing else: a case or consultation file (its name
    without .jsonl) or an interpretation file (its file name, with its provisions). Returns what was removed and
    how many."""
    if count := consultations.sources().get(source, 0):
        vectors.delete_where(CONSULTATIONS, "source", source)
        consultations.delete_source(source)
        SourceRepository(consultations.store).forget("consultations", source)
        consultations.store.compact()
        return "consultations", count
    if count := cases.sources().get(source, 0):
        vectors.delete_where(CASES, "source", source)
        cases.delete_source(source)
        SourceRepository(cases.store).forget("cases", source)
        cases.store.compact()
        return "cases", count
    if ids := interpretations.ids_of_source(source):
        # Provisions and chunks first: a kill in between leaves nodes whose hash makes the next ingest rewrite them.
        statutes = StatuteRepository(interpretations.store)
        for title in interpretations.titles_of_source(source):
            delete_law(short_law_name(title), vectors, statutes)
        for interp_id in ids:
            vectors.delete_where(INTERPRETATIONS, "interpretation", interp_id)
        interpretations.delete(ids)
        interpretations.store.compact()
        return "interpretations", len(ids)
    known = sorted(cases.sources()) + sorted(consultations.sources()) + interpretations.sources()
    raise InputError(f"no source named {source!r}; sources: {listing(known, 20) or 'none'}")


def delete_law(law: str, vectors: ChromaVectors, repo: StatuteRepository) -> None:
    """Delete a law's articles from both stores, vectors first (a kill in between leaves graph nodes whose hash
    makes the next ingest write them again)."""
    vectors.delete_where(STATUTES, "law", law)
    repo.delete_law(law)


def document_text(article: Article) -> str:
    """What gets embedded and indexed: heading and chapter give the dense model the legal context."""
    return f"{article.heading} {article.chapter}\n{article.text}".strip()


def ingest_laws(
    laws: Sequence[LawInfo],
    vectors: ChromaVectors,
    repo: StatuteRepository,
    batch_size: int,
    db_path: Path | None = None,
    on_plan: Callable[[int], None] = lambda _total: None,
    on_batch: Callable[[int], None] = lambda _done: None,
    loaded: Mapping[str, list[Article]] | None = None,
    documents: Mapping[str, str] | None = None,
) -> IngestReport:
    """Load the laws from laws.db (or take their articles from ``loaded``, by short name, for a pack that
    has its own corpus) and write what is missing; ``on_batch`` gets the articles just written. ``documents``:
    the text an article is embedded as where not :func:`document_text` (an interpretation's provision, as its
    chunk was: the vector already computed is reused)."""
    documents = documents or {}
    report = IngestReport(laws=[law.short for law in laws])
    work: list[tuple[LawInfo, list[Article]]] = []
    for law in laws:
        articles = loaded[law.short] if loaded is not None else load_articles(law, db_path)
        todo, new = pending(STATUTES, articles, repo.article_hashes(law.short), vectors)
        report.total += len(articles)
        report.added += new
        report.updated += len(todo) - new
        report.unchanged += len(articles) - len(todo)
        work.append((law, todo))
    on_plan(sum(len(todo) for _, todo in work))
    repo.upsert_laws((law.short, law.full_name) for law in laws)
    for law, todo in work:
        for start in range(0, len(todo), batch_size):
            batch = todo[start : start + batch_size]
            # Vectors first: the graph hash is what marks a batch done, so it is written last.
            vectors.upsert(
                STATUTES,
                [a.id for a in batch],
                [documents.get(a.id) or document_text(a) for a in batch],
                [{"law": law.short, "number": a.number, "label": a.label, "hash": a.content_hash} for a in batch],
            )
            repo.upsert_articles(batch)
            on_batch(len(batch))
    if any(todo for _, todo in work):
        repo.store.compact()
    return report


def ingest_provisions(
    interpretations: Sequence[Interpretation],
    vectors: ChromaVectors,
    repo: StatuteRepository,
    batch_size: int,
    on_plan: Callable[[int], None] = lambda _total: None,
    on_batch: Callable[[int], None] = lambda _done: None,
) -> IngestReport:
    """The provisions of the interpretations in force, written as statute articles (one law per interpretation);
    those of an interpretation since repealed or replaced are deleted from both stores, so no basis quotes them."""
    in_force = [i for i in interpretations if not i.repealed_by]
    # A revision keeps its title: the law of a repealed version may be the version in force.
    offered = {short_law_name(i.title) for i in in_force}
    for law in {short_law_name(i.title) for i in interpretations if i.repealed_by} - offered:
        delete_law(law, vectors, repo)
    found = [provisions(i) for i in in_force]
    found = [(info, articles, texts) for info, articles, texts in found if articles]
    loaded = {info.short: articles for info, articles, _ in found}
    documents = {key: text for _, _, texts in found for key, text in texts.items()}
    return ingest_laws(
        [info for info, _, _ in found], vectors, repo, batch_size, None, on_plan, on_batch, loaded, documents
    )
