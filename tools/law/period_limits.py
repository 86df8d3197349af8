"""Limits the law sets on a period, by the band of another period: 劳动合同法:19 caps a probation by the contract's
term (一年以上不满三年的，试用期不得超过二个月).

A question that states both periods (合同签了一年，试用期六个月) is answered by code: the term's band, the limit it
sets and whether the limited period exceeds it (:mod:`tools.law.periods` reads them), as a stated level is set against
a threshold. A 1.5B model said 合法 with the article before it. The limits are data (``period_limits.json``, read by
:mod:`tools.law.tables`), each with an example each way and ranges and limits that are its article's own words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tools.law.periods import PeriodRange, StatedPeriod, band_range, stated_periods
from tools.law.tables import Entry, read_table

TABLE = Path(__file__).with_name("period_limits.json")
NEAR = 10
"""Characters at most between the words that name a period (试用期, 合同签了) and its length."""


@dataclass(frozen=True)
class Band:
    """A term's range (None: any term) and the limit it sets, in months and in the article's words."""

    range: PeriodRange | None
    limit: StatedPeriod


@dataclass(frozen=True)
class LimitFound:
    """What a question states against a limit: the term (None where every term has the one limit), the band it
    lies in, the limited period and whether it exceeds the band's limit."""

    article: str
    term: StatedPeriod | None
    band: Band
    limited: StatedPeriod

    @property
    def exceeds(self) -> bool:
        return self.limited.months > self.band.limit.months


def _named(question: str, words: str, periods: list[tuple[int, StatedPeriod]]) -> tuple[int, StatedPeriod] | None:
    """The period ``question`` names with ``words`` (试用期六个月, 六个月的试用期): the first within :data:`NEAR`
    after them, else the last just before them."""
    for m in re.finditer(words, question):
        after = [(at, p) for at, p in periods if 0 <= at - m.end() <= NEAR]
        before = [(at, p) for at, p in periods if 0 <= m.start() - (at + len(p.text)) <= 2]
        if after or before:
            return (after or before[-1:])[0]
    return None


@dataclass(frozen=True)
class PeriodLimit:
    """An article, the words naming the period it limits, the words naming the term its bands range over, and
    the bands."""

    article: str
    measure: str
    term: str
    bands: tuple[Band, ...]

    def decides(self, question: str) -> LimitFound | None:
        """The limited period and the band its term lies in, where ``question`` states both (else None)."""
        periods = stated_periods(question)
        limited = _named(question, self.measure, periods)
        if limited is None:
            return None
        for band in self.bands:
            if band.range is None:
                return LimitFound(self.article, None, band, limited[1])
        others = [p for p in periods if p != limited]
        term = _named(question, self.term, others) if self.term else None
        found = next((b for b in self.bands if term and b.range and b.range.holds(term[1].months)), None)
        return LimitFound(self.article, term[1], found, limited[1]) if term and found else None


def _limit(words: str) -> StatedPeriod:
    [(_, period)] = stated_periods(words)
    return period


def _entry(entry: Entry) -> PeriodLimit:
    bands = []
    for words, limit in dict(entry["bands"]).items():
        found = band_range(words) if words else None
        if words and found is None:
            raise ValueError(f"{words!r} is no period range")
        bands.append(Band(found, _limit(limit)))
    return PeriodLimit(entry["article"], entry["measure"], entry["term"], tuple(bands))


@cache
def period_limits(path: Path = TABLE) -> tuple[PeriodLimit, ...]:
    """The limits, each checked against its examples."""
    return read_table(path).build(_entry, lambda limit, text: limit.decides(text) is not None)


def decided_by_limit(question: str) -> list[LimitFound]:
    """The limits ``question`` states a period against."""
    return [found for limit in period_limits() if (found := limit.decides(question))]
