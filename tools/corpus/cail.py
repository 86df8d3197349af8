"""Loader for CAIL2018-format criminal cases (JSONL: fact, articles, charges, term_months, …)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from tools.corpus.jsonl import read_jsonl
from tools.errors import CorpusError
from tools.law.articles import CRIMINAL_LAW, CRIMINAL_LAW_LAST_ARTICLE, make_article_id
from tools.text import check_text

_REQUIRED = ("fact", "articles", "charges")


MAX_FACT_CHARS = 100_000
"""Longest case fact stored: court facts run to 40,000 characters (the CAIL sample's longest); a longer line
is refused, naming it (a 3-million-character line kept the embedding busy for minutes)."""


class CaseRecord(BaseModel):
    """One line of a CAIL file as it must be typed: no value is coerced (``"264"`` is not an article list,
    ``"false"`` is not false), so a malformed file is refused instead of stored wrongly."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    id: StrictStr | StrictInt | None = None
    fact: StrictStr = Field(min_length=1, max_length=MAX_FACT_CHARS)
    articles: list[Annotated[StrictInt, Field(ge=1, le=CRIMINAL_LAW_LAST_ARTICLE)]] = Field(min_length=1)
    charges: list[Annotated[StrictStr, Field(min_length=1)]]
    term_months: StrictInt | None = Field(default=None, ge=0)
    """None: the file gives no sentence (CMDL's judgments carry charges only)."""
    life_imprisonment: StrictBool = False
    death_penalty: StrictBool = False
    fine: StrictInt = Field(default=0, ge=0)


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"])
    got = repr(error.get("input"))
    return f"field {field}: {error['msg']} (got {got[:60] + '…' if len(got) > 60 else got})"


@dataclass(frozen=True)
class Case:
    """One judged case; ``source`` names the file it came from (for removal by source)."""

    id: str
    source: str
    fact: str
    articles: tuple[str, ...]
    charges: tuple[str, ...]
    term_months: int | None
    """Months of fixed-term imprisonment (0: none); None when the source gives no sentence."""
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
    """Cases of a CAIL JSONL file, every line validated before any is returned, so nothing of a malformed file
    is written; a malformed line is a CorpusError naming file, line and field."""
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
            record = CaseRecord.model_validate(row)
        except ValidationError as exc:
            raise CorpusError(f"{path}:{number}: malformed case: {_first_error(exc)}") from exc
        check_text(record.fact, f"{path}:{number}: field fact", CorpusError)
        cases.append(
            Case(
                id=case_id,
                source=source,
                fact=record.fact,
                articles=tuple(make_article_id(CRIMINAL_LAW, n) for n in record.articles),
                charges=tuple(record.charges),
                term_months=record.term_months,
                life_imprisonment=record.life_imprisonment,
                death_penalty=record.death_penalty,
                fine=record.fine,
            )
        )
    if not cases:
        raise CorpusError(f"{path} holds no cases")
    return cases
