"""Charge scorer: every candidate charge of a fact with its signals and probability, and the charges to
convict, decided before the audit so that their defining articles are the ones audited.

The signals (:mod:`tools.law.charge_scores`) come from retrieval, the precedents and the pre-judgment; the
logistic weights (``tools/law/charge_model.json``) are fitted on the tuning half of charge_dev
(``jurisgraph fit charges``). A fact with several acts is also scored act by act, so a second
offence told in its own paragraph is not lost under the first; neighbouring charges (盗窃 / 职务侵占, 诈骗 /
保险诈骗, …) are separated on their distinguishing element (:mod:`tools.law.charge_families`): by the fact's
words, else by one targeted yes/no question to the model; 盗窃, 诈骗 and 故意伤害 are proposed only for a fact
that tells their act.
"""

from __future__ import annotations

import time
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command
from pydantic import BaseModel

from agents.common.messages import facts_first
from agents.common.models import chat_model
from agents.common.no_offence import look_further, offences_stated
from agents.common.offences import offence_index
from agents.common.precedents import own_copies
from agents.context import JudgeContext
from agents.context.experiment import judge_switches
from agents.state.common import trace_event
from agents.state.judge import FamilyRecord, JudgeState, ScoredCharge
from prompts import render_prompt
from tools.errors import StructuredOutputError
from tools.kb.cases import get_cases, judgment_counts
from tools.kb.charges import ChargeRepository
from tools.law.acts import split_acts, stated_charge_count
from tools.law.charge_families import Ask, Member, act_family, check_families, told_acts
from tools.law.charge_model import fitted_charge_policy
from tools.law.charge_relations import stand_together
from tools.law.charge_scores import assign_acts, charge_signals, choose_charges, rank_charges
from tools.llm.chat import Usage, add_usage, empty_usage, failed_usage, invoke_structured
from tools.retrieval.offence import OffenceIndex
from tools.retrieval.vectors import CASES
from tools.services import Services, get_services


class ElementHolds(BaseModel):
    """Whether the fact states a charge's distinguishing element."""

    holds: bool


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


def element_question(fact: str, ctx: JudgeContext) -> tuple[Ask, list[Usage]]:
    """The targeted yes/no question of a family check, asked of the judge model; a reply that never
    validates is no answer (the proposal stands). The usages of the calls made are appended to the list."""
    model = chat_model(ctx, "judge")
    usages: list[Usage] = []

    def ask(member: Member) -> bool | None:
        task = render_prompt("verify_element", ctx.language, charge=member.charge, element=member.element)
        try:
            answer, usage = invoke_structured(
                model, facts_first(ctx.language, "case", fact, task), ElementHolds, ctx.structured_retries
            )
        except StructuredOutputError as exc:
            usages.append(failed_usage(exc))
            return None
        usages.append(usage)
        return answer.holds

    return ask, usages


def untold_records(untold: list[str], stand_in: list[str]) -> list[FamilyRecord]:
    """A record of each chosen act offence left out because the fact never tells its act, with the candidate that
    stood in (when one did), so a reader sees why the best-scored charge was not convicted."""
    records: list[FamilyRecord] = []
    for charge in untold:
        family = act_family(charge)
        element = family.members[-1].element if family else ""
        decided = stand_in[0] if stand_in else ""
        records.append(
            {
                "family": family.name if family else "",
                "charge": charge,
                "decided": decided,
                "by": "untold",
                "element": element,
                "quote": "",
            }
        )
    return records


def nearest_offence(services: Services, repository: ChargeRepository, fact: str) -> tuple[str, str, float]:
    """(charge, article, score): the offence description ``fact`` covers best among every charge-defining
    article, on the offence index's own scale (the scorer's offence signal is relative to the fact's best
    article, so there a quarrel's best article scores 1.0 as a murder's does)."""
    found = offence_index(services).search(fact, 1)
    if not found:
        return "", "", 0.0
    article, score = found[0]
    charges = sorted(repository.charges_of([article]).get(article, set()))
    return (charges[0] if charges else ""), article, score


