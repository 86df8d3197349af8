"""Checklist files: the checklists a knowledge base holds, and its recorded failures to make one, as JSON
Lines, read back into another knowledge base.

A rebuilt KB then skips the calls that made them, and a lawyer can review or edit the items in between.
Each line names the content hash of the article it was made for, so a checklist is never attached to an
article whose text has changed since. Kept apart from ``tools.kb.checklists``, whose source hash keys the
recorded failures: file handling is not a change to the checks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field, ValidationError, model_validator

from tools.errors import CorpusError
from tools.kb.checklists import Checklist, ChecklistRepository
from tools.kb.statutes import StatuteRepository
from tools.text import read_utf8


@dataclass
class ChecklistImport:
    """What reading a checklist file into the knowledge base did."""

    checklists: int = 0
    """Checklists written (replacing any the article held)."""
    failures: int = 0
    """Recorded failures written."""
    missing: list[str] = field(default_factory=list)
    """Articles the knowledge base does not hold: skipped."""
    changed: list[str] = field(default_factory=list)
    """Articles whose text differs from the one the line was made for: skipped."""


def export_checklists(checklists: ChecklistRepository, statutes: StatuteRepository) -> list[dict[str, object]]:
    """One JSON-ready row per article holding a checklist or a recorded failure, in id order."""
    rows: list[dict[str, object]] = []
    for article in statutes.get_articles(checklists.made()):
        row: dict[str, object] = {"article": article.id, "article_hash": article.content_hash}
        if stored := checklists.get(article.id):
            row |= {"items": list(stored.items), "model": stored.model, "prompt_version": stored.prompt_version}
        elif recorded := checklists.recorded_failure(article.id):
            row |= {"failure": recorded[0], "failure_key": recorded[1]}
        rows.append(row)
    return rows


class ChecklistLine(BaseModel):
    """One line of a checklist file: an article's checklist, or a recorded failure to make one."""

    article: str = Field(min_length=1)
    article_hash: str = Field(min_length=1)
    items: list[Annotated[str, Field(min_length=1)]] | None = Field(default=None, min_length=1)
    model: str = ""
    prompt_version: str = ""
    failure: str | None = None
    failure_key: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> ChecklistLine:
        has_failure = self.failure is not None
        if (self.items is not None) == has_failure or has_failure != (self.failure_key is not None):
            raise ValueError("a line holds either items (with model, prompt_version) or failure and failure_key")
        if self.items is not None and not (self.model and self.prompt_version):
            # Without the prompt version a checklist would count as stale and be made again on first use.
            raise ValueError("a checklist line needs its model and prompt_version")
        return self


def read_checklist_file(path: Path) -> list[ChecklistLine]:
    """Every line of an exported checklist file, validated before anything is written."""
    lines = read_utf8(path, "the checklist file", CorpusError).splitlines()
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(ChecklistLine.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as exc:
            detail = str(exc).splitlines()[0] if isinstance(exc, json.JSONDecodeError) else _first_error(exc)
            raise CorpusError(f"{path}:{number}: not a checklist line: {detail}") from exc
    return rows


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    return f"{'.'.join(str(part) for part in first['loc']) or 'line'}: {first['msg']}"


def import_checklists(
    rows: Sequence[ChecklistLine], checklists: ChecklistRepository, statutes: StatuteRepository
) -> ChecklistImport:
    """Write the rows onto the articles they were made for; rows for absent or changed articles are skipped."""
    found = {a.id: a for a in statutes.get_articles([row.article for row in rows])}
    report = ChecklistImport()
    for row in rows:
        article = found.get(row.article)
        if article is None:
            report.missing.append(row.article)
        elif article.content_hash != row.article_hash:
            report.changed.append(row.article)
        elif row.items is not None:
            checklists.save(Checklist(row.article, tuple(row.items), row.model, row.prompt_version))
            report.checklists += 1
        else:
            # The validator guarantees both are set on a failure line.
            checklists.record_failure(row.article, str(row.failure_key), str(row.failure))
            report.failures += 1
    return report
