"""Settings of the consult graph (JurisMA's loop: LawSearch, Draft, Manager, audit, ContentCheck)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from agents.context.audit import AuditContext
from agents.context.base import question_limit, setting


@dataclass(kw_only=True)
class ConsultContext(AuditContext):
    """What a consultation reads, how often its draft is reviewed and how its answer is written."""

    PROMPTS: ClassVar[tuple[str, ...]] = ("system", "extract_elements", "draft_answer", "manage_draft", "check_content")

    max_question_chars: int = question_limit()
    profile: Literal["fast", "thorough"] = setting(
        "fast",
        "Which model calls code may replace: 'fast' routes LawSearch by keywords, answers a punishment question "
        "whose every article's penalty code can quote without a draft, and lets ContentCheck rewrite only a draft "
        "citing a pruned article; 'thorough' lets the model route, draft and rewrite every draft.",
    )
    router: Literal["llm", "rules"] = setting(
        "llm",
        "LawSearch's domain router with profile='thorough': the model ('llm', the rules on an unreadable reply) "
        "or keywords ('rules', as profile='fast' always does).",
    )
    top_k: int = setting(5, "Statute articles each law search adds to the evidence.", low=1)
    candidates_per_retriever: int = setting(
        20, "Candidates each retriever (BM25, dense, collections) contributes before fusion.", low=1
    )
    interpretation_k: int = setting(
        5, "Interpretation chunks a law search reads (their cited articles join the fusion)."
    )
    repealed_interpretations: bool = setting(
        False, "Search judicial interpretations that a later one repealed or replaced too."
    )
    case_k: int = setting(5, "Similar cases a law search reads (their cited articles join the fusion).")
    consultation_k: int = setting(
        10,
        "Answered consultations a law search reads by embedding and by BM25 each; the articles their answers cite "
        "are voted on and their laws route statute search (0: none).",
    )
    routed_laws: int = setting(3, "Laws the similar consultations cite that statute search is also run within.")
    max_evidence: int = setting(10, "Most articles kept as evidence across rounds and turns (newest first).", low=1)
    max_rounds: int = setting(5, "Manager rounds at most; 0 skips the Manager.", high=20)
    manager_review: Literal["always", "when_needed"] = setting(
        "when_needed",
        "When the Manager's model reviews a draft: 'when_needed' passes a draft code finds well-formed (回答 and "
        "引用, every citation in the evidence) without a call; 'always' reviews every draft (JurisMA).",
    )
    content_check: bool = setting(True, "Let ContentCheck rewrite the final answer (off: the draft is the answer).")
    claim_rewrite: bool = setting(
        True,
        "One model call rewrites the claims the Legal Basis does not state (penalties, amounts, charges) before "
        "code removes the sentences still making them; off: removed by code alone.",
    )
    quote_provisions: bool = setting(
        True,
        "The Response quotes, from each Legal Basis article, the sentences closest to the question after the "
        "model's conclusion; with no basis kept, from the two nearest unverified articles it names.",
    )
    conditional_basis: bool = setting(
        True,
        "With fewer than three articles kept, candidates the question touches join the Legal Basis as conditional "
        "(over the fitted floor, or with nothing kept among the search's first few), and the Response says when "
        "each applies (如果……，则……).",
    )
    phrase_rule: bool = setting(
        True,
        "One model call restates the conditional answer's opening rule with the question's own parties "
        "(如果房东没有按约定退还押金，则……); the rule's own words stand where the restatement drops its consequence "
        "or adds a number or a denial.",
    )
    next_steps: bool = setting(
        True,
        "The Response ends with the one unstated fact it turns on, the area of law of its Legal Basis and where to "
        "take the matter (the bodies and time limits that area's law names).",
    )
