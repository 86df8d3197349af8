"""Charge names of the Criminal Law from the judicial charge-name rules (LawRefBook markdown).

The base list is the SPP's 1997 opinion on charge names (numbered ``N．名称罪（第X条…）`` entries); the
SPC/SPP supplements (补充规定 一至八) then add charges, abolish old names (``（取消X罪名）``) and rename
(``罪名由“X”修改为“Y”``). Applying them in date order yields the charges in force and the articles that
define each one. Names are normalised (no trailing 罪) so they compare with CAIL/LawBench labels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tools.errors import CorpusError
from tools.law.articles import ARTICLE_REF, CRIMINAL_LAW, article_ids_in
from tools.law.charge_names import charge_variants, normalise_charge
from tools.text import read_utf8

_BASE_GLOB = "*适用刑法分则规定的犯罪的罪名的意见*.md"
_SUPPLEMENT_GLOB = "*确定罪名的补充规定*.md"
_DATE_RE = re.compile(r"\((\d{4}-\d{2}-\d{2})\)")
_ARTICLE_RE = re.compile(ARTICLE_REF)
# A name may hold a bracketed character (偷越国（边）境罪); the article note after it is the last bracket.
_BASE_ENTRY_RE = re.compile(
    r"(?:^|\s|\d．)([^\s．（）\d](?:[^（）\s]|（[^（）\s第]{1,2}）)*?罪)（(第[^）]*?条[^）]*)）"
)
# "第133条之二（《刑法修正案（十一）》第二条）": the note names amendment articles, not Criminal Law ones.
_AMENDMENT_NOTE_RE = re.compile(r"\s*[（(]\s*《.*$")
_OLD_ARTICLE_PREFIX_RE = re.compile(r"^刑法原第[^罪]*?项")
# "（取消投毒罪罪名）", and in the 2002 supplement also "（取消枉法裁判罪）".
_ABOLISH_RE = re.compile(r"[（(]取消([^（）()]+?)(?:罪名)?[）)]")
_REPEAL_RE = re.compile(r"取消(.+?)(?:罪名)?")
_ABOLISH_SPACE_RE = re.compile(r"\s+[（(]取消")
_ENTRY_SPLIT_RE = re.compile(r"；|(?<=[罪）)])\s+|(?<=[^犯]罪)、")
"""Between the new charges of one cell: ；, a space after 罪 or a note, 、 after a charge's 罪 (滥用职权罪、玩忽职守罪;
not 间谍犯罪、恐怖主义犯罪, which is one charge's wording)."""
_RENAME_RE = re.compile(rf"{ARTICLE_REF}[^“]*?罪名由“([^”]+)”修改为“([^”]+)”")


def article_ids(refs: str) -> list[str]:
    """Criminal Law article ids named in ``refs`` (第114条、第115条第1款 → 刑法:114, 刑法:115)."""
    return list(article_ids_in(refs, _ARTICLE_RE, CRIMINAL_LAW))


@dataclass
class ChargeRules:
    """Charges in force, each with the articles that define it."""

    articles: dict[str, list[str]] = field(default_factory=dict)
    """Normalised charge name -> Criminal Law article ids."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Abolished or renamed charge -> the charge that replaced it (older data such as CAIL 2018 uses them)."""
    sources: list[str] = field(default_factory=list)
    """Files applied, in order."""

    def add(self, name: str, ids: list[str]) -> None:
        key = normalise_charge(name)
        if key and ids:
            self.articles[key] = list(dict.fromkeys([*self.articles.get(key, []), *ids]))

    def replace(self, old: str, new: str) -> None:
        """Abolish ``old`` in favour of ``new`` (which the same rule defines)."""
        key, target = normalise_charge(old), normalise_charge(new)
        if key and key != target:
            self.articles.pop(key, None)
            self.aliases[key] = target

    def repeal(self, name: str) -> None:
        """Abolish ``name`` with no charge in its place (the acts fall under others, as 嫖宿幼女 under 强奸)."""
        self.articles.pop(normalise_charge(name), None)

    def resolve(self, name: str) -> str | None:
        """The charge in force that ``name`` denotes: current names, bracketed CAIL forms, single alternatives,
        and abolished or renamed charges (followed to their replacement)."""
        wanted = charge_variants(name)
        full = normalise_charge(name)
        # The name as written first: its single alternatives may be other charges' old names (枉法追诉、裁判 was
        # replaced by 徇私枉法, 枉法裁判 by 民事、行政枉法裁判); a set's order would pick one by hash seed.
        for key in sorted(wanted, key=lambda variant: (variant != full, variant)):
            seen: set[str] = set()
            while key in self.aliases and key not in seen:
                seen.add(key)
                key = self.aliases[key]
            if key in self.articles:
                return key
        return next((key for key in self.articles if wanted & charge_variants(key)), None)


def _read(path: Path) -> str:
    return read_utf8(path, "the interpretation", CorpusError)


def _apply_base(rules: ChargeRules, text: str) -> None:
    for m in _BASE_ENTRY_RE.finditer(text):
        rules.add(m.group(1), article_ids(m.group(2)))


def _apply_supplement(rules: ChargeRules, text: str) -> None:
    ids: list[str] = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[1] or cells[1] == "罪名" or set(cells[1]) <= {"-"}:
            for m in _RENAME_RE.finditer(line):
                rules.add(m.group(4), list(article_ids_in(m.group(0), _ARTICLE_RE, CRIMINAL_LAW))[:1])
                rules.replace(m.group(3), m.group(4))
            continue
        # A row with an empty article cell continues the article of the row above.
        if cells[0]:
            ids = article_ids(_AMENDMENT_NOTE_RE.sub("", cells[0]))
        # A cell holds one or more new charges, each followed by the names it abolishes (徇私枉法罪（取消枉法追诉、
        # 裁判罪） 民事、行政枉法裁判罪（取消枉法裁判罪）); a space inside a name (出售 陆生野生动物罪) is a
        # line wrap left in the file.
        for entry in _ENTRY_SPLIT_RE.split(_ABOLISH_SPACE_RE.sub("（取消", cells[1])):
            name = _ABOLISH_RE.sub("", entry).strip()
            if repealed := _REPEAL_RE.fullmatch(name):  # 取消嫖宿幼女罪罪名: abolished, nothing replaces it
                rules.repeal(repealed.group(1))
                continue
            if not name:
                continue
            rules.add(name, ids)
            for group in _ABOLISH_RE.findall(entry):
                for old in group.split("罪和"):
                    rules.replace(_OLD_ARTICLE_PREFIX_RE.sub("", old.strip()), name)


def load_charge_rules(directory: Path) -> ChargeRules:
    """Charges in force from the charge-name rules in ``directory``; missing rule files are a CorpusError."""
    base = sorted(directory.glob(_BASE_GLOB))
    if not base:
        raise CorpusError(f"no charge-name opinion ({_BASE_GLOB}) in {directory}")
    supplements = sorted(
        directory.glob(_SUPPLEMENT_GLOB), key=lambda p: m.group(1) if (m := _DATE_RE.search(p.name)) else p.name
    )
    rules = ChargeRules()
    _apply_base(rules, _read(base[0]))
    rules.sources.append(base[0].name)
    for path in supplements:
        _apply_supplement(rules, _read(path))
        rules.sources.append(path.name)
    return rules
