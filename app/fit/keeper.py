"""Fit the basis keeper (which evidence articles become a consultation's Legal Basis) on retrieval runs.

    jurisgraph fit keeper RUN_A:DATA_A.jsonl RUN_B:DATA_B.jsonl [--write]

Each RUN is a `jurisgraph eval --task retrieval` directory: its rows record every source's ranking, from which the
candidates (the shipped fusion's top ``top_k``, as LawSearch makes its evidence) and their features are computed
exactly as a consultation computes them. One L2-regularised logistic model per variant (``basis_keeper.VARIANTS``)
is fitted on the tuning halves of all files pooled; its threshold is the lowest at which basis precision (share of
kept articles a lawyer cited) over the tuning halves pooled reaches PRECISION_TARGET, so that coverage (share of
questions with a cited article kept) is the most that precision allows. A run recording only a report half is
measured, not fitted on. Both halves are printed, with the precision/coverage curve of every threshold.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.context import ConsultContext
from agents.law_search import CONSULTATION_SOURCES
from app.eval.tasks import HALVES, half_of
from app.fit.logistic import l2_logistic
from app.fit.sources import recorded_rows
from tools.fitted import provenance, write_fitted
from tools.retrieval.basis_keeper import (
    BUNDLED_KEEPER,
    VARIANTS,
    BasisKeeper,
    KeeperModel,
    Support,
    candidate_features,
)
from tools.retrieval.source_weights import fitted_source_fusion

C = 1.0
"""Inverse L2 penalty: on the tuning halves 0.3 to 10 changed no weight's sign and precision by under 0.01."""
THRESHOLDS = tuple(round(0.1 + 0.025 * i, 3) for i in range(25))
MAX_KEPT = 3
"""Most articles one answer keeps: consultations cite 1.8 articles on average (stard_train)."""
POOL = ConsultContext.top_k
"""Candidates per question: the evidence one law search adds."""


@dataclass(frozen=True)
class Question:
    """One measured question as one variant sees it: its half, its candidates' features and which candidates a
    lawyer cited."""

    half: str
    pool: list[str]
    features: list[dict[str, float]]
    gold: set[str]


Runs = Mapping[str, Sequence[Question]]
"""Per data file, its questions."""


def available(rankings: Mapping[str, list[str]], variant: str) -> dict[str, list[str]]:
    """The rankings a knowledge base of ``variant`` would have produced: the sources it lacks left out."""
    features = set(VARIANTS[variant])
    lacking = {s for s in ("reranked", *CONSULTATION_SOURCES) if s not in features}
    return {s: r for s, r in rankings.items() if s not in lacking and (s != "reranked" or r)}


Features = Callable[[str, Mapping[str, Sequence[str]], Mapping[str, Any]], dict[str, float]]
"""A candidate's features from its id, the search's rankings and the measured item: a benchmark trying features
besides :func:`~tools.retrieval.basis_keeper.candidate_features` (which read no item)."""


def load_questions(spec: str, read: Features | None = None) -> tuple[str, dict[str, list[Question]]]:
    """A run's questions with gold articles, per variant, their candidates as LawSearch fuses them now."""
    per_variant: dict[str, list[Question]] = {v: [] for v in VARIANTS}
    for item, recorded, gold in recorded_rows(spec):
        for variant, questions in per_variant.items():
            rankings = available(recorded, variant)
            pool = [c.article_id for c in fitted_source_fusion("reranked" in rankings).fuse(rankings, POOL)]
            features = [read(a, rankings, item) if read else candidate_features(a, rankings) for a in pool]
            questions.append(Question(half_of(str(item["id"])), pool, features, set(gold)))
    run, _, data = spec.partition(":")
    return f"{Path(run).name}/{Path(data).stem}", per_variant


