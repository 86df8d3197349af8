"""One way to declare, load and check a table of the law's words: thresholds, elements, charge families and
relations, institutions, and consultations' decisive facts, instructions, areas and abbreviations.

A table is a JSON file holding its ``about``, its entries under one key, and a ``schema`` that declares them:

- ``entries``: the key the entries are under; ``name``: the fields that name an entry in an error;
- ``fields``: each field's kind (:data:`KINDS`; a kind ending in ``?`` is optional and reads as empty when absent);
- ``source`` (where the law says it): ``article`` (the field holding an article id, or several joined by 、) and
  ``quote`` (the field holding its words: parts joined by ……, 「」 around them or not), or ``interpretation``,
  ``article`` (第八条) and ``quote`` for a judicial interpretation's provision;
- ``examples``: ``holds`` and ``fails``, the fields whose texts the entry must hold for and must not;
- ``fragments``: the top-level map of named pattern parts a pattern may use as ``{NAME}``;
- ``top``: other top-level fields and their kinds (a families table's act words);
- ``nested``: the schema of each field of kind ``entries`` (a family's members).

:func:`read_table` checks every entry against the schema, so a missing or undeclared field, a field of the wrong
kind or a pattern that does not compile names its entry, not a KeyError from deep inside a check.
:meth:`Rows.build` makes the typed entries of the module that reads the table and tries each example with that
module's own test. A new table is a file and its schema; tests/unit/test_tables.py checks every source of every
table against ../shared/data.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
Entry = Mapping[str, Any]

KINDS = ("text", "texts", "number", "flag", "pattern", "patterns", "pattern map", "object", "entries")
"""A field's kinds: a string, a list of strings, a number, a boolean, a regular expression (checked to compile,
fragments expanded), a list of them, a map of names to them, any JSON object, and a list of entries of a nested
schema."""
_EMPTY: dict[str, Any] = {
    "text": "", "texts": (), "number": 0, "flag": False, "pattern": "", "patterns": (), "pattern map": {},
    "object": {}, "entries": (),
}  # fmt: skip
_FRAGMENT = re.compile(r"\{([A-Z_]+)\}")
"""A fragment's name in a pattern: a regex quantifier ({0,30}) never holds capitals."""


class TableError(ValueError):
    """A table is malformed: the message names the file and the entry."""


@dataclass(frozen=True)
class Schema:
    """What a table (or a nested list of entries) declares about its entries."""

    fields: Mapping[str, str]
    name: tuple[str, ...] = ()
    source: Mapping[str, str] | None = None
    examples: Mapping[str, str] | None = None
    nested: Mapping[str, Schema] | None = None

    @classmethod
    def of(cls, declared: Mapping[str, Any], where: str) -> Schema:
        fields = dict(declared.get("fields") or {})
        unknown = [f"{f}: {k}" for f, k in fields.items() if k.rstrip("?") not in KINDS]
        if not fields or unknown:
            raise TableError(f"{where}: the schema declares no fields or an unknown kind: {unknown}")
        nested = {f: cls.of(s, f"{where}/{f}") for f, s in (declared.get("nested") or {}).items()}
        if {f for f, k in fields.items() if k.rstrip("?") == "entries"} != set(nested):
            raise TableError(f"{where}: each field of kind entries needs its nested schema")
        declared_fields = [*declared.get("name", ()), *(declared.get("source") or {}).values()]
        declared_fields += list((declared.get("examples") or {}).values())
        if undeclared := [f for f in declared_fields if f not in fields]:
            raise TableError(f"{where}: the schema names fields it does not declare: {undeclared}")
        return cls(fields, tuple(declared.get("name", ())), declared.get("source"), declared.get("examples"), nested)


@dataclass(frozen=True)
class Rows:
    """Entries checked against their schema; ``where`` names them in errors (file, and the entry they are in)."""

    where: str
    schema: Schema
    entries: tuple[Entry, ...]

    def name(self, number: int) -> str:
        return _entry_name(self.where, number, self.entries[number], self.schema)

    def build(self, build: Callable[[Entry], T], holds: Callable[[T, str], bool] | None = None) -> tuple[T, ...]:
        """Each entry made by ``build`` (which may raise ValueError for a check of its own) and tried on its
        examples by ``holds``: every text of the ``holds`` example must hold, none of the ``fails`` one."""
        built = []
        examples = self.schema.examples or {}
        for number, entry in enumerate(self.entries):
            try:
                made = build(entry)
            except (KeyError, ValueError, TypeError) as exc:
                raise TableError(f"{self.name(number)}: {exc}") from exc
            for way, field in examples.items():
                texts = entry[field] if isinstance(entry[field], tuple) else (entry[field],)
                wrong = [t for t in texts if t and holds is not None and holds(made, t) != (way == "holds")]
                if wrong:
                    raise TableError(f"{self.name(number)}: its {field} does not come out as written: {wrong[0]}")
            built.append(made)
        return tuple(built)


