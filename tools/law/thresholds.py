"""Thresholds below which a stated amount or level is no offence, and the check of a fact against them.

Theft, fraud, extortion and the like are crimes only from 数额较大 on, and the interpretations set where that
starts (盗窃 一千元, 诈骗 三千元); drunk driving starts at 80 mg/100 ml, an injury at 轻伤. A fact that states its
measure under that floor, and none of the article's own alternatives that need no amount (多次盗窃, 入户盗窃…),
states no offence of that charge, whatever its words share with the charge's precedents: what it states falls
under an administrative provision instead (治安管理处罚法, 道路交通安全法:91).

The table is data (``thresholds.json``: each entry's source and its deciding words); an entry whose patterns do
not compile, or whose ``example_below`` is not found under its floor or ``example_above`` is, fails at import,
naming it. A floor is the lowest the interpretation allows anywhere, so a fact under it is no offence in any
province; the amounts a fact states are added up, each 余/多 counted at its upper end, and a fact whose
amounts code cannot all read (a foreign currency, 数千元) is never found under a floor.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tools.law.tables import Entry, read_table
from tools.law.wording import stated_alcohol, stated_amount, states_slight_injury, told

TABLE = Path(__file__).with_name("thresholds.json")


@dataclass(frozen=True)
class Threshold:
    """Where one charge's offence starts, by the measure a fact states."""

    charge: str
    article: str
    """The article defining the charge."""
    measure: str
    """``amount`` (yuan), ``alcohol`` (mg/100 ml of blood) or ``injury`` (轻微伤 is under 轻伤)."""
    floor: float
    source: str
    """The interpretation (or standard) that sets the floor, and the article of it."""
    source_article: str
    quote: str
    """Its deciding words."""
    unless: str
    """A pattern: a fact stating it is the offence whatever its measure (the article's own alternatives)."""
    halved_when: str
    """A pattern: circumstances under which the interpretation halves the floor (its 第二条)."""
    halved_article: str
    """The source's article that halves the floor (where ``halved_when`` holds), named beside ``source_article``."""
    instead: str
    """The provision what is left falls under (a law, or an article id)."""
    instead_act: str
    act: str = ""
    """The law's words for the conduct a measure at the floor or above is (醉酒驾驶), where the law names it: a
    question stating the measure is read in them (:func:`stated_conduct`)."""
    instead_from: float = 0.0
    """Where ``instead_act`` starts (饮酒后驾驶 at 20 mg/100 ml): under it the measure is neither conduct."""

    def floor_for(self, fact: str) -> float:
        """The floor for ``fact``: halved where it states a circumstance the interpretation names."""
        return self.floor / 2 if self.halved_when and told(self.halved_when, fact) else self.floor

    def stated(self, fact: str) -> float | None:
        """The measure ``fact`` states (None when it states none code can read)."""
        if self.measure == "amount":
            return stated_amount(fact)
        if self.measure == "alcohol":
            return stated_alcohol(fact)
        # injury: a slight injury is 0 on a scale where 轻伤 starts at 1; none stated, no reading.
        return 0.0 if states_slight_injury(fact) else None

    def conduct(self, text: str) -> str:
        """The law's words for the conduct the measure ``text`` states is: ``act`` at the floor or above,
        ``instead_act`` from ``instead_from`` up to it; "" when it states none, or the entry names no act."""
        value = self.stated(text) if self.act else None
        if value is None:
            return ""
        if value >= self.floor:
            return self.act
        return self.instead_act if value >= self.instead_from else ""

    def shortfall(self, fact: str) -> Shortfall | None:
        """How ``fact`` falls under this floor; None when it does not (it states no measure, the measure
        reaches the floor, or it states an alternative that needs none)."""
        if self.unless and told(self.unless, fact):
            return None
        value = self.stated(fact)
        floor = self.floor_for(fact)
        if value is None or (value >= floor and self.measure != "injury"):
            return None
        return Shortfall(self, value, floor)


@dataclass(frozen=True)
class Shortfall:
    """A fact's measure under a charge's floor."""

    threshold: Threshold
    value: float
    floor: float


def _threshold(entry: Entry) -> Threshold:
    if entry["measure"] not in ("amount", "alcohol", "injury"):
        raise ValueError(f"unknown measure {entry['measure']!r}")
    return Threshold(
        entry["charge"], entry["article"], entry["measure"], float(entry["floor"]), entry["source"],
        entry["source_article"], entry["quote"], entry["unless"], entry["halved_when"], entry["halved_article"],
        entry["instead"], entry["instead_act"], entry["act"], float(entry["instead_from"]),
    )  # fmt: skip


@cache
def load_thresholds(path: Path = TABLE) -> dict[str, Threshold]:
    """Charge -> its threshold, every entry checked: its ``example_below`` under its floor, ``example_above`` not."""
    thresholds = read_table(path).build(_threshold, lambda t, fact: t.shortfall(fact) is not None)
    return {t.charge: t for t in thresholds}


def stated_conduct(text: str) -> list[str]:
    """The law's words for the conduct each measure ``text`` states is (血液酒精含量120mg/100ml: 醉酒驾驶; 45: 饮酒后
    驾驶): a person who gives a number asks about the sentence that number meets, which shares no word with it."""
    return [found for t in load_thresholds().values() if (found := t.conduct(text))]


def shortfall(charge: str, fact: str) -> Shortfall | None:
    """How ``fact`` falls under ``charge``'s threshold, if it does (None too for a charge without one)."""
    threshold = load_thresholds().get(charge)
    return threshold.shortfall(fact) if threshold else None
