"""Re-run only the Adjudicator on the evidence a judge run recorded (``jurisgraph replay``).

    jurisgraph replay benchmarks/runs/RUN/results.jsonl --task ljp --data DATA.jsonl \\
        --out benchmarks/runs/RUN-replay [--template VARIANT.md] [--model local] [--limit N]

Every `full` line that recorded its precedents (lines made before that field are skipped, and counted) has
its evidence rebuilt from the knowledge base as the judge numbered it: the audited articles verbatim, then
the precedents with their outcome. The Adjudicator is asked again with prompts/<lang>/adjudicate.md
(system `replay`, which shows how closely a replay reproduces the run) and, given --template, with that
variant (`replay-<file stem>`; a template takes $evidence, $fact, $proposed and $prejudged, the pre-judged charges
that survived the audit; with --variant-only the variant alone). The report puts both beside the recorded
`full`. A prompt change then costs one call per item instead of a whole judge run (about 30 s with the
local model, against about 75 s for a judgment): the way to try a prompt fix, such as one for a
second charge left out although its article was in the evidence.

With --reground no model is asked: the charges the Adjudicator wrote (kept and dropped, both recorded) go
through the current charge grounding again (system `regrounded`), and a judgment left without a supported
charge is anchored on the pre-judged charges the line recorded (`anchor_conviction`, off with --set
anchor_conviction=false). Every `full` line qualifies. Both are deterministic code after the model's last
call, so this is what the run makes with today's code.

The report shows every system the run recorded on the same items (`full`, `naive_rag`, ...) beside these.
Results are appended to OUT/results.jsonl, stamped with the commit, and resumed like `jurisgraph eval`.
Run it on the knowledge base the judge run used (JURIS_DATA_DIR), and never while another process has it
open.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

from agents.adjudicator import decide_by_code, decide_judgment, number_evidence
from agents.common.conviction import anchor_conviction, supported_charges
from agents.context import JudgeContext
from agents.context.experiment import MeasuredJudge, judge_switches
from agents.researcher import case_refs
from agents.state.judge import JudgeEvidence, ScoredCharge
from app.eval.report import render_report, summarise, write_outputs
from app.eval.runner import gold_of, read_results, run_systems
from app.eval.systems import Prediction, System, judgment_prediction, mark_known_citations
from app.eval.tasks import CHARGE_LABELS_NOTE, load_items, resolve_charge_labels
from tools.errors import InputError
from tools.kb.charges import ChargeRepository
from tools.services import get_services


def recorded_evidence(item_id: str, line: dict[str, Any]) -> list[JudgeEvidence]:
    """The evidence a recorded judgment was given, numbered again from the knowledge base."""
    services = get_services()
    found = {a.id: a for a in services.statutes.get_articles(line["evidence"])}
    if missing := [a for a in line["evidence"] if a not in found]:
        raise InputError(f"{item_id}: articles {missing} are not in this knowledge base")
    cases = case_refs(services, [(case_id, 0.0) for case_id in line["precedents"]], "replay")
    if len(cases) != len(line["precedents"]):
        raise InputError(f"{item_id}: some of its precedents are not in this knowledge base")
    return number_evidence([(a, found[a].heading, found[a].text) for a in line["evidence"]], cases)


def replayer(recorded: dict[str, Any], context: JudgeContext, template: Template | None) -> System:
    """A system for the eval runner: the Adjudicator on the evidence ``recorded[item id]`` names."""

    def run(item: dict[str, Any]) -> Prediction:
        line = recorded[item["id"]]["prediction"]
        evidence = recorded_evidence(item["id"], line)
        started = time.perf_counter()
        decided = decide_judgment(
            item["fact"],
            evidence,
            context,
            template,
            anchors=_anchors(line),
            # The charge scorer's proposal and candidates as recorded (older lines have none).
            proposed=line.get("proposed", []),
            scored=line.get("scored_charges", []),
        )
        return {
            **judgment_prediction(decided, evidence),
            "stages_ms": {"adjudicate": round((time.perf_counter() - started) * 1000, 1)},
        }

    return run


def coder(recorded: dict[str, Any], context: JudgeContext) -> System:
    """A system for the eval runner: the judgment ``profile=fast`` sets by code on the recorded evidence,
    convicting of the recorded proposal (older lines, which have none: of the recorded charges)."""

    def run(item: dict[str, Any]) -> Prediction:
        services = get_services()
        line = recorded[item["id"]]["prediction"]
        evidence = recorded_evidence(item["id"], line)
        proposed = line.get("proposed") or line["charges"]
        scored: list[ScoredCharge] = line.get("scored_charges") or [
            {"name": name, "probability": 1.0, "signals": {}, "articles": ids, "act": None}
            for name, ids in ChargeRepository(services.graph).articles_for(proposed).items()
        ]
        started = time.perf_counter()
        decided = decide_by_code(item["fact"], evidence, context, _anchors(line), proposed, scored)
        if decided is None:
            raise InputError(f"{item['id']}: code decides no conviction on this evidence")
        return {
            **judgment_prediction(decided, evidence),
            "stages_ms": {"adjudicate": round((time.perf_counter() - started) * 1000, 1)},
        }

    return run


def _anchors(line: dict[str, Any]) -> list[str]:
    """The pre-judged charges that survived the audit, as the line recorded them (older lines did not)."""
    return [name for name, _ in line.get("prejudged", [])]


def regrounder(recorded: dict[str, Any], context: JudgeContext) -> System:
    """A system for the eval runner: the recorded judgment of an item with its charges grounded again, and
    anchored on the pre-judgment when none is supported (as ``context.anchor_conviction`` says)."""

    def run(item: dict[str, Any]) -> Prediction:
        line = recorded[item["id"]]["prediction"]
        # An anchored line's charges are the pre-judgment's: the Adjudicator's own were all dropped.
        written = [] if line.get("anchored") else list(line["charges"])
        written += [d.removeprefix("charge:") for d in line["dropped"] if d.startswith("charge:")]
        repository = ChargeRepository(get_services().graph)
        evidence = set(line["evidence"])
        charges, dropped, grounded = supported_charges(written, evidence, repository)
        anchors = _anchors(line) if judge_switches(context).anchor_conviction else []
        charges, anchored = anchor_conviction(charges, anchors, evidence, repository)
        unchanged = [d for d in line["dropped"] if not d.startswith("charge:")]
        return {
            **line,
            "charges": charges,
            "dropped": unchanged + dropped,
            "grounded": grounded,
            "anchored": anchored,
        }

    return run


@dataclass(frozen=True)
class Replay:
    """What to replay and how (``jurisgraph replay``'s options)."""

    results: Path
    task: str
    data: Path
    out: Path
    template: Path | None = None
    variant_only: bool = False
    reground: bool = False
    by_code: bool = False
    model: str = "local"
    limit: int | None = None
    settings: tuple[str, ...] = ()


def replay(args: Replay) -> None:
    """Replay, write OUT's results, summary and report, and print the report."""
    if args.task not in ("ljp", "charge"):
        raise InputError(f"replay needs a judge run: --task ljp or charge, not {args.task!r}")
    if args.variant_only and not args.template:
        raise InputError("--variant-only needs --template")
    recorded = [r for r in read_results(args.results) if r.get("ok")]
    full = {r["item_id"]: r for r in recorded if r["system"] == "full"}
    every_item = load_items(args.task, args.data)
    context = MeasuredJudge(model=args.model).with_overrides(list(args.settings))
    if args.reground:
        chosen = {item["id"]: item for item in every_item if item["id"] in full}
        systems = {"regrounded": regrounder(full, context)}
        print(f"grounding the charges of {len(chosen)} full lines again")
    elif args.by_code:
        replayable = {i: r for i, r in full.items() if "precedents" in r["prediction"]}
        chosen = {item["id"]: item for item in every_item if item["id"] in replayable}
        systems = {"by_code": coder(replayable, context)}
        print(f"setting {len(chosen)} judgments by code")
    else:
        replayable = {i: r for i, r in full.items() if "precedents" in r["prediction"]}
        chosen = {item["id"]: item for item in every_item if item["id"] in replayable}
        print(f"{len(replayable)} of {len(full)} full lines recorded their precedents; replaying {len(chosen)}")
        systems = {} if args.variant_only else {"replay": replayer(replayable, context, None)}
        if args.template:
            template = Template(args.template.read_text(encoding="utf-8"))
            systems[f"replay-{args.template.stem}"] = replayer(replayable, context, template)
    items = list(chosen.values())[: args.limit]
    statutes = get_services().statutes
    results = run_systems(
        args.task,
        items,
        systems,
        args.out / "results.jsonl",
        annotate=lambda result, _item: mark_known_citations(result["prediction"], statutes),
        recorded_items=every_item,
    )
    # The recorded run, every system of it on the same items, as the baseline the new lines are read against.
    chosen = {item["id"]: item for item in items}
    baseline = [{**r, "gold": gold_of(chosen[r["item_id"]])} for r in recorded if r["item_id"] in chosen]
    every = [*baseline, *(r for r in results if r["item_id"] in chosen)]
    for r in every:
        recorded_line = full.get(r["item_id"], {})
        if r["system"] == "regrounded":  # what its run took, plus the grounding
            r["seconds"] += recorded_line["seconds"]
        elif r["system"] == "by_code":  # what its run took without the Adjudicator's call, plus the code
            adjudicator_ms = recorded_line["prediction"].get("stages_ms", {}).get("adjudicate", 0.0)
            r["seconds"] += recorded_line["seconds"] - adjudicator_ms / 1000
    resolved = resolve_charge_labels(every, ChargeRepository(get_services().graph))
    summary = summarise(args.task, every)
    if resolved:
        summary["notes"] = [CHARGE_LABELS_NOTE]
    summary.update(
        {
            "replayed_from": str(args.results),
            "template": str(args.template or ""),
            "model": "none (reground)" if args.reground else "none (by code)" if args.by_code else args.model,
        }
    )
    write_outputs(summary, args.out)
    print(render_report(summary))
