"""An in-memory :class:`~tools.kb.port.GraphStore`: the parameterised Cypher subset the repositories write,
run on Python dicts, so that graph tests and embedding applications need no server.

It implements what the queries of this package use, with FalkorDB's and Neo4j's semantics: MATCH and
OPTIONAL MATCH over node and relationship patterns (labels, property maps, types with ``|``, either
direction or none), WHERE, UNWIND, MERGE of a node or of a relationship between bound nodes, CREATE, SET
(``= null`` removes), DELETE and DETACH DELETE, WITH and RETURN with DISTINCT, aggregation (``count``,
``collect``, with DISTINCT), ORDER BY, LIMIT and UNION; expressions with parameters, properties, ``IN``,
``STARTS WITH``, ``CONTAINS``, ``IS [NOT] NULL``, label predicates, ``size``, ``labels`` and ``type``.
Anything else is a :class:`~tools.errors.InputError` naming it, never a silent wrong answer. Nothing
persists: the graph lives as long as the store.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tools.errors import InputError
from tools.kb.port import Record

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


# ---------------------------------------------------------------------------------------------- parsing

_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")|(?P<number>\d+(?:\.\d+)?)"
    r"|(?P<param>\$\w+)|(?P<name>[A-Za-z_]\w*)|(?P<op><>|<=|>=|[-<>=()\[\]{}:,.|*+]))"
)
_KEYWORDS = {
    "MATCH", "OPTIONAL", "WHERE", "RETURN", "WITH", "UNWIND", "AS", "MERGE", "CREATE", "SET", "DELETE", "DETACH",
    "DISTINCT", "ORDER", "BY", "DESC", "ASC", "LIMIT", "UNION", "AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE",
    "FALSE", "STARTS", "ENDS", "CONTAINS",
}  # fmt: skip
_WRITES = {"MERGE", "CREATE", "SET", "DELETE"}


@dataclass(frozen=True)
class Tok:
    kind: str
    text: str
    """Keywords upper-cased (``order`` is ORDER), everything else as written."""
    raw: str


def _tokens(cypher: str) -> list[Tok]:
    out: list[Tok] = []
    pos, text = 0, cypher.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise InputError(f"in-memory graph: cannot read Cypher at {text[pos : pos + 20]!r}")
        pos = match.end()
        kind = match.lastgroup or "op"
        value = match.group(kind)
        if kind == "name" and value.upper() in _KEYWORDS:
            out.append(Tok("kw", value.upper(), value))
        else:
            out.append(Tok(kind, value, value))
    return out


@dataclass
class NodePat:
    var: str | None
    labels: list[str]
    props: list[tuple[str, Any]]


@dataclass
class RelPat:
    var: str | None
    types: list[str]
    props: list[tuple[str, Any]]
    direction: str  # "out", "in" or "both"


@dataclass
class Path:
    nodes: list[NodePat]
    rels: list[RelPat]


@dataclass
class Item:
    expr: Any
    alias: str


@dataclass
class Clause:
    kind: str
    patterns: list[Path] = field(default_factory=list)
    where: Any = None
    expr: Any = None
    alias: str = ""
    items: list[Item] = field(default_factory=list)
    distinct: bool = False
    order: list[tuple[Any, bool]] = field(default_factory=list)
    limit: Any = None
    sets: list[tuple[str, str, Any]] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)


class _Parser:
    def __init__(self, cypher: str) -> None:
        self.toks = _tokens(cypher)
        self.i = 0

    def peek(self, offset: int = 0) -> Tok | None:
        j = self.i + offset
        return self.toks[j] if j < len(self.toks) else None

    def at(self, *texts: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.text in texts and tok.kind in ("kw", "op")

    def take(self, text: str) -> Tok:
        tok = self.peek()
        if tok is None or tok.text != text or tok.kind not in ("kw", "op"):
            raise InputError(f"in-memory graph: expected {text!r} at {tok.text if tok else 'the end'!r}")
        self.i += 1
        return tok

    def name(self) -> str:
        tok = self.peek()
        if tok is None or tok.kind not in ("name", "kw"):
            raise InputError(f"in-memory graph: expected a name at {tok.text if tok else 'the end'!r}")
        self.i += 1
        return tok.raw

    def queries(self) -> list[list[Clause]]:
        parts = [self.clauses()]
        while self.at("UNION"):
            self.take("UNION")
            parts.append(self.clauses())
        if self.peek() is not None:
            raise InputError(f"in-memory graph: unsupported Cypher at {self.peek().text!r}")  # type: ignore[union-attr]
        return parts

    def clauses(self) -> list[Clause]:
        out: list[Clause] = []
        while (tok := self.peek()) is not None and tok.text != "UNION":
            out.append(self.clause())
        return out

    def listed(self, parse: Callable[[], Any]) -> list[Any]:
        """One or more of what ``parse`` reads, separated by commas."""
        out = [parse()]
        while self.at(","):
            self.take(",")
            out.append(parse())
        return out

    def clause(self) -> Clause:
        tok = self.peek()
        word = tok.text if tok is not None and tok.kind == "kw" else ""
        readers: dict[str, Callable[[], Clause]] = {
            "OPTIONAL": lambda: (self.take("OPTIONAL"), self.match("OPTIONAL MATCH"))[1],
            "MATCH": lambda: self.match("MATCH"),
            "UNWIND": self.unwind,
            "MERGE": lambda: (self.take("MERGE"), Clause("MERGE", patterns=[self.path()]))[1],
            "CREATE": lambda: (self.take("CREATE"), Clause("CREATE", patterns=self.listed(self.path)))[1],
            "SET": lambda: (self.take("SET"), Clause("SET", sets=self.listed(self.assignment)))[1],
            "DELETE": lambda: (self.take("DELETE"), Clause("DELETE", targets=self.listed(self.name)))[1],
            "DETACH": lambda: (
                self.take("DETACH"),
                self.take("DELETE"),
                Clause("DETACH DELETE", targets=self.listed(self.name)),
            )[2],
            "WITH": lambda: self.projection("WITH"),
            "RETURN": lambda: self.projection("RETURN"),
        }
        if word not in readers:
            raise InputError(f"in-memory graph: unsupported clause {tok.text if tok else 'at the end'!r}")
        return readers[word]()

    def unwind(self) -> Clause:
        self.take("UNWIND")
        expr = self.expr()
        self.take("AS")
        return Clause("UNWIND", expr=expr, alias=self.name())

    def match(self, kind: str) -> Clause:
        self.take("MATCH")
        patterns = self.listed(self.path)
        where = None
        if self.at("WHERE"):
            self.take("WHERE")
            where = self.expr()
        return Clause(kind, patterns=patterns, where=where)

    def assignment(self) -> tuple[str, str, Any]:
        var = self.name()
        self.take(".")
        prop = self.name()
        self.take("=")
        return var, prop, self.expr()

    def projection(self, kind: str) -> Clause:
        self.take(kind)
        clause = Clause(kind)
        if self.at("DISTINCT"):
            self.take("DISTINCT")
            clause.distinct = True
        clause.items = self.listed(self.item)
        if kind == "WITH" and self.at("WHERE"):
            self.take("WHERE")
            clause.where = self.expr()
        if self.at("ORDER"):
            self.take("ORDER")
            self.take("BY")
            clause.order = self.listed(self.sort_key)
        if self.at("LIMIT"):
            self.take("LIMIT")
            clause.limit = self.expr()
        return clause

    def item(self) -> Item:
        start = self.i
        expr = self.expr()
        if self.at("AS"):
            self.take("AS")
            return Item(expr, self.name())
        return Item(expr, "".join(t.raw for t in self.toks[start : self.i]))

    def sort_key(self) -> tuple[Any, bool]:
        key = self.expr()
        if self.at("DESC", "ASC"):
            return key, self.take(self.peek().text).text == "DESC"  # type: ignore[union-attr]
        return key, False

    def path(self) -> Path:
        nodes = [self.node()]
        rels: list[RelPat] = []
        while self.at("-", "<"):
            rels.append(self.rel())
            nodes.append(self.node())
        return Path(nodes, rels)

    def node(self) -> NodePat:
        self.take("(")
        var = self.name() if (tok := self.peek()) is not None and tok.kind == "name" else None
        labels: list[str] = []
        while self.at(":"):
            self.take(":")
            labels.append(self.name())
        props = self.props() if self.at("{") else []
        self.take(")")
        return NodePat(var, labels, props)

    def rel(self) -> RelPat:
        incoming = self.at("<")
        if incoming:
            self.take("<")
        self.take("-")
        var, types, props = None, [], []
        if self.at("["):
            self.take("[")
            if (tok := self.peek()) is not None and tok.kind == "name":
                var = self.name()
            if self.at(":"):
                self.take(":")
                types.append(self.name())
                while self.at("|"):
                    self.take("|")
                    types.append(self.name())
            props = self.props() if self.at("{") else []
            self.take("]")
        self.take("-")
        outgoing = self.at(">")
        if outgoing:
            self.take(">")
        if incoming and outgoing:
            raise InputError("in-memory graph: a relationship pattern points both ways")
        return RelPat(var, types, props, "in" if incoming else "out" if outgoing else "both")

    def props(self) -> list[tuple[str, Any]]:
        self.take("{")
        out: list[tuple[str, Any]] = []
        while not self.at("}"):
            key = self.name()
            self.take(":")
            out.append((key, self.expr()))
            if self.at(","):
                self.take(",")
        self.take("}")
        return out

    # Expressions, loosest first: OR, AND, NOT, comparison, atoms.
    def expr(self) -> Any:
        left = self.conjunction()
        while self.at("OR"):
            self.take("OR")
            left = ("or", left, self.conjunction())
        return left

    def conjunction(self) -> Any:
        left = self.negation()
        while self.at("AND"):
            self.take("AND")
            left = ("and", left, self.negation())
        return left

    def negation(self) -> Any:
        if self.at("NOT"):
            self.take("NOT")
            return ("not", self.negation())
        return self.comparison()

    def comparison(self) -> Any:
        left = self.atom()
        if self.at("=", "<>", "<", ">", "<=", ">="):
            op = self.take(self.peek().text).text  # type: ignore[union-attr]
            return ("cmp", op, left, self.atom())
        if self.at("IN"):
            self.take("IN")
            return ("in", left, self.atom())
        if self.at("STARTS", "ENDS"):
            word = self.take(self.peek().text).text  # type: ignore[union-attr]
            self.take("WITH")
            return ("starts" if word == "STARTS" else "ends", left, self.atom())
        if self.at("CONTAINS"):
            self.take("CONTAINS")
            return ("contains", left, self.atom())
        if self.at("IS"):
            self.take("IS")
            negated = self.at("NOT")
            if negated:
                self.take("NOT")
            self.take("NULL")
            return ("notnull" if negated else "isnull", left)
        if self.at(":") and left[0] == "var":
            labels = []
            while self.at(":"):
                self.take(":")
                labels.append(self.name())
            return ("haslabels", left, labels)
        return left

    def atom(self) -> Any:
        tok = self.peek()
        if tok is None:
            raise InputError("in-memory graph: the query ends inside an expression")
        self.i += 1
        if tok.kind == "string":
            return ("lit", re.sub(r"\\(.)", r"\1", tok.text[1:-1]))
        if tok.kind == "number":
            return ("lit", float(tok.text) if "." in tok.text else int(tok.text))
        if tok.kind == "param":
            return ("param", tok.text[1:])
        if tok.kind == "kw" and tok.text in ("NULL", "TRUE", "FALSE"):
            return ("lit", {"NULL": None, "TRUE": True, "FALSE": False}[tok.text])
        if tok.text == "(":
            inner = self.expr()
            self.take(")")
            return inner
        if tok.kind == "name" and self.at("("):
            return self.call(tok.text.lower())
        if tok.kind == "name":
            node: Any = ("var", tok.text)
            while self.at("."):
                self.take(".")
                node = ("prop", node, self.name())
            return node
        raise InputError(f"in-memory graph: unsupported expression at {tok.text!r}")

    def call(self, fn: str) -> Any:
        self.take("(")
        if fn == "count" and self.at("*"):
            self.take("*")
            self.take(")")
            return ("agg", "count", None, False)
        distinct = self.at("DISTINCT")
        if distinct:
            self.take("DISTINCT")
        arg = self.expr()
        self.take(")")
        if fn in ("count", "collect"):
            return ("agg", fn, arg, distinct)
        if fn in ("size", "labels", "type", "tolower", "toupper"):
            return ("fn", fn, arg)
        raise InputError(f"in-memory graph: unsupported function {fn}()")


# -------------------------------------------------------------------------------------------- evaluation


def _has_agg(expr: Any) -> bool:
    return isinstance(expr, tuple) and (expr[0] == "agg" or any(_has_agg(part) for part in expr[1:]))


def _hashable(value: Any) -> Any:
    """A key for grouping, DISTINCT and UNION: nodes and relationships by identity, lists and maps by value."""
    if isinstance(value, list | tuple):
        return ("list", *(_hashable(v) for v in value))
    if isinstance(value, Mapping):
        return ("map", *sorted((k, _hashable(v)) for k, v in value.items()))
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


def _sort_key(value: Any) -> tuple[int, Any]:
    # Ascending order puts nulls last, as Cypher does; numbers before strings before anything else.
    if value is None:
        return (3, 0)
    if isinstance(value, bool | int | float):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    return (2, repr(value))


class _Reverse:
    """Wraps a sort key so that one ORDER BY key can run descending while the others run ascending."""

    def __init__(self, key: tuple[int, Any]) -> None:
        self.key = key

    def __lt__(self, other: _Reverse) -> bool:
        return other.key < self.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reverse) and self.key == other.key


class InMemoryGraphStore:
    """A graph held in this process (see the module docstring for the Cypher it runs)."""

    backend = "memory"

    def __init__(self) -> None:
        self.location = "memory://"
        self._lock = threading.RLock()
        self._parsed: dict[str, list[list[Clause]]] = {}
        self.clear()

    # The port --------------------------------------------------------------------------------------

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        return self._run(cypher, params or {}, read_only=False)

    def read(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        return self._run(cypher, params or {}, read_only=True)

    def ensure_schema(self) -> None:
        """Nothing to create: lookups scan the labels' nodes."""

    def compact(self) -> None:
        """Nothing is written anywhere."""

    def clear(self) -> None:
        with self._lock:
            # Ordered sets (dicts of None): a scan meets nodes in the order they were made, as FalkorDB's does.
            self._nodes: dict[Node, None] = {}
            self._by_label: dict[str, dict[Node, None]] = {}
            self._by_value: dict[tuple[str, str, Any], dict[Node, None]] = {}
            self._out: dict[Node, list[Rel]] = {}
            self._in: dict[Node, list[Rel]] = {}

    def close(self) -> None:
        """The graph stays readable until the store is dropped."""

    # Execution -------------------------------------------------------------------------------------

    def _run(self, cypher: str, params: Mapping[str, Any], read_only: bool) -> list[Record]:
        with self._lock:
            parts = self._parsed.get(cypher)
            if parts is None:
                parts = self._parsed[cypher] = _Parser(cypher).queries()
            if read_only and any(c.kind.split()[-1] in _WRITES for part in parts for c in part):
                raise InputError("in-memory graph: a read query may not write")
            results = [self._single(part, params) for part in parts]
            if len(results) == 1:
                return results[0]
            seen: set[Any] = set()
            merged: list[Record] = []
            for row in itertools.chain(*results):
                key = _hashable(row)
                if key not in seen:
                    seen.add(key)
                    merged.append(row)
            return merged

    def _single(self, clauses: list[Clause], params: Mapping[str, Any]) -> list[Record]:
        rows: list[Row] = [{}]
        for clause in clauses:
            rows = self._step(clause, rows, params)
        if clauses and clauses[-1].kind == "RETURN":
            return [{k: _plain(v) for k, v in row.items()} for row in rows]
        return []

    def _step(self, clause: Clause, rows: list[Row], params: Mapping[str, Any]) -> list[Row]:
        ev = _Evaluator(params)
        steps: dict[str, Callable[[Clause, list[Row], _Evaluator], list[Row]]] = {
            "MATCH": self._match,
            "OPTIONAL MATCH": self._match,
            "UNWIND": _unwind,
            "MERGE": lambda c, rs, e: [new for row in rs for new in self._merge(c.patterns[0], row, e)],
            "CREATE": self._create_all,
            "SET": self._set_all,
            "DELETE": self._delete_all,
            "DETACH DELETE": self._delete_all,
            "WITH": self._project,
            "RETURN": self._project,
        }
        return steps[clause.kind](clause, rows, ev)

    def _create_all(self, clause: Clause, rows: list[Row], ev: _Evaluator) -> list[Row]:
        for row in rows:
            for path in clause.patterns:
                self._create(path, row, ev)
        return rows

    def _set_all(self, clause: Clause, rows: list[Row], ev: _Evaluator) -> list[Row]:
        for row in rows:
            for var, prop, expr in clause.sets:
                self._set(row.get(var), prop, ev.value(expr, row))
        return rows

    def _delete_all(self, clause: Clause, rows: list[Row], _ev: _Evaluator) -> list[Row]:
        for row in rows:
            for var in clause.targets:
                self._delete(row.get(var), detach=clause.kind == "DETACH DELETE")
        return rows

    # Matching --------------------------------------------------------------------------------------

    def _match(self, clause: Clause, rows: list[Row], ev: _Evaluator) -> list[Row]:
        out: list[Row] = []
        for row in rows:
            found = [
                m
                for m in self._match_all(clause.patterns, row, ev)
                if clause.where is None or ev.truth(clause.where, m)
            ]
            if found:
                out.extend(found)
            elif clause.kind == "OPTIONAL MATCH":
                new = {var: None for path in clause.patterns for var in _pattern_vars(path) if var not in row}
                out.append({**row, **new})
        return out

    def _match_all(self, paths: Sequence[Path], row: Row, ev: _Evaluator) -> Iterator[Row]:
        if not paths:
            yield row
            return
        for first in self._match_path(paths[0], row, ev):
            yield from self._match_all(paths[1:], first, ev)

    def _match_path(self, path: Path, row: Row, ev: _Evaluator) -> Iterator[Row]:
        for start in self._candidates(path.nodes[0], row, ev):
            bound = self._bind(path.nodes[0], start, row)
            if bound is not None:
                yield from self._extend(path, 0, start, bound, ev, set())

    def _extend(self, path: Path, step: int, here: Node, row: Row, ev: _Evaluator, used: set[int]) -> Iterator[Row]:
        if step == len(path.rels):
            yield row
            return
        pattern, target = path.rels[step], path.nodes[step + 1]
        for rel, there in self._neighbours(here, pattern):
            if id(rel) in used or not self._fits_rel(rel, pattern, row, ev):
                continue
            if not self._fits_node(there, target, row, ev):
                continue
            bound = self._bind(target, there, row)
            if bound is None:
                continue
            if pattern.var:
                if pattern.var in bound and bound[pattern.var] is not rel:
                    continue
                bound = {**bound, pattern.var: rel}
            yield from self._extend(path, step + 1, there, bound, ev, used | {id(rel)})

    def _neighbours(self, node: Node, pattern: RelPat) -> Iterator[tuple[Rel, Node]]:
        if pattern.direction in ("out", "both"):
            for rel in self._out.get(node, []):
                if rel.alive:
                    yield rel, rel.end
        if pattern.direction in ("in", "both"):
            for rel in self._in.get(node, []):
                if rel.alive:
                    yield rel, rel.start

    def _candidates(self, pattern: NodePat, row: Row, ev: _Evaluator) -> Iterator[Node]:
        if pattern.var and pattern.var in row:
            node = row[pattern.var]
            if isinstance(node, Node) and node.alive and self._fits_node(node, pattern, row, ev):
                yield node
            return
        for node in list(self._scan(pattern, row, ev)):
            if node.alive and self._fits_node(node, pattern, row, ev):
                yield node

    def _scan(self, pattern: NodePat, row: Row, ev: _Evaluator) -> Iterator[Node]:
        """The nodes a pattern can match, narrowed by its first label and property when it has them."""
        if not pattern.labels:
            return iter(self._nodes)
        if pattern.props:
            key, expr = pattern.props[0]
            value = ev.value(expr, row)
            try:
                return iter(self._by_value.get((pattern.labels[0], key, value), {}))
            except TypeError:  # a list or map value: no index
                pass
        return iter(self._by_label.get(pattern.labels[0], {}))

    def _index(self, node: Node, prop: str, value: Any, add: bool) -> None:
        for label in node.labels:
            try:
                entry = self._by_value.setdefault((label, prop, value), {})
            except TypeError:
                continue
            if add:
                entry[node] = None
            else:
                entry.pop(node, None)

    def _fits_node(self, node: Node, pattern: NodePat, row: Row, ev: _Evaluator) -> bool:
        if not set(pattern.labels) <= node.labels:
            return False
        return all(node.props.get(k) == ev.value(e, row) is not None for k, e in pattern.props)

    def _fits_rel(self, rel: Rel, pattern: RelPat, row: Row, ev: _Evaluator) -> bool:
        if pattern.types and rel.type not in pattern.types:
            return False
        return all(rel.props.get(k) == ev.value(e, row) is not None for k, e in pattern.props)

    @staticmethod
    def _bind(pattern: NodePat, node: Node, row: Row) -> Row | None:
        if not pattern.var:
            return row
        if pattern.var in row:
            return row if row[pattern.var] is node else None
        return {**row, pattern.var: node}

    # Writing ---------------------------------------------------------------------------------------

    def _new_node(self, labels: Sequence[str], props: Mapping[str, Any]) -> Node:
        node = Node(set(labels), {k: _stored(v) for k, v in props.items() if v is not None})
        self._nodes[node] = None
        for label in node.labels:
            self._by_label.setdefault(label, {})[node] = None
        for prop, value in node.props.items():
            self._index(node, prop, value, add=True)
        return node

    def _new_rel(self, kind: str, start: Node, end: Node, props: Mapping[str, Any]) -> Rel:
        rel = Rel(kind, start, end, {k: _stored(v) for k, v in props.items() if v is not None})
        self._out.setdefault(start, []).append(rel)
        self._in.setdefault(end, []).append(rel)
        return rel

    def _merge(self, path: Path, row: Row, ev: _Evaluator) -> list[Row]:
        if not path.rels:
            pattern = path.nodes[0]
            if pattern.var and pattern.var in row:
                return [row]
            found = [r for r in self._match_path(path, row, ev)]
            if found:
                return found
            props = {k: ev.value(e, row) for k, e in pattern.props}
            if any(v is None for v in props.values()):
                raise InputError("in-memory graph: MERGE on a null property value")
            node = self._new_node(pattern.labels, props)
            return [{**row, pattern.var: node} if pattern.var else row]
        if len(path.rels) != 1 or any(not (n.var and n.var in row) for n in path.nodes):
            raise InputError("in-memory graph: MERGE of a relationship needs both of its nodes bound")
        found = list(self._match_path(path, row, ev))
        if found:
            return found
        start, end, link = row[path.nodes[0].var], row[path.nodes[1].var], path.rels[0]  # type: ignore[index]
        if link.direction == "in":
            start, end = end, start
        if len(link.types) != 1:
            raise InputError("in-memory graph: MERGE of a relationship needs exactly one type")
        rel = self._new_rel(link.types[0], start, end, {k: ev.value(e, row) for k, e in link.props})
        return [{**row, link.var: rel} if link.var else row]

    def _create(self, path: Path, row: Row, ev: _Evaluator) -> None:
        nodes: list[Node] = []
        for pattern in path.nodes:
            if pattern.var and pattern.var in row:
                nodes.append(row[pattern.var])
            else:
                nodes.append(self._new_node(pattern.labels, {k: ev.value(e, row) for k, e in pattern.props}))
        for i, link in enumerate(path.rels):
            if len(link.types) != 1 or link.direction == "both":
                raise InputError("in-memory graph: CREATE needs one type and a direction per relationship")
            start, end = (nodes[i], nodes[i + 1]) if link.direction == "out" else (nodes[i + 1], nodes[i])
            self._new_rel(link.types[0], start, end, {k: ev.value(e, row) for k, e in link.props})

    def _set(self, target: Any, prop: str, value: Any) -> None:
        if target is None:
            return
        if not isinstance(target, Node | Rel):
            raise InputError(f"in-memory graph: SET on {type(target).__name__}, not a node or relationship")
        if isinstance(target, Node) and prop in target.props:
            self._index(target, prop, target.props[prop], add=False)
        if value is None:
            target.props.pop(prop, None)
        else:
            target.props[prop] = _stored(value)
            if isinstance(target, Node):
                self._index(target, prop, target.props[prop], add=True)

    def _delete(self, target: Any, detach: bool) -> None:
        if target is None or not target.alive:
            return
        if isinstance(target, Rel):
            target.alive = False
            self._unlink(target)
        elif isinstance(target, Node):
            attached = [r for r in (*self._out.get(target, []), *self._in.get(target, [])) if r.alive]
            if attached and not detach:
                raise InputError("in-memory graph: cannot DELETE a node that still has relationships (DETACH DELETE)")
            for rel in attached:
                rel.alive = False
                self._unlink(rel)
            target.alive = False
            self._nodes.pop(target, None)
            for label in target.labels:
                self._by_label.get(label, {}).pop(target, None)
            for prop, value in target.props.items():
                self._index(target, prop, value, add=False)
            self._out.pop(target, None)
            self._in.pop(target, None)

    def _unlink(self, rel: Rel) -> None:
        for table, node in ((self._out, rel.start), (self._in, rel.end)):
            rels = table.get(node)
            if rels is not None and rel in rels:
                rels.remove(rel)

    # Projection ------------------------------------------------------------------------------------

    def _project(self, clause: Clause, rows: list[Row], ev: _Evaluator) -> list[Row]:
        # Each projected row is kept with a row of the input it came from: ORDER BY may read what it dropped.
        projected = (
            _aggregate(clause, rows, ev)
            if any(_has_agg(i.expr) for i in clause.items)
            else [({item.alias: ev.value(item.expr, row) for item in clause.items}, row) for row in rows]
        )
        if clause.distinct:
            unique: dict[Any, tuple[Row, Row]] = {}
            for out, source in projected:
                unique.setdefault(_hashable(out), (out, source))
            projected = list(unique.values())
        if clause.where is not None:
            projected = [(out, source) for out, source in projected if ev.truth(clause.where, out)]
        if clause.order:

            def sort_key(pair: tuple[Row, Row]) -> list[Any]:
                scope = {**pair[1], **pair[0]}
                keys = [_sort_key(_plain(ev.value(expr, scope))) for expr, _ in clause.order]
                return [_Reverse(k) if desc else k for k, (_, desc) in zip(keys, clause.order, strict=True)]

            projected.sort(key=sort_key)
        out_rows = [out for out, _ in projected]
        if clause.limit is not None:
            out_rows = out_rows[: int(ev.value(clause.limit, {}))]
        return out_rows


