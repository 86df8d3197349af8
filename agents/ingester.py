"""Ingestion nodes: each loads one kind of source into both stores and reports what it did.

Progress goes to LangGraph's custom stream ({"stage", "total"} once, then {"stage", "advance"} per batch),
which the CLI renders as progress bars and Studio shows as events.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from agents.context import Context
from agents.state.common import trace_event
from agents.state.ingest import IngestState
from tools.corpus.cail import load_cases
from tools.corpus.charge_rules import load_charge_rules
from tools.corpus.consultations import load_consultations
from tools.corpus.india import load_acts, load_offences
from tools.corpus.interpretations import interpretation_files, mark_superseded, parse_interpretation
from tools.corpus.laws_db import list_laws, resolve_laws
from tools.corpus.regulations import load_regulations
from tools.errors import InputError
from tools.kb.cases import CaseRepository
from tools.kb.charges import ChargeRepository
from tools.kb.consultations import ConsultationRepository
from tools.kb.interpretations import InterpretationRepository
from tools.kb.offences import OffenceRepository
from tools.kb.ontology import FeatureExtractor, OntologyRepository, extract_lexical, llm_extractor
from tools.kb.sources import SourceRepository
from tools.llm.chat import load_chat_model
from tools.pipelines.ingestion import (
    REMEMBERED_SOURCE,
    build_ontology,
    ingest_cases,
    ingest_charges,
    ingest_consultations,
    ingest_interpretations,
    ingest_laws,
    ingest_provisions,
)
from tools.retrieval.vectors import CASES, COMMUNITY_REPORTS, CONSULTATIONS, ENTITIES, INTERPRETATIONS, STATUTES
from tools.services import get_services
from tools.stop import raise_if_stopped


def _progress(stage: str) -> tuple[Any, Any]:
    """Progress callbacks for one stage; each stored batch is also where a requested stop takes effect."""
    writer = get_stream_writer()

    def advance(n: int) -> None:
        writer({"stage": stage, "advance": n})
        raise_if_stopped()

    return (lambda total: writer({"stage": stage, "total": total}), advance)


def reset_stores(state: IngestState) -> dict[str, Any]:  # noqa: ARG001 (LangGraph passes every node its state)
    """Delete every collection and the whole graph (``reset``)."""
    started = time.perf_counter()
    services = get_services()
    for collection in (STATUTES, INTERPRETATIONS, CASES, CONSULTATIONS, ENTITIES, COMMUNITY_REPORTS):
        services.vectors.reset(collection)
    services.graph.clear()
    return {"trace": [trace_event("reset_stores", started)]}


def load_statutes(state: IngestState) -> dict[str, Any]:
    """Statutes of the configured pack: laws.db (the selected laws, or all current ones), or a pack's own
    corpus with its offence table."""
    started = time.perf_counter()
    services = get_services()
    on_plan, on_batch = _progress("statutes")
    batch = services.settings.ingest_batch_size
    pack = services.settings.pack_info
    if pack.corpus_dir:
        directory = Path(state.pack_dir) if state.pack_dir else pack.default_dir()
        acts = load_acts(directory)
        loaded = {info.short: articles for info, articles in acts}
        laws = [info for info, _ in acts]
        report = ingest_laws(laws, services.vectors, services.statutes, batch, None, on_plan, on_batch, loaded)
        offences = OffenceRepository(services.graph).upsert(load_offences(directory))
        reports = {"statutes": asdict(report), "offences": {"linked": offences}}
        return {"reports": reports, "trace": [trace_event("load_statutes", started, pack=pack.name, offences=offences)]}
    db = Path(state.db) if state.db else None
    available = list_laws(db)
    chosen = available if state.all_laws else resolve_laws(state.laws, available)
    report = ingest_laws(chosen, services.vectors, services.statutes, batch, db, on_plan, on_batch)
    done: dict[str, Any] = {"statutes": asdict(report)}
    if state.regulations:
        done["regulations"] = _load_regulations(Path(state.regulations), {law.short for law in available}, batch)
    return {"reports": done, "trace": [trace_event("load_statutes", started)]}


def _load_regulations(directory: Path, taken: set[str], batch: int) -> dict[str, Any]:
    """The administrative regulations in force, as statutes; a title a law already holds stays the law's."""
    services = get_services()
    found = load_regulations(directory, taken)
    on_plan, on_batch = _progress("regulations")
    loaded = {info.short: articles for info, articles in found.laws}
    infos = [info for info, _ in found.laws]
    report = ingest_laws(infos, services.vectors, services.statutes, batch, None, on_plan, on_batch, loaded)
    return {**asdict(report), "laws": len(infos), "expired": found.expired, "older": found.older}


