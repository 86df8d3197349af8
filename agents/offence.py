"""The judge graph's ``decide_offence`` node: whether the fact states an offence, and which.

The charge scorer (:mod:`agents.scorer`) always has a best candidate: the precedents are all criminal, and a quarrel
shares words with some of them. Here the charges its policy chose are checked in the law's order, each on evidence a
reader can verify:
- an act offence (盗窃, 诈骗, 故意伤害) stands only for a fact that tells its act, else the best candidate with
  evidence of its own stands in (:func:`tools.law.charge_families.told_acts`);
- neighbouring charges (盗窃 / 职务侵占, 诈骗 / 保险诈骗, …) are separated on their distinguishing element
  (:mod:`tools.law.charge_families`): by the fact's words, else by one targeted yes/no question to the model;
- the charges that may stand together (:mod:`tools.law.charge_relations`);
- whether the fact states an offence at all (:mod:`agents.common.no_offence`): a victim's own account, the fitted
  floor, a threshold or an element unmet; when every charge is set aside, the next candidates with evidence of
  their own are checked the same way before the fact is held to state none.
Then the graph's edge: convict (the audit of the proposal) or acquit (不构成犯罪, every reason). Nothing after this
node decides again whether there is an offence.
"""

from __future__ import annotations

import time
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command
from pydantic import BaseModel

from agents.common.messages import facts_first
from agents.common.models import chat_model
from agents.common.no_offence import Decision, decide_charges
from agents.common.offences import offence_index
from agents.context import JudgeContext
from agents.context.experiment import judge_switches
from agents.state.common import trace_event
from agents.state.judge import FamilyRecord, JudgeState, ScoredCharge
from prompts import render_prompt
from tools.errors import StructuredOutputError
from tools.kb.charges import ChargeRepository
from tools.law.charge_families import Ask, Member, act_family
from tools.law.charge_model import fitted_charge_policy
from tools.law.charge_scores import precedented
from tools.llm.chat import Usage, add_usage, empty_usage, failed_usage, invoke_structured
from tools.services import Services, get_services


class ElementHolds(BaseModel):
    """Whether the fact states a charge's distinguishing element."""

    holds: bool


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


def decide_offence(state: JudgeState, runtime: Runtime[JudgeContext]) -> Command[Literal["audit_research", "acquit"]]:
    """Decide from the scored candidates which charges the fact states: the proposal the audit checks, or none,
    with why (``no_offence``)."""
    started = time.perf_counter()
    ctx = runtime.context
    services = get_services()
    policy = fitted_charge_policy()
    switches = judge_switches(ctx)
    repository = ChargeRepository(services.graph)
    fact = state.fact
    ranked = [(s["name"], s["probability"]) for s in state.scored_charges[: ctx.scored_charges]]
    chosen = state.chosen
    asks = switches.family_questions and switches.charge_scoring
    ask, usages = element_question(fact, ctx) if asks else (None, [])
    scored = {s["name"]: s for s in state.scored_charges}
    nearest = nearest_offence(services, repository, fact)
    if switches.charge_scoring:
        acts = {s["name"]: s["act"] for s in state.scored_charges}
        articles = {name: s["articles"] for name, s in scored.items()}
        # A candidate the nearest judged cases convicted of is the fact's own evidence where a charge sheet's
        # proposal failed.
        voted = precedented({name: s["signals"] for name, s in scored.items()})
        decision = decide_charges(
            chosen, ranked, fact, acts, articles, nearest, ctx.language, policy.stand_in, ask, voted
        )
    else:
        # Without the scorer (the eval's ablation) nothing is proposed here: the Adjudicator's supported charges are
        # the conviction.
        decision = Decision(list(chosen), [], [], [], [])
    proposed, checks, merged, no_offence = decision.proposed, decision.checks, decision.merged, decision.no_offence
    told = decision.told
    untold = untold_records([c for c in chosen if c not in told], [c for c in told if c not in chosen])
    # The proposal first, as the Adjudicator and a reader see it; a neighbour the family check put in a charge's
    # place may lie outside the candidates scored.
    added = [c for c in proposed if c not in scored]
    defined = repository.articles_for(added)
    extra: list[ScoredCharge] = [
        {"name": c, "probability": 0.0, "signals": {}, "articles": defined.get(c, []), "act": None} for c in added
    ]
    ordered = [scored[c] for c in proposed if c in scored] + extra
    ordered += [s for s in state.scored_charges if s["name"] not in proposed]
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
        "scored_charges": ordered,
        "proposed": proposed,
        "family_checks": families,
        "no_offence": no_offence,
        "usage": usage,
        "trace": [
            trace_event(
                "decide_offence",
                started,
                proposed=proposed,
                questions=len(usages),
                no_offence=[r["by"] for r in no_offence],
            )
        ],
    }
    # A fact that states no offence has nothing to audit: the judgment says why (不构成犯罪).
    return Command(update=update, goto="acquit" if no_offence and not proposed else "audit_research")
