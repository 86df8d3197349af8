"""Fit LawSearch's source fusion on the tuning halves of retrieval runs.

    jurisgraph fit sources RUN_A:DATA_A.jsonl RUN_B:DATA_B.jsonl [--write]

Each RUN is a `jurisgraph eval --task retrieval` directory whose rows record every source LawSearch fuses (the
gold articles come from the data file). For each offset of OFFSETS, the weights of weighted reciprocal-rank
fusion are chosen by coordinate ascent over a grid; the offset and weights kept are those maximising the
mean over the files of R@5 on their tuning halves (each file counts once, whatever its size; a change must
gain MIN_GAIN). R@5 and R@10 of every source alone, of equal
weights and of the fitted fusion are printed for both halves. With ``--write`` the fusion replaces the shipped
``tools/retrieval/source_weights.json`` with its provenance (the runs, the data files' sha256, the half, the
commit), which LawSearch loads. A second fusion is fitted the same way without the reranker's ordering and
shipped beside it, for users whose reranker is off or not installed.

With the reranker's question adapter shipped, refit through ``jurisgraph fit adapter`` instead: runs recorded
with the adapter rank their tuning halves with an adapter learned on them, and a fusion fitted there trusts the
reranker too much (``fit adapter`` fits on cross-fitted rankings).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.law_search import CONSULTATION_SOURCES, RERANKED
from app.eval.metrics import recall_at_k
from app.eval.runner import read_results
from app.eval.tasks import HALVES, gold_articles, half_of, load_items
from tools.fitted import provenance, write_fitted
from tools.retrieval.hybrid import RRF_K
from tools.retrieval.source_weights import BUNDLED_WEIGHTS, WITHOUT_RERANKER, SourceFusion

SOURCES = ("bm25", "dense", "exact", "kg", "interpretations", "community_reports", "cases")
LATER_SOURCES = (*CONSULTATION_SOURCES, RERANKED)
"""What answered consultations add, and the reranker's ordering of every candidate."""
GRID = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
OFFSETS = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, RRF_K)
"""Reciprocal-rank offsets tried: 60 is the usual constant, which lets agreement between sources decide; a small
one lets each source's first hits decide."""
MIN_GAIN = 0.005
"""Least gain in the objective a weight change must bring: smaller ones are noise on halves of 104 items."""
DEPTH = 20
"""Candidates per source, as LawSearch fuses them (ConsultContext.candidates_per_retriever)."""
ROWS = {"cases": "routed_cases"}
"""Sources recorded under another row name: the ``cases`` row is every question's, the routed one is LawSearch's."""

Item = tuple[str, dict[str, list[str]], list[str]]
"""(half, the sources' rankings, gold article ids)."""


def recorded_rows(spec: str) -> Iterator[tuple[dict[str, Any], dict[str, list[str]], list[str]]]:
    """(item, the sources' recorded rankings, gold article ids) of each answered item of ``RUN:DATA`` with gold."""
    run, _, data = spec.partition(":")
    items = {str(i["id"]): i for i in load_items("retrieval", Path(data))}
    for row in read_results(Path(run) / "results.jsonl"):
        item = items.get(str(row["item_id"]))
        if not row.get("ok") or item is None or not (gold := gold_articles(item)):
            continue
        recorded = row["prediction"]["rankings"]
        yield item, {s: recorded.get(ROWS.get(s, s), [])[:DEPTH] for s in (*SOURCES, *LATER_SOURCES)}, gold


def load_run(spec: str) -> tuple[str, list[Item]]:
    loaded: list[Item] = [(half_of(str(item["id"])), rankings, gold) for item, rankings, gold in recorded_rows(spec)]
    return Path(spec.partition(":")[2]).stem, loaded


def recall(items: Sequence[Item], fusion: SourceFusion, k: int, half: str) -> float:
    """Mean R@k over one half of the fusion as LawSearch makes it, of the sources ``fusion`` weighs."""
    chosen = [({s: r[s] for s in fusion.weights}, g) for h, r, g in items if h == half]
    return statistics.fmean(recall_at_k([c.article_id for c in fusion.fuse(r, k)], g, k) for r, g in chosen)


def objective(runs: Mapping[str, Sequence[Item]], fusion: SourceFusion) -> float:
    """Mean over the files of R@5 on the tuning half: the evidence a consult answer starts from is the top 5."""
    return statistics.fmean(recall(items, fusion, 5, "tune") for items in runs.values())


