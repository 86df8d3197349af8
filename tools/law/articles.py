"""Statute articles as data: stable ids, Chinese numerals, the Article record and citation parsing.

The model may only name ids; :mod:`tools.kb.statutes` turns them into stored text.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from tools.law.english_citations import prose_citations

_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
CRIMINAL_LAW = "刑法"
CRIMINAL_LAW_LAST_ARTICLE = 452
"""The Criminal Law's last article number (附则 第四百五十二条); a case citing a higher one is malformed."""
"""Short name of the Criminal Law: charges, CAIL/LawBench article numbers and the judge all refer to it."""

CN_NUMERAL = "零〇一二两三四五六七八九十百千万"
"""Characters of Chinese numerals as article numbers use them."""
ARTICLE_REF = rf"第([{CN_NUMERAL}\d]+)条(?:之([{CN_NUMERAL}\d]+))?"
"""第X条 with an optional 之Y suffix; groups: number, suffix."""
OFFICIAL_PREFIX = "中华人民共和国"


def cn_to_int(text: str) -> int:
    """Convert a Chinese (or Arabic) numeral such as 一百三十三 or 133 to an int."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _DIGITS and ch not in _UNITS for ch in text):
        raise ValueError(f"not a Chinese numeral: {text!r}")
    total, section, digit = 0, 0, 0
    for ch in text:
        if ch in _DIGITS:
            digit = _DIGITS[ch]
        elif ch == "万":
            total += (section + digit) * 10000
            section, digit = 0, 0
        else:
            section += (digit or 1) * _UNITS[ch]
            digit = 0
    return total + section + digit


def short_law_name(name: str) -> str:
    """The law name used in ids: the official prefix 中华人民共和国 is dropped (刑法, 民法典), also from a law an
    interpretation's title names (最高人民法院关于适用〈中华人民共和国民法典〉… is 最高人民法院关于适用《民法典》…)."""
    name = name.strip().strip("《》").replace("〈", "《").replace("〉", "》").replace(f"《{OFFICIAL_PREFIX}", "《")
    return name[len(OFFICIAL_PREFIX) :] if name.startswith(OFFICIAL_PREFIX) else name


def make_article_id(law: str, number: int, suffix: int = 0) -> str:
    """Stable id of an article: ``刑法:264``, ``刑法:133-1`` (第一百三十三条之一)."""
    return f"{short_law_name(law)}:{number}" + (f"-{suffix}" if suffix else "")


def law_of(article_id: str) -> str:
    """The law of an article id: ``刑法`` for ``刑法:133-1``."""
    return article_id.partition(":")[0]


_LABEL_RE = re.compile(rf"^{ARTICLE_REF}$")
_ITEM_RE = re.compile(rf"^条目([{CN_NUMERAL}\d]+)$")


NAMED_REF_RE = re.compile(rf"(?:《([^》]{{1,40}})》|([\u4e00-\u9fff]{{1,20}}(?:法典|法|条例)))?\s*{ARTICLE_REF}")
"""An article reference with the law it names, if any (《刑法》第二百六十四条, 刑法第264条, 民法典第577条,
工伤保险条例第十四条, 第264条); groups: the bracketed law, the bare law, then ARTICLE_REF's number and suffix. A bare
law name needs no second character before 法 (刑法, 宪法) and may end in 法典 or 条例."""


def without_references(text: str) -> str:
    """``text`` with its article references (and the laws they name) removed: the words a search reads, the
    references going to the exact source alone."""
    return NAMED_REF_RE.sub("", text)


def referenced_numbers(text: str) -> set[str]:
    """The article numbers ``text`` refers to, whatever law it names or none (第一百二十条 and [合同法:120] both give
    "120"; 之一 gives "133-1"): what a model-written element must share with the user's words to cite an article."""
    numbers = {key for _, _, key in (a.partition(":") for a in parse_citations(text))}
    for m in NAMED_REF_RE.finditer(text):
        try:
            number, suffix = cn_to_int(m.group(3)), cn_to_int(m.group(4)) if m.group(4) else 0
        except ValueError:
            continue
        numbers.add(f"{number}-{suffix}" if suffix else str(number))
    return numbers


def article_ids_in(text: str, pattern: re.Pattern[str], law: str) -> tuple[str, ...]:
    """Ids of ``law``'s articles for every match of ``pattern``, whose last two groups are ARTICLE_REF's."""
    ids = []
    for m in pattern.finditer(text):
        number, suffix = m.groups()[-2:]
        ids.append(make_article_id(law, cn_to_int(number), cn_to_int(suffix) if suffix else 0))
    return tuple(dict.fromkeys(ids))


@dataclass(frozen=True)
class ArticleNumber:
    """The parsed number of an article label; ``key`` is the part of the id after the colon."""

    number: int
    suffix: str
    key: str


