"""Researcher agent (LegalGraphRAG + AALawyer): candidate articles and precedents for a criminal fact.

Strategies, run in parallel by the research pipeline (graphs/research.py, the judge graph's first steps):
- semantic: statute text (BM25, dense, named articles), cases by embedding (AALawyer's CCs-RAG) and
  cases by four-dimension features;
- community: the Leiden community of the fact's nearest cases, then its most similar members;
- pre-judgment: the model names charges with confidences (anchored through (:Article)-[:DEFINES]->
  (:Charge) and (:Case)-[:CONVICTED_OF]->(:Charge)) and article numbers (AALawyer's AC-RAG: the text is
  fetched by id, never written by the model).
The union is fused by weighted reciprocal-rank fusion (``fuse_candidates``), magnets demoted and penalty
companions following their articles: the candidates the charge scorer, the audit and the Adjudicator read.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agents.common.messages import facts_first
from agents.common.models import chat_model
from agents.common.offences import offence_index
from agents.common.precedents import own_copies
from agents.common.question import set_aside_instructions, validate_question
from agents.context import JudgeContext
from agents.context.experiment import judge_switches
from agents.state.common import trace_event
from agents.state.judge import CaseRef, ChargeGuess, JudgeState
from prompts import render_prompt
from tools.errors import InputError, StructuredOutputError
from tools.kb.cases import get_cases, precedents
from tools.kb.charges import ChargeRepository
from tools.kb.ontology import (
    FeatureExtractor,
    FeatureIndex,
    Features,
    OntologyRepository,
    extract_lexical,
    feature_stamp,
    llm_extractor,
)
from tools.law.articles import CRIMINAL_LAW, make_article_id
from tools.law.charge_model import fitted_charge_policy
from tools.law.charge_names import MAX_CHARGE_CHARS
from tools.law.facts import reduce_fact, without_claims
from tools.llm.chat import Usage, failed_usage, invoke_structured, with_max_items
from tools.retrieval.article_priors import bundled_priors
from tools.retrieval.hybrid import kg_linked_articles, rank_cited, weighted_rrf
from tools.retrieval.research_weights import ResearchWeights, fitted_research_weights
from tools.retrieval.vectors import CASES
from tools.services import Services, get_services

CASE_FACT_CHARS = 120
"""Characters of a precedent's fact kept for prompts and output: enough to recognise the pattern."""


class ChargeConfidence(BaseModel):
    name: str = Field(max_length=MAX_CHARGE_CHARS)
    confidence: float = Field(ge=0, le=1)


class Prejudgment(BaseModel):
    """The model's pre-judgment: likely charges with confidences and likely Criminal Law article numbers."""

    charges: list[ChargeConfidence] = Field(max_length=3)
    # Any number: a year or an amount the model puts among them is dropped with the numbers no article has
    # (anchor_prejudgment checks each). Bounded here, one such number failed the reply and lost its charges.
    articles: list[int] = Field(max_length=5)


def extract_features(fact: str, ctx: JudgeContext) -> tuple[Features, Usage | None]:
    """The fact's features with the Context's extractor (the same extractors ingestion uses)."""
    if ctx.feature_extractor == "lexical":
        extractor: FeatureExtractor = extract_lexical
        usages: list[Usage] = []
    elif ctx.feature_extractor == "llm":
        extractor, usages = llm_extractor(chat_model(ctx, "judge"), ctx.language)
    else:
        raise InputError(f"unknown feature extractor {ctx.feature_extractor!r}: use lexical or llm")
    features = extractor(fact)
    return features, (usages[0] if usages else None)


_index_lock = threading.Lock()
_indexes: dict[tuple[int, int], FeatureIndex] = {}


def feature_index(services: Services, level: int) -> FeatureIndex:
    """The Ontology graph's in-memory index, reloaded when its feature edges changed."""
    repo = OntologyRepository(services.graph)
    key = (id(services.graph), level)
    with _index_lock:
        index = _indexes.get(key)
        if index is None or index.stamp != feature_stamp(repo):
            index = _indexes[key] = FeatureIndex.load(repo, level)
        return index


