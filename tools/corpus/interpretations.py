"""Loader for judicial interpretations in LawRefBook markdown (``# title``, metadata, ``<!-- INFO END -->``,
then ``第X条 …`` articles).

Each interpretation becomes chunks, one per article (the preamble is chunk 序言); an article longer than
the token budget is split at paragraph boundaries. Every chunk records the Criminal Law articles it names
(刑法第二百六十四条, 《中华人民共和国刑法》第一百三十三条之一), which become INTERPRETS edges.

An interpretation in force is also cited like a statute:
《最高人民法院关于审理民间借贷案件适用法律若干问题的规定》第二十五条 is a provision a lawyer's answer names and a Legal
Basis quotes. :func:`provisions` gives its 第X条 as articles whose
law is the interpretation's title (id ``<title>:25``), so they are retrieved, kept and quoted as articles are.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from tools.corpus.laws_db import LawInfo
from tools.errors import CorpusError
from tools.law.articles import ARTICLE_REF, Article, article_ids_in, parse_article_label, short_law_name
from tools.llm.tokens import count_tokens
from tools.text import read_utf8

_ARTICLE_START_RE = re.compile(rf"^{ARTICLE_REF}[\s　]")
_CRIMINAL_REF_RE = re.compile(rf"(?:《中华人民共和国刑法》|《刑法》|刑法){ARTICLE_REF}")
_DATE_RE = re.compile(r"\((\d{4}-\d{2}-\d{2})\)$")
_REPEALS_RE = re.compile(r"((?:《[^》]+》(?:（[^）]*）|\([^)]*\))?[、和及]?)+)[^。；]{0,10}?(?:同时|予以)?废止")
"""A sentence repealing earlier interpretations: 《…的解释》（法释〔2013〕12号）同时废止."""
_TRIAL_RE = re.compile(r"[（(]试行[)）]|\s")
_PART_RE = re.compile(r"（\d+）$")
"""The part number :func:`_split` appends to the label of an article too long for one chunk."""


@dataclass(frozen=True)
class InterpretationChunk:
    """One article (or part of one) of an interpretation."""

    id: str
    label: str
    text: str
    cites: tuple[str, ...]


@dataclass
class Interpretation:
    """A judicial interpretation with its chunks; ``id`` is stable across runs (the file's title)."""

    id: str
    title: str
    date: str
    source: str
    content_hash: str
    chunks: list[InterpretationChunk] = field(default_factory=list)
    repealed_by: str = ""
    """The id of the later interpretation that repealed or replaced this one, or the repealed law it applied
    (《婚姻法》已废止); empty: in force. Set by :func:`mark_superseded` from the whole directory."""

    @property
    def cites(self) -> list[str]:
        return list(dict.fromkeys(c for chunk in self.chunks for c in chunk.cites))


def criminal_law_refs(text: str) -> tuple[str, ...]:
    """Criminal Law article ids named in ``text``."""
    return article_ids_in(text, _CRIMINAL_REF_RE, "刑法")


def _split(label: str, paragraphs: list[str], max_tokens: int) -> list[tuple[str, str]]:
    """(label, text) parts of at most ``max_tokens`` each, cut between paragraphs (a longer paragraph stays whole)."""
    parts: list[tuple[str, str]] = []
    current: list[str] = []
    for paragraph in paragraphs:
        if current and count_tokens("\n".join([*current, paragraph])) > max_tokens:
            parts.append((label, "\n".join(current)))
            current = []
        current.append(paragraph)
    if current:
        parts.append((label, "\n".join(current)))
    if len(parts) > 1:
        parts = [(f"{lab}（{i}）", text) for i, (lab, text) in enumerate(parts, 1)]
    return parts


def parse_interpretation(path: Path, max_tokens: int = 512) -> Interpretation:
    """Parse one LawRefBook markdown file; a file without a ``# title`` line is a CorpusError."""
    raw = read_utf8(path, "the interpretation", CorpusError)
    lines = [line.strip() for line in raw.splitlines()]
    heading = next((line for line in lines if line.startswith("# ")), None)
    if heading is None:
        raise CorpusError(f"{path}: not a LawRefBook interpretation (no '# title' line)")
    stem = path.stem
    date = m.group(1) if (m := _DATE_RE.search(stem)) else ""
    body = lines[lines.index("<!-- INFO END -->") + 1 :] if "<!-- INFO END -->" in lines else lines[1:]
    sections: list[tuple[str, list[str]]] = [("序言", [])]
    for line in body:
        if not line or line.startswith("<!--"):
            continue
        if m := _ARTICLE_START_RE.match(line):
            sections.append((line[: m.end()].strip(), [line]))
        else:
            sections[-1][1].append(line)
    interp = Interpretation(
        id=stem,
        title=heading[2:].strip(),
        date=date,
        source=path.name,
        content_hash=hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16],
    )
    for label, paragraphs in sections:
        if not paragraphs:
            continue
        for part_label, text in _split(label, paragraphs, max_tokens):
            interp.chunks.append(
                InterpretationChunk(
                    id=f"{stem}#{part_label}", label=part_label, text=text, cites=criminal_law_refs(text)
                )
            )
    return interp


