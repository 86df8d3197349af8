"""ClaimCheck: the Response says what its Legal Basis says.

After ContentCheck, code reads the claims it can check in the Response (penalty kinds, amounts and periods,
charge names) and looks for each in the Legal Basis texts. Unsupported claims get one model call to be
rewritten from the basis; a sentence still making one is removed and the answer says which article's words
apply. When the question asks about punishment, the penalty the best-matching basis article states for the
case asked about is added if the Response leaves it out, quoted from the article, and each other basis
article's sentences closest to the question say what it provides. Every step is recorded in
``claim_checks``. Bracket ids and 引用 lines become readable citations; a basis article the audit kept without
checking it is said to be so; an answer nothing supports says so, names the closest articles found as
unverified and quotes the first two.
"""

from __future__ import annotations

import re
import time
from collections.abc import Collection, Mapping
from itertools import takewhile
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from agents.common.answers import split_draft
from agents.common.applied_rule import applied_rule
from agents.common.chat import reply
from agents.common.guidance import decisive_fact, decisive_facts, missing_fact, where_to_ask
from agents.common.models import chat_model
from agents.common.question import user_words
from agents.context import ConsultContext
from agents.state.audit import MEASURE
from agents.state.common import LegalBasisItem, trace_event
from agents.state.consult import ConsultState
from prompts import label, render_prompt, without_echoed_headings
from tools.kb.charges import ChargeRepository
from tools.law.abbreviations import spelled_out
from tools.law.articles import short_law_name
from tools.law.claims import (
    ADDED,
    REMOVED,
    REWRITTEN,
    UNSUPPORTED,
    Claim,
    ClaimCheck,
    asks_about_punishment,
    asks_what_the_law_says,
    check_claims,
    citable_units,
    reattribute,
    sentences,
)
from tools.law.penalties import Tier, article_tiers, closest_tier, condition_match, penalty_kinds, stated_condition
from tools.law.period_limits import LimitFound, decided_by_limit
from tools.law.period_rules import PeriodRule, decided_by_period
from tools.law.periods import StatedPeriod, condition_range, stated_period
from tools.law.rate_caps import RateCap, StatedRate, exceeded_caps
from tools.law.thresholds import Threshold, load_thresholds
from tools.law.wording import (
    bigram_share,
    longest_shared_run,
    relevant_passage,
    shared_pairs,
    unstated_repeat,
    without_unmet,
)
from tools.llm.chat import Usage, add_usage, empty_usage, invoke_text
from tools.services import get_services

PROVISION_PARTS = 2
"""Sentences of each basis article the Response quotes as what the article provides."""
PROVISION_CHARS = 200
"""Most characters quoted from one article: its closest sentences, not the whole of a long article."""
QUOTED_CLOSENESS = 0.75
"""A basis article is quoted when it shares at least this share of the question's character pairs that the
closest basis article shares: for the drunk-driving question 刑法:133-1 shares 7, 刑法:277 (以驾驶机动车撞击
…妨害公务) 5, and quoting 277 would answer a question nobody asked."""
ALREADY_SAID_SHARE = 0.8
"""A passage whose character pairs the answer already holds this well is not quoted."""
NEAREST_SHOWN = 3
"""Closest evidence articles an answer without support names."""
NEAREST_QUOTED = 2
"""Of those, the first ones whose sentences closest to the question it quotes, so that the user can judge them
from the statute's words: on consult_dev's tuning half (s35-consult-tune12-before, model-free) quoting two raised
ROUGE-L against the lawyers' answers from 0.171 to 0.269, three to 0.267, one to 0.240."""
TIER_MATCH_SHARE = 0.5
"""A basis article's penalty is added only when the question states a part of one of its tiers' conditions
this well: 道路交通安全法:91 and 刑法:133-1 both answer a drunk-driving question (醉酒驾驶机动车的: 1.0),
刑法:277's 以驾驶机动车撞击等手段 (0.4) does not, even when it is the only basis article."""

_OPEN_END = re.compile(r"[；;：:，,。.]+$")
_CITES_INLINE = re.compile(r"(?:引用|法律依据|citations?)[:：]\s*(?:[\[【][^\]】]*[\]】][、，,;；\s]*)+", re.IGNORECASE)
_CITING_WORD = re.compile(r"(?:根据|依据|依照|按照|违反|适用|[、和及与])\s*$")
_BRACKET_ID = re.compile(r"(?P<sep>[、，,]\s*)?[\[【]\s*([^\[\]【】:：\s]+)\s*[:：]\s*([\w-]+)\s*[\]】]")


def _heading(item: LegalBasisItem) -> str:
    return f"《{item['law']}》{item['number']}"


def readable_citations(text: str, basis: list[LegalBasisItem], lang: str) -> str:
    """``text`` without 引用 lists, each bracket id ([刑法:133-1]) written as the citation a reader knows
    (《刑法》第一百三十三条之一, in parentheses unless a word such as 根据 introduces it); a bracket id outside
    the basis is dropped."""
    numbers = {b["article_id"]: b for b in basis}

    def cite(match: re.Match[str]) -> str:
        item = numbers.get(f"{match[2]}:{match[3]}")
        if not item:
            return ""  # with the separator before it
        cited = label("citation", lang, law=short_law_name(item["law"]), number=item["number"])
        before = match.string[: match.start()] + (match["sep"] or "")
        # 根据[刑法:264]的规定 reads as 根据《刑法》第二百六十四条的规定; elsewhere the citation is a parenthesis.
        return (match["sep"] or "") + (cited if _CITING_WORD.search(before) else label("aside", lang, text=cited))

    return _BRACKET_ID.sub(cite, _CITES_INLINE.sub("", text)).strip()


