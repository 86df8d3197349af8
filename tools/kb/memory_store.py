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
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from tools.errors import InputError
from tools.kb.memory_cypher import WRITES, Clause, NodePat, Path, RelPat, parse
from tools.kb.memory_values import (
    Descending,
    Evaluator,
    Node,
    Rel,
    Row,
    as_returned,
    as_stored,
    group_key,
    has_aggregate,
    order_key,
)
from tools.kb.port import Record


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
                parts = self._parsed[cypher] = parse(cypher)
            if read_only and any(c.kind.split()[-1] in WRITES for part in parts for c in part):
                raise InputError("in-memory graph: a read query may not write")
            results = [self._single(part, params) for part in parts]
            if len(results) == 1:
                return results[0]
            seen: set[Any] = set()
            merged: list[Record] = []
            for row in itertools.chain(*results):
                key = group_key(row)
                if key not in seen:
                    seen.add(key)
                    merged.append(row)
            return merged

    def _single(self, clauses: list[Clause], params: Mapping[str, Any]) -> list[Record]:
        rows: list[Row] = [{}]
        for clause in clauses:
            rows = self._step(clause, rows, params)
        if clauses and clauses[-1].kind == "RETURN":
            return [{k: as_returned(v) for k, v in row.items()} for row in rows]
        return []

    def _step(self, clause: Clause, rows: list[Row], params: Mapping[str, Any]) -> list[Row]:
        ev = Evaluator(params)
        steps: dict[str, Callable[[Clause, list[Row], Evaluator], list[Row]]] = {
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

    def _create_all(self, clause: Clause, rows: list[Row], ev: Evaluator) -> list[Row]:
        for row in rows:
            for path in clause.patterns:
                self._create(path, row, ev)
        return rows

    def _set_all(self, clause: Clause, rows: list[Row], ev: Evaluator) -> list[Row]:
        for row in rows:
            for var, prop, expr in clause.sets:
                self._set(row.get(var), prop, ev.value(expr, row))
        return rows

    def _delete_all(self, clause: Clause, rows: list[Row], _ev: Evaluator) -> list[Row]:
        for row in rows:
            for var in clause.targets:
                self._delete(row.get(var), detach=clause.kind == "DETACH DELETE")
        return rows

    # Matching --------------------------------------------------------------------------------------

    def _match(self, clause: Clause, rows: list[Row], ev: Evaluator) -> list[Row]:
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

    def _match_all(self, paths: Sequence[Path], row: Row, ev: Evaluator) -> Iterator[Row]:
        if not paths:
            yield row
            return
        for first in self._match_path(paths[0], row, ev):
            yield from self._match_all(paths[1:], first, ev)

    def _match_path(self, path: Path, row: Row, ev: Evaluator) -> Iterator[Row]:
        for start in self._candidates(path.nodes[0], row, ev):
            bound = self._bind(path.nodes[0], start, row)
            if bound is not None:
                yield from self._extend(path, 0, start, bound, ev, set())

    def _extend(self, path: Path, step: int, here: Node, row: Row, ev: Evaluator, used: set[int]) -> Iterator[Row]:
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

    def _candidates(self, pattern: NodePat, row: Row, ev: Evaluator) -> Iterator[Node]:
        if pattern.var and pattern.var in row:
            node = row[pattern.var]
            if isinstance(node, Node) and node.alive and self._fits_node(node, pattern, row, ev):
                yield node
            return
        for node in list(self._scan(pattern, row, ev)):
            if node.alive and self._fits_node(node, pattern, row, ev):
                yield node

    def _scan(self, pattern: NodePat, row: Row, ev: Evaluator) -> Iterator[Node]:
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

    def _fits_node(self, node: Node, pattern: NodePat, row: Row, ev: Evaluator) -> bool:
        if not set(pattern.labels) <= node.labels:
            return False
        return all(node.props.get(k) == ev.value(e, row) is not None for k, e in pattern.props)

    def _fits_rel(self, rel: Rel, pattern: RelPat, row: Row, ev: Evaluator) -> bool:
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
        node = Node(set(labels), {k: as_stored(v) for k, v in props.items() if v is not None})
        self._nodes[node] = None
        for label in node.labels:
            self._by_label.setdefault(label, {})[node] = None
        for prop, value in node.props.items():
            self._index(node, prop, value, add=True)
        return node

    def _new_rel(self, kind: str, start: Node, end: Node, props: Mapping[str, Any]) -> Rel:
        rel = Rel(kind, start, end, {k: as_stored(v) for k, v in props.items() if v is not None})
        self._out.setdefault(start, []).append(rel)
        self._in.setdefault(end, []).append(rel)
        return rel

    def _merge(self, path: Path, row: Row, ev: Evaluator) -> list[Row]:
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

    def _create(self, path: Path, row: Row, ev: Evaluator) -> None:
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
            target.props[prop] = as_stored(value)
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

    def _project(self, clause: Clause, rows: list[Row], ev: Evaluator) -> list[Row]:
        # Each projected row is kept with a row of the input it came from: ORDER BY may read what it dropped.
        projected = (
            _aggregate(clause, rows, ev)
            if any(has_aggregate(i.expr) for i in clause.items)
            else [({item.alias: ev.value(item.expr, row) for item in clause.items}, row) for row in rows]
        )
        if clause.distinct:
            unique: dict[Any, tuple[Row, Row]] = {}
            for out, source in projected:
                unique.setdefault(group_key(out), (out, source))
            projected = list(unique.values())
        if clause.where is not None:
            projected = [(out, source) for out, source in projected if ev.truth(clause.where, out)]
        if clause.order:

            def sort_key(pair: tuple[Row, Row]) -> list[Any]:
                scope = {**pair[1], **pair[0]}
                keys = [order_key(as_returned(ev.value(expr, scope))) for expr, _ in clause.order]
                return [Descending(k) if desc else k for k, (_, desc) in zip(keys, clause.order, strict=True)]

            projected.sort(key=sort_key)
        out_rows = [out for out, _ in projected]
        if clause.limit is not None:
            out_rows = out_rows[: int(ev.value(clause.limit, {}))]
        return out_rows


def _aggregate(clause: Clause, rows: list[Row], ev: Evaluator) -> list[tuple[Row, Row]]:
    """One row per group of the non-aggregated items' values; with none, one row even of no input."""
    keys = [item for item in clause.items if not has_aggregate(item.expr)]
    groups: dict[Any, list[Row]] = {}
    for row in rows:
        groups.setdefault(tuple(group_key(ev.value(item.expr, row)) for item in keys), []).append(row)
    if not groups and not keys:
        groups[()] = []
    out: list[tuple[Row, Row]] = []
    for members in groups.values():
        first = members[0] if members else {}
        out.append(({item.alias: ev.value(item.expr, first, members) for item in clause.items}, first))
    return out


def _unwind(clause: Clause, rows: list[Row], ev: Evaluator) -> list[Row]:
    return [{**row, clause.alias: v} for row in rows for v in (ev.value(clause.expr, row) or [])]


def _pattern_vars(path: Path) -> list[str]:
    return [v for v in (*(n.var for n in path.nodes), *(r.var for r in path.rels)) if v]