def matrix(questions: Sequence[Question], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    rows = [[f.get(n, 0.0) for n in names] for q in questions for f in q.features]
    labels = [float(a in q.gold) for q in questions for a in q.pool]
    return np.asarray(rows, dtype=float).reshape(len(rows), len(names)), np.asarray(labels)


def measure(questions: Sequence[Question], model: KeeperModel, variant: str) -> tuple[float, float, float]:
    """Basis precision, coverage, and articles kept per question of ``model`` over ``questions``."""
    keeper = BasisKeeper({variant: model}, MAX_KEPT)
    kept = good = covered = 0
    for q in questions:
        chosen = keeper.keep(
            [Support(a, model.probability(f), f, variant) for a, f in zip(q.pool, q.features, strict=True)]
        )
        hits = sum(s.article_id in q.gold for s in chosen)
        kept, good, covered = kept + len(chosen), good + hits, covered + (hits > 0)
    n = max(len(questions), 1)
    return (good / kept if kept else 0.0), covered / n, kept / n


PRECISION_TARGET = 0.55
"""Least share of kept articles a lawyer cited, over the tuning halves pooled, that the threshold must reach: a
wrong article kept becomes the answer's basis (the deposit question answered from criminal procedure), a right one
missed leaves the honest "nothing supports an answer" reply naming it as the nearest, unverified."""


def halves(runs: Runs, half: str) -> dict[str, list[Question]]:
    return {name: [q for q in qs if q.half == half] for name, qs in runs.items()}


def fit_variant(runs: Runs, variant: str, names: Sequence[str] = ()) -> KeeperModel:
    """The variant's weights (over ``names``, default the variant's features) on the pooled tuning halves, and the
    lowest threshold whose pooled tuning precision reaches :data:`PRECISION_TARGET`."""
    names = names or VARIANTS[variant]
    tune = {name: qs for name, qs in halves(runs, "tune").items() if qs}
    x, y = matrix([q for qs in tune.values() for q in qs], names)
    w = l2_logistic(x, y, C)
    weights = {n: round(float(v), 4) for n, v in zip(names, w[:-1], strict=True)}
    intercept = round(float(w[-1]), 4)

    def pooled(threshold: float) -> tuple[float, float]:
        """Precision over the tuning halves pooled, and the mean coverage over the files."""
        model = KeeperModel(weights, intercept, threshold)
        measured = [(measure(qs, model, variant), len(qs)) for qs in tune.values()]
        kept = sum(m[2] * n for m, n in measured)
        good = sum(m[0] * m[2] * n for m, n in measured)
        return (good / kept if kept else 0.0), statistics.fmean(m[1] for m, _ in measured)

    scored = {t: pooled(t) for t in THRESHOLDS}
    reaching = [t for t, (precision, _) in scored.items() if precision >= PRECISION_TARGET]
    # The lowest threshold reaching the target keeps the most; where none does, the most precise one.
    threshold = min(reaching) if reaching else max(THRESHOLDS, key=lambda t: scored[t][0])
    return KeeperModel(weights, intercept, threshold)


def curve(runs: Runs, model: KeeperModel, variant: str) -> str:
    """Precision / coverage at every threshold, per file and half (the chosen one marked)."""
    head = " | ".join(f"{name} {half}" for name in runs for half in HALVES)
    lines = [f"| threshold | {head} |", "|---" * (1 + len(runs) * len(HALVES)) + "|"]
    for threshold in THRESHOLDS:
        trial = KeeperModel(model.weights, model.intercept, threshold)
        cells = []
        for half in HALVES:
            for name, qs in halves(runs, half).items():
                precision, coverage, _ = measure(qs, trial, variant)
                cells.append((name, half, f"{precision:.3f} / {coverage:.3f}" if qs else "—"))
        ordered = [c for name in runs for half in HALVES for (n, h, c) in cells if n == name and h == half]
        mark = " ←" if threshold == model.threshold else ""
        lines.append(f"| {threshold:.3f}{mark} | {' | '.join(ordered)} |")
    return "\n".join(lines)


def summary(runs: Runs, models: Mapping[str, KeeperModel]) -> dict[str, dict[str, object]]:
    """Precision, coverage and kept per question of every variant on both halves of every file."""
    return {
        variant: {
            name: {
                half: dict(
                    zip(
                        ("precision", "coverage", "kept"),
                        (round(v, 3) for v in measure(qs, model, variant)),
                        strict=True,
                    )
                )
                for half in HALVES
                if (qs := halves(runs, half)[name])
            }
            for name in runs
        }
        for variant, model in models.items()
    }


def fit_keeper(specs: Sequence[str], write: bool) -> BasisKeeper:
    """Fit every variant, print the curves and the summary, and with ``write`` replace the shipped keeper."""
    loaded = dict(load_questions(spec) for spec in specs)
    by_variant = {v: {name: questions[v] for name, questions in loaded.items()} for v in VARIANTS}
    models = {variant: fit_variant(by_variant[variant], variant) for variant in VARIANTS}
    for variant, model in models.items():
        print(f"\n## {variant}: threshold {model.threshold}, weights {json.dumps(model.weights, ensure_ascii=False)}")
        print("basis precision / coverage\n")
        print(curve(by_variant[variant], model, variant))
    measured = {v: summary(by_variant[v], {v: m})[v] for v, m in models.items()}
    print(json.dumps(measured, ensure_ascii=False, indent=1))
    keeper = BasisKeeper(models, MAX_KEPT)
    if write:
        values = {
            "max_kept": MAX_KEPT,
            "variants": {
                v: {"weights": dict(m.weights), "intercept": m.intercept, "threshold": m.threshold}
                for v, m in models.items()
            },
        }
        source = provenance(
            [Path(spec.partition(":")[2]) for spec in specs],
            "tune",
            "jurisgraph fit keeper " + " ".join(specs),
            objective=f"lowest threshold whose basis precision over the tuning halves pooled is {PRECISION_TARGET}+",
            runs=[spec.partition(":")[0] for spec in specs],
            measured=measured,
        )
        write_fitted(BUNDLED_KEEPER, values, source)
    return keeper