def _record(claim: Claim, verdict: str, article: str) -> ClaimCheck:
    return {"claim": claim.text, "kind": claim.kind, "verdict": verdict, "article": article}


def _revise(state: ConsultState, ctx: ConsultContext, response: str, claims: list[Claim]) -> tuple[str, Usage]:
    basis = "\n".join(f"{_heading(b)}：{b['text']}" for b in state.legal_basis)
    prompt = render_prompt(
        "revise_claims",
        ctx.language,
        question=state.question,
        response=response,
        claims=label("list_separator", ctx.language).join(dict.fromkeys(c.text for c in claims)),
        basis=basis,
    )
    system = SystemMessage(content=render_prompt("system", ctx.language))
    text, usage = invoke_text(chat_model(ctx, "draft"), [system, HumanMessage(content=prompt)])
    revised = split_draft(without_echoed_headings(text, "revise_claims", ctx.language))
    # A reply that copies the basis as the prompt shows it (heading：text) restates articles, answering no one:
    # the original's unsupported sentences go by rule instead.
    copied = any(f"{_heading(b)}：" in revised for b in state.legal_basis)
    return ("" if copied else revised), usage


def _without_sentences(text: str, drop: set[int]) -> str:
    return "".join(s for i, s in enumerate(sentences(text)) if i not in drop).strip()


def tier_said(question: str, text: str) -> Tier | None:
    """The penalty tier of the article ``text`` whose condition ``question`` states well enough to say it
    (:data:`TIER_MATCH_SHARE`), if any."""
    tier = closest_tier(article_tiers(text), question)
    return tier if tier and condition_match(tier, question) >= TIER_MATCH_SHARE else None


def penalties_said_by_code(question: str, texts: Collection[str]) -> bool:
    """Whether code says the whole answer to ``question`` from the basis articles' ``texts``: it asks what
    punishment follows and every article has a tier for the case asked (:func:`stated_penalties` quotes each). A
    draft then adds nothing the Response keeps: the README's 醉酒驾驶机动车会受到什么处罚？ spent 60 s on a draft
    that quoted 91's 饮酒 paragraph; every claim of it was removed and the tiers said instead. The question is read
    with its abbreviations spelled out, as :func:`stated_penalties` reads it (醉驾怎么处罚？ meets 91's 醉酒驾驶)."""
    question = spelled_out(question)
    return bool(texts) and asks_about_punishment(question) and all(tier_said(question, t) for t in texts)


def stated_penalties(
    question: str,
    response: str,
    basis: list[LegalBasisItem],
    lang: str,
    defined: Mapping[str, Collection[str]] | None = None,
) -> tuple[str, list[ClaimCheck]]:
    """The sentences to add so that the Response names every penalty kind the matching basis articles state
    for the case asked about, quoted from them, with a record of each kind added. An article that defines one
    charge (``defined``: the charge table's DEFINES edges) names it with the penalty, as the SPC's charge names
    read it: 醉酒驾驶机动车的，构成危险驾驶罪，处拘役，并处罚金 (刑法:133-1 never writes the name)."""
    named = set(penalty_kinds(response))
    matched = [(b, tier) for b in basis if (tier := tier_said(question, b["text"]))]
    added: list[str] = []
    checks: list[ClaimCheck] = []
    for item, tier in matched:
        missing = [kind for kind in tier.kinds if kind not in named]
        if not missing:
            continue
        condition = stated_condition(tier, question)
        charges = sorted((defined or {}).get(item["article_id"], ()))
        charge = label("stated_charge", lang, charge=charges[0]) if len(charges) == 1 and condition else ""
        added.append(
            label("stated_penalty", lang, article=_heading(item), condition=condition + charge, penalty=tier.penalty)
        )
        checks += [_record(Claim(kind, "penalty", -1), ADDED, item["article_id"]) for kind in missing]
        named.update(missing)
    return "".join(added), checks


def quoted_provisions(question: str, response: str, basis: list[LegalBasisItem], skip: set[str], lang: str) -> str:
    """What the basis articles closest to the question (those in ``skip`` aside) provide, in their own words:
    the sentences closest to question and answer. A 1.5B model's Response is often one sentence; quoting the
    article says what it requires and provides without the risk of a paraphrase. The question's abbreviations are
    read as the law words them (醉驾: the 醉酒驾驶 sentences, not the first paragraph's 饮酒后)."""
    question = spelled_out(question)
    closeness = {b["article_id"]: shared_pairs(b["text"], question) for b in basis}
    closest = max(closeness.values(), default=0)
    quoted = []
    for item in basis:
        if item["article_id"] in skip or closeness[item["article_id"]] < QUOTED_CLOSENESS * closest:
            continue
        passage = _passage(item["text"], question + response)
        # The model often copies the article into its answer; quoting it again adds nothing.
        if passage and bigram_share(passage, response) < ALREADY_SAID_SHARE:
            quoted.append(_provision(_heading(item), passage, lang))
    return "".join(quoted)