def score_charges(
    state: JudgeState, runtime: Runtime[JudgeContext]
) -> Command[Literal["audit_research", "adjudicate"]]:
    """Score every candidate charge from its signals (and each act's), choose the charges to convict, check
    each against its neighbouring charges and whether the fact states its offence at all."""
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
    switches = judge_switches(ctx)
    least = stated_charge_count(state.fact) if switches.stated_count else 0
    chosen = choose_charges(
        ranked, policy.threshold, ctx.max_charges, act_rankings, policy.act_threshold, least, policy.stated_threshold
    )
    candidates = [name for name, _ in ranked[: ctx.scored_charges]]
    # Before the family checks, so that the candidate standing in is checked against its own neighbours.
    able = [name for name, p in ranked[: ctx.scored_charges] if p >= policy.stand_in]
    told = told_acts(chosen, candidates, state.fact, able)
    untold = untold_records([c for c in chosen if c not in told], [c for c in told if c not in chosen])
    chosen_before, chosen = chosen, told
    asks = switches.family_questions and switches.charge_scoring
    ask, usages = element_question(state.fact, ctx) if asks else (None, [])
    proposed, checks = check_families(chosen, candidates, state.fact, ask)
    # After the families, which choose each charge on its element: the law then says which may stand together.
    proposed, merged = stand_together(proposed, state.fact)
    if not switches.charge_scoring:
        proposed, checks, merged = [], [], []
    kept = list(dict.fromkeys([*proposed, *candidates, *chosen_before]))
    probability = dict(ranked)
    defined = repository.articles_for(kept)
    nearest = nearest_offence(services, repository, state.fact)
    gone = switches.charge_scoring and chosen_before and not chosen
    left_out = (chosen_before[0], (defined.get(chosen_before[0]) or [""])[0]) if gone else None
    proposed, no_offence = offences_stated(proposed, state.fact, nearest, ctx.language, untold=left_out)
    if not proposed and no_offence and no_offence[0]["by"] not in ("victim", "floor") and switches.charge_scoring:
        # Every charge proposed was set aside on its own element: the next candidates with evidence of their own
        # are checked the same way before the fact is held to state no offence.
        def check(charges: list[str]) -> list[str]:
            return stand_together(check_families(charges, candidates, state.fact, ask)[0], state.fact)[0]

        tried = {*chosen_before, *told, *(r["charge"] for r in no_offence)}
        further = ranked[: ctx.scored_charges]
        proposed, records = look_further(further, tried, state.fact, policy.stand_in, defined, ctx.language, check)
        no_offence += records
        # A neighbour the family check put in the stand-in's place may lie outside the candidates scored.
        kept += [c for c in proposed if c not in kept]
        defined |= repository.articles_for([c for c in proposed if c not in defined])
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
    families: list[FamilyRecord] = untold + [
        {
            "family": c.family,
            "charge": c.charge,
            "decided": c.decided,
            "by": c.by,
            "element": c.element,
            "quote": c.quote,
        }
        for c in checks
    ]
    families += [
        {"family": m.rule, "charge": m.charge, "decided": m.kept, "by": "law", "element": m.article, "quote": ""}
        for m in merged
    ]
    usage = empty_usage()
    for used in usages:
        usage = add_usage(usage, used)
    update = {
        "acts": acts,
        "scored_charges": scored,
        "proposed": proposed,
        "family_checks": families,
        "no_offence": no_offence,
        "usage": usage,
        "trace": [
            trace_event(
                "score_charges",
                started,
                proposed=proposed,
                acts=len(acts) or 1,
                stated=least,
                questions=len(usages),
                no_offence=[r["by"] for r in no_offence],
            )
        ],
    }
    # A fact that states no offence has nothing to audit: the judgment says why (不构成犯罪).
    return Command(update=update, goto="adjudicate" if no_offence and not proposed else "audit_research")
