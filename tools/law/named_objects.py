"""The object a charge's name says it is done to, and the act it says, for the charges no element entry covers.

Elements are written one offence at a time (:mod:`tools.law.elements`), and the charges no entry covers are the
rare ones: 为亲友非法牟利, 侵犯通信自由, 非法批准征收、征用、占用土地. A fact that states no crime still draws them
from the scorer, whose candidates are every charge. Their names (the 罪名 the Supreme People's Court and
Procuratorate set) say what each is done to: the name without its acts and generic words (``named_objects.json``)
is the object, and a fact that names none of its character pairs states no such offence; so is a name's act, where
every act it says has the words judgments tell it by listed (``told_as``: 倒卖 by 卖, 售, 收购, 交易), and a fact that
tells none of them states no such offence either (倒卖车票 for a chat about ticket prices). An administrative organ
named by its field (通信管理部门) names no object: it is who acted on the person. The judge then names it
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
from typing import Any

from tools.law.charge_families import ACT_WORDS
from tools.law.charge_names import normalise_charge
from tools.law.elements import load_elements
from tools.law.wording import hides_words, told, without_organs

TABLE = Path(__file__).with_name("named_objects.json")
_SPLIT = re.compile(r"[\[\]（）()、，]")
_PAIR = re.compile(r"[\u4e00-\u9fff]{2}")


@dataclass(frozen=True)
class NamedObject:
    """What a charge's name says it is done to: the name's words (``words``: 亲友、牟利) and the pattern by which a
    fact names them (any of their character pairs)."""

    words: tuple[str, ...]
    pattern: str
    acts: tuple[str, ...] = ()
    """The acts the name says (倒卖 of 倒卖文物) that judgments tell in words of their own (``told_as``)."""
    act_pattern: str = ""
    """The words by which a fact tells one of ``acts`` (卖, 售, 收购, 交易)."""


@cache
def _table() -> dict[str, Any]:
    """``named_objects.json``, read once."""
    return dict(json.loads(TABLE.read_text(encoding="utf-8")))


@cache
def _words() -> tuple[tuple[str, ...], frozenset[str], frozenset[str]]:
    """(the acts, longest first; the generic words; the charges told otherwise) of ``named_objects.json``."""
    data = _table()
    acts = tuple(sorted(data["acts"], key=len, reverse=True))
    return acts, frozenset(data["generic"]), frozenset(data["told_otherwise"])


@cache
def _told_as() -> tuple[dict[str, str], frozenset[str]]:
    """(each act a name may say -> the words judgments tell it by; the acts list's words that say how or why, not
    what) of ``named_objects.json``'s ``told_as``."""
    told = {k: v for k, v in _table().get("told_as", {}).items() if k not in ("about", "qualifiers")}
    qualifiers = frozenset(_table().get("told_as", {}).get("qualifiers", ()))
    return {act: pattern for acts, pattern in told.items() for act in acts.split("|")}, qualifiers


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
    told_as, qualifiers = _told_as()
    # Every act the name says must be one judgments' words are listed for, or its act is not read: a fact telling
    # the unlisted one (提供 of 非法出售、提供试题、答案) would be set aside.
    said = [act for act in acts if act in name and act not in qualifiers]
    named_acts = tuple(act for act in told_as if act in name) if all(act in told_as for act in said) else ()
    if not pairs and not named_acts:
        return None
    kept = tuple(run for run in runs if any(pair in run for pair in pairs))
    act_pattern = "|".join(dict.fromkeys(told_as[act] for act in named_acts))
    return NamedObject(kept, "|".join(pairs), named_acts, act_pattern)


def missing_object(charge: str, fact: str) -> NamedObject | None:
    """The object ``charge``'s name gives that ``fact`` never names, or else the act it says that the fact never
    tells (倒卖文物 for a visitor leaning on a relic's rail: 文物 named, nothing sold), as a NamedObject of the words
    missing; None when the fact names both, none is given, or its words may hide them
    (:func:`tools.law.wording.hides_words`)."""
    found = named_object(charge)
    if not found or hides_words(fact):
        return None
    # An organ's field names what it oversees, not the object: 通信 of 被通信管理部门要求限期备案.
    if found.pattern and not told(found.pattern, without_organs(fact)):
        return NamedObject(found.words, found.pattern)
    if found.act_pattern and not told(found.act_pattern, fact):
        return NamedObject(found.acts, found.act_pattern)
    return None
