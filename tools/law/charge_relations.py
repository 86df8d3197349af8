"""Charges that cannot stand together for one course of conduct, by the law's own structure.

The scorer proposes charges one by one from their evidence; the law relates them. 受贿, 非国家工作人员受贿 and 单位受贿
are one taking, chosen by who took, and two takings told as separate acts are two; 诈骗 yields to 保险诈骗 and the other
special frauds (刑法:266: '本法另有规定的，依照规定'), and to 招摇撞骗 only where that is the heavier (择一重罪, by the
stated amount's band); smuggling is charged by the object the fact names (153 covers goods other than those of 151, 152
and 347), and goods whose tax was evaded beside them are charged too; a theft, fraud or snatching whose doer used
violence on the spot to resist arrest becomes 抢劫 (刑法:269), the one rule that puts a charge in place of one proposed.
The rules are data (``charge_relations.json``, read by :mod:`tools.law.tables`: each with its article and why); a rule
whose example does not come out as written fails at import, naming it. Every other rule keeps one of those proposed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tools.law.charge_families import FAMILIES
from tools.law.tables import Entry, read_table
from tools.law.wording import stated_amount, told

TABLE = Path(__file__).with_name("charge_relations.json")


@dataclass(frozen=True)
class Relation:
    """One rule: ``alternatives`` (one of ``charges`` for one act), ``yields`` (``general`` goes where one of
    ``charges`` stands), ``heavier`` (``general`` where the stated amount reaches ``heavier_from``, the band where
    it is punished more heavily, else ``charges``), ``objects`` (``charges`` by the object the fact names;
    ``general`` for what none names, and beside them where ``general_also`` is stated) or ``becomes`` (``general`` in
    place of ``charges`` where the fact tells ``when``, and beside them where it tells ``separate`` acts)."""

    name: str
    kind: str
    charges: tuple[str, ...]
    article: str
    why: str
    general: str = ""
    objects: dict[str, str] = field(default_factory=dict)
    heavier_from: float = 0.0
    general_also: str = ""
    when: str = ""
    separate: str = ""


@dataclass(frozen=True)
class Merged:
    """A proposed charge a rule removed, the charge that stands for it, and the rule."""

    charge: str
    kept: str
    rule: str
    article: str


def _stated_member(charges: Sequence[str], fact: str) -> str:
    """The first of ``charges`` whose distinguishing element (:mod:`tools.law.charge_families`) ``fact`` states."""
    for charge in charges:
        for family in FAMILIES:
            member = family.member(charge)
            if member and member.stated_in(fact):
                return charge
    return ""


def _apply(
    rule: Relation, charges: list[str], fact: str, acts: Mapping[str, int | None]
) -> tuple[list[str], list[Merged]]:
    if rule.kind == "becomes":
        return _becomes(rule, charges, fact)
    related = [c for c in charges if c in rule.charges or c == rule.general]
    if len(related) < 2:
        return charges, []
    if rule.kind == "alternatives":
        # Alternatives for one act: each found best on an act of its own whose element the fact states (a bribe to
        # an official, another to a firm's buyer) is a separate offence, punished together. Four takings by one
        # buyer are not: 受贿's element (a state functionary) is nowhere stated.
        separate = len({acts.get(c) for c in related} - {None}) == len(related)
        if separate and all(_stated_member([c], fact) for c in related):
            return charges, []
        keep = {_stated_member(related, fact) or related[0]}
    elif rule.kind == "yields":
        keep = {c for c in related if c != rule.general}
    elif rule.kind == "heavier":
        amount = stated_amount(fact)
        heavier = amount is not None and amount >= rule.heavier_from and rule.general in related
        keep = {rule.general} if heavier else {c for c in related if c != rule.general}
    else:
        named = {c for c in related if c in rule.objects and told(rule.objects[c], fact)}
        # No object named: the goods of 153, the remainder, when proposed; else the best-ranked.
        keep = named or ({rule.general} if rule.general in related else {related[0]})
        if named and rule.general in related and rule.general_also and told(rule.general_also, fact):
            keep.add(rule.general)
    first = next(c for c in charges if c in keep)
    merged = [Merged(c, first, rule.name, rule.article) for c in related if c not in keep]
    return [c for c in charges if c not in {m.charge for m in merged}], merged


def _becomes(rule: Relation, charges: list[str], fact: str) -> tuple[list[str], list[Merged]]:
    """``charges`` with ``rule.general`` in place of the first of ``rule.charges`` proposed where ``fact`` tells
    ``rule.when`` (盗窃 becomes 抢劫 for a thief who stabbed the one chasing him); the charge it replaces stays
    beside it where the fact tells acts apart from that one (``rule.separate``: 多次, 先后, a numbered count)."""
    related = [c for c in charges if c in rule.charges]
    if not related or not told(rule.when, fact):
        return charges, []
    if told(rule.separate, fact):
        return list(dict.fromkeys([*charges, rule.general])), []
    # The best-ranked is the act the violence followed; another of them proposed is another act (a fraud the next day).
    out = list(dict.fromkeys(rule.general if c == related[0] else c for c in charges))
    return out, [Merged(related[0], rule.general, rule.name, rule.article)]


def stand_together(
    proposed: Sequence[str], fact: str, acts: Mapping[str, int | None] | None = None
) -> tuple[list[str], list[Merged]]:
    """(charges, merged): ``proposed`` (best first) with every rule applied, and what each rule removed. ``acts``:
    the act (of a fact telling several) each charge scores best on, None for one act."""
    charges = list(proposed)
    merged: list[Merged] = []
    for rule in load_relations():
        charges, removed = _apply(rule, charges, fact, acts or {})
        merged += removed
    return charges, merged


def _relation(entry: Entry) -> Relation:
    rule = Relation(
        entry["name"], entry["kind"], entry["charges"], entry["article"], entry["why"], entry["general"],
        dict(entry["objects"]), float(entry["heavier_from"]), entry["general_also"], entry["when"], entry["separate"],
    )  # fmt: skip
    if rule.kind not in ("alternatives", "yields", "heavier", "objects", "becomes"):
        raise ValueError(f"unknown kind {rule.kind!r}")
    if rule.kind == "becomes" and not (rule.general and rule.when and rule.separate):
        raise ValueError("a 'becomes' rule needs general, when and separate")
    if rule.kind == "heavier" and rule.heavier_from <= 0:
        raise ValueError("a 'heavier' rule needs heavier_from, the amount from which it holds")
    example = entry["example"]
    kept, _ = _apply(rule, list(example["proposed"]), example.get("fact", ""), example.get("acts", {}))
    if kept != example["kept"]:
        raise ValueError(f"its example keeps {kept}, not {example['kept']}")
    return rule


@cache
def load_relations(path: Path = TABLE) -> tuple[Relation, ...]:
    """The rules, each checked against its example."""
    return read_table(path).build(_relation)
