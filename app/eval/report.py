"""Aggregate results into metrics with 95% bootstrap intervals, write summary.json and report.md, compare runs."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from app.eval.metrics import (
    bootstrap_ci,
    hallucination_risk,
    match_charges,
    micro_prf,
    paired_bootstrap,
    recall_at_k,
    reciprocal_rank,
    rouge_l,
    set_counts,
    term_log_score,
)
from app.eval.runner import Result

Metric = Callable[[Sequence[Result]], float]
RECALL_KS = (1, 5, 10)


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def _citation_prf(rs: Sequence[Result]) -> Any:
    return micro_prf(set_counts(r["prediction"]["cited"], r["gold"]["articles"]) for r in rs)


def _auth(rs: Sequence[Result]) -> float:
    cited = sum(len(r["prediction"]["cited"]) for r in rs)
    return sum(len(r["prediction"]["cited_in_kb"]) for r in rs) / cited if cited else 1.0


def _basis_verbatim(rs: Sequence[Result]) -> float:
    """Share of Legal Basis texts equal to the KB's article text (only graph systems write a Legal Basis)."""
    shown = sum(len(r["prediction"].get("basis", {})) for r in rs)
    return sum(len(r["prediction"].get("basis_verbatim", [])) for r in rs) / shown if shown else 1.0


def _supported_claims(rs: Sequence[Result]) -> float:
    """Share of an answer's checkable claims (penalties, amounts, charges) its basis states, over all items."""
    counts = [r["derived"]["claims"] for r in rs if "claims" in r.get("derived", {})]
    checkable = sum(c["supported"] + c["unsupported"] for c in counts)
    return sum(c["supported"] for c in counts) / checkable if checkable else 1.0


def _derived_mean(key: str) -> Metric:
    """Mean of a derived per-item value over the items that have one (:mod:`app.eval.checks`)."""
    return lambda rs: _mean([float(r["derived"][key]) for r in rs if r.get("derived", {}).get(key) is not None])


def _cost_metrics() -> dict[str, Metric]:
    return {
        "latency_s": lambda rs: statistics.median(r["seconds"] for r in rs) if rs else 0.0,
        "llm_calls": lambda rs: _mean([r["prediction"]["usage"]["llm_calls"] for r in rs]),
        "prompt_tokens": lambda rs: _mean([r["prediction"]["usage"]["prompt_tokens"] for r in rs]),
        "completion_tokens": lambda rs: _mean([r["prediction"]["usage"]["completion_tokens"] for r in rs]),
        # Where the model reports no cache (remote providers, runs before the ledger had it), every prompt
        # token counts as evaluated.
        "prompt_tokens_evaluated": lambda rs: _mean(
            [
                r["prediction"]["usage"]["prompt_tokens"] - r["prediction"]["usage"].get("cached_prompt_tokens", 0)
                for r in rs
            ]
        ),
    }


def _citation_metrics(prefix: str) -> dict[str, Metric]:
    return {
        f"{prefix}_precision": lambda rs: _citation_prf(rs).precision,
        f"{prefix}_recall": lambda rs: _citation_prf(rs).recall,
        f"{prefix}_f1": lambda rs: _citation_prf(rs).f1,
        "cited_in_kb_share": _auth,
        "hallucination_risk": lambda rs: hallucination_risk(_citation_prf(rs).precision, _auth(rs)),
    }


def _opinion(prediction: dict[str, Any]) -> str:
    """Response and Legal Basis as one text in the reference answers' form; a baseline's answer as it is."""
    basis = "".join(prediction.get("basis", {}).values())
    return f"回答:{prediction['answer']}" + (f"法律依据:{basis}" if basis else "")


def _consult_metrics(results: Sequence[Result], judge_threshold: float) -> dict[str, Metric]:
    # ROUGE-L is quadratic in answer length: score each item once, not once per bootstrap round.
    rouge = {id(r): rouge_l(r["prediction"]["answer"], r["gold"].get("answer", "")) for r in results}
    metrics: dict[str, Metric] = {
        **_citation_metrics("citation"),
        "rouge_l": lambda rs: _mean([rouge[id(r)] for r in rs]),
    }
    # The whole opinion a user reads, written as the reference answers are (回答:…法律依据:…): a graph's
    # Response alone leaves out the Legal Basis texts the references quote.
    opinion = {id(r): rouge_l(_opinion(r["prediction"]), r["gold"].get("answer", "")) for r in results}
    metrics["rouge_l_opinion"] = lambda rs: _mean([opinion[id(r)] for r in rs])
    if any("basis" in r["prediction"] for r in results):
        metrics["basis_verbatim_share"] = _basis_verbatim
    if any("claims" in r.get("derived", {}) for r in results):
        metrics["supported_claim_share"] = _supported_claims
    if any("judge" in r for r in results):
        metrics["judge_mean"] = lambda rs: _mean([r["judge"]["mean"] for r in rs if "judge" in r])
        metrics["judge_pass_rate"] = lambda rs: _mean(
            [float(r["judge"]["mean"] >= judge_threshold) for r in rs if "judge" in r]
        )
    return metrics | _cost_metrics()


