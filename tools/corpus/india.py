"""The India pack's corpus (../shared/data/en/india): six codes as statute articles with verbatim text, and
the IPC offence table as structured metadata (offence, punishment, cognizable, bailable, court)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.corpus.laws_db import LawInfo
from tools.errors import CorpusError, InputError
from tools.law.articles import Article


@dataclass(frozen=True)
class Act:
    """How one code's JSON file is laid out."""

    short: str
    full_name: str
    file: str
    number_key: str
    title_key: str
    text_key: str
    unit: str
    """``Section`` or ``Article``: the label word."""


# fmt: off
ACTS = (
    Act("IPC", "Indian Penal Code, 1860", "ipc.json", "Section", "section_title", "section_desc", "Section"),
    Act("CrPC", "Code of Criminal Procedure, 1973", "crpc.json", "section", "section_title", "section_desc", "Section"),
    Act("IEA", "Indian Evidence Act, 1872", "iea.json", "section", "section_title", "section_desc", "Section"),
    Act("CPC", "Code of Civil Procedure, 1908", "cpc.json", "section", "title", "description", "Section"),
    Act("IDA", "Indian Divorce Act, 1869", "ida.json", "section", "title", "description", "Section"),
    Act("Constitution", "Constitution of India", "constitution_of_india.json", "article", "title", "description", "Article"),  # noqa: E501
)
# fmt: on
OFFENCE_TABLE = "ipc_offence_table.json"
_NUMBER_RE = re.compile(r"^(\d+)([A-Z]{0,2})\.?$")
_SECTION_URL_RE = re.compile(r"section-(\d+[A-Za-z]{0,2})$")


def _read(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError(f"India pack file not found: {path} (pass --pack-dir DIR)")
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(rows, list):
        raise CorpusError(f"{path}: expected a JSON list of sections")
    return rows


def load_act(act: Act, directory: Path) -> tuple[LawInfo, list[Article]]:
    """One code's sections (or articles) with verbatim text; empty (omitted) sections are left out."""
    path = directory / act.file
    articles: list[Article] = []
    for index, row in enumerate(_read(path)):
        # Numbers come as 378, "120A", "21A." or "239 A A": spaces and the trailing dot are noise.
        raw = re.sub(r"\s+", "", str(row.get(act.number_key, ""))).upper()
        m = _NUMBER_RE.match(raw)
        if not m:
            raise CorpusError(f"{path}: entry {index} has no usable {act.number_key!r} ({raw!r})")
        text = str(row.get(act.text_key) or "").strip()
        if not text:
            continue
        number, suffix = int(m.group(1)), m.group(2)
        articles.append(
            Article(
                id=f"{act.short}:{number}{suffix}",
                law=act.short,
                law_full=act.full_name,
                number=number,
                suffix=suffix,
                # Article 0 of the Constitution is its Preamble.
                label=f"{act.unit} {number}{suffix}" if number else str(row.get(act.title_key) or act.unit),
                chapter=str(row.get(act.title_key) or "").strip(),
                text=text,
            )
        )
    info = LawInfo(f"india:{act.short}", act.full_name, act.short, "India", len(articles))
    return info, articles


def load_acts(directory: Path) -> list[tuple[LawInfo, list[Article]]]:
    return [load_act(act, directory) for act in ACTS]


@dataclass(frozen=True)
class Offence:
    """One row of the IPC offence table, keyed by the section that defines the offence."""

    article_id: str
    offence: str
    punishment: str
    cognizable: bool
    bailable: bool
    court: str


def load_offences(directory: Path) -> list[Offence]:
    path = directory / OFFENCE_TABLE
    offences = []
    for index, row in enumerate(_read(path)):
        m = _SECTION_URL_RE.search(str(row.get("URL", "")))
        if not m:
            raise CorpusError(f"{path}: entry {index} has no section number in its URL")
        offences.append(
            Offence(
                article_id=f"IPC:{m.group(1).upper()}",
                offence=str(row.get("Offense", "")).strip(),
                punishment=str(row.get("Punishment", "")).strip(),
                cognizable=str(row.get("Cognizable", "")).strip().lower() == "cognizable",
                bailable=str(row.get("Bailable", "")).strip().lower() == "bailable",
                court=str(row.get("Court", "")).strip(),
            )
        )
    return offences
