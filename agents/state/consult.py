"""State schemas of the consult graph: a narrow input, the full working state, and a narrow output."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Any

# pydantic (LangGraph's JSON schemas for Studio and the API) needs this TypedDict before Python 3.12.
from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from agents.state.audit import Verdict
from agents.state.common import CitedAnswer, LegalBasisItem, RunRecord
from tools.law.claims import ClaimCheck


class EvidenceItem(TypedDict):
    """A retrieved statute article, text verbatim from the knowledge graph."""

    article_id: str
    heading: str
    text: str
    score: float
    sources: list[str]
    support: float
    """The basis keeper's probability that this is an article a lawyer would cite for the question."""
    passes: bool
    """Whether ``support`` reaches the keeper's threshold (of the variant the search's sources called for)."""
    signals: dict[str, float]
    """What ``support`` was computed from: each source's reciprocal rank, their agreement, the law share."""
    similar: int
    """How many of the answered consultations nearest the question cite this article (what the answer tells the
    user of how its basis was chosen)."""


class Example(TypedDict):
    """An answered consultation similar to the question, shown to the Draft agent as a worked example."""

    id: str
    question: str
    answer: str
    """The lawyer's reasoning, cut to :data:`agents.law_search.EXAMPLE_CHARS`."""
    articles: list[str]


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
    """What a caller gives the consult graph: a question, or a chat whose last human message is one."""

    question: str = ""
    """The user's legal question in natural language (empty when it comes as a message)."""

    messages: Annotated[list[AnyMessage], add_messages] = field(default_factory=list)
    """The conversation as chat messages (LangGraph Studio's chat view, agent-chat-ui): a last human message is
    the question; each answer is added as an AI message with its Legal Basis."""


@dataclass(kw_only=True)
class ConsultOutput(CitedAnswer, RunRecord):
    """What the consult graph returns."""

    messages: Annotated[list[AnyMessage], add_messages] = field(default_factory=list)
    """The conversation as chat messages, this turn's question and answer last."""

    response: str = ""
    """回答: the answer in prose; citations to ids outside the audited set are removed."""

    ignored_instructions: list[str] = field(default_factory=list)
    """Sentences of the question that addressed the system instead of the law (an instruction, a system prompt, a
    role, a demanded citation or verdict): set aside before anything read the text, never followed."""

    declined: bool = False
    """True when the question was not a legal one: ``response`` says so, and nothing was searched or cited."""

    element_graph: dict[str, Any] = field(default_factory=dict)
    """Legal elements of the question: entities, events, relationships, user_claims, key_facts,
    legal_questions (plus ``errors`` when extraction failed and empty lists were used). In a thread,
    the elements of earlier turns are kept and extended."""

    evidence: list[EvidenceItem] = field(default_factory=list)
    """Articles retrieved for the question (and earlier turns of the thread), newest first."""

    examples: list[Example] = field(default_factory=list)
    """The answered consultations most similar to the question: the Draft agent's worked examples."""

    verdicts: list[Verdict] = field(default_factory=list)
    """The auditor's verdict on every candidate article, pruned ones included with their reasons."""

    decisions: list[ManagerDecision] = field(default_factory=list)
    """The Manager's decision and reason in every round of this turn."""

    conditional_basis: list[LegalBasisItem] = field(default_factory=list)
    """条件适用的法律依据: articles that apply under a condition the question does not settle, text verbatim from the
    knowledge graph: the next best-supported candidates, joined when the keeper keeps fewer than three
    (:mod:`tools.retrieval.conditional`). The Response says when each applies (如果……，则……); it concludes from
    ``legal_basis`` alone."""

    audit_notes: list[str] = field(default_factory=list)
    """What the audit says of the answer that the person asking need not read in the Response: how each basis
    article was chosen and how sure the retrieval is, and that claims no basis article states were removed."""

    claim_checks: list[ClaimCheck] = field(default_factory=list)
    """Every claim of the Response code could check against the Legal Basis (penalty kinds, amounts and
    periods, charge names) and its fate: supported, from_question, rewritten (by the one revision call),
    removed (with its sentence) or added (a penalty the basis article states that the Response left out)."""


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
    """A revision returned the draft unchanged from the same basis (a format-only round, or a law search that kept
    the same articles): the next Manager round would see the same draft and evidence (decoding is deterministic),
    so the loop ends instead of repeating to ``max_rounds``."""

    drafted_from: list[str] = field(default_factory=list)
    """The kept articles the latest draft was written from."""

    audited: dict[str, Verdict] = field(default_factory=dict)
    """This turn's audit verdicts by article, as the checklist read each one: a Manager LawSearch round that keeps
    an article again reuses its verdict instead of asking the model again."""

    history: Annotated[list[Turn], operator.add] = field(default_factory=list)
    """Earlier turns of the thread, oldest first."""
