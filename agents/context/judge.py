"""Settings of the judge graph (LegalGraphRAG's Researcher, Auditor and Adjudicator, AALawyer's article
prediction). The weights and thresholds fitted on dev data are not settings: they are data files loaded by
the nodes that use them (:mod:`tools.law.charge_model`, :mod:`tools.retrieval.research_weights`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from agents.context.audit import AuditContext
from agents.context.base import setting


@dataclass(kw_only=True)
class JudgeContext(AuditContext):
    """How a case fact is researched, which charges it is convicted of and how the sentence is checked."""

    PROMPTS: ClassVar[tuple[str, ...]] = (
        "system",
        "extract_features",
        "prejudge_case",
        "adjudicate",
        "verify_checklist",
    )

    max_fact_chars: int = setting(20000, "Longest fact description accepted; longer ones are refused.", low=1)
    reduced_fact_chars: int = setting(
        4000,
        "A longer fact is reduced to this many characters (its fact section, then head and tail) and the judgment "
        "says so in fact_reduction.",
        low=1,
    )
    profile: Literal["fast", "thorough"] = setting(
        "fast",
        "Which model calls code may replace: 'fast' sets the judgment by code where the charge scorer's audited "
        "proposal decides it; 'thorough' has the Adjudicator verify and explain every judgment.",
    )
    feature_extractor: Literal["lexical", "llm"] = setting(
        "lexical", "How the fact's four-dimension features are extracted: by word lists or by the model."
    )
    candidates_per_retriever: int = setting(
        20, "Candidates each retriever (BM25, dense, offences) contributes before fusion.", low=1
    )
    strategy_k: int = setting(5, "Cases (or articles) each retrieval strategy contributes.", low=1)
    precedent_k: int = setting(10, "Precedents the lexical (BM25) case search votes with.", low=1)
    case_k: int = setting(5, "Similar cases shown to the Adjudicator.")
    community_level: int = setting(1, "Leiden level used for community expansion (0 coarse, 1 fine).", high=1)
    prejudge: Literal["on", "off", "with_hints"] = setting(
        "on",
        "The model's pre-judgment (charges with confidences and article numbers), which anchors retrieval and is "
        "shown to the Adjudicator: 'off' leaves the model-free strategies alone; 'with_hints' also shows it the "
        "charges of similar precedents.",
    )
    charge_confidence: float = setting(
        0.5, "Pre-judged charges below this confidence are ignored (the best one stays).", high=1
    )
    penalty_companions: bool = setting(
        True,
        "An article that only sets the penalty of an offence another defines (刑法:383 for 382's 贪污) follows "
        "that article in the Researcher's ranking.",
    )
    charge_scoring: bool = setting(
        True,
        "The charge scorer proposes the charges and its audited proposal stands; off, the Adjudicator's own "
        "supported charges are the conviction.",
    )
    scored_charges: int = setting(8, "Candidate charges the scorer keeps, best first, for the Adjudicator.", low=1)
    stated_count: bool = setting(
        True,
        "When the fact's own conclusions name more charges than the scorer chose (以××和××追究, 数罪并罚), add "
        "the next-best candidates up to that count.",
    )
    family_questions: bool = setting(
        True,
        "When the fact does not state the element separating a proposed charge from a neighbouring one "
        "(职务侵占's 单位人员), ask the model one yes/no question; off, the proposal stands.",
    )
    max_charges: int = setting(
        3, "Most charges one judgment convicts of (and the pre-judgment may anchor retrieval on).", low=1, high=10
    )
    audit_keep_best: bool = setting(
        True,
        "When the audit rejects every candidate that defines a charge, keep the best-ranked of them, flagged.",
    )
    anchor_conviction: bool = setting(
        True,
        "When the Adjudicator names no charge an audited article supports, convict of the pre-judged charges "
        "such an article defines.",
    )
    sentencing_guard: bool = setting(
        True,
        "Clamp a term outside what the convicted articles allow at the tier the facts meet (life or death only "
        "where an article allows it); the judgment records the correction in term_check.",
    )
