"""State schemas of the audit subgraph (shared by consult and judge): candidates in, verdicts out."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Literal

# pydantic (LangGraph's JSON schemas for Studio and the API) needs this TypedDict before Python 3.12.
from typing_extensions import TypedDict

from agents.state.common import RunRecord


class CheckResult(TypedDict):
    """One checklist item verified against the facts."""

    item: str
    holds: bool
    reason: str
    stated: bool
    """False for an item the model said holds that a consultation question does not state: it does not hold,
    and does not count against the article either; an article none of whose items is stated is not kept."""


MEASURE = "measure"
"""A verdict decided by a measure the question states (``Verdict.decided_by``), and the source of an evidence article
added for it (``agents.basis.decided_by_measure``)."""


class Verdict(TypedDict):
    """The auditor's decision on one candidate article."""

    article_id: str
    applicable: bool
    reason: str
    checks: list[CheckResult]
    decided_by: str
    """``rule`` (all items true or all false; mixed items kept under ``audit_mixed="keep"``), ``model``
    (mixed items, the checklist-final call), ``reviewer`` (a human overrode it), ``unverified`` (no
    checklist could be made; kept, flagged), ``retained`` (the judge's best charge-defining candidate, kept
    although every one failed its checklist) or :data:`MEASURE` (a number the question states reaches or falls in
    the range the article's conduct is defined by; code compared it, no checklist was read)."""


@dataclass(kw_only=True)
class AuditInput:
    """What the auditor verifies: candidate articles against the facts."""

    facts: str
    """The facts (question and key facts, or a case description) the checklists are answered against."""

    article_ids: list[str] = field(default_factory=list)
    """Candidate article ids, in the caller's order of preference."""

    facts_kind: Literal["case", "question"] = "case"
    """``case``: a case description, whose silence on an element means the element is not met (judge);
    ``question``: a consultation, where only elements the question contradicts fail, and an article none of
    whose elements it states is not kept (consult)."""


@dataclass(kw_only=True)
class AuditOutput(RunRecord):
    """The auditor's verdicts."""

    verdicts: list[Verdict] = field(default_factory=list)
    """One verdict per candidate article, in the candidates' order, after any human review."""


@dataclass(kw_only=True)
class AuditState(AuditInput, AuditOutput):
    """Working state of the audit subgraph."""

    found: Annotated[list[Verdict], operator.add] = field(default_factory=list)
    """Verdicts as the parallel ``verify_article`` branches add them (in no particular order)."""


@dataclass(kw_only=True)
class ArticleTask:
    """The payload ``Send`` gives one ``verify_article`` branch."""

    facts: str
    """The facts to verify the article's checklist against."""

    article_id: str
    """The candidate article."""

    facts_kind: Literal["case", "question"] = "case"
    """How silence in the facts is read (see AuditInput)."""