def _passage(text: str, query: str) -> str:
    """The article's units closest to ``query``, as much as one quote may hold: an item with its list's lead, never
    the lead alone (:func:`citable_units`), and a lead said once before the items it introduces."""
    units = citable_units(text)
    closeness = [shared_pairs(unit, query) for _, unit in units]
    best: dict[str, int] = {}
    for (lead, _), close in zip(units, closeness, strict=True):
        if lead:
            best[lead] = max(best.get(lead, 0), close)
    # Of one list only its closest items: the question meets one item (（二）醉酒驾驶), not the one after it.
    units = [u for u, close in zip(units, closeness, strict=True) if not u[0] or close == best[u[0]]]
    texts = [lead + unit for lead, unit in units]
    # An item with its lead is two of the sentences a quote holds: the closest one such is the quote.
    closest = max(range(len(units)), key=lambda i: (shared_pairs(texts[i], query), -i), default=None)
    parts = 1 if closest is not None and units[closest][0] else PROVISION_PARTS
    passage = relevant_passage(texts, query, parts, PROVISION_CHARS)
    for lead in dict.fromkeys(lead for lead, _ in units if lead):
        if (start := passage.find(lead)) >= 0:
            end = start + len(lead)
            passage = passage[:end] + passage[end:].replace(lead, "")
    return passage


def _provision(heading: str, passage: str, lang: str) -> str:
    """``heading`` provides ``passage``, as one sentence of the answer."""
    return label("provision", lang, article=heading, text=_OPEN_END.sub("", passage) + label("sentence_end", lang))


def _no_support(state: ConsultState, lang: str, quote: bool) -> str:
    """The honest answer: nothing kept supports one, where to ask, and the nearest articles named as unverified,
    the first of them quoted where ``quote`` (what they say, never what they would mean for the question)."""
    nearest = state.evidence[:NEAREST_SHOWN]
    answer = label(
        "no_support",
        lang,
        guidance=where_to_ask([e["article_id"] for e in nearest], lang, state.question),
        articles=label("list_separator", lang).join(e["heading"] for e in nearest) or label("none", lang),
    )
    for item in nearest[:NEAREST_QUOTED] if quote else []:
        if passage := _passage(item["text"], spelled_out(state.question)):
            answer += _provision(item["heading"], passage, lang)
    return answer


def _unverified_basis(state: ConsultState, lang: str) -> str:
    """The sentence saying which basis articles the audit kept without checking them (their checklist could not
    be written or answered): what the answer says on them has not been tested against the user's facts."""
    unchecked = {v["article_id"] for v in state.verdicts if v["decided_by"] == "unverified"}
    headings = [_heading(b) for b in state.legal_basis if b["article_id"] in unchecked]
    return label("unverified_basis", lang, articles=label("list_separator", lang).join(headings)) if headings else ""


_CONDITION = re.compile(r"^(?P<condition>[^。；]{4,160}?)的，(?!或者)(?P<consequence>[^。；]+)")
"""An article's first rule as statutes word it: 当事人一方不履行合同义务……的，应当承担……违约责任; a condition with
alternatives runs on through them (殴打他人的，或者故意伤害他人身体的，处……)."""


def _closest_item(rules: list[str], lead: str, question: str) -> str:
    """After a list's lead (…有下列情形之一的，应当认定为工伤：), its item closest to the question by character pairs,
    then by characters (at least two, and closer than any other), after the ellipsis of the items left out:
    asked 上班路上被车撞了算工伤吗？, 工伤保险条例:14's (六)在上下班途中，受到非本人主要责任的交通事故…; the
    items in the law's order, as many as one quote holds (:data:`PROVISION_CHARS`), when no item stands out: the
    list is then the condition, and the person reads which item is theirs (42's （四）女职工在孕期 for 我怀孕了, which
    shares one character with it and one with another); "" when the rule is no list's lead."""
    if not lead.endswith("："):
        return ""
    items = [r for r in rules if r.startswith(("（", "("))]
    # Words the lead already holds (工伤 in 应当认定为工伤) tell no item apart.
    asked = "".join(c if c not in lead else " " for c in question)
    chars = set(asked) - {" "}

    def closeness(item: str) -> tuple[int, int]:
        return shared_pairs(item, asked), len(chars & set(item))

    ranked = sorted(items, key=closeness, reverse=True)
    # An item quoted must stand out: two items as close are no answer to which one the person's case is.
    if ranked and closeness(ranked[0])[1] >= 2 and (len(ranked) < 2 or closeness(ranked[1]) != closeness(ranked[0])):
        return f"……{ranked[0]}"
    return _items_in_order(lead, items)


def _items_in_order(lead: str, items: list[str]) -> str:
    """A list's items in the law's order, as many as one quote holds with its ``lead``: a lead alone (有下列情形之一的，
    ……：……) says nothing the person can check their case against."""
    if not items:
        return "……"
    shown: list[str] = []
    for item in items:
        if shown and len(lead) + len("；".join([*shown, item])) > PROVISION_CHARS:
            break
        shown.append(item)
    return "；".join(shown) + ("；……" if len(shown) < len(items) else "")


