"""How much of one wording another text contains, by character pairs: the measure the checklist checks, the
penalty tiers, the audit's stated-item rule and the Response's quoted provisions share."""

from __future__ import annotations

import re
from collections.abc import Iterator

_NOT_TEXT = re.compile(r"[\W_]|是否")
"""Punctuation and the question frame 是否, which no text states."""
_DENIED = re.compile(r"(?:未(?!满|成年|婚|经|遂)|没有|并非|不构成|不足以)[^，。；]{0,6}$|无人员?$")
"""Words before a condition or an act that deny it (所幸未造成人员死亡, 未达重伤, 双方都没有受伤), at most six
characters back within a clause. 未 that makes an adjective (未满月的女婴, 未成年人, 未婚, 未经同意, 未遂) denies
nothing after it, and 无人 denies only what it stands right before (无人受伤): 趁店内无人之际窃得 tells the theft."""


def bigram_share(phrase: str, text: str) -> float:
    """Share of ``phrase``'s character bigrams (punctuation and 是否 aside) that occur in ``text``."""
    words = _NOT_TEXT.sub("", phrase)
    pairs = [words[i : i + 2] for i in range(len(words) - 1)]
    return sum(pair in text for pair in pairs) / len(pairs) if pairs else 0.0


def _pairs(text: str) -> set[str]:
    words = _NOT_TEXT.sub("", text)
    return {words[i : i + 2] for i in range(len(words) - 1)}


def shared_pairs(text: str, query: str) -> int:
    """How many distinct character pairs of ``query`` (punctuation aside) ``text`` contains."""
    return len(_pairs(text) & _pairs(query))


def relevant_passage(parts: list[str], query: str, count: int, max_chars: int) -> str:
    """The ``count`` parts (sentences of an article) sharing the most character pairs with ``query``, in
    their own order, as many as fit in ``max_chars`` (the best one alone is cut to it, ending in ……); the
    first part wins a tie, as a statute's first sentence usually states its rule."""
    ranked = sorted(range(len(parts)), key=lambda i: (-shared_pairs(parts[i], query), i))[:count]
    if not ranked:
        return ""
    best = parts[ranked[0]].strip()
    if len(best) > max_chars:
        return best[: max_chars - 2] + "……"
    chosen, used = [], 0
    for i in ranked:
        if used + len(parts[i].strip()) <= max_chars:
            chosen.append(i)
            used += len(parts[i].strip())
    return "".join(parts[i].strip() for i in sorted(chosen))


_HALF_WIDTH = str.maketrans(
    {chr(code): chr(code - 0xFEE0) for code in (*range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B), *range(0xFF41, 0xFF5B))}
    | {"／": "/", "．": ".", "％": "%", "＋": "+", "－": "-"}
)
"""Full-width digits, letters and the signs of a measure, half-width; the clause marks the tables read (，；：！？（）)
stay as they are."""


def normalised(text: str) -> str:
    """``text`` as the tables read it: full-width digits, letters and measure signs half-width (judgments write
    "114.31mg／100ml" and "蒙Ｄ"), Chinese punctuation untouched (a pattern's clause ends at its ，)."""
    return text.translate(_HALF_WIDTH)


_MASK = re.compile(r"(?<![×\dA-Za-z])××(?!×)")
"""CAIL's mask of a charge's own words, two characters (窜至他家中××现金200元, 使用网兜××青蛙, 构成××罪); a plate
number or an address masks more (蒙Ｄ×××××), and a masked number follows a digit (95××3); a masked heading may precede
one (一、××2013年)."""
_BY_REFERENCE = re.compile(
    r"^[^。]{0,30}?(?:上述|以上|前述)(?:事实|指控)|^[^。]{0,12}?(?:另查明|又查明|再查明|庭审中查明)|"
    r"(?:与|和|同)(?:原审|一审|原判|二审|本院认定|公诉机关指控|起诉书指控)[^。]{0,24}(?:相同|一致)"
)
"""A fact found by reference to another text (二审查明的事实与一审相同; 上述事实，被告人无异议 with the facts above it
cut away; a fragment opening on a further finding, 另查明): its acts are told there."""


