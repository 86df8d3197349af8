"""Charges of the Criminal Law in the knowledge graph: normalised names, aliases, and the articles that
define them ((:Article)-[:DEFINES]->(:Charge {name, aliases})).

Names are normalised (no trailing 罪, bracket alternatives spelled out) so labels from CAIL/LawBench,
the charge-name rules and model output compare equal.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence

from tools.kg.port import GraphStore

MAX_CHARGE_CHARS = 32
"""Longest charge name a model may write: the longest in force, 非法收购、运输、加工、出售国家重点保护植物、
国家重点保护植物制品, has 32 characters. Constrained decoding cuts a string at its schema's limit, and with 20
the judge's "虚开增值税专用发票、用于骗取出口退税、抵扣税款发票" (24) became an unknown charge and was dropped."""

_BRACKET_RE = re.compile(r"\[([^\]]+)\]")


def normalise_charge(name: str) -> str:
    """Canonical charge name: no spaces, no trailing 罪, bracket alternatives spelled out in full, and the
    variant character 帐 written 账 (sources disagree: 会计帐簿 / 会计账簿)."""
    name = re.sub(r"\s+", "", name).replace("帐", "账")
    name = _BRACKET_RE.sub(r"\1", name)
    return name[:-1] if name.endswith("罪") and len(name) > 1 else name


def charge_variants(name: str) -> set[str]:
    """Every way a charge may be written: the full name and each single alternative of an enumeration,
    bracketed (``[走私、贩卖、运输、制造]毒品``) or plain (``走私、贩卖、运输、制造毒品``): ``贩卖毒品``."""
    base = re.sub(r"\s+", "", name)
    variants = {normalise_charge(base)}
    match = _BRACKET_RE.search(base)
    if match:
        for alternative in match.group(1).split("、"):
            variants.add(normalise_charge(base[: match.start()] + alternative + base[match.end() :]))
        return variants
    parts = normalise_charge(base).split("、")
    verb_length = len(parts[0])
    # Verb lists of equal length before one shared object (走私、贩卖…制造 + 毒品) are expanded, and one verb
    # before two objects when the second is a two-character word (拐卖 + 妇女、儿童; 强制 + 猥亵、侮辱). Other
    # lists are left alone: where a verb ends cannot be told from lengths (非法批准征用、占用土地 is not
    # 非法批准 + 征用/占用土地, and 组织残疾人、儿童乞讨 has its verb in front and its object behind).
    if len(parts) > 1 and all(len(p) == verb_length for p in parts[:-1]) and len(parts[-1]) > verb_length:
        obj = parts[-1][verb_length:]
        variants.update(verb + obj for verb in [*parts[:-1], parts[-1][:verb_length]])
    elif len(parts) == 2 and len(parts[1]) == 2 < len(parts[0]) - 1:
        verb = parts[0][: -len(parts[1])]
        variants.update({parts[0], verb + parts[1]})
    return variants


GROUNDING_MIN_CHARS = 4
"""Shortest unknown name matched to a charge by its characters alone: shorter ones (伪造, 盗窃罪) say too
little to pick one charge."""


def ground_charge(raw: str, defined: Iterable[str]) -> list[str]:
    """The charges among ``defined`` (those the evidence articles define) that a name the charge table does
    not know stands for. Small models describe rather than name: 虐待家庭成员 or 盗窃公私财物 contain a charge
    (虐待, 盗窃), and 盗窃、掩饰、隐瞒犯罪所得 joins two; those are the charges contained, the longest where one
    contains another (合同诈骗 over 诈骗). Failing that, an abridged name (伪造武装部队证件) stands for the one
    shortest charge whose characters include all of its own (伪造、变造、买卖武装部队公文、证件、印章). Only
    charges an evidence article defines are candidates, so grounding never adds an untraceable charge."""
    name = normalise_charge(raw)
    candidates = sorted(set(defined))
    contained = [c for c in candidates if any(v in name for v in charge_variants(c))]
    if contained:
        return [c for c in contained if not any(c != other and c in other for other in contained)]
    letters = set(name.replace("、", ""))
    if len(letters) < GROUNDING_MIN_CHARS:
        return []
    covering = sorted((c for c in candidates if letters <= set(c)), key=len)
    if len(covering) == 1 or (len(covering) > 1 and len(covering[0]) < len(covering[1])):
        return covering[:1]
    return []


_UPSERT_CHARGES = """
UNWIND $rows AS row
MERGE (c:Charge {name: row.name})
SET c.aliases = row.aliases
WITH c, row
UNWIND row.articles AS article_id
MATCH (a:Article {id: article_id})
MERGE (a)-[:DEFINES]->(c)
"""

_ALL_CHARGES = "MATCH (c:Charge) RETURN c.name AS name, c.aliases AS aliases"

