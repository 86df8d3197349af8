"""Evaluation metrics: pure functions over predictions and gold labels, no I/O.

Definitions follow the papers the issues cite: charge accuracy is exact set match (LawBench); article and
citation scores are micro-averaged over items; hallucination risk is AALawyer's H = 1 - Acc x Auth with
Acc the share of cited ids that are gold and Auth the share that exist in the knowledge base; the term
score is LawBench's normalised log distance.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from tools.law.charge_names import charge_variants, normalise_charge


def match_charges(predicted: Iterable[str], gold: Iterable[str]) -> tuple[int, int, int]:
    """(true positives, predicted count, gold count), a prediction matching any variant of a gold charge."""
    gold_by_name = {normalise_charge(g): g for g in gold}
    gold_variants = [charge_variants(raw) for raw in gold_by_name.values()]
    preds = list(dict.fromkeys(normalise_charge(p) for p in predicted if p.strip()))
    matched: set[int] = set()
    for pred in preds:
        for i, variants in enumerate(gold_variants):
            if i not in matched and pred in variants:
                matched.add(i)
                break
    return len(matched), len(preds), len(gold_variants)


def canonical_charges(
    names: Iterable[str], named: Callable[[str], str | None], resolve: Callable[[str], str | None]
) -> list[str]:
    """Charge labels as the knowledge base names them. Consecutive pieces of one name that a data file split
    on 、 are joined again when together they are exactly a charge's name (``named``): ljp_dev writes
    伪造、变造居民身份证 as 伪造 + 变造居民身份证. Each name then becomes the charge in force (``resolve``
    follows abolished and renamed charges), so naming today's law is not marked wrong against a 2018 label.
    Names neither knows stay as written, normalised."""
    pieces = [n for n in names if n.strip()]
    out: list[str] = []
    start = 0
    while start < len(pieces):
        end = next(
            (e for e in range(len(pieces), start + 1, -1) if named("、".join(pieces[start:e])) is not None),
            start + 1,
        )
        joined = "、".join(pieces[start:end])
        out.append(named(joined) or resolve(joined) or normalise_charge(joined))
        start = end
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class PRF:
    """Micro precision, recall and F1 from summed counts."""

    tp: int
    predicted: int
    gold: int

    @property
    def precision(self) -> float:
        return self.tp / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def micro_prf(counts: Iterable[tuple[int, int, int]]) -> PRF:
    """Sum per-item (tp, predicted, gold) counts into micro P/R/F1."""
    tp = predicted = gold = 0
    for t, p, g in counts:
        tp, predicted, gold = tp + t, predicted + p, gold + g
    return PRF(tp, predicted, gold)


def set_counts(predicted: Iterable[str], gold: Iterable[str]) -> tuple[int, int, int]:
    """(tp, predicted, gold) for exact-match id sets."""
    p, g = set(predicted), set(gold)
    return len(p & g), len(p), len(g)


def hallucination_risk(accuracy: float, authenticity: float) -> float:
    """AALawyer's H = 1 - Acc x Auth."""
    return 1.0 - accuracy * authenticity


def rouge_l(candidate: str, reference: str) -> float:
    """Character-level ROUGE-L F1 (longest common subsequence), the usual choice for Chinese."""
    a, b = [c for c in candidate if not c.isspace()], [c for c in reference if not c.isspace()]
    if not a or not b:
        return 0.0
    previous = [0] * (len(b) + 1)
    for ch in a:
        current = [0]
        for j, other in enumerate(b, 1):
            current.append(previous[j - 1] + 1 if ch == other else max(previous[j], current[j - 1]))
        previous = current
    lcs = previous[-1]
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(a), lcs / len(b)
    return 2 * precision * recall / (precision + recall)


_TERM_CAP = 216.0
"""LawBench's normaliser: log(216) is the log distance of the worst plausible term prediction."""


def term_log_score(predicted_months: Sequence[float], gold_months: Sequence[float]) -> float:
    """LawBench's term score: 1 - mean |log(p+1) - log(g+1)| / log(216), in [0, 1] for sane inputs."""
    if not gold_months:
        return 0.0
    distance = sum(
        abs(math.log(max(p, 0) + 1) - math.log(max(g, 0) + 1))
        for p, g in zip(predicted_months, gold_months, strict=True)
    ) / len(gold_months)
    return (math.log(_TERM_CAP) - distance) / math.log(_TERM_CAP)


def recall_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Share of gold ids among the first k ranked ids (1.0 for an item without gold)."""
    gold_set = set(gold)
    return len(gold_set & set(ranked[:k])) / len(gold_set) if gold_set else 1.0


def reciprocal_rank(ranked: Sequence[str], gold: Iterable[str]) -> float:
    """1 / rank of the first gold id, 0 when none was retrieved."""
    gold_set = set(gold)
    return next((1.0 / i for i, item in enumerate(ranked, 1) if item in gold_set), 0.0)


def bootstrap_ci(
    items: Sequence[object], statistic: Callable[[Sequence[object]], float], rounds: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """95% percentile bootstrap interval of ``statistic`` over resampled items (deterministic by seed)."""
    if not items:
        return (0.0, 0.0)
    rng = random.Random(seed)
    n = len(items)
    values = sorted(statistic([items[rng.randrange(n)] for _ in range(n)]) for _ in range(rounds))
    return values[int(0.025 * (rounds - 1))], values[int(0.975 * (rounds - 1))]


def set_f1(predicted: Iterable[object], gold: Iterable[object]) -> float:
    """F1 of two sets, 0 when either is empty: LawBench's per-item score, an abstention counting 0."""
    p, g = set(predicted), set(gold)
    hits = len(p & g)
    return 2 * hits / (len(p) + len(g)) if hits else 0.0


def lawbench_article_numbers(article_ids: Iterable[str]) -> set[int]:
    """Criminal Law article numbers as LawBench 3-1 compares them: 刑法:133-1 is 133 (its scorer keeps the
    first number of 第一百三十三条之一); other laws' ids are not Criminal Law articles."""
    numbers = set()
    for article_id in article_ids:
        law, _, key = article_id.partition(":")
        if law == "刑法" and (head := key.split("-")[0]).isdigit():
            numbers.add(int(head))
    return numbers


def lawbench_charges(predicted: Iterable[str], options: Iterable[str]) -> set[str]:
    """The charges LawBench 3-3 reads from a prediction: every option name contained in its text, so 合同诈骗
    also yields 诈骗 and a name outside the options yields nothing."""
    text = "；".join(predicted)
    return {option for option in options if option and option in text}


def paired_bootstrap(
    pairs: Sequence[tuple[object, object]],
    statistic: Callable[[Sequence[object]], float],
    rounds: int = 1000,
    seed: int = 0,
) -> tuple[float, tuple[float, float]]:
    """Difference B - A of ``statistic`` over items scored by both systems, and its 95% paired bootstrap
    interval: each round resamples items and scores both systems on the same sample."""
    if not pairs:
        return 0.0, (0.0, 0.0)

    def diff(sample: Sequence[tuple[object, object]]) -> float:
        return statistic([b for _, b in sample]) - statistic([a for a, _ in sample])

    rng = random.Random(seed)
    n = len(pairs)
    values = sorted(diff([pairs[rng.randrange(n)] for _ in range(n)]) for _ in range(rounds))
    return diff(pairs), (values[int(0.025 * (rounds - 1))], values[int(0.975 * (rounds - 1))])
