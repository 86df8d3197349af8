"""Acts the law permits: a fact that tells its act done under a licence, an approval, the right holder's leave, a
patient's consent, a true declaration, a post's rules or an owners' resolution, and nothing beyond it.

The scorer's candidates are every charge, and a licensed logger's 采伐, a tobacconist's 销售香烟 or a headmaster's
考试 share words with 滥伐林木, 非法经营 and 招收学生徇私舞弊. Those offences are the act done without the leave
(未经许可, 违反森林法的规定) or against the rules (徇私舞弊, 滥用职权); a fact that tells the leave and no excess
over it states none of them. The judge then says so (不构成犯罪：事实讲述的行为经……), naming the permission and
its article.

The table is data (``lawful_acts.json``, read by :mod:`tools.law.tables`): each permission's article, its words and
the patterns by which a fact tells it, with an example each way; ``beyond``, the words by which a fact tells an
act beyond or against a permission (超过, 以外, 擅自, 明知, 但 …) or a permission denied (没有……许可证); ``harm``, a
harm to a person, which no permission of these covers. A criminal proceeding's record
(:func:`tools.law.wording.prosecution_record`: 指控, 抓获, 被害人) names a licence as background, never as the act.
Every labelled judgment holds the rule to the bar (``benchmarks/table_check.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tools.law.tables import Entry, read_table
from tools.law.wording import hides_words, normalised, prosecution_record, told_match

TABLE = Path(__file__).with_name("lawful_acts.json")


@dataclass(frozen=True)
class Permission:
    """One kind of leave the law gives for an act, and the words by which a fact tells it."""

    name: str
    article: str
    quote: str
    stated: tuple[str, ...]

    def told_in(self, fact: str) -> str:
        """The words by which ``fact`` tells its act done with this leave, undenied ('' when it does not)."""
        return next((found for pattern in self.stated if (found := told_match(pattern, fact))), "")

    def holds(self, fact: str) -> bool:
        return bool(self.told_in(fact))


def _permission(entry: Entry) -> Permission:
    return Permission(entry["name"], entry["article"], entry["quote"], entry["stated"])


@cache
def _table() -> tuple[tuple[Permission, ...], re.Pattern[str]]:
    """(the permissions, each checked against its examples; the words that bar the rule: beyond and harm)."""
    table = read_table(TABLE)
    permissions = table.build(_permission, Permission.holds)
    barred = re.compile("|".join(f"(?:{p})" for p in (*table.top["beyond"], *table.top["harm"])))
    return permissions, barred


@dataclass(frozen=True)
class Permitted:
    """A fact's act as a permitted one: the permission and the fact's words for it."""

    permission: Permission
    words: str


def permitted_act(fact: str) -> Permitted | None:
    """The permission under which ``fact`` tells its act done, when it tells nothing beyond or against it, no harm to
    a person and is no criminal proceeding's record (None otherwise, or when the fact's words may be hidden:
    :func:`tools.law.wording.hides_words`)."""
    permissions, barred = _table()
    if hides_words(fact) or barred.search(normalised(fact)) or prosecution_record(fact):
        return None
    return next((Permitted(p, words) for p in permissions if (words := p.told_in(fact))), None)
