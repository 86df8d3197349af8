"""Charges in the knowledge graph: names, aliases, and the articles that define them
((:Article)-[:DEFINES]->(:Charge {name, aliases})).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from tools.kb.port import GraphStore
from tools.law.charge_names import abridging, charge_variants, covering_charge, ground_charge, normalise_charge
from tools.law.wording import bigram_share

_UPSERT_CHARGES = """
UNWIND $rows AS row
MERGE (c:Charge {name: row.name})
SET c.aliases = row.aliases
WITH c, row
UNWIND row.articles AS article_id
MATCH (a:Article {id: article_id})
MERGE (a)-[:DEFINES]->(c)
"""

# Charges the rules no longer name (a misparsed name, a repealed charge) stop being defined by any article;
# one that stored cases were convicted of stays as their label, the others go.
_UNDEFINE_RETIRED = """
MATCH (:Article)-[d:DEFINES]->(c:Charge)
WHERE NOT c.name IN $names
DELETE d
"""

_DELETE_UNUSED_RETIRED = """
MATCH (c:Charge)
WHERE NOT c.name IN $names
OPTIONAL MATCH (c)<-[v:CONVICTED_OF]-()
WITH c, count(v) AS convictions
WHERE convictions = 0
DELETE c
"""

_ALL_CHARGES = "MATCH (c:Charge) RETURN c.name AS name, c.aliases AS aliases"
NEAREST_SHARE = 0.5
"""Least share of a name's character pairs the nearest charge must hold: half, so that 故意毁坏公私财物 (4 of 7 in
故意毁坏财物) is read as it and a name sharing a word or two (非法, 财物) is not."""

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

_CHARGES_OF = """
UNWIND $ids AS wanted
MATCH (a:Article {id: wanted})-[:DEFINES]->(c:Charge)
RETURN a.id AS article_id, c.name AS name
"""

_ARTICLES_OF = """
UNWIND $names AS wanted
MATCH (a:Article)-[:DEFINES]->(c:Charge {name: wanted})
RETURN c.name AS charge, a.id AS article_id
ORDER BY charge, article_id
"""

_DEFINING_ALL = """
MATCH (a:Article)-[:DEFINES]->(:Charge)
RETURN DISTINCT a.id AS id, a.hash AS hash
ORDER BY id
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

    def retire_others(self, names: Collection[str]) -> None:
        """Retire every charge but ``names`` (the whole rule set, as written by :meth:`upsert`)."""
        kept = {"names": list(names)}
        self.store.query(_UNDEFINE_RETIRED, kept)
        self.store.query(_DELETE_UNUSED_RETIRED, kept)
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

    def resolve_abridged(self, name: str) -> str | None:
        """:meth:`resolve`, else the one charge whose full name or alias holds ``name``'s characters in order
        (a model names the alternative committed: 骗取贷款罪), or None where none or several do."""
        if found := self.resolve(name):
            return found
        self._names()
        spellings = self._exact or {}
        charges = {spellings[s] for s in abridging(name, spellings)}
        return charges.pop() if len(charges) == 1 else None

    def map_label(self, label: str, within: Collection[str] = ()) -> str | None:
        """The one charge in the graph that a judgment's or a data file's label denotes, or None. Judgments
        name the alternative committed (买卖国家机关证件 for 伪造、变造、买卖国家机关公文、证件、印章), abridge
        (非法持有枪支) and cut names short (帮助信息网络犯); ``within`` (the charges the case's cited articles
        define) settles those first: a label whose characters one of them alone holds is that charge, however
        short (包庇 for 窝藏、包庇). Failing that, among every charge and alias: the one it begins (at least three
        characters), then the one shortest holding all of its characters (at least four)."""
        if found := self.resolve(label, within or None):
            return found
        grounded = ground_charge(label, within)
        if len(grounded) == 1:
            return grounded[0]
        if found := covering_charge(label, within, least=2):
            return found
        self._names()
        spellings = self._exact or {}
        name = normalise_charge(label)
        begun = {charge for spelling, charge in spellings.items() if len(name) >= 3 and spelling.startswith(name)}
        if len(begun) == 1:
            return begun.pop()
        found = covering_charge(label, spellings)
        return spellings[found] if found else None

    def nearest(self, label: str, least: float = NEAREST_SHARE) -> str | None:
        """The one charge whose name (or alias) shares the most of ``label``'s character pairs, at least ``least``
        of them (故意毁坏公私财物 -> 故意毁坏财物), or None: a tie, or too little in common."""
        spellings = self._names()
        shares = sorted(((bigram_share(label, s), spellings[s]) for s in spellings), reverse=True)
        best = [charge for share, charge in shares if share >= least and share == shares[0][0]]
        return best[0] if best and len(set(best)) == 1 else None

    def names(self) -> set[str]:
        """Every charge name in the graph (aliases aside)."""
        return set(self._names().values())

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

    def defining_hashes(self) -> list[tuple[str, str]]:
        """(id, content hash) of every article that defines a charge, by id: what an index built over their
        texts checks it is still current against, without reading the texts."""
        return [(row["id"], str(row["hash"])) for row in self.store.read(_DEFINING_ALL)]

    def defined_by(self, article_ids: Iterable[str]) -> set[str]:
        """Names of the charges that ``article_ids`` define."""
        ids = list(dict.fromkeys(article_ids))
        return {row["name"] for row in self.store.read(_DEFINED_BY, {"ids": ids})} if ids else set()

    def charges_of(self, article_ids: Iterable[str]) -> dict[str, set[str]]:
        """Article id -> names of the charges it defines (an article defining none maps to an empty set), in
        one read."""
        ids = list(dict.fromkeys(article_ids))
        found: dict[str, set[str]] = {i: set() for i in ids}
        for row in self.store.read(_CHARGES_OF, {"ids": ids}) if ids else []:
            found[row["article_id"]].add(row["name"])
        return found

    def has_charges(self) -> bool:
        """Whether the graph holds any charge (read once per repository, with the alias index)."""
        return bool(self._names())

    def count(self) -> int:
        return len(self.store.read(_ALL_CHARGES))