def _aggregate(clause: Clause, rows: list[Row], ev: _Evaluator) -> list[tuple[Row, Row]]:
    """One row per group of the non-aggregated items' values; with none, one row even of no input."""
    keys = [item for item in clause.items if not _has_agg(item.expr)]
    groups: dict[Any, list[Row]] = {}
    for row in rows:
        groups.setdefault(tuple(_hashable(ev.value(item.expr, row)) for item in keys), []).append(row)
    if not groups and not keys:
        groups[()] = []
    out: list[tuple[Row, Row]] = []
    for members in groups.values():
        first = members[0] if members else {}
        out.append(({item.alias: ev.value(item.expr, first, members) for item in clause.items}, first))
    return out


def _unwind(clause: Clause, rows: list[Row], ev: _Evaluator) -> list[Row]:
    return [{**row, clause.alias: v} for row in rows for v in (ev.value(clause.expr, row) or [])]


def _pattern_vars(path: Path) -> list[str]:
    return [v for v in (*(n.var for n in path.nodes), *(r.var for r in path.rels)) if v]


def _stored(value: Any) -> Any:
    return list(value) if isinstance(value, list | tuple) else value


def _plain(value: Any) -> Any:
    """A value as a query returns it: nodes and relationships as their properties, lists copied."""
    if isinstance(value, Node | Rel):
        return dict(value.props)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class _Evaluator:
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
            values = [v for v in values if not (_hashable(v) in seen or seen.add(_hashable(v)))]  # type: ignore[func-returns-value]
        return len(values) if fn == "count" else [_plain(v) for v in values]