def _deciding_rule(item: LegalBasisItem, question: str) -> tuple[list[str], str, re.Match[str] | None]:
    """(the article's rules, the one closest to ``question``, its condition and consequence where it is worded so
    and introduces no list): the rule a conditional article is read by. A repeat offence's rule is not a first
    offence's, a condition the person says is unmet matches nothing, and the first rule wins a tie (a statute
    usually states its rule first). A proviso (但是……) is no rule of its own: it is said with the rule it follows
    (:func:`_proviso`), or 574's 但是，债权人对债务人负有到期债务的 was read as the condition "如果但是，……"."""
    rules = [s.strip().rstrip("。；") for s in re.split(r"(?<=[。；\n])", item["text"]) if s.strip()]
    stated = without_unmet(question)
    ruling = [r for r in rules if not r.startswith("但")] or rules
    candidates = [r for r in ruling if not unstated_repeat(r, question)] or ruling
    first = max(candidates, key=lambda r: shared_pairs(r, stated), default="")
    # A list's item is read with its lead, which holds the consequence (处拘役，并处罚金): 133-1's (二) quoted alone
    # said nothing of the sentence. The item itself is then found again by :func:`_closest_item`.
    if first.startswith(("（", "(")) and (at := rules.index(first)):
        first = next((r for r in reversed(rules[:at]) if r.endswith("：")), first)
    # An article that introduces a list (有下列情形之一的) is quoted: its condition is the list, not the lead.
    found = _CONDITION.match(first) if "下列" not in first and "：" not in first else None
    return rules, first, found


def conditional_sentences(basis: list[LegalBasisItem], lang: str, question: str = "") -> list[str]:
    """Each conditional basis article as the person reads it, one sentence each: 如果 its condition, 则 its
    consequence, from the rule closest to the question (:func:`_deciding_rule`) in its own words, and the proviso
    that follows that rule (但是……): what follows the other way; a rule not worded so is quoted."""
    parts = []
    for item in basis:
        heading = _heading(item)
        rules, first, found = _deciding_rule(item, question)
        proviso = _proviso(rules, first)
        if found:
            consequence = found["consequence"] + (label("clause_separator", lang) + proviso if proviso else "")
            parts.append(_period(found["condition"], question, lang) + label(
                "conditional_item", lang, condition=found["condition"], consequence=consequence, article=heading
            ))  # fmt: skip
        else:
            text = first + _closest_item(rules, first, question)
            text += label("clause_separator", lang) + proviso if proviso else ""
            parts.append(label("provision", lang, article=heading, text=text + label("sentence_end", lang)))
    return parts


_FIRST_SENTENCE = re.compile(r"[^。！？!?]*[。！？!?]?")
"""A Response's first sentence, to its first full stop (a ； inside it ends a clause, not the verdict)."""
_EXEMPTING = re.compile(r"不经|无需|无须|不承担|不负|免除|除外")
"""A list's lead that exempts from a rule (可以不经肖像权人同意, 不承担民事责任) or excepts from it (但是有下列
情形之一的除外): its item decides which way the rule goes. A lead every item of which ends the same way (133-1's
有下列情形之一的，处拘役) is not one."""


def listed_item_opening(basis: list[LegalBasisItem], question: str, lang: str) -> tuple[str, str]:
    """(the sentence, its article) of the first concluded article whose deciding rule is the lead of a list that
    exempts or excepts (:data:`_EXEMPTING`) and whose item the question singles out (:func:`_closest_item`), said as
    :func:`conditional_sentences` says it; ("", "") when none. The draft read such lists backwards: 新闻直播上公开犯罪
    分子的肖像 "属于侵权行为" above 1020（二）为实施新闻报道……; 新闻报道严重失实 "报道人不承担侵权责任" above 1025's
    exception（二）(s67-stard-report41-60; of the 49 concluded answers of every recorded run, these two alone)."""
    for item in basis:
        rules, first, found = _deciding_rule(item, question)
        listed = _closest_item(rules, first, question).startswith(("……（", "……("))
        if found is None and listed and _EXEMPTING.search(first):
            return conditional_sentences([item], lang, question)[0], item["article_id"]
    return "", ""


_ASKS_LEAVE = re.compile(r"可以|能否|能不能|可不可以|能够|有权|允许")
"""A question whether something may be done (保管人可以改变保管场所或者方法吗？)."""
_GRANTS_LEAVE = re.compile(r"^[^，。；]{0,30}?(?<![不未])(?:可以|能够|能|有权|允许)(?!否)")
"""A verdict that grants it (保管人可以改变……)."""
_PROHIBITION = re.compile(r"[^。；\n]*(?:不得|禁止)(?:擅自|随意|任意|私自|非法)?(?P<act>[\u4e00-\u9fff]{2})[^。；\n]*")
"""A sentence that forbids an act, and the act's first two characters (不得擅自改变……: 改变)."""
PROHIBITION_PAIRS = 3
"""Character pairs a prohibition shares with the question at least, its act among them, to forbid the very act
asked about (保管人不得使用……保管物 for 保管人可以使用仓储物吗？: 保管, 管人, 使用), not another act on the same thing
(892's 不得擅自改变保管场所 says nothing of whether 保管人可以约定保管场所)."""


def prohibited_opening(basis: list[LegalBasisItem], question: str, verdict: str, lang: str) -> tuple[str, str]:
    """(the prohibition quoted, its article) where the question asks whether something may be done, the draft's
    ``verdict`` says it may, and a concluded article forbids that act (不得, 禁止, sharing :data:`PROHIBITION_PAIRS`
    with the question): the draft's 保管人可以改变保管场所或者方法 stood above 892's own 除紧急情况……外，不得擅自改变
    保管场所或者方法 (s68-stard-report61-80; of the 10 recorded permission questions a draft granted on a concluded
    basis, that one alone); ("", "") otherwise. The law's words answer it, its exception with it."""
    if not _ASKS_LEAVE.search(question) or not _GRANTS_LEAVE.search(verdict):
        return "", ""
    for item in basis:
        for m in _PROHIBITION.finditer(item["text"]):
            if m["act"] in question and shared_pairs(m.group(), question) >= PROHIBITION_PAIRS:
                text = m.group().strip() + label("sentence_end", lang)
                return label("provision", lang, article=_heading(item), text=text), item["article_id"]
    return "", ""


