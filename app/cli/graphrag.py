"""Law GraphRAG over whole statutes: ``index`` builds the entity graph, ``search`` asks it."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from agents.context import GlobalSearchContext
from app.cli.console import console, err, print_panel, print_usage, progress_bars
from tools.errors import InputError

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
    chat = load_chat_model(model or services.settings.model, services.settings)
    with progress_bars() as progress:
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


def search(
    question: Annotated[str, typer.Argument(help="A question over the indexed statutes.")],
    mode: Annotated[str, typer.Option(help="global (community reports, map-reduce) or local (entities).")] = "global",
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole output as JSON.")] = False,
    model: Annotated[str | None, typer.Option(help="Chat model (default JURIS_MODEL or 'local').")] = None,
    settings: Annotated[list[str] | None, typer.Option("--set", help="Context setting key=value (repeatable).")] = None,
) -> None:
    """Answer a query-focused question over whole statutes (Law GraphRAG global or local search)."""
    from agents.state.global_search import GlobalSearchInput
    from app.cli.printing import print_basis, print_dropped
    from app.cli.runner import run_with_status
    from graphs.global_search import build_graph

    if mode not in ("global", "local"):
        raise InputError(f"--mode must be global or local, got {mode!r}")
    context = GlobalSearchContext().with_overrides(settings or [])
    if model:
        context.model = model
    live = not as_json and err.is_terminal
    out = run_with_status(build_graph(), GlobalSearchInput(question=question, mode=mode), context, live)  # type: ignore[arg-type]
    if as_json:
        console.print_json(json.dumps(out, ensure_ascii=False, default=str))
        return
    print_panel(out["answer"] or "（无回答）", f"回答 Answer ({mode})")
    print_basis(out["legal_basis"])
    print_dropped(out["dropped_citations"], "not in the context shown to the model")
    print_usage(out)