def parse_article_label(label: str) -> ArticleNumber:
    """Parse labels found in laws.db: 第一百三十三条之一, 条目三 (decisions), 全文 (single-text acts)."""
    label = label.strip()
    if m := _LABEL_RE.match(label):
        number = cn_to_int(m.group(1))
        suffix_n = cn_to_int(m.group(2)) if m.group(2) else 0
        return ArticleNumber(
            number,
            f"之{m.group(2)}" if m.group(2) else "",
            f"{number}-{suffix_n}" if suffix_n else str(number),
        )
    if m := _ITEM_RE.match(label):
        number = cn_to_int(m.group(1))
        return ArticleNumber(number, "", f"条目{number}")
    if label == "全文":
        return ArticleNumber(0, "", "全文")
    raise ValueError(f"unrecognised article label: {label!r}")


@dataclass(frozen=True)
class Article:
    """One statute article as stored in the knowledge graph and the ``statutes`` collection."""

    id: str
    law: str
    law_full: str
    number: int
    suffix: str
    label: str
    chapter: str
    text: str

    @property
    def content_hash(self) -> str:
        """Changes whenever anything stored for the article changes; drives idempotent ingestion."""
        payload = "\x1f".join((self.id, self.law_full, self.label, self.chapter, self.text))
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]

    @property
    def heading(self) -> str:
        """Human citation form: 《中华人民共和国刑法》第一百三十三条之一, or Indian Penal Code, 1860, Section 378."""
        return f"{self.law_full}, {self.label}" if self.label[:1].isascii() else f"《{self.law_full}》{self.label}"


# Explicit ids as the prompts ask the model to write them, in brackets: [刑法:133-1], 【刑法:264】.
# English pack ids carry letter suffixes: [IPC:120A].
# An interpretation's provision is a law of its title, which may name a law in brackets of its own:
# [最高人民法院关于适用《民法典》有关担保制度的解释:68].
_LAW_IN_ID = r"(?:[^\[\]【】:：\s《》]|《[^\[\]【】:：\s《》]{1,30}》){1,60}?"
_ID_RE = re.compile(rf"[\[【]\s*《?({_LAW_IN_ID})》?\s*[:：]\s*(\d+(?:-\d+|[A-Z]{{1,2}})?|条目\d+|全文)\s*[\]】]")
# What a bracketed id looks like from outside (a law, a colon, then a number), whatever follows the number.
_ID_LIKE_RE = re.compile(rf"[\[【]\s*《?{_LAW_IN_ID}》?\s*[:：]\s*\d[^\[\]【】\n]{{0,60}}[\]】]")
# Ids of Latin-named codes written without brackets, as a small model lists them ("Citations: IPC:382").
_BARE_ID_RE = re.compile(r"(?<![\w\[【])([A-Z][A-Za-z]{1,15})\s*:\s*(\d+[A-Z]{0,2})\b")
# Citations in prose: 《中华人民共和国刑法》第一百三十三条之一, 《刑法》第264条.
# An interpretation's title names a law in brackets of its own:
# 《最高人民法院关于适用《民法典》有关担保制度的解释》第一条.
_PROSE_RE = re.compile(rf"《((?:[^《》]|《[^《》]{{1,30}}》){{1,80}})》\s*{ARTICLE_REF}")


def prose_citation_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, article id) of every 《law》第X条 citation in ``text``."""
    spans = []
    for m in _PROSE_RE.finditer(text):
        suffix = cn_to_int(m.group(3)) if m.group(3) else 0
        spans.append((m.start(), m.end(), make_article_id(m.group(1), cn_to_int(m.group(2)), suffix)))
    return spans


def malformed_citations(text: str) -> list[str]:
    """Bracketed spans that look like an id but are not one (``[刑法:264' OR 1=1]``), as written: an answer
    must not keep them, and the user is told they were removed."""
    return [m.group() for m in _ID_LIKE_RE.finditer(text) if not _ID_RE.fullmatch(m.group())]


def parse_citations(text: str) -> list[str]:
    """Article ids cited in ``text``, as explicit ids (bracketed, or bare for Latin-named codes: IPC:379),
    《law》第X条 prose or English prose ("Section 379 of the Indian Penal Code"), in order, without repeats."""
    found: list[tuple[int, str]] = []
    for m in _ID_RE.finditer(text):
        found.append((m.start(), f"{short_law_name(m.group(1))}:{m.group(2)}"))
    for m in _BARE_ID_RE.finditer(text):
        found.append((m.start(), f"{m.group(1)}:{m.group(2)}"))
    found += [(start, article_id) for start, _, article_id in prose_citation_spans(text)]
    if text.isascii() or "Section" in text or "Article" in text:
        found += prose_citations(text)
    seen: dict[str, None] = {}
    for _, article_id in sorted(found):
        seen.setdefault(article_id, None)
    return list(seen)
