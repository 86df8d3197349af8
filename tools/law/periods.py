"""A period a question states, set against the range an article's condition names, in code: 入职半年 lies within
劳动合同法:82's 超过一个月不满一年, 入职两年 does not. A 1.5B model cannot be trusted to compare them; the answer says
which it is, and the article's other conditions stay conditions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.law.penalties import DATE, NUMBER, number_value

_UNIT_MONTHS = {"年": 12.0, "个月": 1.0, "个多月": 1.0, "日": 1 / 30, "天": 1 / 30}
_STATED = re.compile(rf"(?P<half>半年)|(?P<value>{NUMBER})(?P<unit>个多月|个月|年半|年|天|日)")
_BOUND = rf"(?P<{{name}}>{NUMBER})(?P<{{name}}_unit>个月|年|日)"
_RANGE = re.compile(
    rf"(?P<from>超过|满){_BOUND.format(name='low')}(?:(?:以上)?不满{_BOUND.format(name='high')})?"
    rf"|不满{_BOUND.format(name='below')}"
)
_BAND = re.compile(rf"{_BOUND.format(name='least')}以上(?:不满{_BOUND.format(name='under')})?")
"""A band of a term as statutes word it (一年以上不满三年, 三年以上: 以上 counts the number itself, 刑法:99's reading of
the law's words). Only a limit's bands are read so: a condition's 三年以上 may be of another period than the one a
question states (试用期六个月 is no contract term)."""


def _months(number: str, unit: str) -> float | None:
    value = number_value(number)
    if value is None:
        return None
    if unit == "年半":
        return value * 12 + 6
    return value * _UNIT_MONTHS[unit]


@dataclass(frozen=True)
class StatedPeriod:
    """The one period a text states: its words and its length in months."""

    text: str
    months: float


def stated_period(text: str) -> StatedPeriod | None:
    """The period ``text`` states (半年, 三个月, 两年, 90天), when it states exactly one; None when it states none or
    several (which of them the law's range is about is not code's to guess)."""
    found: dict[float, str] = {}
    for _, period in stated_periods(text):
        found.setdefault(period.months, period.text)
    sole = sole_value(found)
    return StatedPeriod(sole[1], sole[0]) if sole else None


def stated_periods(text: str) -> list[tuple[int, StatedPeriod]]:
    """Every period ``text`` states, each with where it starts (a date's year aside: 2020年3月 is no period)."""
    found = []
    for match in _STATED.finditer(DATE.sub(lambda m: " " * len(m.group()), text)):
        months = 6.0 if match["half"] else _months(match["value"], match["unit"])
        if months is not None:
            found.append((match.start(), StatedPeriod(match.group(0), months)))
    return found


def sole_value(found: dict[float, str]) -> tuple[float, str] | None:
    """The one value a text states (value -> its words), None when it states none or several: which of several the
    law's number is about is not code's to guess."""
    if len(found) != 1:
        return None
    [(value, words)] = found.items()
    return value, words


@dataclass(frozen=True)
class PeriodRange:
    """The range of a period an article's condition names: ``low`` (exclusive after 超过, inclusive after 满) to
    ``high`` (exclusive: 不满), in months, and the condition's own words."""

    text: str
    low: float
    high: float
    low_inclusive: bool

    def holds(self, months: float) -> bool:
        above = months >= self.low if self.low_inclusive else months > self.low
        return above and months < self.high


def condition_range(condition: str) -> PeriodRange | None:
    """The period range ``condition`` names (超过一个月不满一年, 满一年, 不满六个月), None when it names none."""
    match = _RANGE.search(condition)
    if match is None:
        return None
    if match["below"]:
        high = _months(match["below"], match["below_unit"])
        return PeriodRange(match.group(0), 0.0, high, True) if high is not None else None
    low = _months(match["low"], match["low_unit"])
    high = _months(match["high"], match["high_unit"]) if match["high"] else float("inf")
    if low is None or high is None:
        return None
    return PeriodRange(match.group(0), low, high, match["from"] == "满")


def band_range(words: str) -> PeriodRange | None:
    """The band ``words`` name in full (一年以上不满三年, 三年以上), None when they name none."""
    match = _BAND.fullmatch(words)
    if match is None:
        return None
    low = _months(match["least"], match["least_unit"])
    high = _months(match["under"], match["under_unit"]) if match["under"] else float("inf")
    return PeriodRange(words, low, high, True) if low is not None and high is not None else None
