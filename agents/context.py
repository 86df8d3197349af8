"""Per-run configuration, read by nodes through ``Runtime[Context]`` (and shown as Studio's form)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, get_args, get_origin, get_type_hints

from tools.errors import InputError
from tools.retrieval.source_weights import fitted_source_weights

Role = Literal["draft", "manager", "audit", "judge"]


@dataclass(kw_only=True)
class Context:
    """Knobs a caller may set per run; infrastructure (stores, paths) lives in :mod:`tools.settings`."""

    model: str = field(
        default_factory=lambda: os.environ.get("JURIS_MODEL", "").strip() or "local",
        metadata={"description": "Chat model: 'local' (embedded GGUF), 'fake', or a provider:model spec."},
    )
    draft_model: str = field(
        default="",
        metadata={"description": "Model of the Element, Draft and ContentCheck agents; empty: `model`."},
    )
    manager_model: str = field(
        default="",
        metadata={"description": "Model of the Manager and FormatCheck agents; empty: `model`."},
    )
    audit_model: str = field(
        default="",
        metadata={"description": "Model that writes and verifies checklists; empty: `model`."},
    )
    judge_model: str = field(
        default="",
        metadata={"description": "Model of the Researcher's pre-judgment and the Adjudicator; empty: `model`."},
    )
    top_k: int = field(
        default=5,
        metadata={"description": "Statute articles each law search adds to the evidence."},
    )
    candidates_per_retriever: int = field(
        default=20,
        metadata={"description": "Candidates each retriever (BM25, dense, collections) contributes before fusion."},
    )
    interpretation_k: int = field(
        default=5,
        metadata={"description": "Interpretation chunks a law search reads (their cited articles join the fusion)."},
    )
    case_k: int = field(
        default=5,
        metadata={"description": "Similar cases a law search reads (their cited articles join the fusion)."},
    )
    consultation_k: int = field(
        default=10,
        metadata={
            "description": "Answered consultations a law search reads by embedding and by BM25 each: the "
            "articles their answers cite are voted on, and the laws those belong to route statute search; 0 reads "
            "none (the 'without consultations' ablation)."
        },
    )
    routed_laws: int = field(
        default=3,
        metadata={"description": "Laws the similar consultations cite that statute search is also run within."},
    )
    hidden_consultation_half: Literal["", "tune", "report"] = field(
        default="",
        metadata={
            "description": "Answered consultations of this dev-file half are not read: `eval --half` sets it, so "
            "that a measured question never finds its own answer."
        },
    )
    max_evidence: int = field(
        default=10,
        metadata={"description": "Most articles kept as evidence across rounds and turns (newest first)."},
    )
    max_rounds: int = field(
        default=5,
        metadata={"description": "Manager rounds at most; 0 skips the Manager (the 'without Manager' ablation)."},
    )
    manager_review: Literal["always", "when_needed"] = field(
        default="when_needed",
        metadata={
            "description": "When the Manager's model call reviews a draft: 'when_needed' passes a draft code "
            "finds well-formed (回答 and 引用, every citation in the evidence, at least one) without a call, and "
            "asks the model otherwise; 'always' is JurisMA's review of every draft. On the demo question the "
            "review of a well-formed draft cost 4 calls and 36 s for an answer citing the same article."
        },
    )
    initial_search: bool = field(
        default=True,
        metadata={
            "description": "Search statutes before the first draft. JurisMA drafts from the element graph "
            "alone; small models draft far better with statutes in hand."
        },
    )
    use_elements: bool = field(
        default=True,
        metadata={"description": "Extract the legal element graph (off: the 'without element graph' ablation)."},
    )
    audit: bool = field(
        default=True,
        metadata={"description": "Verify cited articles against their checklists and prune inapplicable ones."},
    )
    human_review: bool = field(
        default=False,
        metadata={
            "description": "Interrupt for a person to accept or override borderline verdicts (mixed checklist "
            "items); needs a checkpointer."
        },
    )
    audit_k: int = field(
        default=5,
        metadata={"description": "Most articles the auditor verifies per answer."},
    )
    audit_mixed: Literal["keep", "model"] = field(
        default="keep",
        metadata={
            "description": "An article whose checklist items disagree: 'keep' it, flagged for review (only a "
            "checklist failing every item prunes), or let the model's checklist-final call decide "
            "(LegalGraphRAG). With the local 1.5B model that call pruned the gold article on ljp_dev's first "
            "3 items: it read alternatives (入户/携带凶器/扒窃) as elements that must all hold."
        },
    )
    audit_reasons: Literal["always", "questions", "never"] = field(
        default="questions",
        metadata={
            "description": "Whether the auditor's model writes a one-sentence reason before each checklist "
            "answer: 'always', 'never', or for consultation 'questions' only. Case facts go without: on "
            "charge_dev's first 30 items the judgment kept its quality (charge accuracy +0.033 [-0.100, "
            "0.167], F1 +0.002, paired against session 19) and took 18 s less (s20-charge30: 189 fewer "
            "generated tokens); consultations keep their reasons until measured."
        },
    )
    audit_keep_best: bool = field(
        default=True,
        metadata={
            "description": "Judge: when the audit rejects every candidate that defines a charge, keep the best-"
            "ranked of them, flagged: a criminal fact is convicted under some such article, and without one the "
            "judgment can only convict of nothing."
        },
    )
    anchor_conviction: bool = field(
        default=True,
        metadata={
            "description": "Judge: when the Adjudicator names no charge an audited evidence article supports, "
            "convict of the pre-judged charges such an article defines. On charge_dev's first 50 items 7 "
            "judgments convicted of nothing (all of them wrong); anchoring answered 6 of them, 1 exactly."
        },
    )
    sentencing_guard: bool = field(
        default=True,
        metadata={
            "description": "Judge: clamp a term outside what the convicted articles allow at the tier the facts "
            "meet (life or death only where an article allows it), and write the reasoning's sentence from the "
            "term; the judgment records the correction in term_check."
        },
    )
    content_check: bool = field(
        default=True,
        metadata={
            "description": "Let ContentCheck rewrite the final answer (off: the draft is the answer; with "
            "profile='fast' only a draft citing a pruned article is rewritten)."
        },
    )
    claim_rewrite: bool = field(
        default=True,
        metadata={
            "description": "Consult: one model call to rewrite the claims the Legal Basis does not state "
            "(penalties, amounts, charges) before code removes the sentences still making them; off: removed "
            "by code alone."
        },
    )
    quote_provisions: bool = field(
        default=True,
        metadata={
            "description": "Consult: the Response quotes, from each Legal Basis article, the sentences closest "
            "to the question (what the article provides, in its own words) after the model's conclusion."
        },
    )
    stated_item_share: float = field(
        default=0.5,
        metadata={
            "description": "Consult audit: a checklist item holds only when this share of its wording's "
            "character pairs occurs in the question (or its key facts); a question about drunk driving does "
            "not state 追逐竞驶, whatever the model answers."
        },
    )
    feature_extractor: str = field(
        default="lexical",
        metadata={"description": "Judge: how the fact's four-dimension features are extracted: lexical or llm."},
    )
    strategy_k: int = field(
        default=5,
        metadata={"description": "Judge: cases (or articles) each retrieval strategy contributes."},
    )
    precedent_k: int = field(
        default=10,
        metadata={
            "description": "Judge: precedents the lexical (BM25) case search votes with; on ljp_dev's first 30 "
            "items 10 reached article recall@5 0.67 against 0.59 for 5."
        },
    )
    community_level: int = field(
        default=1,
        metadata={"description": "Judge: Leiden level used for community expansion (0 coarse, 1 fine)."},
    )
    charge_confidence: float = field(
        default=0.5,
        metadata={"description": "Judge: pre-judged charges below this confidence are ignored (the best one stays)."},
    )
    max_prejudged_charges: int = field(
        default=3,
        metadata={"description": "Judge: most charges the pre-judgment may anchor retrieval on."},
    )
    prejudge: bool = field(
        default=True,
        metadata={
            "description": "Judge: the model's pre-judgment (one call: charges with confidences and article "
            "numbers), which anchors retrieval and is shown to the Adjudicator; off, the Researcher's model-free "
            "strategies alone find the candidates and the Adjudicator decides from the evidence. On stays the "
            "default: off was 8 s faster on charge_dev's first 30 items but LawBench charge F1 fell by 0.151 "
            "[0.014, 0.300] and the Adjudicator named no supported charge on 5 of 30 (s20-charge30-no-prejudge)."
        },
    )
    prejudge_hints: bool = field(
        default=False,
        metadata={
            "description": "Judge: show the pre-judgment the charges of similar precedents. Off: with 608 "
            "precedents of 52 charges it lowered charge-anchored recall@5 on ljp_dev (0.50 -> 0.38, 12 items); "
            "with all 5,070 the local model copied the hints' commonest charges, and the charges it kept held "
            "8 of 16 gold charges instead of 11 (charge_dev's first 11 items)."
        },
    )
    strategy_weights: dict[str, float] = field(
        default_factory=lambda: {
            "charge": 3.0,
            "generative": 1.5,
            "cases": 1.0,
            "case_bm25": 1.0,
            "features": 0.0,
            "community": 0.0,
            "bm25": 1.0,
            "dense": 1.0,
            "kg": 2.0,
            "offence": 1.0,
        },
        metadata={
            "description": "Judge: weight of each strategy's ranking in the Researcher's fusion (RRF). Chosen on "
            "the first half of ljp_dev over 5,070 precedents, no model (held-out half R@5 0.49 -> 0.76). The "
            "feature and community strategies still supply precedents, but their article votes lowered recall "
            "on both halves. The offence descriptions (session 20) at 1: fused R@5 / R@10 0.675 / 0.748 -> "
            "0.707 / 0.790 over ljp_dev; weights refitted on the tuning half (logistic or coordinate ascent) "
            "gained there and lost on the report half."
        },
    )
    penalty_companions: bool = field(
        default=True,
        metadata={
            "description": "Judge: an article that only sets the penalty of an offence another defines (刑法:383 "
            "for 382's 贪污, 386, 390) follows that article in the Researcher's ranking; judgments cite both."
        },
    )
    magnet_threshold: float = field(
        default=0.2,
        metadata={
            "description": "Judge: magnet rate above which the Researcher's fusion demotes an article: the share "
            "of 1,000 CAIL sample cases whose model-free fused top ten held it though they did not cite it "
            "(tools/retrieval/article_priors.py). 0.2 demotes five: 刑法:316 0.71, 247 0.63, 400 0.52, 246 0.38, "
            "306 0.27. Chosen on ljp_dev's tuning half (0.1 to 0.3 tied there; 0.1 would also touch the drug "
            "articles 348-357, which are each other's neighbours, not magnets)."
        },
    )
    article_prior_strength: float = field(
        default=1.0,
        metadata={
            "description": "Judge: a magnet's fused score is multiplied by (1 - magnet rate) ** strength. 1 on "
            "ljp_dev's tuning half (1 to 8 tied); fused R@5 / R@10 0.723 / 0.793 -> 0.744 / 0.797 there, "
            "0.690 / 0.788 -> 0.709 / 0.793 on the report half (s25-ljp212-retrieval). 0: off."
        },
    )
    profile: Literal["fast", "thorough"] = field(
        default="fast",
        metadata={
            "description": "Which model calls code may replace. 'fast' — judge: a judgment is set by code where "
            "the charge scorer's audited proposal decides the conviction (articles: its charges' defining audited "
            "articles; term: the median of precedents convicted of them, within what those articles allow), "
            "without the Adjudicator's call; consult: LawSearch routes by keywords, and ContentCheck rewrites "
            "only a draft that cited an article the audit pruned (otherwise the draft is the Response). "
            "'thorough': the Adjudicator verifies and explains every judgment, the model routes (router='llm') "
            "and ContentCheck rewrites every draft."
        },
    )
    charge_scoring: bool = field(
        default=True,
        metadata={
            "description": "Judge: the charge scorer proposes the charges (scored from their signals, act by act, "
            "checked against neighbouring charges) and its audited proposal stands; off, the Adjudicator's own "
            "supported charges are the conviction (the candidates are still scored and shown)."
        },
    )
    charge_weights: dict[str, float] = field(
        default_factory=lambda: {"vote": 3.252, "offence": 1.833, "rank": 2.792, "prejudged": 2.836, "named": -1.013},
        metadata={
            "description": "Judge: logistic weights of a candidate charge's signals (tools/law/charge_scores.py). "
            "Fitted on the tuning half of charge_dev with the local model's pre-judgments (session 21, "
            "benchmarks/fit_charge_model.py over benchmarks/runs/s21-charge-signals): the proposal alone, before "
            "audit and Adjudicator, is the exact charge set on 0.437 of the tuning half and 0.382 of the report "
            "half. ``named`` comes out negative: a fact naming its charge mostly names it in the KG strategy's "
            "first rank already, and such facts more often hold a further charge."
        },
    )
    charge_depth: int = field(
        default=20,
        metadata={
            "description": "Judge: depth of the Researcher's fused ranking the charge scorer reads (its charges "
            "are candidates, their rank a signal) and the audit draws from; the depth charge_weights were "
            "fitted at, so the graph and benchmarks/charge_signals.py read the same list."
        },
    )
    charge_bias: float = field(
        default=-5.866,
        metadata={"description": "Judge: the charge scorer's logistic intercept (fitted with charge_weights)."},
    )
    charge_threshold: float = field(
        default=1.0,
        metadata={
            "description": "Judge: probability a whole-fact candidate besides the best needs to be convicted too. "
            "1.0 (never): on charge_dev's tuning half every threshold from 0.7 up tied, lower ones lost; further "
            "charges come from the acts (act_threshold)."
        },
    )
    act_threshold: float = field(
        default=0.3,
        metadata={
            "description": "Judge: probability the best charge of one act of a fact with several acts needs, "
            "scored on that act's words, to be convicted too. 0.3 on charge_dev's tuning half (0.2 tied): exact "
            "charge sets 35 -> 38 of 87 there, 36 -> 39 of 102 on the report half."
        },
    )
    stated_count: bool = field(
        default=True,
        metadata={
            "description": "Judge: when the fact's own conclusions name more charges than the scorer chose "
            "(以××和××追究, one 其行为构成×× per act, 数罪并罚), add the acts' best and the next-best candidates up "
            "to that count. Model-free on the recorded signals: exact charge sets 38 -> 41 of 87 (charge_dev "
            "tune), 39 -> 41 of 102 (report); ljp_dev 32 -> 33 / 41 -> 42."
        },
    )
    charge_floor: float = field(
        default=0.2,
        metadata={
            "description": "Judge: probability a charge the Adjudicator adds to the scorer's proposal needs from "
            "the scorer (besides an audited article defining it) to stand."
        },
    )
    max_charges: int = field(
        default=3,
        metadata={"description": "Judge: most charges one judgment convicts of."},
    )
    family_questions: bool = field(
        default=True,
        metadata={
            "description": "Judge: when the fact does not state the element that separates a proposed charge "
            "from a neighbouring candidate (职务侵占's 单位人员, 保险诈骗's 保险金), ask the model one yes/no "
            "question; off, the proposal stands."
        },
    )
    scored_charges: int = field(
        default=8,
        metadata={"description": "Judge: candidate charges the scorer keeps, best first, for the Adjudicator."},
    )
    router: Literal["llm", "rules"] = field(
        default="llm",
        metadata={
            "description": "LawSearch's domain router with profile='thorough': 'llm' classifies the question's "
            "domain and picks the collections (falling back to the rules on an unreadable reply); 'rules' decides "
            "by keywords, as profile='fast' always does."
        },
    )
    source_weights: dict[str, float] = field(
        default_factory=fitted_source_weights,
        metadata={
            "description": "LawSearch: weight of each source's ranking in the evidence fusion (RRF); the default "
            "is fitted on the dev files' tuning halves (tools/retrieval/source_weights.json, with provenance)."
        },
    )
    structured_retries: int = field(
        default=2,
        metadata={"description": "Extra attempts when the model's JSON does not validate."},
    )
    max_question_chars: int = field(
        default_factory=lambda: int(os.environ.get("JURIS_MAX_QUESTION_CHARS", "").strip() or 4000),
        metadata={"description": "Longest question accepted; longer ones are refused, never truncated."},
    )
    max_fact_chars: int = field(
        default=20000,
        metadata={
            "description": "Judge: longest fact description accepted. One over max_question_chars is reduced to "
            "it (its fact section, without procedure and evidence lists, then its head and tail), and the "
            "judgment says so in fact_reduction."
        },
    )
    search_level: int = field(
        default=0,
        metadata={"description": "Statute-community level global and local search read (0: broadest)."},
    )
    map_tokens: int = field(
        default=1500,
        metadata={"description": "Global search: community-report tokens per map call."},
    )
    reduce_tokens: int = field(
        default=1500,
        metadata={"description": "Global search: tokens of rated points the final answer is written from."},
    )
    local_tokens: int = field(
        default=2500,
        metadata={"description": "Local search: context tokens (a quarter reports, half articles, the rest graph)."},
    )
    local_entities: int = field(
        default=8,
        metadata={"description": "Local search: entities matched to the question by embedding."},
    )
    language: str = field(
        default="zh",
        metadata={"description": "Prompt language (prompts/<language>/)."},
    )

    def model_for(self, role: Role) -> str:
        """The model spec of an agent role: its own setting, else ``model``."""
        own: str = getattr(self, f"{role}_model")
        return own.strip() or self.model

    def with_overrides(self, pairs: list[str]) -> Context:
        """A copy with ``key=value`` settings applied (values parsed as JSON where they are JSON, so
        ``audit=false``, ``audit_k=3`` and ``strategy_weights={"charge": 2}`` all work)."""
        known = {f.name for f in fields(self)}
        hints = get_type_hints(type(self))
        changes: dict[str, Any] = {}
        for pair in pairs:
            key, sep, raw = pair.partition("=")
            key = key.strip()
            if not sep or key not in known:
                raise InputError(f"bad setting {pair!r}: use key=value with key one of {', '.join(sorted(known))}")
            try:
                value: object = json.loads(raw)
            except json.JSONDecodeError:
                value = raw
            expected = type(getattr(self, key))
            if expected is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise InputError(f"bad setting {pair!r}: {key} needs a {expected.__name__}")
            if get_origin(hints[key]) is Literal and value not in (allowed := get_args(hints[key])):
                raise InputError(f"bad setting {pair!r}: {key} is one of {', '.join(map(str, allowed))}")
            changes[key] = value
        return replace(self, **changes)
