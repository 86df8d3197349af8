"""Evaluation data: loading and validating task files, and reading gold labels from items.

Formats are those of ../shared/data/README.md: ljp {id, fact, articles, charges, term_months},
charge {id, fact, charges}, consult {id, question, answer}. ``retrieval`` accepts ljp or consult files.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.eval.metrics import canonical_charges
from tools.corpus.consultations import cited_articles
from tools.corpus.halves import HALVES, half_of
from tools.corpus.jsonl import read_jsonl
from tools.errors import CorpusError, InputError
from tools.kb.charges import ChargeRepository
from tools.law.articles import CRIMINAL_LAW, make_article_id
from tools.law.charge_names import ground_charge

TASKS = ("ljp", "charge", "consult", "retrieval")
_REQUIRED = {
    "ljp": ("id", "fact", "articles", "charges", "term_months"),
    "charge": ("id", "fact", "charges"),
    "consult": ("id", "question", "answer"),
}


def select_items(items: list[dict[str, Any]], half: str | None, limit: int | None) -> list[dict[str, Any]]:
    """The items a run measures: those of ``half`` (all when None), then the first ``limit`` of them."""
    if half is not None and half not in HALVES:
        raise InputError(f"--half must be one of {', '.join(HALVES)}, got {half!r}")
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}")
    chosen = [item for item in items if half is None or half_of(str(item["id"])) == half]
    return chosen[:limit] if limit is not None else chosen


def item_kind(item: dict[str, Any]) -> str:
    """Which format an item is in (retrieval files may be ljp or consult)."""
    return "consult" if "question" in item else "ljp"


def load_items(task: str, path: Path) -> list[dict[str, Any]]:
    """Items of a JSONL task file; a malformed line is a CorpusError naming the file and line."""
    if task not in TASKS:
        raise InputError(f"unknown task {task!r}: choose one of {', '.join(TASKS)}")
    if not path.is_file():
        raise InputError(f"data file not found: {path}")
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number, item in read_jsonl(path, ("id",), f"a {task} item"):
        kind = task if task != "retrieval" else item_kind(item)
        missing = [key for key in _REQUIRED[kind] if key not in item]
        if missing:
            raise CorpusError(f"{path}:{number}: a {task} item needs {', '.join(missing)}")
        if item["id"] in seen:
            raise CorpusError(f"{path}:{number}: duplicate id {item['id']!r}")
        seen.add(item["id"])
        items.append(item)
    if not items:
        raise InputError(f"{path} holds no items")
    return merge_defendants(items) if task == "charge" else items


def merge_defendants(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Charge items sharing one fact as one item: CMDL writes a judgment once per defendant (1,374 lines, 572
    facts), and a fact is judged once, on every charge its defendants were convicted of. The merged item keeps
    the first line's id, so its half is that line's."""
    merged: dict[str, dict[str, Any]] = {}
    for item in items:
        first = merged.setdefault(item["fact"], {**item, "charges": []})
        first["charges"] = list(dict.fromkeys([*first["charges"], *item["charges"]]))
        if "articles" in item:
            first["articles"] = sorted({*first.get("articles", []), *item["articles"]})
    return list(merged.values())


def query_of(item: dict[str, Any]) -> str:
    """The text a system receives: the question or the fact description."""
    return str(item.get("question") or item.get("fact") or "")


def gold_articles(item: dict[str, Any]) -> list[str]:
    """Gold article ids: Criminal Law numbers for ljp items, the 法律依据 citations for consult items."""
    if "articles" in item:
        return [make_article_id(CRIMINAL_LAW, int(n)) for n in item["articles"]]
    return cited_articles(str(item.get("answer", "")))


CHARGE_LABELS_NOTE = (
    "Charges are compared as the knowledge base's charge table names them: gold names the data file split "
    "on 、 are joined again, and abolished or renamed charges become the charge in force, for every system; "
    "a predicted name the table does not know is read as the judge reads its own model's (the charge its "
    "evidence defines that it stands for, the one it abridges, else the nearest name)."
)


def gold_charges(labels: Sequence[str], articles: Sequence[str], charges: ChargeRepository) -> list[str]:
    """A data file's charge labels as the KB names them (:func:`canonical_charges`); a label the table does not
    name (CMDL writes the alternative committed: 买卖国家机关证件) is read as the charge it stands for among
    those the item's gold articles define (:meth:`ChargeRepository.map_label`)."""
    within: set[str] | None = None

    def resolve(label: str) -> str | None:
        nonlocal within
        if within is None:
            within = charges.defined_by(articles)
        return charges.map_label(label, within)

    return canonical_charges(labels, charges.named, resolve)


def predicted_charges(names: Sequence[str], evidence: Sequence[str], charges: ChargeRepository) -> list[str]:
    """A system's charges as the charge table names them, the way the judge grounds its own model's names: the
    罪 suffix and brackets normalised (:func:`canonical_charges`), then a name the table does not know is the
    charge it stands for among those its evidence articles define, or the one it abridges or begins
    (:meth:`ChargeRepository.map_label`), else the one charge whose name it holds (诽谤他人: 诽谤), else the nearest
    name (:meth:`ChargeRepository.nearest`). naive_rag's 伪造国家机关证件罪 and 故意毁坏公私财物 are then scored on the
    judgment, not the spelling."""
    canonical = canonical_charges(names, charges.named, charges.resolve)
    unknown = [n for n in canonical if charges.named(n) is None]
    within = charges.defined_by(evidence) if unknown else set()
    every = charges.names() if unknown else set()

    def named(name: str) -> str:
        held = ground_charge(name, every)
        return charges.map_label(name, within) or (held[0] if len(held) == 1 else None) or charges.nearest(name) or name

    return list(dict.fromkeys(n if n not in unknown else named(n) for n in canonical))


def resolve_charge_labels(
    results: Sequence[dict[str, Any]], charges: ChargeRepository, as_written: bool = False
) -> bool:
    """Rewrite, in memory, the gold and predicted charges of judgment results as the KB's charge table names
    them (gold: :func:`gold_charges`; predictions: :func:`predicted_charges`, or with ``as_written`` only
    normalised, as every system was scored up to session 57); the results file keeps what each system wrote.
    False (nothing changed) when the KB holds no charges."""
    if not charges.has_charges():
        return False
    for r in results:
        r["gold"]["charges"] = gold_charges(r["gold"]["charges"], r["gold"].get("articles", []), charges)
        if r.get("ok"):
            named = r["prediction"]["charges"]
            r["prediction"]["charges"] = (
                canonical_charges(named, charges.named, charges.resolve)
                if as_written
                else predicted_charges(named, r["prediction"].get("evidence", []), charges)
            )
    return True
