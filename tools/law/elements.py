"""Elements a fact must state for a charge to stand, and the check of a fact against them.

A quarrel shares words with some precedent, and the scorer always has a best candidate; the statute says what a
charge needs that no amount of shared wording supplies: 交通肇事 a death, a serious injury or a heavy loss (133),
危险驾驶 one of its four forms (133-1), every 战时 offence a war. A fact that states none of a charge's element
states no offence of that charge (the judge's 不构成犯罪, with the element named).

The table is data (``elements.json``, read by :mod:`tools.law.tables`: each entry's charges, article, element, the
article's own words for it, the patterns by which a fact states it, and an example each way); a pattern that does
not compile, or an example that does not come out as written, fails at import, naming the entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tools.law.tables import Entry, read_table
from tools.law.wording import hides_words, told

TABLE = Path(__file__).with_name("elements.json")


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


def _element(entry: Entry) -> Element:
    return Element(entry["charges"], entry["article"], entry["element"], entry["stated"])


@cache
def load_elements(path: Path = TABLE) -> dict[str, Element]:
    """Charge -> the element it needs, every entry checked against its examples."""
    entries = read_table(path).build(_element, Element.stated_in)
    return {charge: entry for entry in entries for charge in entry.charges}


def missing_element(charge: str, fact: str) -> Element | None:
    """The element ``charge`` needs that ``fact`` does not state (None when it states it, or none is listed, or
    the fact's words may hide it: :func:`tools.law.wording.hides_words`)."""
    element = load_elements().get(charge)
    return element if element and not hides_words(fact) and not element.stated_in(fact) else None


def states_element(charge: str, fact: str) -> bool:
    """Whether ``charge`` has an element entry and ``fact`` states it: the fact's own evidence for the charge. The
    patterns are broad by design (a fact that names none of them surely lacks the element), so this is weak
    evidence, read only where a charge sheet says some offence was committed (``look_further``'s ``below``)."""
    element = load_elements().get(charge)
    return element is not None and not hides_words(fact) and element.stated_in(fact)
