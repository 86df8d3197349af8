"""Charges scored from evidence a reader can audit: each candidate's signals, and the small logistic model
that weighs them.

A 1.5B model that writes the charge list freely drops second charges and swaps neighbouring ones; on unseen
LawBench items its free choice lost to naive prompting. Here the candidates come from retrieval alone (the
charges the Researcher's articles define, the precedents' convictions, the pre-judgment), and every signal
is a number with a plain meaning, so a judgment can show why each charge was convicted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

SIGNALS = ("vote", "coverage", "offence", "rank", "prejudged")
"""The signals of a candidate charge, each in [0, 1]:
- vote: the BM25-similarity-weighted share of the nearest precedents convicted of it;
- coverage: how many of the nearest precedents were convicted of it over how many could have been (its
  judgments in the KB, at most the number of neighbours): a rare charge whose two judgments are both among
  the neighbours covers 1.0 where its vote is 0.2, so a frequent neighbour does not win by numbers alone;
- offence: its defining article's offence-description score over the best such score for the fact;
- rank: 1 / (1 + rank) of its best defining article in the Researcher's fused ranking (0 outside it);
- prejudged: the model's pre-judgment confidence (0 when not pre-judged).
A charge the fact names (…构成盗窃罪, 涉嫌诈骗) is no signal: the judge reads the fact with such claims masked
(:func:`tools.law.facts.without_claims`), as CAIL publishes its facts."""


def precedented(signals: Mapping[str, Mapping[str, float]]) -> set[str]:
    """The candidates (name -> signals) some of the nearest precedents were convicted of (a ``vote`` above 0): the
    fact's own evidence for a charge sheet whose proposal failed (:func:`agents.common.no_offence.look_further`)."""
    return {name for name, row in signals.items() if row.get("vote", 0.0) > 0}


@dataclass(frozen=True)
class ChargeModel:
    """Logistic weights over :data:`SIGNALS`: p = sigmoid(bias + sum(weight x signal))."""

    weights: Mapping[str, float]
    bias: float

    def probability(self, signals: Mapping[str, float]) -> float:
        z = self.bias + sum(self.weights.get(name, 0.0) * value for name, value in signals.items())
        return 1.0 / (1.0 + math.exp(-z))


def charge_signals(
    fused: Sequence[str],
    offence: Sequence[tuple[str, float]],
    precedents: Sequence[tuple[Iterable[str], float]],
    prejudged: Mapping[str, float],
    charges_of: Mapping[str, set[str]],
    judgments: Mapping[str, int] | None = None,
) -> dict[str, dict[str, float]]:
    """Candidate charge -> its signals. Candidates are the charges that the fused articles or the offence
    articles define (``charges_of``: article id -> charge names), that precedents were convicted of, or
    that were pre-judged; ``precedents`` are (charges, similarity) of the nearest cases, ``offence`` the
    (article, score) pairs of :class:`tools.retrieval.offence.OffenceIndex`, best first; ``judgments``:
    charge -> distinct judgments convicting of it in the KB (none known: coverage counts as if each had as
    many as there are neighbours)."""
    signals: dict[str, dict[str, float]] = {}

    def entry(name: str) -> dict[str, float]:
        return signals.setdefault(name, dict.fromkeys(SIGNALS, 0.0))

    for rank, article_id in enumerate(fused):
        for name in charges_of.get(article_id, ()):
            row = entry(name)
            row["rank"] = max(row["rank"], 1.0 / (1 + rank))
    best = offence[0][1] if offence else 0.0
    for article_id, score in offence:
        for name in charges_of.get(article_id, ()):
            row = entry(name)
            row["offence"] = max(row["offence"], score / best if best > 0 else 0.0)
    _add_precedents(entry, precedents)
    for name, confidence in prejudged.items():
        entry(name)["prejudged"] = confidence
    for name, row in signals.items():
        possible = min((judgments or {}).get(name, len(precedents)), len(precedents))
        row["coverage"] = round(min(row["coverage"] / possible, 1.0), 4) if possible else 0.0
        row["vote"] = round(min(row["vote"], 1.0), 4)
        row["offence"] = round(row["offence"], 4)
        row["rank"] = round(row["rank"], 4)
    return signals


def _add_precedents(
    entry: Callable[[str], dict[str, float]], precedents: Sequence[tuple[Iterable[str], float]]
) -> None:
    """Each precedent's similarity share into its charges' ``vote``, and a count into their ``coverage``
    (divided by the charge's possible count once every precedent is in)."""
    total = sum(score for _, score in precedents)
    for names, score in precedents:
        for name in set(names):
            row = entry(name)
            row["vote"] += score / total if total > 0 else 0.0
            row["coverage"] += 1.0


def rank_charges(signals: Mapping[str, Mapping[str, float]], model: ChargeModel) -> list[tuple[str, float]]:
    """Candidates by the model's probability, best first (name breaks ties, so the order is stable)."""
    scored = [(name, round(model.probability(row), 4)) for name, row in signals.items()]
    return sorted(scored, key=lambda item: (-item[1], item[0]))


def choose_charges(
    ranked: Sequence[tuple[str, float]],
    threshold: float,
    most: int,
    acts: Sequence[Sequence[tuple[str, float]]] = (),
    act_threshold: float = 1.0,
    least: int = 0,
    stated_threshold: float = 0.0,
) -> list[str]:
    """The convicted candidates: the best one whenever any is scored (a fact that reached judgment is
    judged on its most likely charge), each further one whose probability reaches ``threshold``, and the
    best charge of each act (``acts``: each act's own ranking) whose probability there reaches
    ``act_threshold``; then, while fewer than ``least`` (the charges the fact says it holds), the acts'
    best charges and the next-best candidates whose probability reaches ``stated_threshold``: the count a
    fact states asks for a further charge, its own support decides which; at most ``most``, best first."""
    if not ranked:
        return []
    chosen = [ranked[0][0], *(name for name, p in ranked[1:] if p >= threshold)]
    chosen += [act[0][0] for act in acts if act and act[0][1] >= act_threshold]
    for name, p in [act[0] for act in acts if act] + list(ranked):
        if len(set(chosen)) >= min(least, most):
            break
        if p >= stated_threshold:
            chosen.append(name)
    order = {name: i for i, (name, _) in enumerate(ranked)}
    return sorted(dict.fromkeys(chosen), key=lambda name: order.get(name, len(order)))[:most]


def assign_acts(charges: Sequence[str], acts: Sequence[Sequence[tuple[str, float]]]) -> dict[str, int | None]:
    """Charge -> the index of the act where it scores highest, for ``charges`` in order (None with one act,
    or when no act ranks it). On a tie an act no earlier charge took wins: two acts whose own words score a
    charge alike (their conclusions masked, 构成××) do not both put it on the first act."""
    taken: set[int] = set()
    assigned: dict[str, int | None] = {}
    for charge in charges:
        found = [(round(p, 4), i not in taken, -i) for i, act in enumerate(acts) for name, p in act if name == charge]
        if len(acts) < 2 or not found:
            assigned[charge] = None
            continue
        best = -max(found)[2]
        taken.add(best)
        assigned[charge] = best
    return assigned
