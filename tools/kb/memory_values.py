"""What the in-memory graph store holds and computes with (:mod:`tools.kb.memory_store`): nodes,
relationships, and the value of an expression in a row, with Cypher's nulls, comparisons and ordering."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tools.errors import InputError

Row = dict[str, Any]


@dataclass(eq=False)
class Node:
    labels: set[str]
    props: dict[str, Any]
    alive: bool = True


@dataclass(eq=False)
class Rel:
    type: str
    start: Node
    end: Node
    props: dict[str, Any]
    alive: bool = True


def has_aggregate(expr: Any) -> bool:
    return isinstance(expr, tuple) and (expr[0] == "agg" or any(has_aggregate(part) for part in expr[1:]))


def group_key(value: Any) -> Any:
    """A key for grouping, DISTINCT and UNION: nodes and relationships by identity, lists and maps by value."""
    if isinstance(value, list | tuple):
        return ("list", *(group_key(v) for v in value))
    if isinstance(value, Mapping):
        return ("map", *sorted((k, group_key(v)) for k, v in value.items()))
    return value


def _compare(op: str, a: Any, b: Any) -> bool | None:
    if a is None or b is None:
        return None
    if op == "=":
        return bool(a == b)
    if op == "<>":
        return bool(a != b)
    try:
        return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
    except TypeError:
        return None


def order_key(value: Any) -> tuple[int, Any]:
    # Ascending order puts nulls last, as Cypher does; numbers before strings before anything else.
    if value is None:
        return (3, 0)
    if isinstance(value, bool | int | float):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    return (2, repr(value))


class Descending:
    """Wraps a sort key so that one ORDER BY key can run descending while the others run ascending."""

    def __init__(self, key: tuple[int, Any]) -> None:
        self.key = key

    def __lt__(self, other: Descending) -> bool:
        return other.key < self.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Descending) and self.key == other.key


def as_stored(value: Any) -> Any:
    return list(value) if isinstance(value, list | tuple) else value


def as_returned(value: Any) -> Any:
    """A value as a query returns it: nodes and relationships as their properties, lists copied."""
    if isinstance(value, Node | Rel):
        return dict(value.props)
    if isinstance(value, list):
        return [as_returned(v) for v in value]
    return value


class Evaluator:
    def __init__(self, params: Mapping[str, Any]) -> None:
        self.params = params

    def truth(self, expr: Any, row: Row) -> bool:
        return self.value(expr, row) is True

    def value(self, expr: Any, row: Row, group: list[Row] | None = None) -> Any:  # noqa: C901 - one dispatch
        kind = expr[0]
        if kind == "lit":
            return expr[1]
        if kind == "param":
            if expr[1] not in self.params:
                raise InputError(f"in-memory graph: no value for parameter ${expr[1]}")
            return self.params[expr[1]]
        if kind == "var":
            if expr[1] not in row:
                raise InputError(f"in-memory graph: {expr[1]} is not defined")
            return row[expr[1]]
        if kind == "prop":
            owner = self.value(expr[1], row, group)
            if owner is None:
                return None
            if isinstance(owner, Node | Rel):
                return owner.props.get(expr[2])
            if isinstance(owner, Mapping):
                return owner.get(expr[2])
            raise InputError(f"in-memory graph: .{expr[2]} of a {type(owner).__name__}")
        if kind == "agg":
            return self._aggregate(expr, group if group is not None else [row])
        return _OPERATORS[kind](self, expr, row, group)

    def _aggregate(self, expr: Any, group: list[Row]) -> Any:
        _, fn, arg, distinct = expr
        if arg is None:
            return len(group)
        values = [v for v in (self.value(arg, r) for r in group) if v is not None]
        if distinct:
            seen: set[Any] = set()
            values = [v for v in values if not (group_key(v) in seen or seen.add(group_key(v)))]  # type: ignore[func-returns-value]
        return len(values) if fn == "count" else [as_returned(v) for v in values]


def _logic(ev: Evaluator, expr: Any, row: Row, group: list[Row] | None) -> Any:
    if expr[0] == "not":
        value = ev.value(expr[1], row, group)
        return None if value is None else not value
    left, right = ev.value(expr[1], row, group), ev.value(expr[2], row, group)
    if expr[0] == "and":
        return False if left is False or right is False else (None if left is None or right is None else True)
    return True if left is True or right is True else (None if left is None or right is None else False)


def _text_test(ev: Evaluator, expr: Any, row: Row, group: list[Row] | None) -> Any:
    text, part = ev.value(expr[1], row, group), ev.value(expr[2], row, group)
    if not isinstance(text, str) or not isinstance(part, str):
        return None
    return {"starts": text.startswith, "ends": text.endswith, "contains": text.__contains__}[expr[0]](part)


def _membership(ev: Evaluator, expr: Any, row: Row, group: list[Row] | None) -> Any:
    value, values = ev.value(expr[1], row, group), ev.value(expr[2], row, group)
    if values is None or value is None:
        return None
    return value in values


def _function(ev: Evaluator, expr: Any, row: Row, group: list[Row] | None) -> Any:
    value = ev.value(expr[2], row, group)
    if value is None:
        return None
    fn = expr[1]
    if fn == "size":
        return len(value)
    if fn == "labels":
        return sorted(value.labels)
    if fn == "type":
        return value.type
    return value.lower() if fn == "tolower" else value.upper()


_OPERATORS: dict[str, Callable[[Evaluator, Any, Row, list[Row] | None], Any]] = {
    "not": _logic,
    "and": _logic,
    "or": _logic,
    "cmp": lambda ev, e, row, g: _compare(e[1], ev.value(e[2], row, g), ev.value(e[3], row, g)),
    "in": _membership,
    "starts": _text_test,
    "ends": _text_test,
    "contains": _text_test,
    "isnull": lambda ev, e, row, g: ev.value(e[1], row, g) is None,
    "notnull": lambda ev, e, row, g: ev.value(e[1], row, g) is not None,
    "haslabels": lambda ev, e, row, g: (n := ev.value(e[1], row, g)) is not None and set(e[2]) <= n.labels,
    "fn": _function,
}
