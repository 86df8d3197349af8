"""Claims an answer makes that code can check against the articles it rests on: penalty kinds, amounts and
periods with their units, charge names, denials (the person cannot, need not, has no right), and which article a
sentence says provides what it states.

A claim is supported when a basis article states it (the charge table's DEFINES edges count for charge
names: 刑法:133-1 never writes 危险驾驶罪), or when it only repeats the question (我借给他5万元 is the
user's fact, not a statement of law). Everything else is unsupported, and the answering agent rewrites or
removes it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import partial

# pydantic (LangGraph's JSON schemas for Studio and the API) needs this TypedDict before Python 3.12.
from typing_extensions import TypedDict

from tools.law.penalties import Quantity, article_tiers, asked_tiers, penalty_kinds, quantities
from tools.law.wording import (
    DENIAL,
    PERMITS_PERSISTING,
    PERMITS_WITHHOLDING,
    PERSISTING,
    STATUTE_NEGATION,
    WITHHOLDING,
    bigram_share,
)

SUPPORTED = "supported"
UNSUPPORTED = "unsupported"
FROM_QUESTION = "from_question"
REWRITTEN = "rewritten"
REMOVED = "removed"
ADDED = "added"
VERDICTS = (SUPPORTED, UNSUPPORTED, FROM_QUESTION, REWRITTEN, REMOVED, ADDED)
"""A claim's fate: checked (supported, unsupported, from_question), or acted on (an unsupported claim
rewritten by the model or removed with its sentence; a penalty the article states added to the answer)."""


class ClaimCheck(TypedDict):
    """One checkable claim of an answer and what became of it."""

    claim: str
    kind: str
    """penalty, quantity, charge, denial or attribution (what a sentence says an article provides)."""
    verdict: str
    article: str
    """The basis article that states it (supported, added), or the one whose words apply instead (removed)."""


@dataclass(frozen=True)
class Claim:
    """A checkable claim found in one sentence of an answer."""

    text: str
    kind: str
    sentence: int


_PUNISHMENT = re.compile(
    r"处罚|惩罚|处理|判[几多刑处]|怎么判|坐牢|刑期|量刑|罚款|罚多少|拘留|吊销|扣分|后果|什么罪|penalt|punish|sentence",
    re.IGNORECASE,
)


def asks_about_punishment(question: str) -> bool:
    """Whether a question asks what punishment or sanction follows (会受到什么处罚, 判几年, 罚多少)."""
    return _PUNISHMENT.search(question) is not None


_CONTENT = re.compile(r"什么|哪些|哪种|哪几|如何|怎样|指的是|是指|何为|何谓|含义|定义")
"""Words asking what the law's content is: 应当符合什么要求, 哪些情况下, 应当如何赔偿, 指的是什么."""
_OWN_CASE = re.compile(
    r"我|本人|咱|俺|您|了|(?:吗|(?<!什)么)[？?！!。]?\s*$|能否|是否|可否|能不能|可不可以|会不会|要不要|算不算"
)
"""Words by which a question tells a case (我, 本人; an event that happened: 被邻居家的狗咬伤了) or asks whether
something holds for one (能否, 吗)."""


def asks_what_the_law_says(question: str) -> bool:
    """Whether a question asks only what the law provides (产品质量应当符合什么要求？, 醉酒驾驶会受到什么处罚？,
    损害他人生命健康的，应当如何赔偿？): it asks for the law's content and tells no case, nor asks whether something
    holds for one. Its answer is the law's words; no fact of the asker's is left to ask for, and "whether this
    applies to you" has no "you" to turn on."""
    return _CONTENT.search(question) is not None and _OWN_CASE.search(question) is None


_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])")


def sentences(text: str) -> list[str]:
    """``text`` cut after each sentence end (。！？；and line breaks), ends kept, so joining them gives it back."""
    return [s for s in _SENTENCE_END.split(text) if s]


_ITEM = re.compile(r"^[（(][一二三四五六七八九十]+[）)]")
"""An item of a list as statutes number it: （二）醉酒驾驶机动车的."""


