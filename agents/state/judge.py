"""State schemas of the judge graph: a fact in, charges, articles and term out, all pointing into evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

# pydantic (LangGraph's JSON schemas for Studio and the API) needs this TypedDict before Python 3.12.
from typing_extensions import TypedDict

from agents.state.audit import Verdict
from agents.state.common import RunRecord, merge_reports


class Term(TypedDict):
    """A sentence: months of fixed-term imprisonment, or life, or death."""

    months: int
    life: bool
    death: bool


def no_term() -> Term:
    """The empty sentence (no imprisonment)."""
    return {"months": 0, "life": False, "death": False}


class TermCheck(TypedDict):
    """What the convicted articles allow at the tier the facts meet, and whether the term was moved into it."""

    low: int
    high: int
    """The fixed-term range in months (a mitigated sentence may go below ``low``)."""
    life: bool
    death: bool
    """Whether life imprisonment, or death, may be imposed."""
    articles: list[str]
    """The articles the range was read from."""
    mitigated: bool
    """A mitigating provision or circumstance allows a term below the floor."""
    fine: bool
    """The tier met provides 罚金 (并处, or 并处或者单处): a court that imprisons also fines."""
    corrected: bool
    """The Adjudicator's term lay outside the range and was clamped to the nearest bound."""
    original: Term
    """The Adjudicator's term as it decided it."""


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


class ScoredCharge(TypedDict):
    """A candidate charge with its signals (:data:`tools.law.charge_scores.SIGNALS`) and the charge model's
    probability; ``articles`` are the articles defining it."""

    name: str
    probability: float
    signals: dict[str, float]
    articles: list[str]
    act: int | None
    """The act (index into ``acts``) where the charge scores best; None when the fact is one act."""


class FamilyRecord(TypedDict):
    """A proposed charge checked against its neighbours on the element that separates them."""

    family: str
    charge: str
    decided: str
    """The charge after the check (``charge`` when it held; empty when it was left out with none in its place)."""
    by: str
    """fact (the fact states the element), question (the model answered a yes/no question), default, untold
    (an act offence whose act the fact never tells, left out before the checks), or law (a charge that cannot
    stand beside ``decided`` for one course of conduct: :mod:`tools.law.charge_relations`; ``family`` names the
    rule, ``element`` its articles)."""
    element: str
    quote: str
    """The fact's words that state the element (by fact), empty otherwise."""


class CircumstanceRecord(TypedDict):
    """A sentencing circumstance the fact states, the provision it invokes and how far it moved the term."""

    name: str
    article: str
    """The provision that gives it effect (刑法:67 for 自首); empty for one no article names (谅解)."""
    found: str
    """The clause of the fact it was read from."""
    factor: float
    """What the term (in months, plus one) was multiplied by: fitted on judged cases (circumstance_factors.json)."""


class SetAside(TypedDict):
    """A proposed charge the judgment does not convict, and why."""

    name: str
    probability: float
    reason: str


