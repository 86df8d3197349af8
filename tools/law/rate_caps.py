"""An interest rate the question states, set against a cap the law names, in code: 月息5分 is 60% a year, above four
times any one-year LPR (民间借贷规定 第二十五条), whatever the contract's date. A 1.5B model called it protected.

The caps are data (``rate_caps.json``, read by :mod:`tools.law.tables`): the provision, the words of its cap, the
multiple and the highest the reference rate can be, with why. Only "above" is decided: under the highest cap the answer
turns on the reference rate at the contract's date, which code does not hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tools.law.penalties import NUMBER, number_value
from tools.law.periods import sole_value
from tools.law.tables import Entry, read_table
from tools.law.wording import told

TABLE = Path(__file__).with_name("rate_caps.json")

_RATE = re.compile(
    rf"(?P<term>月|年)(?:息|利率)(?:为|是)?\s*(?:(?P<fen>{NUMBER})\s*分(?P<tenth>[一二三四五六七八九1-9](?![\d十百千万元块]))?|(?P<li>{NUMBER})\s*厘|(?P<pct>\d+(?:\.\d+)?)\s*[%％])"
)
"""A stated rate: 月息5分 (5% a month), 月息一分五 (1.5%), 月息8厘 (0.8% a month), 年息2分 (20% a year), 月利率2%
and 年利率10%: in folk usage a 分 is a tenth and a 厘 a hundredth of the principal, a month's for 月息 and a year's for
年息."""


@dataclass(frozen=True)
class StatedRate:
    """The one rate a text states: its words and the yearly rate in percent."""

    text: str
    yearly: float


def stated_rate(text: str) -> StatedRate | None:
    """The rate ``text`` states as a yearly percentage (None when it states none code can read, or several)."""
    found: dict[float, str] = {}
    for m in _RATE.finditer(text):
        if m["pct"]:
            value: float | None = float(m["pct"])
        else:
            number = number_value(m["fen"] or m["li"])
            if number is not None and m["tenth"]:
                number += (number_value(m["tenth"]) or 0.0) / 10.0
            value = None if number is None else number * (10.0 if m["fen"] else 1.0)
            if value is not None and m["term"] == "月":
                value /= 10.0  # 月息一分 is 1% a month: a 分 of a month is a tenth of the yearly 分
        if value is not None:
            found.setdefault(round(value * (12.0 if m["term"] == "月" else 1.0), 4), m.group(0))
    sole = sole_value(found)
    return StatedRate(sole[1], sole[0]) if sole else None


@dataclass(frozen=True)
class RateCap:
    """A provision's cap: ``multiple`` times a reference rate that is at most ``reference_ceiling`` percent."""

    article: str
    words: str
    quote: str
    multiple: float
    reference_ceiling: float
    told: tuple[str, ...]

    @property
    def highest(self) -> float:
        """The highest the cap can be, in percent a year."""
        return self.multiple * self.reference_ceiling

    def exceeded(self, question: str) -> StatedRate | None:
        """The rate ``question`` states when it is above the highest cap and the question tells a loan (else None)."""
        rate = stated_rate(question)
        if rate is None or rate.yearly <= self.highest:
            return None
        return rate if all(told(pattern, question) for pattern in self.told) else None


def _cap(entry: Entry) -> RateCap:
    if entry["words"] not in entry["quote"]:
        raise ValueError(f"{entry['words']!r} is not in its quote")
    return RateCap(
        entry["article"], entry["words"], entry["quote"], float(entry["multiple"]), float(entry["reference_ceiling"]),
        entry["told"],
    )  # fmt: skip


@cache
def rate_caps(path: Path = TABLE) -> tuple[RateCap, ...]:
    """The caps, each checked against its examples."""
    return read_table(path).build(_cap, lambda cap, text: cap.exceeded(text) is not None)


def exceeded_caps(question: str) -> list[tuple[RateCap, StatedRate]]:
    """The caps the rate ``question`` states is above."""
    return [(cap, rate) for cap in rate_caps() if (rate := cap.exceeded(question))]
