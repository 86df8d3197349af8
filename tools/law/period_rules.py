"""Articles a period the question states decides: 劳动合同法:82 for eight months worked without a written contract.

An article whose condition is a period range (超过一个月不满一年) decides a question that states one period in it and
tells the fact the range is about (no written labour contract): code compares them (:mod:`tools.law.periods`), as it
compares a stated level with a threshold. The rules are data (``period_rules.json``, read by
:mod:`tools.law.tables`), each with an example each way and a range that is its article's own words.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tools.law.periods import PeriodRange, StatedPeriod, condition_range, stated_period
from tools.law.tables import Entry, read_table
from tools.law.wording import told

TABLE = Path(__file__).with_name("period_rules.json")


@dataclass(frozen=True)
class PeriodRule:
    """An article, the period range its condition names, and what else the question must tell."""

    article: str
    range: PeriodRange
    told: tuple[str, ...]

    def decides(self, question: str) -> StatedPeriod | None:
        """The period ``question`` states when it lies in the range and the question tells the rest (else None)."""
        period = stated_period(question)
        if period is None or not self.range.holds(period.months):
            return None
        return period if all(told(pattern, question) for pattern in self.told) else None


def _rule(entry: Entry) -> PeriodRule:
    found = condition_range(entry["range"])
    if found is None or found.text != entry["range"]:
        raise ValueError(f"{entry['range']!r} is no period range")
    return PeriodRule(entry["article"], found, entry["told"])


@cache
def period_rules(path: Path = TABLE) -> tuple[PeriodRule, ...]:
    """The rules, each checked against its examples."""
    return read_table(path).build(_rule, lambda rule, text: rule.decides(text) is not None)


def decided_by_period(question: str) -> list[tuple[PeriodRule, StatedPeriod]]:
    """The rules ``question`` meets, with the period it states."""
    return [(rule, period) for rule in period_rules() if (period := rule.decides(question))]