class NoOffence(TypedDict):
    """Why the fact states no offence of a charge (or of any): the check that decided it and its grounds."""

    charge: str
    """The charge (the best-scored candidate for ``floor``; empty for ``victim``)."""
    article: str
    by: str
    """``threshold`` (the stated amount or level is under the interpretation's floor), ``element`` (the fact does
    not state an element the article needs), ``named`` (a charge no element covers, whose name's object the fact
    never names: :mod:`tools.law.named_objects`), ``untold`` (the best-scored charge's act is never told and nothing
    stands in), ``victim`` (the teller's own account of what was done to them) or ``floor`` (no candidate's
    offence description is stated)."""
    stated: str
    """What the fact states: the amount or level, the victim's words, or the nearest offence's coverage."""
    floor: str
    """What the offence needs."""
    source: str
    """The interpretation and its article that set the floor (empty for ``victim`` and ``floor``)."""
    quote: str
    """Its deciding words."""
    instead: str
    """The provision the conduct falls under instead (empty when none is named)."""
    reason: str
    """The whole reason, as the judgment states it."""


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
class JudgeOutput(RunRecord):
    """What the judge graph returns; every conclusion points into ``evidence``."""

    charges: list[str] = field(default_factory=list)
    """Charges, as named in the knowledge graph where they resolve."""

    articles: list[str] = field(default_factory=list)
    """Applicable article ids, all audited and present in ``evidence``."""

    term: Term = field(default_factory=lambda: no_term())
    """The sentence."""

    reasoning: str = ""
    """A short reasoning citing evidence by [n]; the sentence it names is the judgment's ``term``."""

    term_check: TermCheck | None = None
    """The sentencing guard: the range the convicted articles allow and any correction of the term (None when
    no convicted article sets a penalty code can read, or the guard is off)."""

    evidence: list[JudgeEvidence] = field(default_factory=list)
    """Numbered evidence: audited articles with verbatim KB text, then precedent cases with their outcome."""

    fact_reduction: str = ""
    """How a fact description longer than ``reduced_fact_chars`` was reduced before judging (empty: it was
    judged as given)."""

    ignored_instructions: list[str] = field(default_factory=list)
    """Sentences of the fact description that addressed the system instead of telling the case (an instruction,
    a system prompt, a role, a demanded charge or sentence): set aside before anything read the fact."""

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

    acts: list[str] = field(default_factory=list)
    """The fact's acts when it tells several (each scored on its own words); empty for a single act."""

    scored_charges: list[ScoredCharge] = field(default_factory=list)
    """The candidate charges the scorer kept, with their signals, probability and act: what the conviction
    was decided from."""

    chosen: list[str] = field(default_factory=list)
    """The charges the scorer's fitted policy chose from the scores, before any check of what the fact states."""

    proposed: list[str] = field(default_factory=list)
    """The charges the fact states (``decide_offence``: the chosen, after their acts, neighbours, relations,
    elements and thresholds were checked), before the audit and the Adjudicator."""

    family_checks: list[FamilyRecord] = field(default_factory=list)
    """Each proposed charge that has a neighbouring candidate, checked on their distinguishing element."""

    set_aside: list[SetAside] = field(default_factory=list)
    """Proposed charges the judgment does not convict, each with the reason."""

    no_offence: list[NoOffence] = field(default_factory=list)
    """Charges the fact states no offence of (an amount under its interpretation's floor), or, with nothing
    left to convict, why the fact states no offence at all: the judgment is then 不构成犯罪 (``undecided``)."""

    probation_open: bool = False
    """With a term set by code: art. 72's conditions code can read are met (at most three years, remorse
    stated, no recidivism), so the court may consider 缓刑; the reasoning says so."""

    term_precedents: list[str] = field(default_factory=list)
    """The judgments whose median sentence a term code set started from: those most like the fact convicted of
    exactly its charges (else of one of them); empty when none records a sentence or the model wrote the
    judgment."""

    circumstances: list[CircumstanceRecord] = field(default_factory=list)
    """The sentencing circumstances the fact states (自首, 坦白, 累犯…) that moved a term code set (empty when
    the model wrote the judgment: it read them itself)."""

    anchored: list[str] = field(default_factory=list)
    """Charges taken from the pre-judgment because the Adjudicator named none the evidence supports (empty
    when its own charges stand); each is defined by an audited evidence article."""

    undecided: str = ""
    """Why no sentence was given (empty when the judgment stands on a convicted charge, an article of the
    knowledge base and, with the sentencing guard, a penalty its term was checked against)."""


@dataclass(kw_only=True)
class ResearchOutput(RunRecord):
    """What the research pipeline returns on its own: the candidates a judgment would be decided from."""

    fact: str = ""
    """The fact as researched (reduced when it was too long)."""

    fact_reduction: str = ""
    """How the fact was reduced (empty: researched as given)."""

    ignored_instructions: list[str] = field(default_factory=list)
    """Sentences of the fact description that addressed the system instead of telling the case (an instruction,
    a system prompt, a role, a demanded charge or sentence): set aside before anything read the fact."""

    features: dict[str, list[str]] = field(default_factory=dict)
    """The fact's four-dimension features."""

    prejudged: list[ChargeGuess] = field(default_factory=list)
    """Charges the model pre-judged above the confidence threshold."""

    rankings: Annotated[dict[str, list[str]], merge_reports] = field(default_factory=dict)
    """Article ids each strategy found, best first; ``researcher`` is their fusion."""


@dataclass(kw_only=True)
class JudgeState(JudgeInput, JudgeOutput):
    """Working state of the judge graph."""

    cases: Annotated[dict[str, CaseRef], merge_reports] = field(default_factory=dict)
    """Precedents found by any strategy, by case id."""

    kept_cases: list[str] = field(default_factory=list)
    """Precedents that survive the audit (citing no pruned article), best first."""