def charges_exact(r: Result) -> bool:
    """Whether a judgment's charges are exactly the gold set (the ``charge_accuracy`` of one item)."""
    tp, predicted, gold = match_charges(r["prediction"]["charges"], r["gold"]["charges"])
    return tp == predicted == gold


def _traceable(r: Result) -> bool:
    """LegalGraphRAG A.5: the charge is right and every gold article was in the evidence the system used."""
    return charges_exact(r) and set(r["gold"]["articles"]) <= set(r["prediction"].get("evidence", []))


Verdict = dict[str, Any]


def _verdict_share(
    rs: Sequence[Result], pool: Callable[[Result, Verdict], bool], counted: Callable[[Verdict], bool]
) -> float:
    """Share of the audit verdicts selected by ``pool`` for which ``counted`` holds, over all items at once:
    an item audits only a few articles."""
    verdicts = [v for r in rs for v in r["prediction"].get("verdicts", []) if pool(r, v)]
    return sum(map(counted, verdicts)) / len(verdicts) if verdicts else 0.0


def _pruned(verdict: Verdict) -> bool:
    return not verdict["applicable"]


def _is_gold(r: Result, verdict: Verdict) -> bool:
    return verdict["article_id"] in r["gold"]["articles"]


AUDIT_METRICS: dict[str, Metric] = {
    # The audit's errors: correct law removed (lower is better)…
    "audit_gold_pruned": lambda rs: _verdict_share(rs, _is_gold, _pruned),
    # …and its use: wrong candidates removed before the Adjudicator reads them (higher is better).
    "audit_other_pruned": lambda rs: _verdict_share(rs, lambda r, v: not _is_gold(r, v), _pruned),
    # Articles kept only because no usable checklist could be made or answered.
    "audit_unverified": lambda rs: _verdict_share(rs, lambda _r, _v: True, lambda v: v["decided_by"] == "unverified"),
}
"""How the auditor's verdicts compare with the gold articles (ljp items name them), for systems that audit."""


def _fixed_term(rs: Sequence[Result]) -> list[Result]:
    """The items whose gold sentence is a number of months: ljp_dev gives some none (ljp-69) and some a
    label instead ("刑期:无期", ljp-114), which a months error cannot be taken against."""
    return [r for r in rs if isinstance(r["gold"].get("term_months"), int)]


def _term_log_score(rs: Sequence[Result]) -> float:
    return term_log_score([r["prediction"]["term_months"] for r in rs], [r["gold"]["term_months"] for r in rs])


def _judgment_metrics(task: str, results: Sequence[Result] = (), audited: bool = False) -> dict[str, Metric]:
    metrics: dict[str, Metric] = {
        "charge_accuracy": lambda rs: _mean([float(charges_exact(r)) for r in rs]),
        "charge_f1": lambda rs: (
            micro_prf(match_charges(r["prediction"]["charges"], r["gold"]["charges"]) for r in rs).f1
        ),
    }
    if any("derived" in r for r in results):
        metrics |= {
            "lawbench_charge_f1": _derived_mean("lawbench_charge_f1"),
            "lawbench_charge_abstention": _derived_mean("lawbench_charge_abstained"),
        }
        if task == "ljp":
            metrics |= {
                "lawbench_article_f1": _derived_mean("lawbench_article_f1"),
                "lawbench_article_abstention": _derived_mean("lawbench_article_abstained"),
                "term_in_range_share": _derived_mean("term_in_range"),
            }
    if task == "ljp":
        metrics |= {
            **_citation_metrics("article"),
            "term_mae_months": lambda rs: _mean(
                [abs(r["prediction"]["term_months"] - r["gold"]["term_months"]) for r in _fixed_term(rs)]
            ),
            "term_log_score": lambda rs: _term_log_score(_fixed_term(rs)),
            "traceable_correct": lambda rs: _mean([float(_traceable(r)) for r in rs]),
        }
        if audited:
            metrics |= AUDIT_METRICS
    return metrics | _cost_metrics()


