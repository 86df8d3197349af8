"""Every rule that sets a charge aside, run over every labelled criminal fact we hold: a rule a judgment
contradicts is wrong (issue 86).

    python benchmarks/table_check.py [--shared ../shared/data] [--show 5]

Model-free and KB-free. For each fact of CAIL (sample train and test), CMDL and LawBench's dev files (ljp_dev,
charge_dev) and each charge its judgment convicts, the rules that would set that charge aside: the victim rule
(the whole fact read as its teller's own account), the lawful-act rule (the act told as done with the law's
leave), the threshold table (an amount or level under the
interpretation's floor), the element table (an element the fact does not state), the named-object rule (a charge
no element covers, whose name's object the fact never names) and the untold-act rule (an act offence whose act the
fact never tells). Printed per rule and file: the facts it sets a gold charge aside for,
their share of the file, the charges, and the first ``--show`` facts' ids and words. ``tests/unit/test_table_check.py``
holds the tables to the bar: at most 0.5 % of all facts, and of each charge's facts.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from tools.corpus.charge_rules import load_charge_rules
from tools.law.charge_families import ACT_WORDS, untold_act
from tools.law.charge_names import charge_variants, covering_charge
from tools.law.elements import load_elements, missing_element
from tools.law.lawful_acts import permitted_act
from tools.law.named_objects import missing_object, named_object
from tools.law.thresholds import load_thresholds, shortfall
from tools.law.wording import victim_account

FILES = (
    "zh/cases/cail2018_sample_train.jsonl",
    "zh/cases/cail2018_sample_test.jsonl",
    "zh/cases/cmdl_small.jsonl",
    "zh/eval/ljp_dev.jsonl",
    "zh/eval/charge_dev.jsonl",
)
"""The labelled criminal facts in ../shared/data: each judgment's fact and the charges it convicts."""
RULES = ("victim", "lawful", "threshold", "element", "named", "untold")


@dataclass(frozen=True)
class SetAside:
    """One gold charge a rule sets aside for one fact."""

    rule: str
    file: str
    id: str
    charge: str
    why: str


def labelled_facts(shared: Path) -> Iterator[tuple[str, str, str, list[str]]]:
    """(file, id, fact, gold charges) of every labelled criminal fact."""
    for name in FILES:
        path = shared / name
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                yield path.name, str(item["id"]), str(item["fact"]), [str(c) for c in item.get("charges") or []]


_SPELLED: dict[int, tuple[Collection[str], dict[str, str]]] = {}
"""Per table of rules (by identity, the table kept with its map so that its id is never another's): every spelling
of each charge it rules -> the charge."""


def _spelled(ruled: Collection[str]) -> dict[str, str]:
    """Every way a charge ``ruled`` names may be written (:func:`charge_variants`: 偷越国（边）境 as 偷越国境) -> the
    charge."""
    kept = _SPELLED.get(id(ruled))
    if kept is None or kept[0] is not ruled:
        kept = _SPELLED[id(ruled)] = (ruled, {v: name for name in ruled for v in charge_variants(name)})
    return kept[1]


def _ruled(gold: str, ruled: Collection[str], table: Mapping[str, str] | None = None) -> str | None:
    """The table's name for the judgment's charge ``gold``, when a table has a rule for it: a spelling of it (CMDL's
    组织他人偷越国境 is 组织他人偷越国（边）境), or its name in force where ``table`` (:func:`charge_table`) knows the
    label as a former one."""
    spellings = sorted(charge_variants(gold))
    found = next((name for name in spellings if name in ruled), None)
    spelled = _spelled(ruled)
    found = found or next((spelled[v] for v in spellings if v in spelled), None)
    return found or next((table[v] for v in spellings if v in (table or {}) and table[v] in ruled), None)


def charge_table(shared: Path) -> dict[str, str]:
    """Every spelling of a charge in force (its name and its former names) -> its name, from the charge-name
    opinions in ``shared`` (the knowledge base's charge table, read without one)."""
    rules = load_charge_rules(shared / "zh" / "interpretations" / "lawrefbook")
    return {name: name for name in rules.articles} | {
        old: new for old, new in rules.aliases.items() if new in rules.articles
    }


def _named(gold: str, table: Mapping[str, str]) -> str | None:
    """The charge in force a judgment's label names, as the knowledge base maps it: a spelling of it, else the one
    shortest name holding all of the label's characters (买卖国家机关证件)."""
    spelled = next((table[v] for v in sorted(charge_variants(gold)) if v in table), None)
    return spelled or ((found := covering_charge(gold, table)) and table[found])


