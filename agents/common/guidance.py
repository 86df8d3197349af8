"""Where to take a question the knowledge base cannot answer: the area of law its words or the nearest articles
found name, and the bodies and time limits that area's law names (``prompts/<lang>/where_to_ask.json``), so
that an answer without a basis still tells the person where to go instead of drawing a conclusion."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from prompts import declared_table, label, load_table
from tools.law.articles import law_of
from tools.law.penalties import Tier, article_tiers, asked_tiers
from tools.law.wording import bigram_share, mentions, without_unmet


def _number(article_id: str) -> int:
    number = article_id.partition(":")[2].split("-")[0]
    return int(number) if number.isdigit() else 0


def _covers(area: Mapping[str, Any], article_id: str) -> bool:
    law = law_of(article_id)
    # Amendments are cited as 刑法修正案（八）: the table names the law they amend.
    named = any(law == name or law.startswith(f"{name}（") for name in area["laws"])
    # An area without "to" runs to the law's last article.
    return named and area["from"] <= _number(article_id) <= (area["to"] or 10**6)


def where_to_ask(article_ids: Sequence[str], lang: str, question: str = "", basis: bool = False) -> str:
    """One sentence naming the area of law and where to ask: the first area (table order) whose words
    ``question`` uses, else that of the first of ``article_ids`` (nearest first) whose law the table knows, else
    the table's default. Pass the question where the articles are unverified: the articles nearest a question
    the knowledge base cannot answer are often of another area (a drunk driver's question sent to civil
    mediation by a school-injury article), while the person's own words (醉驾, 罚款, 公积金) name it. With
    ``basis`` (the articles are the answer's Legal Basis) the question's words choose only among the areas the
    articles are in: asked 醉酒驾驶会受到什么处罚？ with 道路交通安全法:91 and 刑法:133-1 kept, the person is the one
    prosecuted (刑事), not a party to an accident (道路交通)."""
    table = declared_table("where_to_ask", lang)
    areas = list(table.entries)
    # A word the person says is unmet names no area: 没到醉驾 is no drunk driver's (criminal) question.
    question = without_unmet(question)
    if basis:
        areas = [a for a in areas if any(_covers(a, article_id) for article_id in article_ids)]
    for area in areas if question else ():
        if mentions(area["words"], question):
            return label("guidance", lang, area=area["area"], where=area["where"])
    for article_id in article_ids:
        # An area the person's own words name (the victim of a crime: 被骗, 被盗) is never read off an article:
        # the Criminal Law's articles are the same for the one who stole and the one robbed.
        for area in [a for a in table.entries if not a["by_words_only"]]:
            if _covers(area, article_id):
                return label("guidance", lang, area=area["area"], where=area["where"])
    return label("guidance_default", lang, where=table.top["default"]["where"])


_MEASURE = re.compile(r"[0-9０-９]|[一二两三四五六七八九十百千万]+(?:元|毫克|毫升|日|天|个月|年|周岁|人|次)")
"""A number a fact may be measured by (80毫克/100毫升, 三个月, 两次): what a threshold of the law asks of a case."""


def missing_fact(
    basis_ids: Sequence[str],
    verdicts: Sequence[Mapping[str, Any]],
    lang: str,
    texts: Mapping[str, str] | None = None,
    question: str = "",
    general: bool = False,
) -> str:
    """One sentence asking for the fact the answer turns on, or "": the first element of the first kept article
    (basis order) that the audit found may hold but the question does not state (``stated`` false), in the
    checklist's own words, if it is a short question (:data:`MISSING_FACT_CHARS`) of the clause the question is
    about (:func:`_of_another_tier`) and not a clause of the article copied out (:func:`_copied`). The user can
    answer it in the same thread (``ask --thread``). A ``general`` question (what the law provides, told of no
    case) is asked no element the article itself words, however short (产品质量检验机构应当符合哪些条件？ was asked
    是否具备相应的检测条件和能力？ back; 醉酒驾驶机动车会受到什么处罚？ 是否追逐竞驶，情节恶劣？), nor one the audit's
    checklist words of its own (什么是保理合同？ was asked 保理合同是否属于债权债务关系？ back): only a measure the law
    adds to it (血液酒精含量是否达到80毫克/100毫升？, the interpretation's threshold: :data:`_MEASURE`)."""
    by_article = {v["article_id"]: v for v in verdicts}
    for article_id in basis_ids:
        text = (texts or {}).get(article_id, "")
        tiers = article_tiers(text)
        asked = asked_tiers(tiers, question)
        for check in (by_article.get(article_id) or {}).get("checks", []):
            item = str(check["item"]).strip()
            if check.get("stated", True) or not _askable(item, lang) or _copied(item, text):
                continue
            if general and (bigram_share(item, text) >= COPIED_SHARE or not _MEASURE.search(item)):
                continue
            if not _of_another_tier(item, tiers, asked):
                return label("ask_missing", lang, item=item)
    return ""


def decisive_facts(lang: str) -> dict[str, Mapping[str, Any]]:
    """The language's table of decisive facts by article (``prompts/<lang>/decisive_facts.json``; none without one):
    an article with an entry turns on that fact, so once the question states it nothing else of it is asked."""
    try:
        table = declared_table("decisive_facts", lang)
    except FileNotFoundError:
        return {}
    return {fact["article"]: fact for fact in table.entries}


def decisive_fact(article_ids: Sequence[str], lang: str, question: str) -> str:
    """One sentence asking for the fact the answer turns on, or "": that of the first of ``article_ids`` (the
    concluded basis, then the conditional) whose entry in the language's table of decisive facts
    (``prompts/<lang>/decisive_facts.json``) the question does not already state: asked about a deposit with
    民法典:577 in the basis, what the lease agreed; asked about a loan with 民法典:680, whether interest was agreed,
    unless the question names the interest. A language without a table asks nothing here."""
    facts = decisive_facts(lang)
    for article_id in article_ids:
        fact = facts.get(article_id)
        if fact and not mentions(fact["stated"], question):
            return label("ask_missing", lang, item=fact["ask"])
    return ""


COPIED_CHARS = 20
"""An item longer than this that repeats its article's words (:data:`COPIED_SHARE`) is a clause copied out."""
COPIED_SHARE = 0.8


def _copied(item: str, text: str) -> bool:
    """Whether ``item`` is a clause of the article copied out, not a fact a person states: asked of a deposit,
    民法典:394's 是否为担保债务的履行，债务人或者第三人不转移财产的占有，将该财产抵押给债权人？ A short element
    (是否在道路上驾驶机动车？) stays a question, though the article words it the same way."""
    return len(item) > COPIED_CHARS and bool(text) and bigram_share(item, text) >= COPIED_SHARE


def _of_another_tier(item: str, tiers: list[Tier], asked: list[Tier]) -> bool:
    """Whether ``item`` is an element of one of an article's penalty ``tiers`` other than those the question
    states (``asked``: :func:`~tools.law.penalties.asked_tiers`): asked 醉酒驾驶会受到什么处罚？, 道路交通安全法:91's
    是否因饮酒后驾驶机动车被处罚？ is the condition of the repeat 饮酒后 tier, and what 醉酒驾驶 costs does not turn
    on it."""
    if not asked:
        return False
    return max(tiers, key=lambda t: bigram_share(item, t.condition)) not in asked


MISSING_FACT_CHARS = 40
"""Longest checklist item put to the user as a question: a longer one is a clause of the article copied out (the
checklist written from the article's text when the model failed), not a fact a person can answer."""


@lru_cache(maxsize=4)
def _unaskable_words(lang: str) -> tuple[str, ...]:
    """Words that make a checklist item no fact a person can state (``prompts/<lang>/checklist_words.json``: a duty or
    a right, which the law answers; a list's catch-all item, which names no fact; the law's own analysis, 构成要件; a
    reference to a text the person never saw, 下列行为; a standing everyone has, 民事主体); none without the file."""
    try:
        table = load_table("checklist_words", lang)
    except FileNotFoundError:
        return ()
    optional = ("analysis", "reference", "everyone")
    return (*table["normative"], *table["catch_all"], *(word for key in optional for word in table.get(key, ())))


def _askable(item: str, lang: str) -> bool:
    short = len(item) <= MISSING_FACT_CHARS and item.endswith(("？", "?"))
    return short and not mentions(_unaskable_words(lang), item)
