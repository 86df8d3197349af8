"""The conditional answer's opening rule, restated in the question's own terms by the model and checked by code.

Code states a conditional article by its own words (如果当事人一方不履行合同义务……，则应当承担……违约责任), which
a person asking 房东不退押金怎么办 must translate themselves. One model call restates the rule with the question's
parties (如果房东没有按约定退还押金，则房东应当承担……); code keeps the restatement only where it still says what the
rule says: most of the consequence's wording (the remedy: 继续履行, 赔偿损失), no number the rule and the question
lack, and no denial the rule does not make. Where only its condition does, that condition is kept with the rule's own
consequence; otherwise the rule's own words stand. The model phrases; it decides
nothing (which article, which rule and whether it applies were decided before it is asked).
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from agents.common.messages import facts_first
from agents.common.models import chat_model
from agents.context import ConsultContext
from prompts import render_prompt
from tools.errors import StructuredOutputError
from tools.law.wording import DENIAL, shared_pairs
from tools.llm.chat import Usage, failed_usage, invoke_structured

KEPT_SHARE = 0.5
"""The share of the consequence's effect (its words from the first 应当, 可以 or 有权 on: 承担侵权责任) whose character
pairs a restatement must keep: the parties may take the question's names (动物饲养人 → 狗主人), the legal effect
stays in the rule's words; a restatement that keeps less has said something else (有权要求退还押金 for 577's
违约责任 decides what the remedy is)."""
_MODAL = re.compile(r"应当|可以|有权|必须|须")
QUALIFIERS = re.compile(
    r"过错|故意|过失|无正当理由|正当理由|违反|未经|擅自|非法|明知|超过|不满|以上|以下|未|不|无|没有"
)
"""Words of a condition that decide whether it is met (因过错侵害, 无正当理由, 超过一个月不满一年, 未订立): a
restatement must keep each its condition holds, or it states the rule as met where the rule asks more (在超市摔倒受伤，
则超市需要承担侵权责任 dropped 1165's 过错)."""
_NESTED = re.compile(r"如果|则如|，则")
"""A second rule inside a consequence (……，则如果……，则……)."""
_ASKED = re.compile(r"[？?]|什么|怎么|吗$|能否|是否")
"""A question's words in a condition: the model copied the question rather than the rule."""
_DIGITS = re.compile(r"[0-9０-９一二三四五六七八九十百千万两]+")
_CLAUSE = re.compile(r"[，,；;]")
"""Where one clause of a condition ends: a restatement says the rule's condition clause for clause, and may add the
one the person said (被邻居家的狗咬伤了), never conditions of its own (如果您撞伤了人，而对方是您的雇主或承租人，且您在
醉酒状态下驾驶机动车 for 91's 醉酒驾驶机动车: a follow-up in a thread, session 67)."""


def _clauses(text: str) -> int:
    return sum(1 for part in _CLAUSE.split(text) if part.strip())


class AppliedRule(BaseModel):
    """A rule restated in the question's terms: when (``condition``), then what (``consequence``)."""

    condition: str
    consequence: str


def faithful(applied: AppliedRule, condition: str, consequence: str, question: str) -> bool:
    """Whether ``applied`` still says what the rule says: both parts written, the condition not opened with 如果,
    keeping the words that decide whether it is met (:data:`QUALIFIERS`) and adding no clause beyond the person's
    own (:data:`_CLAUSE`), most of the effect's character pairs kept (:data:`KEPT_SHARE`), no number that neither
    the rule nor the question holds, no denial (不得, 无权) the consequence does not make, no rule nested in the
    consequence and no question as the condition."""
    said, cond = applied.consequence.strip(), applied.condition.strip()
    if not said or not cond or cond.startswith("如果") or said.startswith("则"):
        return False
    # A rule nested in its own consequence, or the question as the condition, is no restatement: the answer read
    # 如果被邻居家的狗咬伤了，狗主人要承担什么责任？，则如果禁止饲养的烈性犬……，则…… (s65-everyday-report20). Nor is a
    # condition that holds the consequence too (……偿还双方之前借款或者其他债务，则被告应当……): kept with the rule's
    # consequence it said it twice (s68-everyday-report20).
    if _NESTED.search(said) or _NESTED.search(cond) or _ASKED.search(cond):
        return False
    if set(QUALIFIERS.findall(condition)) - set(QUALIFIERS.findall(cond)):
        return False
    if _clauses(cond) > _clauses(condition) + 1:
        return False
    effect = consequence[m.end() :] if (m := _MODAL.search(consequence)) and m.end() < len(consequence) else consequence
    own = shared_pairs(effect, effect)
    if own and shared_pairs(said, effect) < KEPT_SHARE * own:
        return False
    numbers = set(_DIGITS.findall(cond + said)) - set(_DIGITS.findall(condition + consequence + question))
    return not numbers and not (DENIAL.search(said) and not DENIAL.search(consequence))


def kept_restatement(applied: AppliedRule, condition: str, consequence: str, question: str) -> AppliedRule | None:
    """``applied`` where it still says the rule (:func:`faithful`); else its condition with the rule's own
    consequence, where that condition does: the person's facts, the law's effect. The model's 如果房东不退押金，则承租人
    有权要求房东退还押金 decides the remedy 577 leaves open, and the whole of it was dropped, so the README's deposit
    question opened with 当事人一方不履行合同义务…… in the statute's words; its condition alone speaks to the tenant.
    None where the condition does not say the rule either."""
    if faithful(applied, condition, consequence, question):
        return applied
    own = AppliedRule(condition=applied.condition, consequence=consequence)
    return own if faithful(own, condition, consequence, question) else None


def applied_rule(
    ctx: ConsultContext, question: str, condition: str, consequence: str
) -> tuple[AppliedRule | None, Usage]:
    """The rule restated in ``question``'s terms (:func:`kept_restatement`), or None where the model's reply never
    validates or says something else, with the call's usage."""
    task = render_prompt("phrase_rule", ctx.language, condition=condition, consequence=consequence)
    try:
        applied, usage = invoke_structured(
            chat_model(ctx, "draft"), facts_first(ctx.language, "question", question, task), AppliedRule,
            ctx.structured_retries,
        )  # fmt: skip
    except StructuredOutputError as exc:
        return None, failed_usage(exc)
    return kept_restatement(applied, condition, consequence, question), usage
