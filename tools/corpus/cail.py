"""Loader for CAIL2018-format criminal cases (JSONL: fact, articles, charges, term_months, …)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from tools.corpus.jsonl import read_jsonl
from tools.errors import CorpusError
from tools.law.articles import make_article_id

_REQUIRED = ("fact", "articles", "charges")


@dataclass(frozen=True)
class Case:
    """One judged case; ``source`` names the file it came from (for removal by source)."""

    id: str
    source: str
    fact: str
    articles: tuple[str, ...]
    charges: tuple[str, ...]
    term_months: int
    life_imprisonment: bool
    death_penalty: bool
    fine: int

    @property
    def content_hash(self) -> str:
        payload = json.dumps(
            [
                self.fact,
                self.articles,
                self.charges,
                self.term_months,
                self.life_imprisonment,
                self.death_penalty,
                self.fine,
            ],
            ensure_ascii=False,
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def load_cases(path: Path) -> list[Case]:
    """Cases of a CAIL JSONL file; a malformed line is a CorpusError naming file and line."""
    if not path.is_file():
        raise CorpusError(f"cases file not found: {path}")
    source = path.stem
    cases: list[Case] = []
    seen: set[str] = set()
    for number, row in read_jsonl(path, _REQUIRED, "a case"):
        case_id = str(row.get("id") or f"{source}-{number}")
        if case_id in seen:
            raise CorpusError(f"{path}:{number}: duplicate case id {case_id!r}")
        seen.add(case_id)
        try:
            cases.append(
                Case(
                    id=case_id,
                    source=source,
                    fact=str(row["fact"]),
                    articles=tuple(make_article_id("刑法", int(n)) for n in row["articles"]),
                    charges=tuple(str(c) for c in row["charges"]),
                    term_months=int(row.get("term_months") or 0),
                    life_imprisonment=bool(row.get("life_imprisonment")),
                    death_penalty=bool(row.get("death_penalty")),
                    fine=int(row.get("fine") or 0),
                )
            )
        except (TypeError, ValueError) as exc:
            raise CorpusError(f"{path}:{number}: malformed case: {exc}") from exc
    if not cases:
        raise CorpusError(f"{path} holds no cases")
    return cases
