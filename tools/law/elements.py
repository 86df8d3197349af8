"""Elements a fact must state for a charge to stand, and the check of a fact against them.

A quarrel shares words with some precedent, and the scorer always has a best candidate; the statute says what a
charge needs that no amount of shared wording supplies: 交通肇事 a death, a serious injury or a heavy loss (133),
危险驾驶 one of its four forms (133-1), every 战时 offence a war. A fact that states none of a charge's element
states no offence of that charge (the judge's 不构成犯罪, with the element named).

The table is data (``elements.json``: each entry's charges, article, element in the statute's words, the
patterns by which a fact states it, and two examples); a pattern that does not compile, or an example that does
not come out as written, fails at import, naming the entry.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tools.law.tables import entry_errors
from tools.law.wording import hides_words, told

TABLE = Path(__file__).with_name("elements.json")


class ElementTableError(ValueError):
    """The elements table is malformed: the message names the entry."""


@dataclass(frozen=True)
class Element:
    """What one or more charges need a fact to state."""

    charges: tuple[str, ...]
    article: str
    element: str
    """The element in the statute's words."""
    stated: tuple[str, ...]
    """Patterns that must all occur in a fact for it to state the element."""

    def stated_in(self, fact: str) -> bool:
        """Whether ``fact`` states the element: every pattern occurs, other than denied (未造成人员伤亡)."""
        return all(told(pattern, fact) for pattern in self.stated)


def _element(entry: dict[str, Any]) -> Element:
    where = f"{TABLE.name}: {'、'.join(entry.get('charges', []))}"
    with entry_errors(where, ElementTableError):
        element = Element(tuple(entry["charges"]), entry["article"], entry["element"], tuple(entry["stated"]))
        for pattern in element.stated:
            re.compile(pattern)
        stated, missing = entry["example_stated"], entry["example_missing"]
    if not element.stated_in(stated):
        raise ElementTableError(f"{where}: its example_stated does not state the element: {stated}")
    if element.stated_in(missing):
        raise ElementTableError(f"{where}: its example_missing states the element: {missing}")
    return element


@cache
def load_elements(path: Path = TABLE) -> dict[str, Element]:
    """Charge -> the element it needs, every entry checked."""
    entries = [_element(e) for e in json.loads(path.read_text(encoding="utf-8"))["elements"]]
    return {charge: entry for entry in entries for charge in entry.charges}


def missing_element(charge: str, fact: str) -> Element | None:
    """The element ``charge`` needs that ``fact`` does not state (None when it states it, or none is listed, or
    the fact's words may hide it: :func:`tools.law.wording.hides_words`)."""
    element = load_elements().get(charge)
    return element if element and not hides_words(fact) and not element.stated_in(fact) else None