def case_refs(services: Services, scored: list[tuple[str, float]], strategy: str) -> list[CaseRef]:
    """Precedents with their outcome, in the order found."""
    scores = dict(scored)
    return [
        {
            "case_id": c.id,
            "score": scores[c.id],
            "strategy": strategy,
            "charges": list(c.charges),
            "articles": list(c.articles),
            "outcome": c.outcome,
            "fact": c.fact[:CASE_FACT_CHARS],
        }
        for c in get_cases(services.graph, [case_id for case_id, _ in scored])
    ]


def articles_of(refs: list[CaseRef]) -> list[str]:
    """Articles cited by precedents, ranked by the summed score of the cases citing them (a precedent found
    without a similarity score still counts a little)."""
    return rank_cited(((ref["articles"], ref["score"]) for ref in refs), floor=1e-6)


def search_semantic(
    services: Services, fact: str, features: Features, ctx: JudgeContext
) -> tuple[dict[str, list[str]], list[CaseRef]]:
    """Statute text retrieval (BM25, dense, named articles, KG links: the charges the fact names -> DEFINES,
    and the offence descriptions the fact covers) plus precedents by embedding, by words (BM25, voting with
    their scores) and by features.
    A precedent with the very same fact is skipped: a case is never its own precedent."""
    rankings = services.retriever.rankings(fact, ctx.candidates_per_retriever)
    rankings["kg"] = kg_linked_articles(services.graph, fact, ctx.candidates_per_retriever)
    rankings["offence"] = [aid for aid, _ in offence_index(services).search(fact, ctx.candidates_per_retriever)]
    refs: list[CaseRef] = []
    if services.vectors.count(CASES):
        # A judgment stored once per defendant (CMDL: up to nine copies of a fact) counts once, and the fact's
        # own copies not at all; three times the wanted hits leaves enough after both are dropped.
        texts = {fact}
        by_text_hits: list[tuple[str, float]] = []
        for h in services.vectors.search(CASES, fact, 3 * ctx.strategy_k):
            if h.text not in texts and len(by_text_hits) < ctx.strategy_k:
                texts.add(h.text)
                by_text_hits.append((h.id, round(max(h.score, 0.0), 4)))
        by_text = case_refs(services, by_text_hits, "cases")
        by_words = case_refs(
            services,
            services.case_index.index().search(fact, ctx.precedent_k, skip_identical=True, distinct=True),
            "case_bm25",
        )
        features_index = feature_index(services, ctx.community_level)
        by_features = case_refs(
            services, features_index.similar(features, ctx.strategy_k, skip=own_copies(services, fact)), "features"
        )
        rankings["cases"], rankings["features"] = articles_of(by_text), articles_of(by_features)
        rankings["case_bm25"] = articles_of(by_words)
        refs = by_text + by_words + by_features
    return rankings, refs


def expand_community(
    services: Services, fact: str, features: Features, ctx: JudgeContext
) -> tuple[dict[str, list[str]], list[CaseRef], str | None]:
    """The best community for the features, then its members most similar to them (the fact's own copies
    skipped)."""
    index = feature_index(services, ctx.community_level)
    own = own_copies(services, fact)
    community = index.best_community(features, ctx.candidates_per_retriever, skip=own)
    if community is None:
        return {}, [], None
    refs = case_refs(services, index.similar(features, ctx.strategy_k, within=community, skip=own), "community")
    return {"community": articles_of(refs)}, refs, community


def precedent_charges(services: Services, fact: str, k: int) -> list[tuple[str, int]]:
    """Charges of the ``k`` precedents most similar to ``fact`` by words (BM25, the fact itself skipped),
    most frequent first; BM25 precedents found the gold articles far more often than embedded ones."""
    if not services.vectors.count(CASES):
        return []
    hits = services.case_index.index().search(fact, k, skip_identical=True, distinct=True)
    counts = Counter(
        name for case in get_cases(services.graph, [case_id for case_id, _ in hits]) for name in case.charges
    )
    return counts.most_common()