_DENIES = re.compile(r"不承担|不负|免除|免责|不得|不能|不可以|无权|不应|不属于|不构成|无效")
"""A verdict or a consequence that denies (不承担民事责任, 无权, 无效)."""
_AFFIRMS = re.compile(r"承担|负责|应当|可以|有权|属于|构成|有效")
"""One that affirms (由保管人承担, 应当赔偿, 有权): read only where nothing denies."""
STATED_PHRASE = 4
"""Characters in a row a condition shares with the question at least, for the question to state it in the law's
own words (不可抗力): fewer are a word both use (仓储物), not the condition."""


def _polarity(text: str) -> int:
    """-1 where ``text`` denies (:data:`_DENIES`), 1 where it affirms (:data:`_AFFIRMS`), 0 where it does neither."""
    return -1 if _DENIES.search(text) else 1 if _AFFIRMS.search(text) else 0


def contradicted_opening(conditional: list[LegalBasisItem], question: str, verdict: str, lang: str) -> tuple[str, str]:
    """(the rule's sentence, its article) of the first conditional article whose condition the question states in
    the law's words (:data:`STATED_PHRASE` in a row) and whose consequence the draft's ``verdict`` says the opposite
    of: asked of 仓储物由于不可抗力毁损, the draft's 责任由保管人承担 (917's consequence, whose 保管不善 the question
    never states) stood above 180's 因不可抗力不能履行民事义务的，不承担民事责任 (s68-stard-report61-80; of every
    recorded answer, that one alone). The rule the stated facts meet opens, as :func:`conditional_sentences` says
    it, and the draft's rule follows it: what follows each way. ("", "") otherwise."""
    said = _polarity(verdict)
    for item in conditional if said else []:
        _, _, found = _deciding_rule(item, question)
        if found is None or longest_shared_run(found["condition"], question) < STATED_PHRASE:
            continue
        if _polarity(found["consequence"]) == -said:
            return conditional_sentences([item], lang, question)[0], item["article_id"]
    return "", ""


def phrased_opening(item: LegalBasisItem, question: str, ctx: ConsultContext) -> tuple[str, Usage]:
    """``item``'s deciding rule as the model restates it in the question's terms (:mod:`agents.common.applied_rule`),
    its proviso after it as the statute words it; "" where the rule is not worded 如果……则…… or the restatement
    says something else. ``question`` is the person's own words, which the restatement speaks to."""
    rules, first, found = _deciding_rule(item, spelled_out(question))
    if found is None:
        return "", empty_usage()
    applied, usage = applied_rule(ctx, question, found["condition"], found["consequence"])
    if applied is None:
        return "", usage
    proviso = _proviso(rules, first)
    consequence = applied.consequence.rstrip("。；") + (
        label("clause_separator", ctx.language) + proviso if proviso else ""
    )
    sentence = label(
        "conditional_item", ctx.language, condition=applied.condition.rstrip("，。"), consequence=consequence,
        article=_heading(item),
    )  # fmt: skip
    return sentence, usage


def settled_by_period(item: LegalBasisItem, question: str) -> bool:
    """Whether ``question`` states the one period the condition of ``item``'s deciding rule ranges over: its
    sentence then says whether the rule applies (:func:`_period`), and nothing is left to turn on that period."""
    _, _, found = _deciding_rule(item, question)
    return found is not None and None not in (stated_period(question), condition_range(found["condition"]))


def _period(condition: str, question: str, lang: str) -> str:
    """Whether the one period the question states lies in the range ``condition`` names, said before the rule:
    入职半年 is within 82's 超过一个月不满一年 (code compares them; the rule's other conditions stay conditions);
    "" when either states none."""
    stated, bounds = stated_period(question), condition_range(condition)
    if stated is None or bounds is None:
        return ""
    key = "period_within" if bounds.holds(stated.months) else "period_outside"
    return label(key, lang, stated=stated.text, range=bounds.text)


def _proviso(rules: list[str], rule: str) -> str:
    """The proviso right after ``rule`` in its article (但是，能够证明损害是因被侵权人故意……的，可以不承担或者减轻责任):
    the case the rule's consequence does not follow, "" when the article has none there. A proviso that lists its
    cases (但下列情形除外：) is said with them, or it named none."""
    after = rules.index(rule) + 1 if rule in rules else len(rules)
    if after >= len(rules) or not rules[after].startswith("但"):
        return ""
    proviso = rules[after]
    if not proviso.endswith("："):
        return proviso
    items = list(takewhile(lambda r: r.startswith(("（", "(")), rules[after + 1 :]))
    return proviso + _items_in_order(proviso, items)


_ITEM_LABEL = re.compile(r"^[（(][一二三四五六七八九十]+[）)]")


def _unit_with(text: str, words: str, opening: bool = False) -> str:
    """The unit of ``text`` that holds ``words`` (``opening``: that opens with them, its item label aside), with its
    list's lead (…处拘役，并处罚金：（二）醉酒驾驶机动车的) and the rest of a sentence cut at its semicolon
    (……依法追究刑事责任；五年内不得重新取得机动车驾驶证); "" when none does."""
    units = citable_units(text)
    for at, (lead, unit) in enumerate(units):
        body = _ITEM_LABEL.sub("", unit)
        if body.startswith(words) if opening else words in body:
            rest = units[at + 1][1] if unit.endswith("；") and at + 1 < len(units) and not units[at + 1][0] else ""
            return (lead + unit + rest).rstrip("；。")
    return ""


