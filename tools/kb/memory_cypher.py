"""The Cypher the in-memory graph store reads (:mod:`tools.kb.memory_store`): tokens, then clauses whose
patterns and expressions are plain tuples and dataclasses. Anything outside the subset is an InputError
naming where it stopped."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tools.errors import InputError

_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")|(?P<number>\d+(?:\.\d+)?)"
    r"|(?P<param>\$\w+)|(?P<name>[A-Za-z_]\w*)|(?P<op><>|<=|>=|[-<>=()\[\]{}:,.|*+]))"
)
_KEYWORDS = {
    "MATCH", "OPTIONAL", "WHERE", "RETURN", "WITH", "UNWIND", "AS", "MERGE", "CREATE", "SET", "DELETE", "DETACH",
    "DISTINCT", "ORDER", "BY", "DESC", "ASC", "LIMIT", "UNION", "AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE",
    "FALSE", "STARTS", "ENDS", "CONTAINS",
}  # fmt: skip
WRITES = {"MERGE", "CREATE", "SET", "DELETE"}


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


def parse(cypher: str) -> list[list[Clause]]:
    """The clauses of each part of a (possibly UNION-ed) query."""
    return _Parser(cypher).queries()