def hides_words(fact: str) -> bool:
    """Whether ``fact``'s own words may hide what an offence is made of: CAIL's ×× mask, or facts told by reference
    to another text. No rule may then read the fact as not telling an act, an element or an amount: a fact whose
    element is unreadable is never acquitted for it."""
    return bool(_MASK.search(fact) or _BY_REFERENCE.search(fact))


_OTHERS_DO = re.compile(
    r"(?:有人|小偷|窃贼|盗贼|陌生人|(?:一|两|几|数)(?:名|个)?(?:陌生)?(?:男子|女子|男人|女人|小偷)|不明身份[^，。；]{0,3}人)"
    r"[^，。；]{0,4}$"
)
"""Another the fact names as the doer, just before an act (有人撬自家门锁, 一名男子拿走): not the defendant's act."""
_JOINT = re.compile(r"伙同|纠集|指使|雇佣|带领|与|和|同")
"""Words that make the other the defendant's accomplice (伙同一名男子撬门): the act is theirs together."""


def _undenied(pattern: str, fact: str) -> Iterator[tuple[str, int]]:
    """(the normalised fact, where) for each occurrence of ``pattern`` in ``fact`` not denied just before it."""
    fact = normalised(fact)
    for m in re.finditer(pattern, fact):
        if not _DENIED.search(fact[max(0, m.start() - 8) : m.start()]):
            yield fact, m.start()


def told(pattern: str, fact: str) -> bool:
    """Whether ``pattern`` occurs in ``fact`` (:func:`normalised`) other than denied (所幸未造成人员死亡, 未达重伤,
    双方都没有受伤)."""
    return any(_undenied(pattern, fact))


def told_of_own(pattern: str, fact: str) -> bool:
    """Whether ``pattern`` occurs in ``fact`` as the act of the one the fact is about: :func:`told`, and not done by
    another it names as the doer (a householder who heard 有人撬自家门锁 and chased him told no theft of his own). An
    act told in the passive (被盗, 被骗) says nothing of who did it: judgments tell the defendant's own theft so."""
    for text, at in _undenied(pattern, fact):
        clause = re.split(r"[，。；]", text[max(0, at - 16) : at])[-1]
        if not (_OTHERS_DO.search(clause) and not _JOINT.search(clause)):
            return True
    return False


_UNMET = re.compile(
    r"(?:没有?达?到|未达到?|够不上|不够|不算|不是|并非)[^，。；？！,;?!\d零一二三四五六七八九十百千万两]{1,10}"
)
"""A condition the person says is not met, up to the clause's end (没到醉驾, 不是故意的); a number after the
negation is the fact itself (没到18岁: under eighteen), so it stays."""
_REPEAT = re.compile(r"再次|又因|曾因|再犯")
"""A rule for a repeat offence (因饮酒后驾驶机动车被处罚，再次饮酒后驾驶机动车的)."""
_PRIOR = re.compile(r"再次|第[二三四五]次|两次|多次|屡次|又被|又一次|上次|以前|之前|曾经|曾被|曾因|再犯")
"""Words by which a question states a prior offence or penalty."""


def without_unmet(text: str) -> str:
    """``text`` without the conditions it says are not met: 喝了一瓶啤酒开车被查，没到醉驾 states no drunk driving,
    and was answered with 91's drunk-driving tier."""
    return _UNMET.sub("", text)


def unstated_repeat(rule: str, question: str) -> bool:
    """Whether ``rule`` is for a repeat offence and ``question`` states no prior one: a first offence's answer
    quoted 91's 再次饮酒后驾驶 (it shares 处罚 with 会怎么处罚)."""
    return bool(_REPEAT.search(rule)) and not _PRIOR.search(question)