Levels = list[tuple[Threshold, str]]
"""Each threshold the question's stated level meets, with the conduct it makes (95 mg/100 ml: 醉酒驾驶)."""


def _said_by_number(
    item: LegalBasisItem,
    found: Levels,
    periods: list[tuple[PeriodRule, StatedPeriod]],
    rates: list[tuple[RateCap, StatedRate]],
    limits: list[LimitFound],
    lang: str,
) -> tuple[list[str], bool]:
    """The sentences saying ``item`` by the number that decided it (its unit for the conduct a level makes, the
    range a period lies in, the limit a period is set against, or the cap a rate is above), and whether a level
    decided it."""
    for threshold, conduct in found:
        if unit := _unit_with(item["text"], conduct, opening=True):
            said = [_provision(_heading(item), unit, lang)]
            # The article that defines the charge names it, as the SPC's charge names read it (危险驾驶罪).
            if item["article_id"] == threshold.article:
                said.append(label("measured_charge", lang, charge=threshold.charge))
            return said, True
    said = []
    for rule, period in periods:
        if item["article_id"] == rule.article and (unit := _unit_with(item["text"], rule.range.text)):
            said += [label("period_within", lang, stated=period.text, range=rule.range.text)]
            said += [_provision(_heading(item), unit, lang)]
    for limit in limits:
        words = limit.band.range.text if limit.band.range else limit.band.limit.text
        if item["article_id"] == limit.article and (unit := _unit_with(item["text"], words)):
            band = label("limit_band", lang, term=limit.term.text, range=words) if limit.term else ""
            key = "limit_exceeded" if limit.exceeds else "limit_within"
            said += [label(key, lang, band=band, limited=limit.limited.text, limit=limit.band.limit.text)]
            said += [_provision(_heading(item), unit, lang)]
    for cap, rate in rates:
        if item["article_id"] == cap.article and (unit := _unit_with(item["text"], cap.words)):
            said += [label("rate_above", lang, stated=rate.text, yearly=f"{rate.yearly:g}", highest=f"{cap.highest:g}")]
            said += [_provision(_heading(item), unit, lang)]
    return said, False


def measured_answer(state: ConsultState, lang: str) -> tuple[str, set[str]]:
    """The answer's opening where a number the question states decided basis articles (:func:`agents.basis.
    decided_by_measure`), and those articles: what a level is in the law's words, the floor quoted, that a period
    lies in an article's range, or that a rate is above the highest its cap can be, then each article by its unit for
    that conduct, range or cap. Code writes it, as code compared the number: a draft told a driver at 45 mg/100 ml of
    91's lifetime ban (its paragraph for a crash), having the whole article before it."""
    measured = {v["article_id"] for v in state.verdicts if v["decided_by"] == MEASURE}
    found = [(t, c) for t in load_thresholds().values() if (c := t.conduct(state.question))]
    periods, rates, limits = (
        decided_by_period(state.question),
        exceeded_caps(state.question),
        decided_by_limit(state.question),
    )
    sentences, used, by_level = [], set(), False
    for item in state.legal_basis:
        if item["article_id"] in measured:
            said, level = _said_by_number(item, found, periods, rates, limits, lang)
            sentences += said
            used |= {item["article_id"]} if said else set()
            by_level = by_level or level
    if not sentences:
        return "", set()
    openings = [
        label("measured_opening" if c == t.act else "measured_opening_under", lang, conduct=c, act=t.act,
              source=t.source.split("；")[-1], source_article=t.source_article, quote=t.quote)
        for t, c in found
    ] if by_level else []  # fmt: skip
    return "".join(openings) + "".join(sentences), used


def how_chosen(state: ConsultState, lang: str) -> str:
    """The sentence saying how each basis article was chosen and how sure that is: how many of the answered
    consultations nearest the question cite it and the keeper's support, or why it was kept without passing
    (the question asks about it; a kept article's liability clause names its conduct)."""
    by_id = {e["article_id"]: e for e in state.evidence}
    reasons = {v["article_id"]: v["decided_by"] for v in state.verdicts}
    why = {v["article_id"]: v["reason"].split(label("clause_separator", lang))[0] for v in state.verdicts}
    parts = []
    for item in state.legal_basis:
        evidence = by_id.get(item["article_id"])
        if evidence is None or reasons.get(item["article_id"]) == "reviewer":
            continue
        article = label("citation", lang, law=item["law"], number=item["number"])
        if not evidence["passes"]:
            parts.append(label("chosen_because", lang, article=article, why=why.get(item["article_id"], "")))
            continue
        similar = label("chosen_similar", lang, n=evidence["similar"]) if evidence["similar"] else ""
        parts.append(
            label("chosen_support", lang, article=article, similar=similar, support=f"{evidence['support']:.2f}")
        )
    return label("basis_chosen", lang, articles=label("list_separator", lang).join(parts)) if parts else ""


def _charges(state: ConsultState) -> tuple[set[str], dict[str, set[str]]]:
    """The charge names the KB knows and the charges each basis article defines (none without a charge table)."""
    charges = ChargeRepository(get_services().graph)
    if not charges.has_charges():
        return set(), {}
    return charges.names(), charges.charges_of({b["article_id"]: b["text"] for b in state.legal_basis})


