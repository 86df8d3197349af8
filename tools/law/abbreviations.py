"""Everyday abbreviations of conduct the law words in full (醉驾 for 醉酒驾驶), as data (``abbreviations.json``, read by
:mod:`tools.law.tables`: each entry with the provision it spells out). A question matched against an article's
penalty tiers reads them in the law's words: 醉驾怎么处罚？ shares no character pair with 91's 醉酒驾驶机动车的, so
its drinking tier's 暂扣六个月 was given as the penalty for drunk driving."""

from __future__ import annotations

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
    """``text`` with each abbreviation followed by the law's wording (醉驾 -> 醉驾（醉酒驾驶）), and the conduct a
    measure it states is added (血液酒精含量120mg/100ml -> …（醉酒驾驶）; the thresholds table reads it): its own
    words stay, so nothing that matched before stops matching."""
    for short, long in abbreviations().items():
        text = text.replace(short, f"{short}（{long}）")
    return text + "".join(f"（{conduct}）" for conduct in stated_conduct(text))
