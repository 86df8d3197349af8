"""Experiment switches: the design choices the eval measures by turning one off (JurisMA's ablations, the judge's
guards) and the half of the dev files it hides. No user chooses them, so they are not in a graph's Context
(Studio's form, ``--set``): the eval runs the graphs with a Context that also holds them (:class:`MeasuredConsult`,
:class:`MeasuredJudge`), and a node reads them through :func:`consult_switches` / :func:`judge_switches`, which
give the product's choice for any other Context."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agents.context.base import setting
from agents.context.consult import ConsultContext
from agents.context.judge import JudgeContext


@dataclass(kw_only=True)
class ConsultSwitches:
    """The consult graph's experiment switches; the defaults are the product."""

    hidden_consultation_half: Literal["", "tune", "report"] = setting(
        "",
        "Answered consultations of this dev-file half are not read, so that a measured question never finds its "
        "own answer (`eval --half` sets it).",
    )
    initial_search: bool = setting(
        True, "Search statutes before the first draft (JurisMA drafts from the element graph alone)."
    )
    use_elements: bool = setting(True, "Extract the legal element graph before drafting.")


@dataclass(kw_only=True)
class JudgeSwitches:
    """The judge graph's experiment switches; the defaults are the product."""

    penalty_companions: bool = setting(
        True,
        "An article that only sets the penalty of an offence another defines (刑法:383 for 382's 贪污) follows "
        "that article in the Researcher's ranking.",
    )
    charge_scoring: bool = setting(
        True,
        "The charge scorer proposes the charges and its audited proposal stands; off, the Adjudicator's own "
        "supported charges are the conviction.",
    )
    stated_count: bool = setting(
        True,
        "When the fact's own conclusions name more charges than the scorer chose (以××和××追究, 数罪并罚), add "
        "the next-best candidates up to that count.",
    )
    family_questions: bool = setting(
        True,
        "When the fact does not state the element separating a proposed charge from a neighbouring one "
        "(职务侵占's 单位人员), ask the model one yes/no question; off, the proposal stands.",
    )
    audit_keep_best: bool = setting(
        True,
        "When the audit rejects every candidate that defines a charge, keep the best-ranked of them, flagged.",
    )
    anchor_conviction: bool = setting(
        True,
        "When the Adjudicator names no charge an audited article supports, convict of the pre-judged charges "
        "such an article defines.",
    )
    sentencing_guard: bool = setting(
        True,
        "Clamp a term outside what the convicted articles allow at the tier the facts meet (life or death only "
        "where an article allows it); the judgment records the correction in term_check.",
    )


@dataclass(kw_only=True)
class MeasuredConsult(ConsultContext, ConsultSwitches):
    """The consult Context the eval runs with: a user's settings and the experiment switches."""


@dataclass(kw_only=True)
class MeasuredJudge(JudgeContext, JudgeSwitches):
    """The judge Context the eval runs with: a user's settings and the experiment switches."""


PRODUCT_CONSULT = ConsultSwitches()
PRODUCT_JUDGE = JudgeSwitches()


def consult_switches(ctx: ConsultContext) -> ConsultSwitches:
    """The switches a consult run was given (the eval's), else the product's."""
    return ctx if isinstance(ctx, ConsultSwitches) else PRODUCT_CONSULT


def judge_switches(ctx: JudgeContext) -> JudgeSwitches:
    """The switches a judge run was given (the eval's), else the product's."""
    return ctx if isinstance(ctx, JudgeSwitches) else PRODUCT_JUDGE


def code_decides(ctx: JudgeContext) -> bool:
    """Whether code sets the judgment from the charge scorer's audited proposal (``profile='fast'`` with the
    scorer on), so that no model call decides the charges."""
    return ctx.profile == "fast" and judge_switches(ctx).charge_scoring