def citable_units(text: str) -> list[tuple[str, str]]:
    """``text``'s units as a lawyer cites them, each with the lead of the list it is an item of ("" for a sentence
    of its own): 刑法:133-1's （二）醉酒驾驶机动车的 with its lead 在道路上驾驶机动车，有下列情形之一的…：. A lead is
    no unit: it decides nothing without its item (an answer that quoted it alone told a drunk driver nothing); a
    lead no item follows stands alone."""
    units: list[tuple[str, str]] = []
    lead, followed = "", False
    for part in (s.strip() for s in sentences(text)):
        if not part:
            continue
        if lead and _ITEM.match(part):
            units.append((lead, part))
            followed = True
            continue
        if lead and not followed:
            units.append(("", lead))
        lead, followed = (part, False) if part.endswith(("：", ":")) else ("", False)
        if not lead:
            units.append(("", part))
    if lead and not followed:
        units.append(("", lead))
    return units


def _charges_in(text: str, charge_names: Collection[str]) -> list[str]:
    """Charge names written as such (名+罪), in order; 合同诈骗罪 is not also read as 诈骗罪."""
    found: list[str] = []
    for name in sorted(charge_names, key=len, reverse=True):
        if f"{name}罪" in text and not any(name in longer for longer in found):
            found.append(name)
    return sorted(found, key=lambda name: text.find(f"{name}罪"))


DENIAL_SHARE = 0.25
"""Share of a denial's character pairs that one negating sentence of a basis article must hold to state it: on the
recorded answers (s37 to s46) the denials an article states hold 0.29 to 0.96 (发包人不得收回承包地 from
民法典:337), the harmful ones 0.00 to 0.12 (不可以要求单位按七千一年工龄补偿给我 against 劳动合同法:47)."""
SHORT_REPLY = 6
"""Characters under which a denial (不可以。) is a reply to the question, read with the question's words."""
_CITING = re.compile(
    r"(?:根据|依据|依照|按照)?《[^》]+》第[^条]{1,12}条(?:之[一二三四五六七八九十]+)?(?:的)?(?:规定)?[：:，,]?"
)


def find_claims(text: str, charge_names: Collection[str] = ()) -> list[Claim]:
    """Every checkable claim of ``text``, sentence by sentence (a denial is its whole sentence)."""
    claims: list[Claim] = []
    for i, sentence in enumerate(sentences(text)):
        claims += [Claim(kind_name, "penalty", i) for kind_name in penalty_kinds(sentence)]
        claims += [Claim(q.text, "quantity", i) for q in quantities(sentence)]
        claims += [Claim(name, "charge", i) for name in _charges_in(sentence, charge_names)]
        # The answer's own asides (the notice: 不构成法律意见) are in full-width parentheses, and deny nothing.
        if DENIAL.search(sentence) and not sentence.lstrip().startswith("（"):
            claims.append(Claim(sentence.strip(), "denial", i))
    return claims


def states_denial(denial: str, article: str, question: str) -> bool:
    """Whether a sentence of ``article`` that denies or excepts holds :data:`DENIAL_SHARE` of ``denial``'s
    character pairs (its citation of the article aside; a short reply read with the question it answers); a
    permission to withhold only by a sentence that itself permits one (:data:`PERMITS_WITHHOLDING`), a persisting duty
    only by one that keeps it standing (:data:`PERMITS_PERSISTING`)."""
    content = _CITING.sub("", denial)
    if len(re.sub(r"\W", "", content)) < SHORT_REPLY:
        content = question + content
    if WITHHOLDING.search(content):
        stating = PERMITS_WITHHOLDING
    elif PERSISTING.search(content):
        stating = PERMITS_PERSISTING
    else:
        stating = STATUTE_NEGATION
    return any(bigram_share(content, s) >= DENIAL_SHARE for s in sentences(article) if stating.search(s))


def _key(quantity: Quantity) -> tuple[float, str]:
    return quantity.value, quantity.unit


def _asked_tier(text: str, question: str) -> str:
    """The part of ``text`` whose penalties answer ``question``: the tiers it states (:func:`asked_tiers`), when
    other tiers set other penalties; otherwise the whole article."""
    asked = asked_tiers(article_tiers(text), question) if question else []
    return "；".join(t.penalty for t in asked) if asked else text