@dataclass(frozen=True)
class Table(Rows):
    """A table file: its entries, and its other top-level fields (``top``) read by their declared kinds."""

    top: Mapping[str, Any]

    def sources(self) -> Iterator[tuple[str, Mapping[str, str]]]:
        """(name, {role: value}) for every entry, nested ones too, that cites a source: the roles of the schema's
        ``source`` (article, quote, interpretation) with the entry's values."""
        yield from _sources(self)


def _entry_name(where: str, number: int, entry: Mapping[str, Any], schema: Schema) -> str:
    """``where`` and the entry's number (from 0), with the values of the fields that name it (a list joined by 、)."""
    named = "/".join(
        "、".join(map(str, v)) if isinstance(v := entry.get(f), list | tuple) else str(v) for f in schema.name
    )
    return f"{where} entry {number + 1}" + (f" ({named})" if named else "")


def _sources(rows: Rows) -> Iterator[tuple[str, Mapping[str, str]]]:
    for number, entry in enumerate(rows.entries):
        source = rows.schema.source or {}
        if source and all(entry[f] for f in source.values()):
            yield rows.name(number), {role: str(entry[f]) for role, f in source.items()}
        for field in rows.schema.nested or {}:
            yield from _sources(entry[field])


def _expanded(pattern: str, fragments: Mapping[str, str], where: str) -> str:
    """``pattern`` with each {NAME} replaced by its fragment (fragments may name earlier ones), checked to compile."""

    def fragment(found: re.Match[str]) -> str:
        if found.group(1) not in fragments:
            raise TableError(f"{where}: unknown fragment {{{found.group(1)}}}")
        return _expanded(fragments[found.group(1)], fragments, where)

    text = _FRAGMENT.sub(fragment, pattern)
    try:
        re.compile(text)
    except re.error as exc:
        raise TableError(f"{where}: a pattern does not compile: {exc}") from exc
    return text


def _value(kind: str, value: Any, where: str, fragments: Mapping[str, str], nested: Schema | None) -> Any:
    """``value`` checked as ``kind`` (lists read as tuples, patterns expanded)."""
    strings = isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == "text" and isinstance(value, str):
        return value
    if kind == "texts" and strings:
        return tuple(value)
    if kind == "number" and isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if kind == "flag" and isinstance(value, bool):
        return value
    if kind == "pattern" and isinstance(value, str):
        return _expanded(value, fragments, where)
    if kind == "patterns" and strings:
        return tuple(_expanded(v, fragments, where) for v in value)
    if kind == "pattern map" and isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return {k: _expanded(v, fragments, f"{where}/{k}") for k, v in value.items()}
    if kind == "object" and isinstance(value, dict):
        return value
    if kind == "entries" and isinstance(value, list) and nested is not None:
        return _rows(value, nested, where, fragments)
    raise TableError(f"{where}: is not of kind {kind}: {str(value)[:60]}")


def _rows(entries: Any, schema: Schema, where: str, fragments: Mapping[str, str]) -> Rows:
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise TableError(f"{where}: the entries are not a list of objects")
    read = []
    for number, entry in enumerate(entries):
        at = _entry_name(where, number, entry, schema)
        if undeclared := sorted(set(entry) - set(schema.fields)):
            raise TableError(f"{at}: fields the schema does not declare: {undeclared}")
        values = {}
        for field, kind in schema.fields.items():
            base = kind.rstrip("?")
            if field not in entry and kind.endswith("?"):
                values[field] = _EMPTY[base]
            elif field not in entry:
                raise TableError(f"{at}: missing '{field}'")
            else:
                nested = (schema.nested or {}).get(field)
                values[field] = _value(base, entry[field], f"{at}: {field}", fragments, nested)
        read.append(values)
    return Rows(where, schema, tuple(read))


def read_table_data(data: Mapping[str, Any], where: str) -> Table:
    """The table ``data`` (a table file's JSON) checked against its own schema."""
    if "schema" not in data:
        raise TableError(f"{where}: declares no schema")
    declared = data["schema"]
    schema = Schema.of(declared, where)
    key = declared.get("entries", "")
    if key not in data:
        raise TableError(f"{where}: has no entries under {key!r}")
    fragments: dict[str, str] = {}
    for name, fragment in (data.get(declared.get("fragments", ""), {}) or {}).items():
        fragments[name] = fragment["pattern"] if isinstance(fragment, dict) else fragment
    top = {
        field: _value(kind.rstrip("?"), data[field], f"{where}: {field}", fragments, None)
        if field in data
        else _EMPTY[kind.rstrip("?")]
        for field, kind in (declared.get("top") or {}).items()
    }
    rows = _rows(data[key], schema, where, fragments)
    return Table(where, schema, rows.entries, top)


@cache
def read_table(path: Path) -> Table:
    """The table file at ``path``, every entry checked against its schema (read once)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TableError(f"{path.name}: cannot be read as JSON: {exc}") from exc
    return read_table_data(data, path.name)
