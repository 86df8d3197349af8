"""The Fact graph: (:Case)-[:CITES]->(:Article), (:Case)-[:CONVICTED_OF]->(:Charge), by source file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from tools.corpus.cail import Case
from tools.kb.charges import ChargeRepository
from tools.kb.port import GraphStore
from tools.law.charge_names import normalise_charge

_UPSERT = """
UNWIND $rows AS row
MERGE (c:Case {id: row.id})
SET c.source = row.source, c.fact = row.fact, c.term_months = row.term_months,
    c.life_imprisonment = row.life_imprisonment, c.death_penalty = row.death_penalty, c.fine = row.fine,
    c.charges = row.charges, c.hash = row.hash
WITH c, row
OPTIONAL MATCH (c)-[old:CITES|CONVICTED_OF]->()
DELETE old
WITH DISTINCT c, row
UNWIND row.articles AS article_id
MATCH (a:Article {id: article_id})
MERGE (c)-[:CITES]->(a)
"""

_LINK_CHARGES = """
UNWIND $rows AS row
MATCH (c:Case {id: row.id})
UNWIND row.charges AS name
MATCH (ch:Charge {name: name})
MERGE (c)-[:CONVICTED_OF]->(ch)
"""


@dataclass
class LabelReport:
    """Charge labels of a case file that are not the KB's own names: judgments name the alternative committed
    and abridge, so CMDL's labels are finer than the charge table's."""

    mapped: dict[str, str] = field(default_factory=dict)
    """Label -> the charge in force it was read as."""
    unmapped: dict[str, int] = field(default_factory=dict)
    """Label -> cases carrying it, for labels that denote no charge (left off those cases), most first."""


_HASHES = "UNWIND $ids AS id MATCH (c:Case {id: id}) RETURN c.id AS id, c.hash AS hash, c.source AS source"
_CHARGES = "UNWIND $ids AS id MATCH (c:Case {id: id}) RETURN c.id AS id, c.charges AS charges"
_SOURCES = "MATCH (c:Case) RETURN c.source AS source, count(c) AS cases"
_DELETE_SOURCE = "MATCH (c:Case) WHERE c.source = $source DETACH DELETE c"


class CaseRepository:
    """Case reads and writes on any :class:`GraphStore`."""

    def __init__(self, store: GraphStore, charges: ChargeRepository) -> None:
        self.store = store
        self.charges = charges
        self._labels: dict[tuple[str, tuple[str, ...]], str | None] = {}
        """(label, cited articles) -> the charge it denotes, for this repository's life: mapping a label may read
        the graph, and upsert, relabel and label_report all map the same labels (CMDL repeats a judgment's labels
        and articles once per defendant)."""

    def upsert(self, cases: Sequence[Case]) -> None:
        """MERGE cases and replace their CITES / CONVICTED_OF edges (labels mapped to the charges in force; a
        label that maps to none is left off the case and named by :meth:`label_report`)."""
        rows = []
        for case in cases:
            row = {**asdict(case), "articles": list(case.articles), "hash": case.content_hash}
            row["charges"] = self._charges(case)
            rows.append(row)
        if rows:
            self.store.query(_UPSERT, {"rows": rows})
            self.store.query(_LINK_CHARGES, {"rows": rows})

    def charge_of(self, label: str, case: Case) -> str | None:
        """The charge a case's label denotes (:meth:`ChargeRepository.map_label`); the charges the case's
        cited articles define are read only for a label that does not name one charge outright."""
        key = (label, case.articles)
        if key not in self._labels:
            found = self.charges.candidates(label)
            self._labels[key] = (
                found[0] if len(found) == 1 else self.charges.map_label(label, self.charges.defined_by(case.articles))
            )
        return self._labels[key]

    def _charges(self, case: Case) -> list[str]:
        """The charges in force ``case``'s labels denote, in order (a label denoting none left out)."""
        return [name for raw in case.charges if (name := self.charge_of(raw, case))]

    def relabel(self, cases: Sequence[Case]) -> int:
        """Rewrite the stored cases among ``cases`` whose charges the labels now map to otherwise (the charge
        rules or the mapping changed since they were stored; their content hash did not); how many."""
        ids = [case.id for case in cases]
        stored = {r["id"]: list(r["charges"] or []) for r in self.store.read(_CHARGES, {"ids": ids})} if ids else {}
        stale = [case for case in cases if case.id in stored and stored[case.id] != self._charges(case)]
        self.upsert(stale)
        return len(stale)

    def label_report(self, cases: Sequence[Case]) -> LabelReport:
        """How the charge labels of ``cases`` map onto the charges in force (every case, stored or not)."""
        report = LabelReport()
        for case in cases:
            for label in case.charges:
                name = self.charge_of(label, case)
                if name is None:
                    report.unmapped[label] = report.unmapped.get(label, 0) + 1
                elif name != normalise_charge(label):
                    report.mapped[label] = name
        report.unmapped = dict(sorted(report.unmapped.items(), key=lambda item: (-item[1], item[0])))
        report.mapped = dict(sorted(report.mapped.items()))
        return report

    def stored(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """id -> (content hash, source) of the given ids already in the graph."""
        rows = self.store.read(_HASHES, {"ids": list(ids)}) if ids else []
        return {r["id"]: (str(r["hash"] or ""), str(r["source"] or "")) for r in rows}

    def sources(self) -> dict[str, int]:
        return {r["source"]: r["cases"] for r in self.store.read(_SOURCES)}

    def delete_source(self, source: str) -> None:
        self.store.query(_DELETE_SOURCE, {"source": source})

    def stored_cases(self) -> list[Case]:
        """Every case the graph holds, as ingested (what a wiped vector store is rebuilt from)."""
        return [
            Case(
                r["id"], r["source"], r["fact"], tuple(r["articles"]), tuple(r["charges"] or ()),
                _months(r["term_months"]), bool(r["life"]), bool(r["death"]), int(r["fine"] or 0),
            )
            for r in self.store.read(_ALL)
        ]  # fmt: skip


_ALL = """
MATCH (c:Case)
OPTIONAL MATCH (c)-[:CITES]->(a:Article)
RETURN c.id AS id, c.source AS source, c.fact AS fact, c.charges AS charges, c.term_months AS term_months,
       c.life_imprisonment AS life, c.death_penalty AS death, c.fine AS fine, collect(a.id) AS articles
ORDER BY id
"""

_GET = """
UNWIND $ids AS case_id
MATCH (c:Case {id: case_id})
OPTIONAL MATCH (c)-[:CITES]->(a:Article)
RETURN c.id AS id, c.fact AS fact, c.charges AS charges, c.term_months AS term_months,
       c.life_imprisonment AS life, c.death_penalty AS death, collect(a.id) AS articles
"""

_JUDGMENTS = """
MATCH (c:Case)-[:CONVICTED_OF]->(ch:Charge)
RETURN ch.name AS name, count(DISTINCT c.fact) AS judgments
"""

_CONVICTIONS = """
UNWIND $charges AS name
MATCH (c:Case)-[:CONVICTED_OF]->(:Charge {name: name})
MATCH (c)-[:CONVICTED_OF]->(h:Charge)
RETURN c.id AS id, h.name AS charge, c.term_months AS term_months,
       c.life_imprisonment AS life, c.death_penalty AS death
"""

_PRECEDENTS = """
UNWIND $charges AS name
MATCH (c:Case)-[:CONVICTED_OF]->(:Charge {name: name})
RETURN c.id AS id
ORDER BY id
LIMIT $limit
"""


@dataclass(frozen=True)
class CaseSummary:
    """A stored case as evidence: outcome and cited articles, with the fact shortened for prompts."""

    id: str
    fact: str
    charges: tuple[str, ...]
    articles: tuple[str, ...]
    term_months: int | None
    """None: the source gave no sentence (a CMDL judgment), so the case sets no term."""
    life_imprisonment: bool
    death_penalty: bool

    @property
    def sentenced(self) -> bool:
        """Whether the case records the sentence it was given."""
        return self.term_months is not None or self.life_imprisonment or self.death_penalty

    @property
    def outcome(self) -> str:
        """罪名 and sentence in one line, as the Adjudicator reads it."""
        if self.death_penalty:
            term = "死刑"
        elif self.life_imprisonment:
            term = "无期徒刑"
        elif self.term_months is None:
            term = "未载明"
        else:
            term = f"有期徒刑{self.term_months}个月" if self.term_months else "免予刑事处罚或非监禁刑"
        return f"罪名：{'、'.join(self.charges) or '未知'}；刑期：{term}"


def _months(stored: object) -> int | None:
    """A stored term: None stays None (no sentence given), not 0 (no imprisonment)."""
    return None if stored is None else int(str(stored))


def get_cases(store: GraphStore, ids: Sequence[str]) -> list[CaseSummary]:
    """The stored cases among ``ids``, in the order given."""
    rows = {r["id"]: r for r in store.read(_GET, {"ids": list(ids)})} if ids else {}
    return [
        CaseSummary(
            id=r["id"],
            fact=str(r["fact"] or ""),
            charges=tuple(r["charges"] or ()),
            articles=tuple(sorted(r["articles"] or ())),
            term_months=_months(r["term_months"]),
            life_imprisonment=bool(r["life"]),
            death_penalty=bool(r["death"]),
        )
        for case_id in ids
        if (r := rows.get(case_id))
    ]


def precedents(store: GraphStore, charges: Sequence[str], limit: int) -> list[str]:
    """Ids of cases convicted of any of ``charges`` (names in the graph), at most ``limit``."""
    return [r["id"] for r in store.read(_PRECEDENTS, {"charges": list(charges), "limit": limit})] if charges else []


def sentenced_convictions(store: GraphStore, charges: Sequence[str]) -> dict[str, frozenset[str]]:
    """Case id -> every charge it was convicted of, for the cases convicted of one of ``charges`` that record
    their sentence (a sentence for two offences is no measure of one: callers compare the whole set)."""
    convicted: dict[str, set[str]] = {}
    for r in store.read(_CONVICTIONS, {"charges": list(charges)}) if charges else []:
        if _months(r["term_months"]) is not None or r["life"] or r["death"]:
            convicted.setdefault(r["id"], set()).add(r["charge"])
    return {i: frozenset(c) for i, c in convicted.items()}


def judgment_counts(store: GraphStore) -> dict[str, int]:
    """Charge name -> the distinct judgments (facts) convicting of it: a judgment stored once per defendant
    counts once."""
    return {r["name"]: int(r["judgments"]) for r in store.read(_JUDGMENTS)}