def set_aside(
    file: str, item_id: str, fact: str, gold: list[str], table: Mapping[str, str] | None = None
) -> list[SetAside]:
    """What every rule sets aside of ``gold`` for ``fact`` (``table``: :func:`charge_table`, which the named-object
    rule needs to know which charge a label is)."""
    found: list[SetAside] = []
    if quote := victim_account(fact):
        found += [SetAside("victim", file, item_id, g, quote) for g in gold]
    if permitted := permitted_act(fact):
        found += [SetAside("lawful", file, item_id, g, permitted.words) for g in gold]
    thresholds, elements = load_thresholds(), load_elements()
    for g in gold:
        if (name := _ruled(g, thresholds, table)) and (short := shortfall(name, fact)):
            found.append(SetAside("threshold", file, item_id, name, f"{short.value:g} < {short.floor:g}"))
        if (name := _ruled(g, elements, table)) and (element := missing_element(name, fact)):
            found.append(SetAside("element", file, item_id, name, element.element))
        if (name := _named(g, table or {})) and (missing := missing_object(name, fact)):
            found.append(SetAside("named", file, item_id, name, "、".join(missing.words)))
        if (name := _ruled(g, ACT_WORDS, table)) and untold_act(name, fact):
            found.append(SetAside("untold", file, item_id, name, ACT_WORDS[name]))
    return found


@dataclass
class Check:
    """Every set-aside over the files, with the counts the bar is measured on."""

    facts: Counter[str]
    """Facts per file."""
    per_charge: Counter[str]
    """Facts per gold charge (under the table's name where a table has a rule for it)."""
    found: list[SetAside]

    def facts_set_aside(self, rule: str | None = None) -> set[tuple[str, str]]:
        return {(s.file, s.id) for s in self.found if rule is None or s.rule == rule}

    def by_charge(self) -> dict[str, set[tuple[str, str]]]:
        out: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for s in self.found:
            out[s.charge].add((s.file, s.id))
        return out


def run_check(shared: Path) -> Check:
    facts: Counter[str] = Counter()
    per_charge: Counter[str] = Counter()
    found: list[SetAside] = []
    ruled = set(load_thresholds()) | set(load_elements()) | set(ACT_WORDS)
    table = charge_table(shared)
    for file, item_id, fact, gold in labelled_facts(shared):
        facts[file] += 1
        for g in set(gold):
            named = _named(g, table)
            per_charge[_ruled(g, ruled, table) or (named if named and named_object(named) else g)] += 1
        found += set_aside(file, item_id, fact, gold, table)
    return Check(facts, per_charge, found)


def protected(facts: Path) -> dict[str, list[str]]:
    """For each non-crime fact (``benchmarks/noncrime_facts.jsonl``), the rule:charge pairs that would set a charge
    aside were it proposed: what keeps it from being convicted of that charge. A change that drops a pair here
    lets a fact that states no crime be convicted more easily."""
    out: dict[str, list[str]] = {}
    charges = sorted(set(load_thresholds()) | set(load_elements()) | set(ACT_WORDS))
    for line in facts.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            found = set_aside("noncrime", str(item["id"]), str(item["fact"]), charges)
            out[str(item["id"])] = sorted({f"{s.rule}:{s.charge}" for s in found})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--show", type=int, default=5, help="facts printed per rule and file")
    parser.add_argument("--negative", type=Path, help="non-crime facts: print what protects each (JSON) instead")
    args = parser.parse_args()
    if args.negative:
        print(json.dumps(protected(args.negative), ensure_ascii=False, indent=0))
        return
    check = run_check(args.shared)
    facts = {(f, i): t for f, i, t, _ in labelled_facts(args.shared)}
    total = sum(check.facts.values())
    every = check.facts_set_aside()
    print(f"{len(every)} of {total} labelled facts ({len(every) / total:.1%}) have a gold charge set aside")
    for rule in RULES:
        for file, n in check.facts.items():
            hits = [s for s in check.found if s.rule == rule and s.file == file]
            ids = sorted({s.id for s in hits})
            charges = Counter(s.charge for s in {(s.id, s.charge): s for s in hits}.values())
            print(f"{rule:9} {file:32} {len(ids):4} of {n:5} ({len(ids) / n:.1%})  {dict(charges.most_common(8))}")
            for s in sorted(hits, key=lambda s: s.id)[: args.show]:
                print(f"          {s.id}: {s.charge} ({s.why}) {facts[(s.file, s.id)][:120]}")
    worst = sorted(check.by_charge().items(), key=lambda kv: -len(kv[1]) / check.per_charge[kv[0]])
    print("charges over 0.5 % of their facts:")
    for charge, hit in worst:
        if len(hit) > 0.005 * check.per_charge[charge]:
            print(f"  {charge}: {len(hit)} of {check.per_charge[charge]}")


if __name__ == "__main__":
    main()