def prejudge(fact: str, ctx: JudgeContext, services: Services) -> tuple[Prejudgment, Usage]:
    """The model's pre-judgment of at most ``max_charges`` charges and of article numbers (one structured
    call); with ``prejudge='with_hints'`` it also sees the charges of similar precedents."""
    model = chat_model(ctx, "judge")
    block = ""
    if ctx.prejudge == "with_hints" and (found := precedent_charges(services, fact, ctx.precedent_k)):
        block = render_prompt("prejudge_hints", ctx.language, hints="、".join(f"{name}({n})" for name, n in found))
        block = f"\n{block}\n"
    task = render_prompt("prejudge_case", ctx.language, hints_block=block)
    messages = facts_first(ctx.language, "case", fact, task)
    schema = with_max_items(Prejudgment, "charges", ctx.max_charges)
    return invoke_structured(model, messages, schema, ctx.structured_retries)


def anchor_prejudgment(
    services: Services, judgment: Prejudgment, ctx: JudgeContext, charges: ChargeRepository | None = None
) -> tuple[dict[str, list[str]], list[ChargeGuess], list[CaseRef]]:
    """Charge-anchored and generative rankings from a pre-judgment, and precedents of the anchored charges.

    LegalGraphRAG's pre-judge rules: charges below the confidence threshold are ignored unless none
    reaches it (then the most confident one stays), at most ``max_charges``; names are resolved to
    charges in force (the alternative committed, 骗取贷款罪, names its selective charge), unknown names are dropped.
    """
    charges = charges or ChargeRepository(services.graph)
    ranked = sorted(judgment.charges, key=lambda c: -c.confidence)
    kept = [c for c in ranked if c.confidence >= ctx.charge_confidence] or ranked[:1]
    guesses: list[ChargeGuess] = []
    for guess in kept[: ctx.max_charges]:
        name = charges.resolve_abridged(guess.name)
        if name and name not in {g["name"] for g in guesses}:
            guesses.append({"name": name, "confidence": guess.confidence, "articles": []})
    defined = charges.articles_for([g["name"] for g in guesses])
    for g in guesses:
        g["articles"] = defined.get(g["name"], [])
    named = [make_article_id(CRIMINAL_LAW, n) for n in dict.fromkeys(judgment.articles)]
    found, _ = services.statutes.check_citations(named)
    existing = {a.id for a in found}
    precedent_ids = precedents(services.graph, [g["name"] for g in guesses], ctx.strategy_k)
    refs = case_refs(services, [(case_id, 1.0) for case_id in precedent_ids], "charge")
    rankings = {
        "charge": list(dict.fromkeys(a for g in guesses for a in g["articles"])),
        "generative": [a for a in named if a in existing],
    }
    return rankings, guesses, refs


def _refs_by_id(refs: list[CaseRef]) -> dict[str, CaseRef]:
    found: dict[str, CaseRef] = {}
    for ref in refs:
        found.setdefault(ref["case_id"], ref)
    return found


def align_ontology(state: JudgeState, runtime: Runtime[JudgeContext]) -> dict[str, Any]:
    """The fact (reduced to its fact section when longer than ``reduced_fact_chars``) and its four-dimension
    features (same extractors as ingestion)."""
    started = time.perf_counter()
    ctx = runtime.context
    limit = max(ctx.max_fact_chars, ctx.reduced_fact_chars)
    given = validate_question(state.fact, limit, what="fact description", setting="--set max_fact_chars=N")
    # The fact is data: a sentence demanding a charge or a sentence is never read by retrieval, scorer or model.
    told, ignored = set_aside_instructions(given, ctx.language, what="fact description")
    reduced = reduce_fact(told, ctx.reduced_fact_chars)
    # A charge or article the fact names is its writer's claim: masked, the evidence decides (CAIL's facts read so).
    fact = without_claims(reduced.text, ChargeRepository(get_services().graph).names())
    features, usage = extract_features(fact, ctx)
    update: dict[str, Any] = {
        "fact": fact,
        "fact_reduction": reduced.note,
        "ignored_instructions": ignored,
        "features": features,
        "trace": [
            trace_event(
                "align_ontology",
                started,
                features=sum(len(v) for v in features.values()),
                ignored=len(ignored),
                claims_masked=fact != reduced.text,
            )
        ],
    }
    if usage:
        update["usage"] = usage
    return update


