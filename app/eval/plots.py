"""PNG plots of an evaluation: key metrics by system with 95% CI bars, and the latency distribution."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.eval.runner import Result

_KEY_METRICS = {
    "consult": ("citation_f1", "cited_in_kb_share", "hallucination_risk", "rouge_l"),
    "ljp": ("charge_accuracy", "article_f1", "term_log_score", "traceable_correct"),
    "charge": ("charge_accuracy", "charge_f1"),
    "retrieval": ("recall@1", "recall@5", "recall@10", "mrr"),
}


def _bars(summary: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """{series name: {metric: entry}}; retrieval series are retrievers, others systems."""
    series: dict[str, dict[str, dict[str, Any]]] = {}
    for system, entry in summary["systems"].items():
        if "retrievers" in entry:
            series.update(entry["retrievers"])
        elif "metrics" in entry:
            series[system] = entry["metrics"]
    return series


def write_plots(summary: dict[str, Any], results: Sequence[Result], out_dir: Path) -> list[Path]:
    """metrics.png and latency.png in ``out_dir``; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written: list[Path] = []
    series = _bars(summary)
    metrics = [m for m in _KEY_METRICS.get(summary["task"], ()) if any(m in s for s in series.values())]
    if series and metrics:
        fig, axes = plt.subplots(1, len(metrics), figsize=(3.2 * len(metrics), 3.2), squeeze=False)
        names = list(series)
        for ax, metric in zip(axes[0], metrics, strict=True):
            values = [series[n].get(metric, {}).get("value", 0.0) for n in names]
            cis = [series[n].get(metric, {}).get("ci95", [v, v]) for n, v in zip(names, values, strict=True)]
            errors = [
                [max(v - lo, 0) for v, (lo, _) in zip(values, cis, strict=True)],
                [max(hi - v, 0) for v, (_, hi) in zip(values, cis, strict=True)],
            ]
            ax.bar(names, values, yerr=errors, capsize=4, color="#4C72B0")
            ax.set_title(metric)
            ax.set_ylim(0, max(1.0, *(hi for _, hi in cis)))
            ax.tick_params(axis="x", rotation=30)
        fig.tight_layout()
        path = out_dir / "metrics.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    latencies: dict[str, list[float]] = {}
    for r in results:
        if r.get("ok"):
            latencies.setdefault(r["system"], []).append(float(r["seconds"]))
    if latencies:
        fig, ax = plt.subplots(figsize=(6, 3.2))
        ax.boxplot(list(latencies.values()), tick_labels=list(latencies))
        ax.set_ylabel("seconds per item")
        ax.set_title("latency")
        fig.tight_layout()
        path = out_dir / "latency.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written
