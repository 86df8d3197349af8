"""Institutions of law an article belongs to that apply only where the person's question speaks of them.

A security interest (担保物权, 民法典 物权编 第四分编, articles 386-457) exists only where one was
created (387: 为保障实现其债权，需要担保的……设立担保物权): offered to a tenant whose deposit (押金) is
kept, 394's "如果……将该财产抵押给债权人" answers another person's question. The reranker reads 押金 near 抵押
and ranked 394 first for that tenant; the law's structure says it applies to no one who names no security.
Likewise a licence (行政许可法 2: 根据……申请……准予其从事特定活动) is granted on an application: its hearing
articles (46-48) answered a person facing a fine, whose hearing the 行政处罚法 grants. The liability for a motor
vehicle's traffic accident (民法典 1208-1217, 1208: 机动车发生交通事故造成损害的) needs an accident: 1215's stolen
vehicle 发生交通事故 answered the owner of a stolen e-bike asking whether the property manager pays. An owner's
rights in a building (民法典 271-287, 271: 业主对建筑物内的住宅……专有部分享有所有权) need a building: 286's complaint
to the authorities answered a person fined by the police. Divorce (民法典 1076-1092, 1076: 夫妻双方自愿离婚的) needs
one: 1085's child support after a divorce answered parents asked to pay for what their child damaged. Damage by
a building or an object (民法典 1252-1258, 1252: 建筑物、构筑物或者其他设施倒塌、塌陷造成他人损害的) needs the thing
that fell, was piled or dug: 1255's 堆放物……滑落 answered a shopper who slipped on a wet floor.
The table (``institutions.json``, read by :mod:`tools.law.tables`) is data, each entry with its law's words and two
example questions, checked at import.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tools.law.articles import law_of
from tools.law.tables import Entry, read_table
from tools.law.wording import mentions

TABLE = Path(__file__).with_name("institutions.json")


@dataclass(frozen=True)
class Institution:
    """Articles ``first``-``last`` of ``law``, which a question speaks of in one of ``words``."""

    name: str
    law: str
    first: int
    last: int
    words: tuple[str, ...]
    why_article: str
    why: str
    speaks: str
    """A question that speaks of the institution."""
    silent: str
    """A question that does not, though a search ranks the institution's articles for it."""

    def holds(self, article_id: str) -> bool:
        number = article_id.partition(":")[2].split("-")[0]
        return law_of(article_id) == self.law and number.isdigit() and self.first <= int(number) <= self.last

    def spoken_of(self, question: str) -> bool:
        return mentions(self.words, question)


def _institution(entry: Entry) -> Institution:
    return Institution(
        entry["name"], entry["law"], int(entry["first"]), int(entry["last"]), entry["words"],
        entry["why_article"], entry["why"], entry["speaks"], entry["silent"],
    )  # fmt: skip


@cache
def institutions() -> tuple[Institution, ...]:
    """The table's entries, each checked against its own examples (``speaks`` speaks of it, ``silent`` does not)."""
    return read_table(TABLE).build(_institution, Institution.spoken_of)


def unspoken(article_id: str, question: str) -> Institution | None:
    """The institution ``article_id`` belongs to that ``question`` does not speak of, if any."""
    return next((i for i in institutions() if i.holds(article_id) and not i.spoken_of(question)), None)
