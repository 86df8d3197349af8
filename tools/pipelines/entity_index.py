"""Law GraphRAG indexing: extract entities and relations from statute chunks with the model, merge them,
summarise multi-description entities, find hierarchical Leiden communities and write their reports.

Every model result is cached on disk by the hash of what it was computed from (chunk text, descriptions,
packed report context), so a re-run costs nothing, adding a law costs only its chunks, and an interrupted
run resumes where it stopped. ``estimate`` gives the cost of a run before making it (``--dry-run``).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel

from prompts import render_prompt
from tools.atomic import write_text_atomic
from tools.errors import InputError, StructuredOutputError
from tools.kb.checklists import articles_of_laws
from tools.kb.communities import Cluster, hierarchical_leiden
from tools.kb.entity_graph import (
    ENTITY_TYPES,
    Chunk,
    CommunityReport,
    EntityGraphRepository,
    Extraction,
    MergedGraph,
    StoredCommunity,
    chunk_articles,
    merge_extractions,
    pack_community_context,
    report_text,
)
from tools.kb.statute_terms import lexical_graph
from tools.kb.statutes import StatuteRepository
from tools.law.articles import Article, parse_citations
from tools.llm.chat import Usage, failed_usage, invoke_structured, invoke_text
from tools.llm.tokens import count_tokens, truncate_tokens
from tools.retrieval.vectors import COMMUNITY_REPORTS, ENTITIES, ChromaVectors

ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass(frozen=True)
class IndexConfig:
    """Knobs of an indexing run (the CLI exposes them)."""

    extractor: Literal["lexical", "llm"] = "lexical"
    """How entities and relations are found: head-word terms and sentence co-occurrence
    (:mod:`tools.kb.statute_terms`, no model calls), or the model over token chunks as in the paper. Lexical is
    the default because a 1.5B model's extraction is slow and degenerate (see statute_terms); the model
    still writes every community report."""
    chunk_tokens: int = 600
    """Token budget of a chunk (GraphRAG's default is 300-1200; statutes are dense, so 600)."""
    max_cluster_size: int = 10
    """Communities larger than this are split again by Leiden, one level down."""
    max_levels: int = 2
    min_community_size: int = 2
    """Smaller communities get no report (a lone term has nothing to summarise)."""
    report_tokens: int = 1800
    """Token budget of a community report's context (entities, relations, sub-community reports)."""
    summary_tokens: int = 120
    """Merged descriptions longer than this are summarised by the model into one."""
    output_estimate: int = 600
    """Completion tokens assumed per extraction call when estimating a run."""
    max_output_tokens: int = 1600
    """Reply budget of extraction and report calls (their largest valid JSON is longer than a chat reply)."""
    retries: int = 2
    language: str = "zh"


@dataclass
class IndexReport:
    """What a run did (or, for an estimate, would do) and what it cost."""

    laws: list[str]
    extractor: str = "lexical"
    articles: int = 0
    chunks: int = 0
    cached_chunks: int = 0
    failed_chunks: list[str] = field(default_factory=list)
    entities: int = 0
    relations: int = 0
    dropped_relations: int = 0
    communities: int = 0
    cached_reports: int = 0
    calls: dict[str, int] = field(default_factory=lambda: {"extract": 0, "summarise": 0, "report": 0})
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    estimated: bool = False

    def charge(self, kind: str, usage: Usage) -> None:
        self.calls[kind] += int(usage.get("llm_calls", 0))
        self.prompt_tokens += int(usage.get("prompt_tokens", 0))
        self.completion_tokens += int(usage.get("completion_tokens", 0))

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class ResultCache:
    """Model results as JSON files under ``root/<kind>/<key>.json``; a file is written whole or not at all."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def get(self, kind: str, key: str) -> Any:
        path = self.root / kind / f"{key}.json"
        if not path.is_file():
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            return None  # a torn file from a killed run: recompute it

    def put(self, kind: str, key: str, value: Any) -> None:
        write_text_atomic(self.root / kind / f"{key}.json", json.dumps(value, ensure_ascii=False))


def _hash(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:20]


def law_articles(statutes: StatuteRepository, laws: Sequence[str]) -> list[list[Article]]:
    """The articles of every given law, in article order, one list per law."""
    out: list[list[Article]] = []
    for law in laws:
        ids = articles_of_laws(statutes, [law])
        if not ids:
            raise InputError(f"law {law!r} is not ingested: run `jurisgraph ingest --laws {law}` first")
        out.append(statutes.get_articles(ids))
    return out


def law_chunks(statutes: StatuteRepository, laws: Sequence[str], chunk_tokens: int) -> list[Chunk]:
    """The chunks of every given law, each law chunked on its own, in article order."""
    return [chunk for articles in law_articles(statutes, laws) for chunk in chunk_articles(articles, chunk_tokens)]


def _extraction_prompt(chunk: Chunk, language: str) -> str:
    return render_prompt("extract_entities", language, types="、".join(ENTITY_TYPES), chunk=chunk.text)


def estimate(statutes: StatuteRepository, laws: Sequence[str], config: IndexConfig, cache: ResultCache) -> IndexReport:
    """The model cost of indexing ``laws`` now. Model extraction: the chunks not yet cached, their prompt
    tokens and an assumed reply length (summaries and reports follow from what it finds). Lexical
    extraction costs nothing and is run here, so the report calls are counted exactly, with their prompt
    tokens before sub-community reports are substituted in."""
    report = IndexReport(laws=list(laws), extractor=config.extractor, estimated=True)
    if config.extractor == "lexical":
        graph = _lexical_graph(statutes, laws, report)
        report.entities, report.relations = len(graph.entities), len(graph.relations)
        hierarchy = _hierarchy(graph, config)
        for i in hierarchy.order:
            context, _ = pack_community_context(hierarchy.members(i), graph, config.report_tokens)
            report.communities += 1
            if cache.get("reports", _report_key(config, context)) is not None:
                report.cached_reports += 1
                continue
            report.calls["report"] += 1
            prompt = render_prompt("write_community_report", config.language, context=context)
            report.prompt_tokens += count_tokens(prompt)
            report.completion_tokens += config.output_estimate
        return report
    for chunk in law_chunks(statutes, laws, config.chunk_tokens):
        report.chunks += 1
        if cache.get("chunks", chunk.id) is not None:
            report.cached_chunks += 1
            continue
        report.calls["extract"] += 1
        report.prompt_tokens += count_tokens(_extraction_prompt(chunk, config.language))
        report.completion_tokens += config.output_estimate
    return report


def _lexical_graph(statutes: StatuteRepository, laws: Sequence[str], report: IndexReport) -> MergedGraph:
    """The lexical entity graph of the laws' articles (counted in ``report``)."""
    articles = [a for group in law_articles(statutes, laws) for a in group]
    report.articles = len(articles)
    return lexical_graph(articles)


def _report_key(config: IndexConfig, context: str) -> str:
    return _hash(config.language, context)


@dataclass(frozen=True)
class _Hierarchy:
    keys: list[str]
    """Entity keys; cluster members are indexes into this list."""
    clusters: list[Cluster]
    order: list[int]
    """The clusters to report on, children before parents (too small ones left out)."""

    def members(self, i: int) -> list[str]:
        return [self.keys[m] for m in self.clusters[i].members]


def _hierarchy(graph: MergedGraph, config: IndexConfig) -> _Hierarchy:
    keys = sorted(graph.entities)
    index = {k: i for i, k in enumerate(keys)}
    edges = [(index[r.source], index[r.target], r.weight) for r in graph.relations.values()]
    clusters = hierarchical_leiden(len(keys), edges, config.max_cluster_size, config.max_levels)
    order = sorted(range(len(clusters)), key=lambda i: -clusters[i].level)
    return _Hierarchy(keys, clusters, [i for i in order if len(clusters[i].members) >= config.min_community_size])


class EntityIndexer:
    """One indexing run over a set of laws."""

    def __init__(
        self,
        statutes: StatuteRepository,
        vectors: ChromaVectors,
        model: BaseChatModel,
        config: IndexConfig,
        cache: ResultCache,
        progress: Callable[[str, int, int], None] = lambda _stage, _done, _total: None,
    ) -> None:
        self.statutes = statutes
        self.vectors = vectors
        self.model = model
        self.config = config
        self.cache = cache
        self.progress = progress
        self.system = SystemMessage(content=render_prompt("system", config.language))

    def run(self, laws: Sequence[str]) -> IndexReport:
        started = time.perf_counter()
        report = IndexReport(laws=list(laws), extractor=self.config.extractor)
        if self.config.extractor == "lexical":
            graph = _lexical_graph(self.statutes, laws, report)
        else:
            graph = self._extract_all(laws, report)
        report.entities, report.relations = len(graph.entities), len(graph.relations)
        communities = self._communities(graph, report)
        repo = EntityGraphRepository(self.statutes.store)
        repo.replace(graph, communities)
        self._embed(graph, communities)
        report.communities = len(communities)
        report.seconds = round(time.perf_counter() - started, 1)
        return report

    def _extract_all(self, laws: Sequence[str], report: IndexReport) -> MergedGraph:
        """The paper's extraction: the model over token chunks, merged, long descriptions summarised."""
        chunks = law_chunks(self.statutes, laws, self.config.chunk_tokens)
        report.chunks = len(chunks)
        extractions = []
        for done, chunk in enumerate(chunks, 1):
            extraction = self._extract(chunk, report)
            if extraction is not None:
                extractions.append((chunk, extraction))
            self.progress("extract", done, len(chunks))
        graph = merge_extractions(extractions)
        report.dropped_relations = graph.dropped_relations
        self._summarise(graph, report)
        return graph

    def _structured(self, prompt: str, schema: type[ModelT]) -> tuple[ModelT, Usage]:
        return invoke_structured(
            self.model,
            [self.system, HumanMessage(content=prompt)],
            schema,
            self.config.retries,
            self.config.max_output_tokens,
        )

    def _extract(self, chunk: Chunk, report: IndexReport) -> Extraction | None:
        cached = self.cache.get("chunks", chunk.id)
        if cached is not None:
            report.cached_chunks += 1
            return Extraction.model_validate(cached)
        try:
            extraction, usage = self._structured(_extraction_prompt(chunk, self.config.language), Extraction)
        except StructuredOutputError as exc:
            # Not cached, so the next run retries this chunk; the rest of the index is still built.
            report.charge("extract", failed_usage(exc))
            report.failed_chunks.append(f"{chunk.article_ids[0]}…{chunk.article_ids[-1]}: {exc}")
            return None
        report.charge("extract", usage)
        self.cache.put("chunks", chunk.id, extraction.model_dump())
        return extraction

    def _summarise(self, graph: MergedGraph, report: IndexReport) -> None:
        pending = [
            e
            for e in graph.entities.values()
            if len(e.descriptions) > 1 and count_tokens(e.description) > self.config.summary_tokens
        ]
        for done, entity in enumerate(pending, 1):
            key = _hash(entity.name, *entity.descriptions)
            cached = self.cache.get("summaries", key)
            if cached is None:
                prompt = render_prompt(
                    "summarise_entity",
                    self.config.language,
                    entity=entity.name,
                    descriptions="\n".join(f"- {d}" for d in entity.descriptions),
                )
                text, usage = invoke_text(self.model, [self.system, HumanMessage(content=prompt)])
                report.charge("summarise", usage)
                cached = truncate_tokens(text.strip(), self.config.summary_tokens * 2)
                self.cache.put("summaries", key, cached)
            entity.description = str(cached)
            self.progress("summarise", done, len(pending))

    def _communities(self, graph: MergedGraph, report: IndexReport) -> list[StoredCommunity]:
        hierarchy = _hierarchy(graph, self.config)
        clusters = hierarchy.clusters
        # Bottom-up, so a parent can stand on its children's reports when its own elements do not fit.
        texts: dict[int, str] = {}
        stored: dict[int, StoredCommunity] = {}
        for done, i in enumerate(hierarchy.order, 1):
            cluster = clusters[i]
            members = hierarchy.members(i)
            children = sorted(cluster.children, key=lambda c: -len(clusters[c].members))
            context, _ = pack_community_context(
                members, graph, self.config.report_tokens, [texts[c] for c in children if c in texts]
            )
            community_report = self._report(context, report)
            if community_report is not None:
                texts[i] = report_text(community_report)
                member_articles = {a for k in members for a in graph.entities[k].article_ids}
                cited = [a for a in parse_citations(texts[i]) if a in member_articles]
                stored[i] = StoredCommunity(
                    id=f"L{cluster.level}-{i}",
                    level=cluster.level,
                    parent=None if cluster.parent is None else f"L{clusters[cluster.parent].level}-{cluster.parent}",
                    members=members,
                    report=community_report,
                    articles=cited or sorted(member_articles)[:5],
                )
            self.progress("report", done, len(hierarchy.order))
        return [stored[i] for i in sorted(stored)]

    def _report(self, context: str, report: IndexReport) -> CommunityReport | None:
        key = _report_key(self.config, context)
        cached = self.cache.get("reports", key)
        if cached is not None:
            report.cached_reports += 1
            return CommunityReport.model_validate(cached)
        prompt = render_prompt("write_community_report", self.config.language, context=context)
        try:
            community_report, usage = self._structured(prompt, CommunityReport)
        except StructuredOutputError as exc:
            report.charge("report", failed_usage(exc))
            return None
        report.charge("report", usage)
        self.cache.put("reports", key, community_report.model_dump())
        return community_report

    def _embed(self, graph: MergedGraph, communities: Sequence[StoredCommunity]) -> None:
        """Entity descriptions (local search's entry points) and reports (global search, routing)."""
        self.vectors.reset(ENTITIES)
        self.vectors.reset(COMMUNITY_REPORTS)
        entities = list(graph.entities.values())
        for start in range(0, len(entities), 64):
            batch = entities[start : start + 64]
            self.vectors.upsert(
                ENTITIES,
                [e.key for e in batch],
                [f"{e.name}：{e.description}" for e in batch],
                [{"name": e.name, "type": e.type} for e in batch],
            )
        if communities:
            self.vectors.upsert(
                COMMUNITY_REPORTS,
                [c.id for c in communities],
                [report_text(c.report) for c in communities],
                [{"level": c.level, "rating": c.report.rating, "articles": ",".join(c.articles)} for c in communities],
            )