def research_semantic(state: JudgeState, runtime: Runtime[JudgeContext]) -> dict[str, Any]:
    """Strategy (i): semantic match over statute text and case features."""
    started = time.perf_counter()
    rankings, refs = search_semantic(get_services(), state.fact, state.features, runtime.context)
    return {
        "rankings": rankings,
        "cases": _refs_by_id(refs),
        "trace": [trace_event("research_semantic", started, cases=len(refs))],
    }


def research_community(state: JudgeState, runtime: Runtime[JudgeContext]) -> dict[str, Any]:
    """Strategy (ii): community expansion."""
    started = time.perf_counter()
    rankings, refs, community = expand_community(get_services(), state.fact, state.features, runtime.context)
    return {
        "rankings": rankings,
        "cases": _refs_by_id(refs),
        "trace": [trace_event("research_community", started, community=community, cases=len(refs))],
    }


def research_charges(state: JudgeState, runtime: Runtime[JudgeContext]) -> dict[str, Any]:
    """Strategy (iii) and AALawyer's generative path: pre-judged charges and article numbers."""
    started = time.perf_counter()
    if runtime.context.prejudge == "off":
        return {"trace": [trace_event("research_charges", started, skipped="prejudge off")]}
    services = get_services()
    try:
        judgment, usage = prejudge(state.fact, runtime.context, services)
    except StructuredOutputError as exc:
        return {
            "rankings": {"charge": [], "generative": []},
            "usage": failed_usage(exc),
            "trace": [trace_event("research_charges", started, failed=str(exc))],
        }
    rankings, guesses, refs = anchor_prejudgment(services, judgment, runtime.context)
    return {
        "rankings": rankings,
        "prejudged": guesses,
        "cases": _refs_by_id(refs),
        "usage": usage,
        "trace": [
            trace_event(
                "research_charges",
                started,
                charges=[g["name"] for g in guesses],
                named_articles=list(judgment.articles),
            )
        ],
    }


def follow_companions(ranked: list[str], companions: Mapping[str, str]) -> list[str]:
    """``ranked`` with each defining article's penalty companion right after it (moved up when ranked lower)."""
    out: list[str] = []
    for article_id in ranked:
        for item in (article_id, companions.get(article_id)):
            if item and item not in out:
                out.append(item)
    return out


def fuse_strategies(
    rankings: dict[str, list[str]],
    ctx: JudgeContext,
    k: int,
    companions: Mapping[str, str] | None = None,
    weights: ResearchWeights | None = None,
) -> list[str]:
    """The Researcher's fused candidate list: RRF over every strategy's ranking with ``weights`` (default: the
    fitted ones); magnet articles demoted unless the KG strategy links the fact to them
    (:mod:`tools.retrieval.article_priors`; none when the prior strength is 0); penalty companions
    (:meth:`tools.kb.statutes.StatuteRepository.penalty_companions`) following their articles when
    the ``penalty_companions`` switch is on (:mod:`agents.context.experiment`)."""
    weights = weights or fitted_research_weights()
    pool = weighted_rrf(rankings, weights.strategy, sum(len(ranked) for ranked in rankings.values()))
    priors = bundled_priors() if weights.prior_strength else None
    if priors is None:
        fused = [c.article_id for c in pool]
    else:
        scored = ((c.article_id, c.score) for c in pool)
        named = set(rankings.get("kg", []))
        fused = priors.demote(scored, weights.magnet_threshold, weights.prior_strength, exempt=named)
    if judge_switches(ctx).penalty_companions and companions:
        fused = follow_companions(fused, companions)
    return fused[:k]


def fuse_candidates(state: JudgeState, runtime: Runtime[JudgeContext]) -> dict[str, Any]:
    """The one fusion of a judgment (``rankings["researcher"]``), as deep as the charge scorer reads it
    (the depth its policy was fitted at) and the audit draws from."""
    started = time.perf_counter()
    ctx = runtime.context
    # Companions are read from the graph only when they are followed.
    companions = get_services().statutes.penalty_companions() if judge_switches(ctx).penalty_companions else {}
    fused = fuse_strategies(state.rankings, ctx, max(ctx.audit_k, fitted_charge_policy().depth), companions)
    return {
        "rankings": {"researcher": fused},
        "trace": [trace_event("fuse_candidates", started, candidates=len(fused))],
    }