def _interpretations_dir(state: IngestState) -> Path:
    directory = Path(state.interpretations)
    if not directory.is_dir():
        raise InputError(f"interpretations directory not found: {directory}")
    return directory


def link_charges(state: IngestState) -> dict[str, Any]:
    """Charges in force from the charge-name rules, linked to the Criminal Law articles defining them."""
    started = time.perf_counter()
    services = get_services()
    rules = load_charge_rules(_interpretations_dir(state))
    count = ingest_charges(rules, ChargeRepository(services.graph), services.statutes)
    report = {"charges": count, "aliases": len(rules.aliases), "rules": len(rules.sources)}
    return {"reports": {"charges": report}, "trace": [trace_event("link_charges", started, **report)]}


def load_interpretations(state: IngestState) -> dict[str, Any]:
    """Every interpretation of the directory: chunks to vectors, nodes and INTERPRETS edges to the graph; the
    provisions of those in force as statute articles."""
    started = time.perf_counter()
    services = get_services()
    parsed = [parse_interpretation(path) for path in interpretation_files(_interpretations_dir(state))]
    # An interpretation of a law laws.db no longer holds in force (婚姻法, 合同法, 担保法) fell with it.
    repealed = mark_superseded(parsed, {law.short for law in list_laws(Path(state.db) if state.db else None)})
    on_plan, on_batch = _progress("interpretations")
    report = ingest_interpretations(
        parsed,
        services.vectors,
        InterpretationRepository(services.graph),
        services.settings.ingest_batch_size,
        on_plan,
        on_batch,
    )
    # Then their provisions as statute articles: a basis cites 《…规定》第二十五条 as it cites a law's article.
    on_plan, on_batch = _progress("provisions")
    cited = ingest_provisions(
        parsed, services.vectors, services.statutes, services.settings.ingest_batch_size, on_plan, on_batch
    )
    return {
        "reports": {"interpretations": {**asdict(report), "repealed": repealed}, "provisions": asdict(cited)},
        "trace": [trace_event("load_interpretations", started)],
    }


def load_cases_file(state: IngestState) -> dict[str, Any]:
    """CAIL cases: the Fact graph and the ``cases`` collection, one source per file."""
    started = time.perf_counter()
    services = get_services()
    repo = CaseRepository(services.graph, ChargeRepository(services.graph))
    reports: dict[str, Any] = {}
    for path in state.cases:
        on_plan, on_batch = _progress(f"cases:{Path(path).stem}")
        cases = load_cases(Path(path))
        SourceRepository(services.graph).claim("cases", Path(path))
        report = ingest_cases(cases, services.vectors, repo, services.settings.ingest_batch_size, on_plan, on_batch)
        reports[f"cases:{Path(path).stem}"] = {
            **asdict(report),
            "relabelled": repo.relabel(cases),
            "charge_labels": asdict(repo.label_report(cases)),
        }
    return {"reports": reports, "trace": [trace_event("load_cases", started)]}


def load_consultations_file(state: IngestState) -> dict[str, Any]:
    """Answered consultations: nodes citing their articles and the ``consultations`` collection, one source
    per file; every file is validated before the first is written."""
    started = time.perf_counter()
    services = get_services()
    repo = ConsultationRepository(services.graph)
    loaded = [(Path(path).stem, load_consultations(Path(path))) for path in state.consultations]
    sources = SourceRepository(services.graph, reserved=frozenset({REMEMBERED_SOURCE}))
    for path in state.consultations:
        sources.claim("consultations", Path(path))
    reports: dict[str, Any] = {}
    for source, (consultations, uncited) in loaded:
        on_plan, on_batch = _progress(f"consultations:{source}")
        report = ingest_consultations(
            consultations, services.vectors, repo, services.settings.ingest_batch_size, on_plan, on_batch
        )
        reports[f"consultations:{source}"] = {**asdict(report), "uncited_lines": uncited}
    return {"reports": reports, "trace": [trace_event("load_consultations", started)]}


def build_case_ontology(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Four-dimension features for every case, kNN SIMILAR edges, Leiden communities at two levels."""
    started = time.perf_counter()
    services = get_services()
    if state.ontology == "lexical":
        extractor: FeatureExtractor = extract_lexical
    elif state.ontology == "llm":
        extractor, _ = llm_extractor(load_chat_model(runtime.context.model, services.settings))
    else:
        raise InputError(f"unknown feature extractor {state.ontology!r}: use lexical or llm")
    on_plan, on_batch = _progress("ontology")
    counts = build_ontology(
        OntologyRepository(services.graph), extractor, state.knn_k, on_plan=on_plan, on_batch=on_batch
    )
    return {"reports": {"ontology": counts}, "trace": [trace_event("build_ontology", started, **counts)]}