def _retrieval_metrics(retriever: str) -> dict[str, Metric]:
    def ranked(r: Result) -> list[str]:
        return list(r["prediction"]["rankings"].get(retriever, []))

    def cited(rs: Sequence[Result]) -> list[Result]:
        # An item whose answer cites no article has nothing to find: counted, it would be found in full.
        return [r for r in rs if r["gold"]["articles"]]

    metrics: dict[str, Metric] = {
        f"recall@{k}": (lambda rs, k=k: _mean([recall_at_k(ranked(r), r["gold"]["articles"], k) for r in cited(rs)]))  # type: ignore[misc]
        for k in RECALL_KS
    }
    metrics["mrr"] = lambda rs: _mean([reciprocal_rank(ranked(r), r["gold"]["articles"]) for r in cited(rs)])
    return metrics


_HEADLINE = {"consult": "citation_f1", "ljp": "charge_accuracy", "charge": "charge_accuracy"}


def headline(task: str, results: Sequence[Result]) -> str:
    """A short running score per system for progress bars (cheap: one metric, no bootstrap)."""
    by_system: dict[str, list[Result]] = {}
    for r in results:
        if r.get("ok"):
            by_system.setdefault(r["system"], []).append(r)
    parts = []
    for system, rs in by_system.items():
        if task == "retrieval":
            parts.append(f"fused R@5 {_retrieval_metrics('fused')['recall@5'](rs):.2f}")
        elif task == "consult":
            parts.append(f"{system} cite-F1 {_citation_prf(rs).f1:.2f}")
        else:
            parts.append(f"{system} {_HEADLINE[task]} {_judgment_metrics(task)[_HEADLINE[task]](rs):.2f}")
    return ", ".join(parts)


def _score(rs: Sequence[Result], metrics: dict[str, Metric], with_ci: bool) -> dict[str, Any]:
    scored: dict[str, Any] = {}
    for name, metric in metrics.items():
        entry: dict[str, Any] = {"value": round(metric(rs), 4)}
        if with_ci and rs:
            low, high = bootstrap_ci(rs, metric)  # type: ignore[arg-type]
            entry["ci95"] = [round(low, 4), round(high, 4)]
        scored[name] = entry
    return scored


def summarise(
    task: str, results: Sequence[Result], with_ci: bool = True, judge_threshold: float = 7.0
) -> dict[str, Any]:
    """Metrics per system (per retriever for the retrieval task), failures listed with their reasons.

    ``judge_threshold``: an answer PASSes when its mean judge score (0-10) reaches it.
    """
    by_system: dict[str, list[Result]] = {}
    for r in results:
        by_system.setdefault(r["system"], []).append(r)
    summary: dict[str, Any] = {"task": task, "judge_threshold": judge_threshold, "systems": {}}
    for system, rs in by_system.items():
        ok = [r for r in rs if r["ok"]]
        entry: dict[str, Any] = {
            "items": len(rs),
            "failures": [{"item_id": r["item_id"], "error": r["error"]} for r in rs if not r["ok"]],
            # Rows recorded before the stamp existed count as "unknown".
            "code_versions": dict(Counter(r.get("code", "unknown") for r in rs)),
        }
        stages: dict[str, list[float]] = {}
        for r in ok:
            for stage, ms in r["prediction"].get("stages_ms", {}).items():
                stages.setdefault(stage, []).append(float(ms))
        if stages:
            entry["stage_median_ms"] = {stage: round(statistics.median(v), 1) for stage, v in stages.items()}
        if task == "retrieval":
            retrievers = sorted({name for r in ok for name in r["prediction"]["rankings"]})
            entry["retrievers"] = {name: _score(ok, _retrieval_metrics(name), with_ci) for name in retrievers}
        else:
            entry["metrics"] = _score(ok, _metrics_for(task, ok, judge_threshold), with_ci)
        summary["systems"][system] = entry
    if with_ci and (paired := paired_comparison(task, results, judge_threshold)):
        summary["paired"] = paired
    return summary


PAIRED = ("full", ("naive_rag", "no_rag"))
"""The system compared item by item with each baseline present in a run."""


