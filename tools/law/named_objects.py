"""The object a charge's name says it is done to, for the charges no element entry covers.

Elements are written one offence at a time (:mod:`tools.law.elements`), and the charges no entry covers are the
rare ones: 为亲友非法牟利, 侵犯通信自由, 非法批准征收、征用、占用土地. A fact that states no crime still draws them
from the scorer, whose candidates are every charge. Their names (the 罪名 the Supreme People's Court and
Procuratorate set) say what each is done to: the name without its acts and generic words (``named_objects.json``)
is the object, and a fact that names none of its character pairs states no such offence. The judge then names it
(不构成犯罪：……的罪名指向“……”，事实没有提到). Every labelled judgment holds the rule to the bar
(``benchmarks/table_check.py``); a charge whose judgments name its object in other words is listed there and left
alone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tools.law.charge_families import ACT_WORDS
from tools.law.charge_names import normalise_charge
from tools.law.elements import load_elements
from tools.law.wording import hides_words, told

TABLE = Path(__file__).with_name("named_objects.json")
_SPLIT = re.compile(r"[\[\]（）()、，]")
_PAIR = re.compile(r"[\u4e00-\u9fff]{2}")


@dataclass(frozen=True)
class NamedObject:
    """What a charge's name says it is done to: the name's words (``words``: 亲友、牟利) and the pattern by which a
    fact names them (any of their character pairs)."""

    words: tuple[str, ...]
    pattern: str


@cache
def _words() -> tuple[tuple[str, ...], frozenset[str], frozenset[str]]:
    """(the acts, longest first; the generic words; the charges told otherwise) of ``named_objects.json``."""
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    acts = tuple(sorted(data["acts"], key=len, reverse=True))
    return acts, frozenset(data["generic"]), frozenset(data["told_otherwise"])


@cache
def named_object(charge: str) -> NamedObject | None:
    """The object ``charge``'s name says it is done to; None for a charge an element entry or act words cover, one
    whose judgments name its object otherwise, and one whose name is all act (抢劫, 冒名顶替)."""
    name = normalise_charge(charge)
    acts, generic, otherwise = _words()
    if name in load_elements() or name in ACT_WORDS or name in otherwise:
        return None
    text = _SPLIT.sub("|", name)
    for act in acts:
        text = text.replace(act, "|")
    runs = [run for run in text.split("|") if len(run) >= 2]
    pairs = sorted({run[i : i + 2] for run in runs for i in range(len(run) - 1)} - generic)
    pairs = [pair for pair in pairs if _PAIR.fullmatch(pair)]
    if not pairs:
        return None
    kept = tuple(run for run in runs if any(pair in run for pair in pairs))
    return NamedObject(kept, "|".join(pairs))


def missing_object(charge: str, fact: str) -> NamedObject | None:
    """The object ``charge``'s name gives that ``fact`` never names (None when it names it, none is given, or the
    fact's words may hide it: :func:`tools.law.wording.hides_words`)."""
    found = named_object(charge)
    return found if found and not hides_words(fact) and not told(found.pattern, fact) else None