def mark_superseded(interpretations: list[Interpretation], laws_in_force: Collection[str] = ()) -> int:
    """Set ``repealed_by`` on every interpretation a later one of the list repeals by title (its closing
    article: 《…》（法释〔…〕）同时废止) or replaces under the same title (a revision, or the final version of
    a （试行） one), or that applies a law no longer in force (``laws_in_force``: the short names of the laws that
    are; 《中华人民共和国婚姻法》's interpretations fell with it, 民法典 第一千二百六十条), and fold the mark into
    ``content_hash`` so a KB ingested before the repeal is rewritten. Returns how many are marked. Titles compare
    without （试行） and spaces; only an earlier date is repealed."""
    by_title: dict[str, list[Interpretation]] = {}
    for interp in interpretations:
        by_title.setdefault(_TRIAL_RE.sub("", interp.title), []).append(interp)
    repealed: dict[str, str] = {}
    for interp in interpretations:
        text = "".join(chunk.text for chunk in interp.chunks)
        named = {
            _TRIAL_RE.sub("", title)
            for m in _REPEALS_RE.finditer(text)
            for title in re.findall(r"《([^》]+)》", m.group(1))
        }
        for title in named | {_TRIAL_RE.sub("", interp.title)}:
            for older in by_title.get(title, []):
                if older.date < interp.date and older.id not in repealed:
                    repealed[older.id] = interp.id
    if laws_in_force:
        for interp in interpretations:
            applied = [short_law_name(law) for law in re.findall(r"《([^》]+)》", interp.title)]
            if gone := [law for law in applied if law.endswith("法") and law not in laws_in_force]:
                repealed.setdefault(interp.id, f"《{gone[0]}》已废止")
    for interp in interpretations:
        interp.repealed_by = repealed.get(interp.id, "")
        interp.content_hash = hashlib.sha256(f"{interp.content_hash}|{interp.repealed_by}".encode()).hexdigest()[:16]
    return len(repealed)


def interpretation_files(directory: Path) -> list[Path]:
    """The markdown interpretations of a directory (its ``_index.md`` excluded), in name order."""
    if not directory.is_dir():
        raise CorpusError(f"interpretations directory not found: {directory}")
    files = sorted(p for p in directory.glob("*.md") if not p.name.startswith("_"))
    if not files:
        raise CorpusError(f"no interpretation markdown files in {directory}")
    return files


def chunk_document(interp: Interpretation, chunk: InterpretationChunk) -> str:
    """What a chunk is embedded and indexed as: the interpretation's title and the article's label give the
    dense model the context (the same text embeds the provision the chunk holds, so its vector is reused)."""
    return f"{interp.title} {chunk.label}\n{chunk.text}"


def issuer(title: str) -> str:
    """Who issued an interpretation, from its title: 最高人民法院、最高人民检察院 for a joint one."""
    return title.partition("关于")[0] or title


def provisions(interp: Interpretation) -> tuple[LawInfo, list[Article], dict[str, str]]:
    """The interpretation's 第X条 as statute articles (law: the title; text without the label, paragraphs joined
    by a line break as the laws' are; a heading line between articles left out), and the text each whole
    article's chunk was embedded as (an article split over chunks is embedded afresh). An interpretation
    without 第X条 (a 批复 numbered 一、二、) has none: it is cited whole, as a passage."""
    short = short_law_name(interp.title)
    parts: dict[str, list[InterpretationChunk]] = {}
    for chunk in interp.chunks:
        if (label := _PART_RE.sub("", chunk.label)) != "序言":
            parts.setdefault(label, []).append(chunk)
    articles: dict[str, Article] = {}
    documents: dict[str, str] = {}
    for label, chunks in parts.items():
        number = parse_article_label(label)
        key = f"{short}:{number.key}"
        if key in articles:  # the first of a number is the interpretation's own; a later one quotes another text
            continue
        lines = "\n".join(c.text for c in chunks).splitlines()
        lines[0] = _ARTICLE_START_RE.sub("", lines[0], count=1).strip()
        text = "\n".join(line for line in lines if line and not line.startswith("#"))
        articles[key] = Article(key, short, interp.title, number.number, number.suffix, label, "", text)
        if len(chunks) == 1:
            documents[key] = chunk_document(interp, chunks[0])
    info = LawInfo(f"interpretation:{interp.id}", interp.title, short, issuer(interp.title), len(articles))
    return info, list(articles.values()), documents
