"""Loader for answered consultations (JSONL ``{id, question, answer}``, the consult eval format): the articles a
lawyer's answer cites after ``法律依据`` are the evidence later questions are matched against."""

from __future__ import annotations

import hashlib
import html
import json
from dataclasses import dataclass
from pathlib import Path

from tools.corpus.jsonl import read_jsonl
from tools.errors import CorpusError
from tools.law.articles import parse_citations
from tools.text import check_text

_REQUIRED = ("id", "question", "answer")
BASIS_MARKER = "法律依据"
"""Where a reference answer's list of cited articles starts (LawBench 3-8, STARD/LeCoQA)."""
MAX_CHARS = 20000
"""Longest question or answer stored: embedding grows with length (a 30k-character text took a minute here)."""


def cited_articles(answer: str) -> list[str]:
    """Article ids an answer cites in its 法律依据 part (the whole answer when it has none)."""
    # Some reference answers were scraped with HTML entities (&lt;…&gt;) left in law names.
    text = html.unescape(answer)
    basis = text.split(BASIS_MARKER, 1)[1] if BASIS_MARKER in text else text
    return parse_citations(basis)


@dataclass(frozen=True)
class Consultation:
    """One answered question; ``source`` names the file it came from (for removal by source)."""

    id: str
    source: str
    question: str
    answer: str
    articles: tuple[str, ...]

    @property
    def reasoning(self) -> str:
        """The answer without its list of cited articles: the lawyer's words, closer to the statutes' than the
        question's, which BM25 matches later questions against."""
        body = html.unescape(self.answer).split(BASIS_MARKER, 1)[0]
        return body.removeprefix("回答:").removeprefix("回答：").strip()

    @property
    def content_hash(self) -> str:
        payload = json.dumps([self.question, self.answer, self.articles], ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def _fields(row: dict[str, object], where: str, max_chars: int) -> dict[str, str]:
    """The required fields of one line as strings (an integer id is accepted), or a CorpusError naming it."""
    values = dict(row)
    if isinstance(values["id"], int) and not isinstance(values["id"], bool):
        values["id"] = str(values["id"])
    for key in _REQUIRED:
        value = values[key]
        if not isinstance(value, str) or not value.strip():
            raise CorpusError(f"{where}: field {key} must be a non-empty string (got {value!r})")
        if len(value) > max_chars:
            raise CorpusError(f"{where}: field {key} has {len(value)} characters; at most {max_chars}")
        check_text(value, f"{where}: field {key}", CorpusError)
    return {key: str(values[key]) for key in _REQUIRED}


def load_consultations(path: Path, max_chars: int = MAX_CHARS) -> tuple[list[Consultation], list[int]]:
    """Consultations of a JSONL file, every line validated before any is returned, so nothing of a malformed
    file is written (a malformed line is a CorpusError naming file and line); and the line numbers of answers
    citing no article the parser reads (STARD cites some SPC provisions as 《…《民法典》…解释》第X条), which
    are left out: they have nothing to vote for."""
    if not path.is_file():
        raise CorpusError(f"consultations file not found: {path}")
    source = path.stem
    found: list[Consultation] = []
    uncited: list[int] = []
    seen: set[str] = set()
    for number, row in read_jsonl(path, _REQUIRED, "a consultation"):
        where = f"{path}:{number}"
        values = _fields(row, where, max_chars)
        item_id = values["id"].strip()
        if item_id in seen:
            raise CorpusError(f"{where}: duplicate consultation id {item_id!r}")
        seen.add(item_id)
        articles = tuple(cited_articles(values["answer"]))
        if not articles:
            uncited.append(number)
            continue
        found.append(Consultation(item_id, source, values["question"].strip(), values["answer"].strip(), articles))
    if not found:
        raise CorpusError(f"{path} holds no consultations citing an article (expected 法律依据: 《law》第X条)")
    return found, uncited