def _logic(ev: _Evaluator, expr: Any, row: Row, group: list[Row] | None) -> Any:
    if expr[0] == "not":
        value = ev.value(expr[1], row, group)
        return None if value is None else not value
    left, right = ev.value(expr[1], row, group), ev.value(expr[2], row, group)
    if expr[0] == "and":
        return False if left is False or right is False else (None if left is None or right is None else True)
    return True if left is True or right is True else (None if left is None or right is None else False)


def _text_test(ev: _Evaluator, expr: Any, row: Row, group: list[Row] | None) -> Any:
    text, part = ev.value(expr[1], row, group), ev.value(expr[2], row, group)
    if not isinstance(text, str) or not isinstance(part, str):
        return None
    return {"starts": text.startswith, "ends": text.endswith, "contains": text.__contains__}[expr[0]](part)


def _membership(ev: _Evaluator, expr: Any, row: Row, group: list[Row] | None) -> Any:
    value, values = ev.value(expr[1], row, group), ev.value(expr[2], row, group)
    if values is None or value is None:
        return None
    return value in values


def _function(ev: _Evaluator, expr: Any, row: Row, group: list[Row] | None) -> Any:
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


_OPERATORS: dict[str, Callable[[_Evaluator, Any, Row, list[Row] | None], Any]] = {
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
