"""What makes a checklist item checkable: one element of the article, asked as a yes/no question about a fact,
not the article restated, not the offence asked back, not a law or article named, not a crime asked of an
article that defines none, not a sentencing band, not the prompt's own example;
and the checklist code reads from an article's text when the model cannot make one. Text rules only: the
model calls are :mod:`tools.kb.checklist_generation`, the storage :mod:`tools.kb.checklists`."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field, ValidationError, ValidationInfo, field_validator

from prompts import load_prompt
from tools.law.penalties import CRIMINAL_PENALTY, penalty_tiers
from tools.law.wording import bigram_share

PROMPT = "generate_checklist"
# An item holding this share of the article's own characters restates the article instead of asking about
# one element of it; answered against any facts it "holds", so the audit would pass anything.
RESTATEMENT_SHARE = 0.8
_NOT_TEXT = re.compile(r"[\W_]|是否")
# "是否构成诈骗罪？" or "是否实施了本条规定的行为？" asks the audit's own question back: whatever the model
# answers, nothing was checked.
_CIRCULAR = re.compile(r"构成[^，。？?]{0,15}罪|本条")
# "受贿所得数额是多少？", "…的主体是哪些人？", "…应当承担什么责任？": the local model wrote such questions, which no
# fact answers yes or no; the audit read them as unmet and pruned the article.
_OPEN_QUESTION = re.compile(r"什么|哪些|哪种|哪个|如何|怎样|怎么|多少|多长|何种|何时")
# An item drawing at least this share of its wording from an article's sentencing bands (and more than from
# its basic offence) asks about a band, not an element: the local model wrote checklists for 刑法:263 of
# 入户抢劫, 持枪抢劫… only, all false for a plain robbery, and the audit pruned the article that applied.
BAND_SHARE = 0.5
# An item drawing at least this share of its wording from the checklist prompt's own text (and more than
# from the article) copies the prompt's example: the local model gave 刑法:389 (bribery) and 刑法:210 the
# items 携带凶器, 扒窃, 入户 from the prompt's theft example, which failed for every bribe and kept the
# verdict mixed whatever the facts.
PROMPT_SHARE = 0.5
# A law or article named in an item ("是否是保险法第八十九条？", "是否是《…消费者权益保护法》？"): the local
# model wrote such items, which say nothing of the facts, and the audit stored and reused them.
_REFERENCE = re.compile(
    r"《[^》]*》|第[零〇一二三四五六七八九十百千\d]+条(?:之[一二三四五六七八九十])?"
    r"|[\u4e00-\u9fff]{1,20}?法典?(?=[第的》？?]|$)"
)
# ...unless the article itself words its element so: 刑法:345 punishes whoever "违反森林法的规定" fells trees, and
# 是否违反森林法的规定？ asks about that element in the article's words (this share of its character pairs).
OWN_WORDING_SHARE = 0.8
_REFERENCE_FILLER = re.compile(r"是否|是|属于|适用|符合|该|规定|条文|条款|调整|范围|内容|的|[\W_]")
# Words of criminal law, which an item of an article that defines no offence cannot ask about: the local model
# asked civil articles "是否是构成犯罪的起点？", copied from the prompt.
_CRIMINAL_WORDS = re.compile(r"犯罪|罪|刑事|刑罚|判处|有期徒刑|拘役")
ITEM_CHARS = 80
"""Longest checklist item: one element, not a paragraph."""
_FIRST_SENTENCE = re.compile(r"[。\n]")
# Where an offence's elements end when no penalty follows them at once: its definition ("…的，是受贿罪"),
# a referral to another article's penalty ("…的，依照本法第二百六十四条的规定定罪处罚") or the persons a
# unit offence punishes ("…数额较大的，对其直接负责的主管人员…，处三年以下…").
_DEFINITION = re.compile(r"的?，是[^，。；]{1,30}罪")
_NOT_ELEMENT = re.compile(r"，(?:依照|对其直接负责)")
_ELEMENT_SPLIT = re.compile(r"[，,]")
# "以非法占有为目的" keeps its 的; any other element's closing 的 ("故意伤害他人身体的") is the clause's.
_CLOSING_DE = re.compile(r"(?<!目)的$")
_LIST_HEADS = ("有下列情形之一", "有下列行为之一")
# An article outside criminal law attaches an effect to conditions: "饲养的动物造成他人损害的，…应当承担侵权责任",
# "用人单位有下列情形之一的，劳动者可以解除劳动合同：（一）…的；（二）…". The conditions end at the first 的，
# (or the colon of a list head); a listed condition is one line.
_CONDITION_END = re.compile(r"的[，：:]")
_CLAUSE_END = re.compile(r"[。；\n]")
_LISTED = re.compile(r"[（(][一二三四五六七八九十]+[）)]\s*(.+?)(?:的)?[；;。，]?$")
MAX_ITEMS = 8
"""Most items a checklist holds (the schema's bound)."""


class ChecklistSchema(BaseModel):
    """What the model returns: ordered yes/no questions."""

    items: list[Annotated[str, Field(min_length=2, max_length=ITEM_CHARS)]] = Field(min_length=1, max_length=MAX_ITEMS)

    @field_validator("items")
    @classmethod
    def _checkable_items(cls, items: list[str], info: ValidationInfo) -> list[str]:
        # A small model mixes usable questions with ones nothing can be checked against; the usable ones are
        # kept, and only a list with none left is sent back (with the first reason) to be made again.
        article = (info.context or {}).get("article_text")
        tiers = penalty_tiers(article) if article else None
        reasons = [_unusable(item, article, tiers) for item in items]
        kept = [item for item, reason in zip(items, reasons, strict=True) if reason is None]
        if not kept:
            raise ValueError(next(reason for reason in reasons if reason))
        return kept


def _unusable(item: str, article_text: str | None, tiers: tuple[str, str] | None) -> str | None:
    """Why an item cannot be checked against facts, or None when it can; ``tiers`` is the article's
    :func:`penalty_tiers`, read once per checklist."""
    if "…" in item or "..." in item:
        # Copied from a template ("主体是否……？").
        return f"items must state each element concretely, without ellipses (……): {item!r}"
    if not ("是否" in item or item.rstrip().endswith(("?", "？"))):
        return f"every item must be a yes/no question (是否…？), not a statement: {item!r}"
    if _OPEN_QUESTION.search(item):
        return f"every item must be a yes/no question (是否…？), not ask what, which or how much: {item!r}"
    if _CIRCULAR.search(item):
        return f"an item must ask about a fact, not whether the offence is made out: {item!r}"
    if _names_only_a_reference(item, article_text):
        return f"an item must ask about a fact, not name a law or an article: {item!r}"
    if article_text and _CRIMINAL_WORDS.search(item) and not _CRIMINAL_WORDS.search(article_text):
        return f"an item of an article that defines no offence must not ask about a crime: {item!r}"
    if article_text and restated_share(item, article_text) >= RESTATEMENT_SHARE:
        return f"an item must ask about one element, not restate the whole article: {item!r}"
    if article_text and _copies_prompt(item, article_text):
        return f"an item must ask about this article's elements, not repeat the instructions' example: {item!r}"
    if tiers and _asks_about_band(item, *tiers):
        return (
            f"an item must ask about an element of the basic offence ({tiers[0].strip('，, ')}), not about a "
            f"heavier or lighter sentencing band: {item!r}"
        )
    return None


def _names_only_a_reference(item: str, article_text: str | None) -> bool:
    if not _REFERENCE.search(item) or len(_REFERENCE_FILLER.sub("", _REFERENCE.sub("", item))) >= 2:
        return False
    return not (article_text and bigram_share(item, article_text) >= OWN_WORDING_SHARE)


def _asks_about_band(item: str, offence: str, bands: str) -> bool:
    in_bands = bigram_share(item, bands)
    return in_bands >= BAND_SHARE and in_bands > bigram_share(item, offence)


@lru_cache(maxsize=1)
def _prompt_text() -> str:
    # The checks are written for Chinese statutes, so the Chinese prompt is the one items can copy.
    return load_prompt(PROMPT, "zh").template


def _copies_prompt(item: str, article_text: str) -> bool:
    in_prompt = bigram_share(item, _prompt_text())
    return in_prompt >= PROMPT_SHARE and in_prompt > bigram_share(item, article_text)


def statute_elements(article_text: str) -> list[str]:
    """The basic offence of an article as yes/no items, read by code from its first sentence: the text before
    its penalty ("…的，处三年以下…"), its definition ("…的，是受贿罪"), its referral ("…的，依照…处罚") or
    the persons it punishes ("对其直接负责的主管人员…"), one item per comma-separated element. A part
    opening with 或者 is an alternative to the one before and joins it, and a "有下列情形之一" head is
    dropped (its list is too long for one item). Items that fail the checks a model's items must pass are
    left out; an article outside criminal law gives its conditions instead (:func:`condition_elements`).

    The fallback when the model cannot make a checklist: the local model never made one for 刑法:234
    (故意伤害), 232 (故意杀人) or 263 (抢劫), so the commonest charges went unverified."""
    first = _FIRST_SENTENCE.split(article_text, maxsplit=1)[0]
    ends = [
        m.start() for m in (CRIMINAL_PENALTY.search(first), _DEFINITION.search(first), _NOT_ELEMENT.search(first)) if m
    ]
    if not ends:
        return read_conditions(article_text)
    elements: list[str] = []
    for part in filter(None, (p.strip() for p in _ELEMENT_SPLIT.split(first[: min(ends)]))):
        part = _CLOSING_DE.sub("", part)
        if part.startswith("或者") and elements:
            elements[-1] += f"，{part}"
        elif part and not part.startswith(_LIST_HEADS):
            elements.append(part)
    tiers = penalty_tiers(article_text)
    items = [f"是否{element}？" for element in elements]
    return [i for i in items if len(i) <= ITEM_CHARS and _unusable(i, article_text, tiers) is None]


def condition_elements(article_text: str) -> list[str]:
    """The conditions of an article outside criminal law as yes/no items, read by code: the clause before its
    first 的， ("饲养的动物造成他人损害的，…" -> 是否饲养的动物造成他人损害？), or, when that clause is a
    "有下列情形之一" head, one item per listed condition ("（二）未及时足额支付劳动报酬的；" -> 是否未及时足额支付劳动
    报酬？), each of which suffices. An article that attaches its effect to no condition (an obligation, a
    definition, a time limit) gives none.

    The fallback when the model cannot make a checklist: the local model failed most civil and procedural
    articles (it wrote their clauses as statements), which then stayed in answers unverified."""
    clause = _CLAUSE_END.split(article_text, maxsplit=1)[0]
    end = _CONDITION_END.search(clause)
    if end is None:
        return []
    head = clause[: end.start()]
    if head.endswith(_LIST_HEADS):
        # The list right under the head: its lines up to the first that is not one of its items.
        conditions = []
        for line in article_text.splitlines()[1:]:
            if not (listed := _LISTED.match(line.strip())):
                break
            conditions.append(listed.group(1).strip())
    else:
        conditions = [head.strip()]
    items = [f"是否{_CLOSING_DE.sub('', c)}？" for c in conditions if c]
    kept = [i for i in items if len(i) <= ITEM_CHARS and _unusable(i, article_text, None) is None]
    return list(dict.fromkeys(kept))[:MAX_ITEMS]


def read_conditions(article_text: str) -> list[str]:
    """The checklist code reads for an article outside criminal law (:func:`condition_elements`); empty for an
    article of criminal law, whose elements the model lists, or for one that states no condition."""
    return [] if _CRIMINAL_WORDS.search(article_text) else condition_elements(article_text)


def checkable(items: Sequence[str], article_text: str) -> bool:
    """Whether stored items still pass every check (a list made before a check was added fails it)."""
    try:
        parsed = ChecklistSchema.model_validate({"items": list(items)}, context={"article_text": article_text})
    except ValidationError:
        return False
    return parsed.items == list(items)


def restated_share(item: str, article_text: str) -> float:
    """Share of the article's characters (punctuation and 是否 aside) that the item reproduces in order."""
    article = _NOT_TEXT.sub("", article_text)
    if not article:
        return 0.0
    blocks = SequenceMatcher(None, _NOT_TEXT.sub("", item), article, autojunk=False).get_matching_blocks()
    return sum(block.size for block in blocks) / len(article)


@lru_cache(maxsize=1)
def rules_version() -> str:
    """Hash of these rules' source: a failure recorded under other rules is tried again."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:8]
