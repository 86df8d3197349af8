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
        "Which model calls code may replace: 'fast' audits the charge scorer's proposal and sets the judgment by "
        "code where it decides it; 'thorough' also audits the Researcher's best audit_k articles and has the "
        "Adjudicator verify and explain every judgment.",
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
    scored_charges: int = setting(8, "Candidate charges the scorer keeps, best first, for the Adjudicator.", low=1)
    max_charges: int = setting(
        3, "Most charges one judgment convicts of (and the pre-judgment may anchor retrieval on).", low=1, high=10
    )
