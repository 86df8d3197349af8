"""How much of one wording another text contains, by character pairs: the measure the checklist checks, the
penalty tiers, the audit's stated-item rule and the Response's quoted provisions share."""

from __future__ import annotations

import re

_NOT_TEXT = re.compile(r"[\W_]|是否")
# Words before a condition or an act that deny it (所幸未造成人员死亡, 未达重伤, 双方都没有受伤), at most six
# characters back within a clause.
_DENIED = re.compile(r"(?:未|没有|无人|并非|不构成|不足以)[^，。；]{0,6}$")
"""Punctuation and the question frame 是否, which no text states."""


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


def told(pattern: str, fact: str) -> bool:
    """Whether ``pattern`` occurs in ``fact`` other than denied (所幸未造成人员死亡, 未达重伤, 双方都没有受伤)."""
    return any(not _DENIED.search(fact[max(0, m.start() - 8) : m.start()]) for m in re.finditer(pattern, fact))


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