_DEFINING = """
UNWIND $ids AS wanted
MATCH (a:Article {id: wanted})-[:DEFINES]->(:Charge)
RETURN DISTINCT a.id AS article_id
"""

_DEFINED_BY = """
UNWIND $ids AS wanted
MATCH (a:Article {id: wanted})-[:DEFINES]->(c:Charge)
RETURN DISTINCT c.name AS name
"""

_ARTICLES_OF = """
UNWIND $names AS wanted
MATCH (a:Article)-[:DEFINES]->(c:Charge {name: wanted})
RETURN c.name AS charge, a.id AS article_id
ORDER BY charge, article_id
"""


class ChargeRepository:
    """Charge reads and writes on any :class:`GraphStore`."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._index: dict[str, str] | None = None
        self._exact: dict[str, str] | None = None

    def upsert(self, articles: Mapping[str, Sequence[str]], aliases: Mapping[str, str]) -> None:
        """Write charges (normalised name -> article ids) with their abolished/renamed aliases."""
        alias_lists: dict[str, list[str]] = {}
        for old, new in aliases.items():
            target = new
            seen: set[str] = set()
            while target in aliases and target not in seen:
                seen.add(target)
                target = aliases[target]
            alias_lists.setdefault(target, []).append(old)
        rows = [
            {"name": name, "articles": list(ids), "aliases": sorted(alias_lists.get(name, []))}
            for name, ids in articles.items()
        ]
        if rows:
            self.store.query(_UPSERT_CHARGES, {"rows": rows})
        self._index = self._exact = None

    def _names(self) -> dict[str, str]:
        """Every accepted spelling (name, alias, bracket alternative) -> charge name in the graph."""
        if self._index is None:
            index: dict[str, str] = {}
            exact: dict[str, str] = {}
            for row in self.store.read(_ALL_CHARGES):
                for spelling in [row["name"], *(row["aliases"] or [])]:
                    exact[normalise_charge(spelling)] = row["name"]
                    for variant in charge_variants(spelling):
                        index.setdefault(variant, row["name"])
            self._index, self._exact = index, exact
        return self._index

    def named(self, name: str) -> str | None:
        """The charge in the graph whose full name or alias ``name`` is (normalised; no single alternative
        of an enumeration, unlike :meth:`resolve`), or None."""
        self._names()
        return (self._exact or {}).get(normalise_charge(name))

    def candidates(self, name: str) -> list[str]:
        """Every charge in the graph that ``name`` may denote: the one it names, else those its single
        alternatives name (sorted)."""
        if exact := self.named(name):
            return [exact]
        names = self._names()
        return sorted({names[v] for v in charge_variants(name) if v in names})

    def resolve(self, name: str, within: Collection[str] | None = None) -> str | None:
        """The one charge in the graph that ``name`` denotes, or None. A label whose alternatives name several
        charges (CAIL's [组织、强迫、引诱、容留、介绍]卖淫 covers 组织卖淫, 强迫卖淫 and 引诱、容留、介绍卖淫) denotes
        one only where ``within`` (the charges a case's cited articles define, say) leaves one; picking the
        first alternative found made the choice depend on set order, so two builds of one KB differed."""
        found = self.candidates(name)
        if len(found) > 1 and within is not None:
            found = [c for c in found if c in within]
        return found[0] if len(found) == 1 else None

    def articles_for(self, charges: Iterable[str]) -> dict[str, list[str]]:
        """Charge name as given -> ids of the articles defining it (unknown charges map to [])."""
        wanted = {raw: self.resolve(raw) for raw in charges}
        found: dict[str, list[str]] = {}
        resolved = sorted({name for name in wanted.values() if name})
        for row in self.store.read(_ARTICLES_OF, {"names": resolved}) if resolved else []:
            found.setdefault(row["charge"], []).append(row["article_id"])
        return {raw: found.get(name, []) if name else [] for raw, name in wanted.items()}

    def defining(self, article_ids: Iterable[str]) -> set[str]:
        """Those of ``article_ids`` that define a charge."""
        ids = list(dict.fromkeys(article_ids))
        return {row["article_id"] for row in self.store.read(_DEFINING, {"ids": ids})} if ids else set()

    def defined_by(self, article_ids: Iterable[str]) -> set[str]:
        """Names of the charges that ``article_ids`` define."""
        ids = list(dict.fromkeys(article_ids))
        return {row["name"] for row in self.store.read(_DEFINED_BY, {"ids": ids})} if ids else set()

    def has_charges(self) -> bool:
        """Whether the graph holds any charge (read once per repository, with the alias index)."""
        return bool(self._names())

    def count(self) -> int:
        return len(self.store.read(_ALL_CHARGES))
