"""Charge scorer: every candidate charge of a fact with its signals and probability, and the charges its fitted
policy chooses, before the audit so that their defining articles are the ones audited.

The signals (:mod:`tools.law.charge_scores`) come from retrieval, the precedents and the pre-judgment; the
logistic weights (``tools/law/charge_model.json``) are fitted on the tuning half of charge_dev
(``jurisgraph fit charges``). A fact with several acts is also scored act by act, so a second
offence told in its own paragraph is not lost under the first. Whether the fact states the chosen charges (their
acts, neighbours, elements and thresholds) is the next node's decision (:mod:`agents.offence`).
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from agents.common.offences import offence_index
from agents.common.precedents import own_copies
from agents.context import JudgeContext
from agents.context.experiment import judge_switches
from agents.state.common import trace_event
from agents.state.judge import JudgeState, ScoredCharge
from tools.kb.cases import get_cases, judgment_counts
from tools.kb.charges import ChargeRepository
from tools.law.acts import split_acts, stated_charge_count
from tools.law.charge_model import fitted_charge_policy
from tools.law.charge_scores import assign_acts, charge_signals, choose_charges, rank_charges
from tools.retrieval.offence import OffenceIndex
from tools.retrieval.vectors import CASES
from tools.services import Services, get_services


def candidate_signals(
    services: Services,
    index: OffenceIndex,
    repository: ChargeRepository,
    fact: str,
    fused: list[str],
    prejudged: dict[str, float],
    ctx: JudgeContext,
    judgments: dict[str, int],
) -> dict[str, dict[str, float]]:
    """Candidate charge -> signals for ``fact`` (a whole fact or one act): the charges of the fused articles
    and of the offence ranking, the convictions of the nearest precedents by words, and the pre-judged
    charges. Precedents' charge names are resolved to the charges in force, so a 2018 label and today's
    name count as one. ``index`` (:func:`agents.common.offences.offence_index`), ``repository`` (whose
    alias index is read on first use) and ``judgments`` (:func:`tools.kb.cases.judgment_counts`) are made once
    per judgment, not per act."""
    offence = index.search(fact, ctx.candidates_per_retriever)
    precedents: list[tuple[list[str], float]] = []
    if services.vectors.count(CASES):
        hits = dict(services.case_index.index().search(fact, ctx.precedent_k, skip_identical=True, distinct=True))
        for case in get_cases(services.graph, list(hits)):
            names = [name for raw in case.charges if (name := repository.resolve(raw))]
            precedents.append((names, hits[case.id]))
    charges_of = repository.charges_of([*fused, *(article_id for article_id, _ in offence)])
    return charge_signals(fused, offence, precedents, prejudged, charges_of, judgments)


def fact_signals(
    services: Services,
    repository: ChargeRepository,
    fact: str,
    fused: list[str],
    prejudged: dict[str, float],
    ctx: JudgeContext,
) -> tuple[dict[str, dict[str, float]], list[str], list[dict[str, dict[str, float]]]]:
    """(signals, acts, act_signals): the whole fact's candidate signals and, for a fact telling several acts,
    the acts and each act's own signals (both empty for a single act)."""
    index = offence_index(services)
    judgments = judgment_counts(services.graph)
    # A fact the KB itself holds (a stored case judged again, an eval item) is not its own precedent: its
    # judgment does not count among those its charges could have found either.
    own = get_cases(services.graph, sorted(own_copies(services, fact)))
    for name in {name for case in own for name in case.charges}:
        judgments[name] = judgments.get(name, 1) - 1
    signals = candidate_signals(services, index, repository, fact, fused, prejudged, ctx, judgments)
    acts = split_acts(fact)
    if len(acts) < 2:
        return signals, [], []
    return (
        signals,
        acts,
        [candidate_signals(services, index, repository, act, fused, prejudged, ctx, judgments) for act in acts],
    )


def score_charges(state: JudgeState, runtime: Runtime[JudgeContext]) -> dict[str, Any]:
    """Score every candidate charge from its signals (and each act's) and choose the charges to propose; whether
    the fact states them is decided next (:func:`agents.offence.decide_offence`)."""
    started = time.perf_counter()
    ctx = runtime.context
    services = get_services()
    policy = fitted_charge_policy()
    fused = state.rankings.get("researcher", [])
    prejudged = {g["name"]: g["confidence"] for g in state.prejudged}
    model = policy.model
    repository = ChargeRepository(services.graph)
    signals, acts, act_signals = fact_signals(services, repository, state.fact, fused, prejudged, ctx)
    ranked = rank_charges(signals, model)
    act_rankings = [rank_charges(act, model) for act in act_signals]
    least = stated_charge_count(state.fact) if judge_switches(ctx).stated_count else 0
    chosen = choose_charges(
        ranked, policy.threshold, ctx.max_charges, act_rankings, policy.act_threshold, least, policy.stated_threshold
    )
    # The best candidates in rank order, then any charge an act's own ranking chose from further down: the next
    # node reads the candidates as the first ``scored_charges`` of them.
    kept = list(dict.fromkeys([name for name, _ in ranked[: ctx.scored_charges]] + chosen))
    probability = dict(ranked)
    defined = repository.articles_for(kept)
    act = assign_acts(kept, act_rankings)
    scored: list[ScoredCharge] = [
        {
            "name": name,
            "probability": probability.get(name, 0.0),
            "signals": signals.get(name, {}),
            "articles": defined.get(name, []),
            "act": act[name],
        }
        for name in kept
    ]
    trace = trace_event("score_charges", started, chosen=chosen, acts=len(acts) or 1, stated=least)
    return {"acts": acts, "scored_charges": scored, "chosen": chosen, "trace": [trace]}
