"""``eval``: systems measured on a task file, or two summaries compared."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from app.cli.console import console, progress_bars
from tools.errors import InputError

if TYPE_CHECKING:
    from agents.context import ConsultContext
    from app.eval.systems import EvalContexts


def eval_cmd(
    task: Annotated[str | None, typer.Option(help="ljp, charge, consult or retrieval.")] = None,
    data: Annotated[Path | None, typer.Option(help="Task file (JSONL).")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N items (of --half, when given).")] = None,
    half: Annotated[
        str | None, typer.Option(help="Only the items of one half of the file: tune (choose on it) or report.")
    ] = None,
    systems: Annotated[
        str, typer.Option(help="Comma-separated: full, full-no-* ablations, naive_rag, no_rag.")
    ] = "full,naive_rag,no_rag",
    model: Annotated[
        str | None, typer.Option(help="Chat model for every system; for retrieval, the Researcher's pre-judgment.")
    ] = None,
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
    from app.eval.systems import EvalContexts
    from app.eval.tasks import load_items, select_items

    if compare:
        print_comparison(*compare)
        return
    if not task or not data:
        raise InputError("eval needs --task and --data (or --compare A B)")
    contexts = EvalContexts.from_settings(settings or [], model)
    names = [name.strip() for name in systems.split(",") if name.strip()]
    every_item = load_items(task, data)
    items = select_items(every_item, half, limit)
    out_dir = out or Path("eval-runs") / time.strftime("%Y%m%d-%H%M%S")
    run = EvalRun(task, data, limit, half, out_dir, contexts.consult, judge_model)
    results = run.measure(items, every_item, build_runners(task, names, contexts, depth, model))
    run.report(results, judge_threshold, settings)


def print_comparison(a_path: Path, b_path: Path) -> None:
    """Every metric of two summary.json files side by side, with B - A."""
    from app.eval.report import compare as compare_summaries

    a, b = (json.loads(p.read_text(encoding="utf-8")) for p in (a_path, b_path))
    console.print(f"A = {a_path}\nB = {b_path}")
    table = Table("metric", "A", "B", "B - A")
    for key, va, vb, delta in compare_summaries(a, b):
        table.add_row(key, *("" if v is None else f"{v:.4f}" for v in (va, vb, delta)))
    console.print(table)


def build_runners(task: str, names: list[str], contexts: EvalContexts, depth: int, model: str | None) -> dict[str, Any]:
    """The systems to run, by name: the retrieval probe, the consult systems, or the judgment systems."""
    from app.eval.systems import consult_system, judgment_system, retrieval_system

    if task == "retrieval":
        return {"retrieval": retrieval_system(depth, contexts, model)}
    if task == "consult":
        return {name: consult_system(name, contexts.consult) for name in names}
    # The judgment baselines read as many articles as the consult graph's law search adds (top_k).
    return {name: judgment_system(task, name, contexts.judge, contexts.consult.top_k) for name in names}


@dataclass
class EvalRun:
    """One eval run: its items, where it writes, and how its results are annotated and summarised."""

    task: str
    data: Path
    limit: int | None
    half: str | None
    out_dir: Path
    context: ConsultContext
    """The consult graph's settings (the judge model's prompt language and retries)."""
    judge_model: str | None

    def measure(
        self, items: list[dict[str, Any]], every_item: list[dict[str, Any]], runners: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """Run every system on every item not yet recorded in the run dir, with a progress bar (``every_item``:
        the whole task file, whose items a resumed run may have recorded)."""
        from app.eval.report import headline
        from app.eval.runner import read_results, run_systems

        seen: list[dict[str, Any]] = []
        with progress_bars() as progress:
            bar = progress.add_task(f"{self.task}: 0 failed", total=len(items) * len(runners))
            planned = {(item["id"], name) for item in items for name in runners}
            recorded = {(r["item_id"], r["system"]) for r in read_results(self.out_dir / "results.jsonl")}
            progress.update(bar, completed=len(planned & recorded))

            def on_result(result: dict[str, Any]) -> None:
                seen.append(result)
                failed = sum(1 for r in seen if not r["ok"])
                progress.update(
                    bar, advance=1, description=f"{self.task}: {headline(self.task, seen)}; {failed} failed"
                )

            path = self.out_dir / "results.jsonl"
            return run_systems(self.task, items, runners, path, self.annotate, on_result, every_item)

    def annotate(self, result: dict[str, Any], item: dict[str, Any]) -> None:
        """Mark which cited ids the knowledge base holds; with a judge model, score consult answers."""
        from app.eval.systems import judge_answer, mark_known_citations
        from tools.services import get_services

        mark_known_citations(result["prediction"], get_services().statutes)
        if self.judge_model and self.task == "consult":
            result["judge"] = judge_answer(item, result["prediction"]["answer"], self.judge_model, self.context)

    def report(self, results: list[dict[str, Any]], judge_threshold: float, settings: list[str] | None) -> None:
        """summary.json, report.md and the plots in the run dir; the report on stdout."""
        from app.eval.checks import derive_checks
        from app.eval.plots import write_plots
        from app.eval.report import summarise, write_outputs
        from app.eval.tasks import CHARGE_LABELS_NOTE, load_items, resolve_charge_labels
        from tools.kb.charges import ChargeRepository
        from tools.services import get_services

        services = get_services()
        charges = ChargeRepository(services.graph)
        resolved = self.task in ("ljp", "charge") and resolve_charge_labels(results, charges)
        items = {item["id"]: item for item in load_items(self.task, self.data)}
        derive_checks(self.task, results, items, services.statutes, charges)
        summary = summarise(self.task, results, judge_threshold=judge_threshold)
        if resolved:
            summary["notes"] = [CHARGE_LABELS_NOTE]
        summary.update(
            {
                "data": str(self.data),
                "model": self.context.model,
                "judge_model": self.judge_model,
                "limit": self.limit,
                "half": self.half,
                "settings": settings,
            }
        )
        write_outputs(summary, self.out_dir)
        write_plots(summary, results, self.out_dir)
        console.print((self.out_dir / "report.md").read_text(encoding="utf-8"))
        console.print(f"Results in {self.out_dir}")


def replay_cmd(
    results: Annotated[Path, typer.Argument(help="results.jsonl of a judge run (ljp or charge task).")],
    task: Annotated[str, typer.Option(help="ljp or charge: the run's task.")],
    data: Annotated[Path, typer.Option(help="The data file the run was made on.")],
    out: Annotated[Path, typer.Option(help="Output dir; an existing one is resumed.")],
    template: Annotated[Path | None, typer.Option(help="A variant of prompts/<lang>/adjudicate.md.")] = None,
    variant_only: Annotated[bool, typer.Option(help="With --template: ask only the variant.")] = False,
    reground: Annotated[bool, typer.Option(help="No model: ground the recorded charges again.")] = False,
    by_code: Annotated[bool, typer.Option(help="No model: the judgment profile=fast sets by code.")] = False,
    model: Annotated[str, typer.Option(help="Chat model of the Adjudicator.")] = "local",
    limit: Annotated[int | None, typer.Option(help="Only the first N replayable items.")] = None,
    settings: Annotated[list[str] | None, typer.Option("--set", help="Judge setting key=value (repeatable).")] = None,
) -> None:
    """Re-run only the Adjudicator (or the code after it) on the evidence a judge run recorded."""
    from app.eval.replay import Replay, replay

    options = (template, variant_only, reground, by_code, model, limit, tuple(settings or ()))
    replay(Replay(results, task, data, out, *options))