def _metrics_for(task: str, results: Sequence[Result], judge_threshold: float) -> dict[str, Metric]:
    if task == "consult":
        return _consult_metrics(results, judge_threshold)
    return _judgment_metrics(task, results, any(r["prediction"].get("verdicts") for r in results))


def paired_comparison(
    task: str, results: Sequence[Result], judge_threshold: float = 7.0, compared: tuple[str, Sequence[str]] = PAIRED
) -> dict[str, Any]:
    """``full`` (or ``compared``'s first system) minus each baseline on the items both answered, every metric
    with its 95% paired bootstrap interval (a difference whose interval excludes 0 is not sampling noise)."""
    system, baselines = compared
    ok = [r for r in results if r.get("ok")]
    mine = {r["item_id"]: r for r in ok if r["system"] == system}
    out: dict[str, Any] = {}
    for baseline in baselines:
        theirs = {r["item_id"]: r for r in ok if r["system"] == baseline}
        pairs = [(theirs[i], mine[i]) for i in mine if i in theirs]
        if not pairs or task == "retrieval":
            continue
        metrics = _metrics_for(task, [r for pair in pairs for r in pair], judge_threshold)
        entry: dict[str, Any] = {"items": len(pairs)}
        for name, metric in metrics.items():
            value, (low, high) = paired_bootstrap(pairs, metric)  # type: ignore[arg-type]
            entry[name] = {"value": round(value, 4), "ci95": [round(low, 4), round(high, 4)]}
        out[f"{system} - {baseline}"] = entry
    return out


def _fmt(entry: dict[str, Any]) -> str:
    ci = entry.get("ci95")
    return f"{entry['value']:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def render_report(summary: dict[str, Any]) -> str:
    """Markdown tables of a summary."""
    lines = [f"# Evaluation: {summary['task']}", "", *[f"{note}\n" for note in summary.get("notes", [])]]
    for system, entry in summary["systems"].items():
        lines += [f"## {system} ({entry['items']} items, {len(entry['failures'])} failed)", ""]
        if len(versions := entry.get("code_versions", {})) > 1:
            mixed = ", ".join(f"{code} ({n})" for code, n in versions.items())
            lines += [f"Rows from more than one code version: {mixed}.", ""]
        tables = entry.get("retrievers") or {"": entry.get("metrics", {})}
        for retriever, metrics in tables.items():
            if retriever:
                lines += [f"### {retriever}", ""]
            lines += ["| metric | value [95% CI] |", "|---|---|"]
            lines += [f"| {name} | {_fmt(value)} |" for name, value in metrics.items()]
            lines.append("")
        if entry.get("stage_median_ms"):
            lines.append(
                "Median time per stage: "
                + ", ".join(f"{stage} {ms / 1000:.1f}s" for stage, ms in entry["stage_median_ms"].items())
            )
            lines.append("")
        for failure in entry["failures"]:
            lines.append(f"- failed {failure['item_id']}: {failure['error']}")
    for pair, entry in summary.get("paired", {}).items():
        lines += [f"## Paired: {pair} ({entry['items']} items, 95% paired bootstrap)", ""]
        lines += ["| metric | difference [95% CI] |", "|---|---|"]
        lines += [f"| {name} | {_fmt(value)} |" for name, value in entry.items() if name != "items"]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write_outputs(summary: dict[str, Any], out_dir: Path) -> None:
    (out_dir / "summary.json").write_text(json.dumps(summary, ensure_ascii=False, indent=2), encoding="utf-8")
    (out_dir / "report.md").write_text(render_report(summary), encoding="utf-8")


def _flatten(summary: dict[str, Any]) -> dict[str, float]:
    flat: dict[str, float] = {}
    for system, entry in summary["systems"].items():
        for retriever, metrics in (entry.get("retrievers") or {"": entry.get("metrics", {})}).items():
            for name, value in metrics.items():
                flat[".".join(p for p in (system, retriever, name) if p)] = value["value"]
    return flat


def compare(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, float | None, float | None, float | None]]:
    """(metric, A, B, B - A) for the union of metrics of two summaries."""
    fa, fb = _flatten(a), _flatten(b)
    rows = []
    for key in sorted(set(fa) | set(fb)):
        va, vb = fa.get(key), fb.get(key)
        rows.append((key, va, vb, round(vb - va, 4) if va is not None and vb is not None else None))
    return rows
