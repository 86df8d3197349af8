"""Loader for the State Council's administrative regulations (行政法规) in LawRefBook markdown: ``# title``, a
header, ``<!-- INFO END -->``, then ``## 第一章 …`` / ``### 第一节 …`` headings and ``第X条 …`` articles whose
further paragraphs follow on lines of their own.

A regulation is a statute like a law (工伤保险条例:14 is cited as 《工伤保险条例》第十四条), so its articles go
where the laws' go. Only the version in force is offered: of a title's dated versions (``title(YYYY-MM-DD).md``)
the latest whose ``index.json`` entry is not marked expired; a title every version of which expired is left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from tools.corpus.laws_db import LawInfo
from tools.errors import CorpusError
from tools.law.articles import ARTICLE_REF, Article, parse_article_label, short_law_name
from tools.text import read_utf8

_ARTICLE_START_RE = re.compile(rf"^({ARTICLE_REF})[\s　]*")
_DATE_RE = re.compile(r"\((\d{4}-\d{2}-\d{2})\)$")
DEPARTMENT = "国务院"
"""Who issues an administrative regulation (立法法 art. 72)."""


@dataclass(frozen=True)
class Regulations:
    """The regulations in force of a directory, with what was left out and why."""

    laws: list[tuple[LawInfo, list[Article]]]
    expired: list[str]
    """Titles every version of which is marked expired."""
    older: int
    """Dated versions left out for a later one of the same title."""


def _read(path: Path) -> tuple[str, list[str]]:
    """(title, body lines after the header) of a regulation file."""
    lines = [line.strip() for line in read_utf8(path, "the regulation", CorpusError).splitlines()]
    title = next((line[2:].strip() for line in lines if line.startswith("# ")), "")
    if not title:
        raise CorpusError(f"{path}: not a LawRefBook regulation (no '# title' line)")
    body = lines[lines.index("<!-- INFO END -->") + 1 :] if "<!-- INFO END -->" in lines else lines[1:]
    return title, [line for line in body if line and not line.startswith("<!--")]


def _sections(body: list[str]) -> list[tuple[str, str, list[str]]]:
    """(label, chapter and section, paragraphs) of each 第X条 in order."""
    chapter, section = "", ""
    found: list[tuple[str, str, list[str]]] = []
    for line in body:
        if line.startswith("## "):
            chapter, section = line[3:].strip(), ""
        elif line.startswith("### "):
            section = line[4:].strip()
        elif m := _ARTICLE_START_RE.match(line):
            found.append((m.group(1), " ".join(p for p in (chapter, section) if p), [line[m.end() :].strip()]))
        elif found:
            found[-1][2].append(line)
    return found


def parse_regulation(path: Path) -> tuple[LawInfo, list[Article]]:
    """One regulation file's articles (chapter and section kept, the label out of the text, paragraphs joined by
    a line break as the laws' are; a regulation without 第X条 is one 全文 article); a file without a ``# title``
    line or without text is a CorpusError."""
    title, body = _read(path)
    short = short_law_name(title)
    articles: dict[str, Article] = {}
    for label, where, paragraphs in _sections(body):
        number = parse_article_label(label)
        key = f"{short}:{number.key}"
        # The first of a number is the regulation's own; a later one quotes another text (a 修改决定's).
        text = "\n".join(paragraphs)
        articles.setdefault(key, Article(key, short, title, number.number, number.suffix, label, where, text))
    if not articles:
        # Numbered 一、二、 instead of 第X条 (21 older regulations): one text, as laws.db keeps its single-text acts.
        text = "\n".join(line for line in body if not line.startswith("#"))
        if not text:
            raise CorpusError(f"{path}: the regulation has no text")
        articles[f"{short}:全文"] = Article(f"{short}:全文", short, title, 0, "", "全文", "", text)
    info = LawInfo(f"regulation:{path.stem}", title, short, DEPARTMENT, len(articles))
    return info, list(articles.values())


def _dated(path: Path) -> str:
    """The version date of a regulation file (``title(YYYY-MM-DD).md``; empty when it has none)."""
    return m.group(1) if (m := _DATE_RE.search(path.stem)) else ""


def load_regulations(directory: Path, taken: Collection[str] = ()) -> Regulations:
    """The regulations in force under ``directory`` (the folder holding ``index.json`` and ``lawrefbook/``, or the
    markdown folder itself); ``taken``: short names a law already holds (户口登记条例 is in laws.db), left to it."""
    root = directory / "lawrefbook" if (directory / "lawrefbook").is_dir() else directory
    if not root.is_dir():
        raise CorpusError(f"regulations directory not found: {directory}")
    # The index sits beside the markdown folder, whichever of the two was named.
    index_path = next((p for p in (directory / "index.json", root.parent / "index.json") if p.is_file()), None)
    expired_files: set[str] = set()
    if index_path is not None:
        try:
            expired_files = {e["file"] for e in json.loads(index_path.read_text(encoding="utf-8")) if e["expired"]}
        except (ValueError, KeyError, TypeError) as exc:
            raise CorpusError(f"{index_path}: not a regulations index ({exc})") from exc
    files = sorted(p for p in root.glob("*.md") if not p.name.startswith("_"))
    latest: dict[str, Path] = {}
    expired: set[str] = set()
    older = 0
    for path in sorted(files, key=_dated):
        title = _DATE_RE.sub("", path.stem)
        if path.name in expired_files:
            expired.add(title)
            continue
        older += title in latest
        latest[title] = path
    laws = [parse_regulation(path) for title, path in sorted(latest.items()) if short_law_name(title) not in taken]
    return Regulations(laws, sorted(expired - latest.keys()), older)
