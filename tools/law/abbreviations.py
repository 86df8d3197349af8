"""Everyday abbreviations of conduct the law words in full (醉驾 for 醉酒驾驶), as data (``abbreviations.json``, read by
:mod:`tools.law.tables`: each entry with the provision it spells out). A question matched against an article's
penalty tiers reads them in the law's words: 醉驾怎么处罚？ shares no character pair with 91's 醉酒驾驶机动车的, so
its drinking tier's 暂扣六个月 was given as the penalty for drunk driving."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from tools.law.tables import read_table
from tools.law.thresholds import stated_conduct

TABLE = Path(__file__).with_name("abbreviations.json")


@lru_cache(maxsize=1)
def abbreviations() -> dict[str, str]:
    """Short form -> the law's wording."""
    return {entry["short"]: entry["long"] for entry in read_table(TABLE).entries}


def spelled_out(text: str) -> str:
    """``text`` with each abbreviation followed by the law's wording (醉驾 -> 醉驾（醉酒驾驶机动车）), and the conduct a
    measure it states is added (血液酒精含量120mg/100ml -> …（醉酒驾驶）; the thresholds table reads it): its own
    words stay, so nothing that matched before stops matching."""
    for short, long in abbreviations().items():
        text = text.replace(short, f"{short}（{long}）")
    return text + "".join(f"（{conduct}）" for conduct in stated_conduct(text))


_NOT_REACHED = re.compile(r"(?:没|未|不)(?:有)?(?:到|达到|够|算|是)$|达不到$")
"""A degree said not to be reached just before the abbreviation (没到醉驾, 还不算醉驾): the question is about the
level below it, and searching for the law's wording of it would steer to the offence the person says they are short
of."""


def stated_abbreviations(text: str) -> list[str]:
    """The law's wording of each abbreviation ``text`` uses (醉驾怎么处罚？ -> 醉酒驾驶机动车), for a search that
    matches the articles' words; not where the text says the degree is not reached (没到醉驾)."""
    found = []
    for short, long in abbreviations().items():
        at = text.find(short)
        if at >= 0 and not _NOT_REACHED.search(text[max(0, at - 4) : at]):
            found.append(long)
    return found