def _checked(
    state: ConsultState, ctx: ConsultContext, response: str, names: set[str], defined: dict[str, set[str]]
) -> tuple[str, list[ClaimCheck], Usage, str]:
    """The response with unsupported claims rewritten or removed, the checks, the rewrite's usage, and the
    note saying which article's words apply when sentences were removed (empty otherwise); ``names`` and
    ``defined`` as :func:`_charges` reads them."""
    basis = {b["article_id"]: b["text"] for b in state.legal_basis}
    found = check_claims(response, basis, state.question, names, defined)
    unsupported = [claim for claim, verdict, _ in found if verdict == UNSUPPORTED]
    usage = empty_usage()
    rewritten: list[ClaimCheck] = []
    # Without a basis there is nothing to rewrite from: such claims go by rule.
    if unsupported and ctx.claim_rewrite and basis:
        revised, usage = _revise(state, ctx, response, unsupported)
        revised = readable_citations(revised, state.legal_basis, ctx.language)
        if revised:
            again = check_claims(revised, basis, state.question, names, defined)
            still = {(c.text, c.kind) for c, v, _ in again if v == UNSUPPORTED}
            rewritten = [_record(c, REWRITTEN, "") for c in unsupported if (c.text, c.kind) not in still]
            response, found = revised, again
            unsupported = [c for c, v, _ in again if v == UNSUPPORTED]
    if not unsupported:
        return response, rewritten + [_record(c, v, a) for c, v, a in found], usage, ""
    first = state.legal_basis[0] if state.legal_basis else None
    dropped = {c.sentence for c in unsupported}
    # Every claim of a removed sentence goes with it, supported or not.
    records = rewritten + [
        _record(c, REMOVED, first["article_id"] if first else "") if c.sentence in dropped else _record(c, v, a)
        for c, v, a in found
    ]
    note = label("claims_removed", ctx.language, article=_heading(first)) if first else ""
    return _without_sentences(response, dropped), records, usage, note


def _about_the_law(state: ConsultState, ctx: ConsultContext) -> bool:
    """Whether the question asks only what the law provides and tells no case (read from Chinese wording only)."""
    return ctx.language == "zh" and asks_what_the_law_says(state.question)


def _next_steps(state: ConsultState, ctx: ConsultContext) -> str:
    """The fact asked back and where to ask, for an answer with a basis in either tier: a fact the law makes
    decisive, in the person's words (:func:`decisive_fact`), else the first element of a concluded article the
    audit found unstated (:func:`missing_fact`, read from Chinese wording only), of the concluded basis where there
    is one, else of the conditional; the area is that of the
    concluded basis, else the one the question's words name before that of the conditional one: a conditional
    article is not concluded, and a person fined by the police (罚款) was sent to civil mediation by 民法典:286."""
    concluded = [b["article_id"] for b in state.legal_basis]
    conditional = [b["article_id"] for b in state.conditional_basis]
    # Beside a concluded basis, the fact the answer turns on is a concluded article's: asked about a probation code
    # found unlawful by 19, the answer asked back 47's years of work and wage (a conditional article beside it); of
    # the recorded answers, five asked so, each beside the point (s64-s70). With nothing concluded every conditional
    # article may be the one: the fourth of those asked back, 14's 交警认定您本人负什么责任, decides a commute.
    asked = decisive_fact(concluded or conditional, ctx.language, state.question)
    # An article whose decisive fact the question states has nothing left to ask (借钱时没说利息: not 是否为高利放贷).
    listed = decisive_facts(ctx.language)
    unlisted = [a for a in concluded if a not in listed]
    if not asked and unlisted and ctx.language == "zh":
        texts = {b["article_id"]: b["text"] for b in state.legal_basis}
        # A question about what the law provides tells no case to ask the article's own elements of (产品质量检验
        # 机构应当符合哪些条件？ was asked back 是否具备相应的检测条件和能力？).
        general = _about_the_law(state, ctx)
        asked = missing_fact(unlisted, state.verdicts, ctx.language, texts, state.question, general)
    if concluded:
        return asked + where_to_ask(concluded, ctx.language, state.question, basis=True)
    return asked + where_to_ask(conditional, ctx.language, state.question)


def draft_opening(
    response: str, basis: list[LegalBasisItem], question: str, lang: str, conditional: list[LegalBasisItem]
) -> tuple[str, list[ClaimCheck], str]:
    """(response, records, the unit quoted) with the draft's first sentence checked: a draft that opens by asking the
    question back (土地承包期内，承包地可以被收回吗？, stard-32 twice) has not answered it, and the answer opens with
    what it says next; the item of an exempting list the question points to decides, not the draft's verdict on it
    (which read 1020's and 1025's lists backwards), and so does a prohibition of the act the draft said may be done
    (:func:`prohibited_opening`), and a ``conditional`` article whose stated condition says the opposite
    (:func:`contradicted_opening`): code opens with the law's words and the whole first sentence gives way (one cut
    at its first ； left the rest of a verdict dangling)."""
    records: list[ClaimCheck] = []
    if (asked := _FIRST_SENTENCE.match(response)) and asked.group().strip().endswith(("？", "?")):
        records.append(_record(Claim(asked.group().strip(), "verdict", 0), REMOVED, ""))
        response = response[asked.end() :].strip()
    verdict = _FIRST_SENTENCE.match(response)
    opening, itemised = listed_item_opening(basis, question, lang)
    if not opening and verdict:
        opening, itemised = prohibited_opening(basis, question, verdict.group(), lang)
    if not opening and verdict:
        opening, itemised = contradicted_opening(conditional, question, verdict.group(), lang)
    if opening and verdict:
        records.append(_record(Claim(verdict.group().strip(), "verdict", 0), REWRITTEN, itemised))
        return opening + response[verdict.end() :].strip(), records, itemised
    return response, records, ""