def fit_weights(runs: Mapping[str, Sequence[Item]], start: SourceFusion, passes: int = 3) -> SourceFusion:
    """Coordinate ascent on the weights at ``start``'s offset."""
    fusion = start
    best = objective(runs, fusion)
    for _ in range(passes):
        improved = False
        for source in fusion.weights:
            for value in GRID:
                trial = SourceFusion({**fusion.weights, source: value}, fusion.offset)
                if (score := objective(runs, trial)) > best + MIN_GAIN:
                    best, fusion, improved = score, trial, True
        if not improved:
            break
    return fusion


def fit(runs: Mapping[str, Sequence[Item]], weights: Mapping[str, float]) -> SourceFusion:
    """The best fusion over OFFSETS, each with weights fitted from ``weights`` (a later offset must gain
    MIN_GAIN over the best so far)."""
    best: tuple[float, SourceFusion] | None = None
    for offset in OFFSETS:
        fusion = fit_weights(runs, SourceFusion(dict(weights), offset))
        score = objective(runs, fusion)
        if best is None or score > best[0] + MIN_GAIN:
            best = (score, fusion)
    assert best is not None
    return best[1]


def table(runs: Mapping[str, Sequence[Item]], rows: Mapping[str, SourceFusion]) -> str:
    head = " | ".join(f"{name} {half} R@5 / R@10" for name in runs for half in HALVES)
    lines = [f"| ranking | {head} |", "|---" * (1 + len(runs) * len(HALVES)) + "|"]
    for label, fusion in rows.items():
        cells = [
            f"{recall(items, fusion, 5, half):.3f} / {recall(items, fusion, 10, half):.3f}"
            for items in runs.values()
            for half in HALVES
        ]
        lines.append(f"| {label} | {' | '.join(cells)} |")
    return "\n".join(lines)


def fit_without_reranker(runs: Mapping[str, Sequence[Item]]) -> SourceFusion:
    """The fusion for users whose reranker is off or not installed."""
    return fit(runs, dict.fromkeys(SOURCES + CONSULTATION_SOURCES, 1.0))


def fit_sources(specs: Sequence[str], write: bool) -> SourceFusion:
    """Fit, print the table, and with ``write`` replace the shipped fusion (with its provenance)."""
    runs = dict(load_run(spec) for spec in specs)
    every = (*SOURCES, *LATER_SOURCES)
    equal = dict.fromkeys(every, 1.0)
    fitted = fit(runs, equal)
    plain = fit_without_reranker(runs)
    rows = {
        **{f"{s} alone": SourceFusion({s: 1.0}) for s in every},
        "before (no consultations)": SourceFusion(dict.fromkeys(SOURCES, 1.0)),
        "equal weights": SourceFusion(equal),
        f"equal weights, offset {fitted.offset:g}": SourceFusion(equal, fitted.offset),
        "fitted without the reranker": plain,
        "fitted": fitted,
    }
    print(table(runs, rows))
    if write:
        write_fusion(runs, specs, fitted, plain, "jurisgraph fit sources " + " ".join(specs))
    return fitted


def write_fusion(
    runs: Mapping[str, Sequence[Item]],
    specs: Sequence[str],
    fitted: SourceFusion,
    plain: SourceFusion,
    command: str,
    **details: Any,
) -> None:
    """Replace the shipped fusion by ``fitted`` and ``plain`` (without the reranker), with their provenance: the
    runs, their data files' sha256, ``command`` and the recall of each on both halves of ``runs``."""
    values = {
        "weights": dict(fitted.weights),
        "offset": fitted.offset,
        WITHOUT_RERANKER: {"weights": dict(plain.weights), "offset": plain.offset},
    }
    print(json.dumps(values, ensure_ascii=False))
    source = provenance(
        [Path(spec.partition(":")[2]) for spec in specs],
        "tune",
        command,
        objective="mean over the files of R@5 on their tuning halves",
        runs=[spec.partition(":")[0] for spec in specs],
        recall={
            label: {
                name: {half: round(recall(items, fusion, 5, half), 3) for half in HALVES}
                for name, items in runs.items()
            }
            for label, fusion in (("fitted", fitted), (WITHOUT_RERANKER, plain))
        },
        **details,
    )
    write_fitted(BUNDLED_WEIGHTS, values, source)