def check_claim(
    claim: Claim,
    basis: Mapping[str, str],
    asked: Mapping[str, str],
    question: str,
    charges_defined: Mapping[str, Collection[str]],
) -> tuple[str, str]:
    """(verdict, article): the first basis article that states ``claim``, or why none does. ``asked`` maps a basis
    article id to the part of it whose penalties answer the question (:func:`_asked_tier`); ``charges_defined`` to
    the charges it defines."""
    for article_id, text in basis.items():
        stated = asked[article_id]
        if claim.kind == "penalty" and claim.text in penalty_kinds(stated):
            return SUPPORTED, article_id
        if claim.kind == "quantity" and set(map(_key, quantities(claim.text))) & set(map(_key, quantities(stated))):
            return SUPPORTED, article_id
        if claim.kind == "charge" and (claim.text in charges_defined.get(article_id, ()) or f"{claim.text}罪" in text):
            return SUPPORTED, article_id
        if claim.kind == "denial" and states_denial(claim.text, text, question):
            return SUPPORTED, article_id
    if claim.kind == "quantity" and set(map(_key, quantities(claim.text))) & set(map(_key, quantities(question))):
        return FROM_QUESTION, ""
    if claim.kind == "charge" and claim.text in question:
        return FROM_QUESTION, ""
    return UNSUPPORTED, ""


def check_claims(
    text: str,
    basis: Mapping[str, str],
    question: str = "",
    charge_names: Collection[str] = (),
    charges_defined: Mapping[str, Collection[str]] | None = None,
) -> list[tuple[Claim, str, str]]:
    """Every checkable claim of ``text`` with its verdict and supporting article (see :func:`check_claim`)."""
    defined = charges_defined or {}
    # An article's tiers are read once, not once per claim.
    asked = {article_id: _asked_tier(article, question) for article_id, article in basis.items()}
    return [(claim, *check_claim(claim, basis, asked, question, defined)) for claim in find_claims(text, charge_names)]


ATTRIBUTION_SHARE = 0.5
"""Share of a sentence's character pairs another basis article must hold to take its citation: half of a
paraphrase's pairs in one article's text is that article's wording, not chance (two unrelated civil articles
share about a fifth)."""
ATTRIBUTION_MARGIN = 0.25
"""How much more of the sentence that article must hold than the cited one: a sentence drawing on both is left
alone."""
_CITED_ID = re.compile(r"[\[【]\s*([^\[\]【】:：\s]+)\s*[:：]\s*([\w-]+)\s*[\]】]")


def misattributed(sentence: str, basis: Mapping[str, str]) -> tuple[str, str] | None:
    """(cited, holder) when ``sentence`` cites exactly one basis article ([保险法:89]) but states what another
    basis article provides: the other holds at least :data:`ATTRIBUTION_SHARE` of the sentence's character
    pairs and :data:`ATTRIBUTION_MARGIN` more than the cited one (an answer credited 保险法:89 with the text of
    92). None when the citation stands or cannot be judged."""
    cited = {f"{law}:{number}" for law, number in _CITED_ID.findall(sentence)} & set(basis)
    if len(cited) != 1 or len(basis) < 2:
        return None
    article = cited.pop()
    content = _CITED_ID.sub("", sentence)
    own = bigram_share(content, basis[article])
    share, holder = max((bigram_share(content, text), other) for other, text in basis.items() if other != article)
    return (article, holder) if share >= ATTRIBUTION_SHARE and share - own >= ATTRIBUTION_MARGIN else None


def _cite_instead(cited: str, holder: str, match: re.Match[str]) -> str:
    return f"[{holder}]" if f"{match[1]}:{match[2]}" == cited else match[0]


def reattribute(text: str, basis: Mapping[str, str]) -> tuple[str, list[ClaimCheck]]:
    """``text`` with each misattributed citation (:func:`misattributed`) replaced by the article whose words
    the sentence states, and a check per replacement."""
    out: list[str] = []
    checks: list[ClaimCheck] = []
    for sentence in sentences(text):
        if found := misattributed(sentence, basis):
            cited, holder = found
            sentence = _CITED_ID.sub(partial(_cite_instead, cited, holder), sentence)
            checks.append(
                {"claim": f"{cited} → {holder}", "kind": "attribution", "verdict": REWRITTEN, "article": holder}
            )
        out.append(sentence)
    return "".join(out), checks