def verify_claims(state: ConsultState, runtime: Runtime[ConsultContext]) -> dict[str, Any]:
    """Check the Response's claims against its Legal Basis and act on what fails (see the module doc)."""
    started = time.perf_counter()
    ctx = runtime.context
    records: list[ClaimCheck] = []
    response = state.response
    # The checks read Chinese statute wording; other packs get readable citations only.
    if ctx.language == "zh":
        # A sentence that states one basis article's words while citing another cites the one it states.
        response, records = reattribute(response, {b["article_id"]: b["text"] for b in state.legal_basis})
    response = readable_citations(response, state.legal_basis, ctx.language)
    usage = empty_usage()
    # A follow-up is read with the thread's earlier questions: 如果撞伤了人呢？ after 醉驾怎么处罚？ meets 91's 醉酒驾驶
    # paragraph, not its first (饮酒后驾驶: 暂扣六个月), which the opening stated "如果您撞伤了人" with.
    words = user_words(state.question, state.history)
    question = spelled_out(words)
    # Retrieval scores and the audit's own notes are for the audit panel: a person reads the law, not its scores.
    notes: list[str] = []
    # A conditional article whose rule opens the answer in the draft's place is not said again below it.
    opened = ""
    if ctx.language == "zh":
        names, defined = _charges(state)
        response, checked, usage, note = _checked(state, ctx, response, names, defined)
        records += checked
        notes.append(note)
        # A measure the question states decided these articles: code says what follows, by the unit for it.
        measured, quoted = measured_answer(state, ctx.language)
        if state.draft:
            response, checked_opening, itemised = draft_opening(
                response, state.legal_basis, question, ctx.language, state.conditional_basis
            )
            records += checked_opening
            quoted |= {itemised} - {""}
            opened = itemised
        others = [b for b in state.legal_basis if b["article_id"] not in quoted]
        # The tier and the unit quoted are the ones the thread speaks of: 如果撞伤了人呢？ alone drew 133-1's item (四),
        # 危险化学品, after 醉驾怎么处罚？.
        if others and asks_about_punishment(state.question):
            added, checks = stated_penalties(words, response, others, ctx.language, defined)
            response, records = response + added, records + checks
            quoted |= {c["article"] for c in checks}
        if ctx.quote_provisions:
            response += quoted_provisions(words, response, state.legal_basis, quoted, ctx.language)
        response = measured + response
    if state.legal_basis and response.strip():
        notes.append(how_chosen(state, ctx.language))
        response += _unverified_basis(state, ctx.language)
    besides = [b for b in state.conditional_basis if b["article_id"] != opened]
    conditional = conditional_sentences(besides, ctx.language, question)
    if (not state.legal_basis or not response.strip()) and conditional:
        # Nothing concluded from, but articles that apply under a condition the question leaves open: the answer
        # opens with what the best supported one provides and when (its proviso: when not), then says that it
        # turns on the person's facts, then what the others provide. It opened with "nothing decides this" above
        # the very rule that answers 狗主人要承担什么责任.
        # A period the question states settles whether the first rule applies (入职半年: within 82's range); else
        # the answer turns on the person's facts, and says so.
        settled = settled_by_period(state.conditional_basis[0], question)
        opening = conditional[0]
        if ctx.phrase_rule and not settled:
            # The model restates the rule in the person's terms; code keeps it only where it still says the rule.
            phrased, used = phrased_opening(state.conditional_basis[0], words, ctx)
            opening, usage = phrased or opening, add_usage(usage, used)
        # What the rule provides is the whole answer to a question about the law itself: there is no "you" for it
        # to turn on.
        response = opening + (
            "" if settled or _about_the_law(state, ctx) else label("conditional_turns_on", ctx.language)
        )
        response += label("conditional_also", ctx.language) + "".join(conditional[1:]) if conditional[1:] else ""
        response += _next_steps(state, ctx) if ctx.next_steps else ""
    elif not state.legal_basis or not response.strip():
        # No article was kept: whatever the model concluded rests on none (answers told people they could not
        # recover a loan, on 海商法), so the honest answer replaces it.
        response = _no_support(state, ctx.language, ctx.quote_provisions and ctx.language == "zh")
    else:
        # The conditional tier stands beside a concluded basis whether or not next steps are asked for.
        response += label("conditional_also", ctx.language) + "".join(conditional) if conditional else ""
        response += _next_steps(state, ctx) if ctx.next_steps else ""
    response += label("notice", ctx.language)
    return {
        "response": response,
        "messages": [reply(response, state.legal_basis, ctx.language, state.conditional_basis)],
        # Labels written to follow a sentence (" The legal basis was…") stand alone here.
        "audit_notes": [n.strip() for n in notes if n.strip()],
        "claim_checks": records,
        "history": [{"question": state.question, "response": response}],
        "usage": usage,
        "trace": [
            trace_event(
                "verify_claims",
                started,
                checked=len(records),
                unsupported=sum(r["verdict"] in (REWRITTEN, REMOVED) for r in records),
                added=sum(r["verdict"] == ADDED for r in records),
            )
        ],
    }
