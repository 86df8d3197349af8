"""The systems compared by the harness, all on the same chat model: ``full`` (our graph), ``naive_rag``
(top-k statute chunks by dense similarity pasted into one prompt) and ``no_rag`` (the model alone).

Each returns a plain-JSON prediction; nothing is filtered for the baselines, so their invented citations
count against them exactly as a user would see them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Annotated, Any

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from agents.common.answers import format_evidence
from agents.common.evidence import fetch_evidence
from agents.context import ConsultContext, Context, JudgeContext
from agents.context.experiment import MeasuredConsult, MeasuredJudge
from agents.law_search import CONSULTATION_SOURCES, RERANKED, source_rankings
from agents.state.audit import Verdict
from agents.state.common import TraceEvent
from agents.state.consult import ConsultInput, EvidenceItem
from agents.state.judge import JudgeEvidence, JudgeInput
from app.eval.tasks import query_of
from prompts import render_prompt
from tools.corpus.halves import half_of
from tools.errors import InputError
from tools.kb.charges import ChargeRepository
from tools.kb.consultations import ConsultationRepository
from tools.kb.statutes import StatuteRepository
from tools.law.articles import CRIMINAL_LAW, make_article_id, parse_citations, without_references
from tools.law.charge_names import MAX_CHARGE_CHARS
from tools.llm.chat import empty_usage, invoke_structured, invoke_text, load_chat_model
from tools.retrieval.hybrid import (
    OPTIONAL_SOURCES,
    STATUTE_RETRIEVERS,
    Candidate,
    articles_cited_by,
    route_collections,
)
from tools.retrieval.source_weights import fitted_source_fusion
from tools.retrieval.vectors import CASES, COMMUNITY_REPORTS, INTERPRETATIONS, STATUTES
from tools.services import get_services
from tools.settings import load_settings

Prediction = dict[str, Any]
System = Callable[[dict[str, Any]], Prediction]
ABLATIONS: dict[str, dict[str, Any]] = {
    "full-no-elements": {"use_elements": False},
    "full-no-manager": {"max_rounds": 0},
    "full-no-consultations": {"consultation_k": 0},
    "full-no-content-check": {"content_check": False},
    "full-no-audit": {"audit": False},
    "full-thorough": {"profile": "thorough"},
}
"""The full graph with one setting changed: JurisMA's ablations, the auditor's, and the thorough profile
(every model call the fast profile lets code replace)."""
JUDGE_VARIANTS = ("full-no-audit", "full-thorough")
CONSULT_SYSTEMS = ("full", *ABLATIONS, "naive_rag", "no_rag")
JUDGMENT_BASELINES = ("naive_rag", "no_rag")


@dataclass(frozen=True)
class EvalContexts:
    """The settings a run measures every system with: the consult graph's and the judge graph's."""

    consult: MeasuredConsult
    judge: MeasuredJudge

    @classmethod
    def from_settings(cls, pairs: list[str], model: str | None) -> EvalContexts:
        """Defaults, then each ``key=value`` applied to the graphs whose Context has that key, then ``model``."""
        consult_keys = {f.name for f in fields(MeasuredConsult)}
        judge_keys = {f.name for f in fields(MeasuredJudge)}
        key_of = {pair: pair.partition("=")[0].strip() for pair in pairs}
        for pair, key in key_of.items():
            if key not in consult_keys | judge_keys:
                every = ", ".join(sorted(consult_keys | judge_keys))
                raise InputError(f"bad setting {pair!r}: use key=value with key one of {every}")
        consult = MeasuredConsult().with_overrides([p for p in pairs if key_of[p] in consult_keys])
        judge = MeasuredJudge().with_overrides([p for p in pairs if key_of[p] in judge_keys])
        if model:
            consult, judge = replace(consult, model=model), replace(judge, model=model)
        return cls(consult, judge)


class JudgmentPrediction(BaseModel):
    """What the ljp baselines predict (bounded so constrained decoding stays short)."""

    charges: list[Annotated[str, Field(max_length=MAX_CHARGE_CHARS)]] = Field(max_length=4)
    articles: list[int] = Field(max_length=6)
    term_months: int
    life_imprisonment: bool
    death_penalty: bool


class ChargePrediction(BaseModel):
    """What the charge baselines predict."""

    charges: list[Annotated[str, Field(max_length=MAX_CHARGE_CHARS)]] = Field(max_length=4)


def verdict_rows(verdicts: list[Verdict]) -> list[dict[str, Any]]:
    """Why each audited article stayed or went, so a run shows where the auditor erred: each checklist item as
    [item, holds, stated] (a question's item the model said holds but the question does not state is
    [item, false, false]), so the stated-item rule can be refitted from the rows."""
    return [
        {
            "article_id": v["article_id"],
            "applicable": v["applicable"],
            "decided_by": v["decided_by"],
            "reason": v["reason"],
            "checks": [[c["item"], c["holds"], c["stated"]] for c in v["checks"]],
        }
        for v in verdicts
    ]


def _full_consult(question: str, context: ConsultContext) -> Prediction:
    from graphs.consult import graph

    out = graph.invoke(ConsultInput(question=question), context=context)
    # A question the topic check declines ends before the search: it has no evidence and no claims checked.
    out = {"evidence": [], "claim_checks": [], "conditional_basis": [], **out}
    cited = [b["article_id"] for b in out["legal_basis"]]
    return {
        "answer": out["response"],
        "cited": cited,
        "basis": {b["article_id"]: b["text"] for b in out["legal_basis"]},
        "conditional": [b["article_id"] for b in out["conditional_basis"]],
        "raw_cited": cited + out["dropped_citations"],
        "evidence": [e["article_id"] for e in out["evidence"]],
        "rounds": len(out["decisions"]),
        "pruned": [v["article_id"] for v in out["verdicts"] if not v["applicable"]],
        "verdicts": verdict_rows(out["verdicts"]),
        "claim_checks": out["claim_checks"],
        "usage": out["usage"],
        "stages_ms": stage_totals(out["trace"]),
    }


def stage_totals(trace: list[TraceEvent]) -> dict[str, float]:
    """Milliseconds per node, summed over the rounds (and parallel branches) in which it ran."""
    totals: dict[str, float] = {}
    for event in trace:
        totals[event["node"]] = round(totals.get(event["node"], 0.0) + event["ms"], 1)
    return totals


def _prompted(question: str, context: Context, evidence: list[EvidenceItem] | None) -> Prediction:
    model = load_chat_model(context.model, load_settings())
    if evidence is None:
        prompt = render_prompt("answer_no_rag", context.language, question=question)
    else:
        prompt = render_prompt(
            "answer_naive_rag",
            context.language,
            question=question,
            evidence=format_evidence(evidence, context.language),
        )
    started = time.perf_counter()
    answer, usage = invoke_text(
        model, [SystemMessage(content=render_prompt("system", context.language)), HumanMessage(content=prompt)]
    )
    cited = parse_citations(answer)
    return {
        "answer": answer.strip(),
        "cited": cited,
        "raw_cited": cited,
        "evidence": [e["article_id"] for e in evidence or []],
        "usage": usage,
        "stages_ms": {"generate": _ms_since(started)},
    }


def _dense_evidence(question: str, k: int) -> list[EvidenceItem]:
    services = get_services()
    hits = services.vectors.search(STATUTES, question, k)
    evidence, _ = fetch_evidence(services.statutes, [Candidate(h.id, h.score, ["dense"]) for h in hits])
    return evidence


def measured(context: MeasuredConsult, item: dict[str, Any]) -> MeasuredConsult:
    """The context an item is measured with: when the KB holds the item as an answered consultation (the dev
    files), the consultations of its half are hidden, so that a question never finds its own answer and a half
    is never measured against itself; a question the KB never answered (our everyday set) reads them all, as a
    user's does."""
    item_id = str(item["id"])
    answered = ConsultationRepository(get_services().graph).stored([item_id])
    return replace(context, hidden_consultation_half=half_of(item_id) if answered else "")


def consult_system(name: str, context: MeasuredConsult) -> System:
    """A runner for one consult system."""
    if name == "full":
        return lambda item: _full_consult(item["question"], measured(context, item))
    if name in ABLATIONS:
        ablated = replace(context, **ABLATIONS[name])
        return lambda item: _full_consult(item["question"], measured(ablated, item))
    if name == "naive_rag":
        return lambda item: _prompted(item["question"], context, _dense_evidence(item["question"], context.top_k))
    if name == "no_rag":
        return lambda item: _prompted(item["question"], context, None)
    raise InputError(f"unknown system {name!r} for task consult: choose from {', '.join(CONSULT_SYSTEMS)}")


def _predict_judgment(task: str, fact: str, context: Context, evidence: list[EvidenceItem] | None) -> Prediction:
    model = load_chat_model(context.model, load_settings())
    block = (
        render_prompt("evidence_block", context.language, evidence=format_evidence(evidence, context.language))
        if evidence
        else ""
    )
    schema: type[BaseModel] = JudgmentPrediction if task == "ljp" else ChargePrediction
    prompt = render_prompt(
        "predict_judgment" if task == "ljp" else "predict_charges", context.language, fact=fact, evidence_block=block
    )
    started = time.perf_counter()
    parsed, usage = invoke_structured(
        model,
        [SystemMessage(content=render_prompt("system", context.language)), HumanMessage(content=prompt)],
        schema,
        retries=context.structured_retries,
    )
    values = parsed.model_dump()
    articles = [make_article_id(CRIMINAL_LAW, n) for n in values.pop("articles", []) if n > 0]
    return {
        **values,
        "articles": articles,
        "cited": articles,
        "evidence": [e["article_id"] for e in evidence or []],
        "usage": usage,
        "stages_ms": {"generate": _ms_since(started)},
    }


def judgment_prediction(decided: dict[str, Any], evidence: list[JudgeEvidence]) -> Prediction:
    """A judgment as a results line records it: the decision, and what the Adjudicator read (articles and
    precedents, by id), so a run can be analysed, or its last step replayed, without redoing retrieval and
    audit."""
    return {
        "charges": decided["charges"],
        "articles": decided["articles"],
        "term_months": decided["term"]["months"],
        "life_imprisonment": decided["term"]["life"],
        "death_penalty": decided["term"]["death"],
        "cited": decided["articles"],
        "evidence": [e["id"] for e in evidence if e["kind"] == "article"],
        "precedents": [e["id"] for e in evidence if e["kind"] == "case"],
        "dropped": decided["dropped"],
        "grounded": decided["grounded"],
        "anchored": decided["anchored"],
        "set_aside": decided.get("set_aside", []),
        "term_check": decided.get("term_check"),
        "undecided": decided.get("undecided", ""),
        "usage": decided["usage"],
    }


def _full_judgment(fact: str, context: JudgeContext) -> Prediction:
    from graphs.judge import graph

    out = graph.invoke(JudgeInput(fact=fact), context=context)
    return {
        **judgment_prediction(out, out["evidence"]),
        "prejudged": [[g["name"], g["confidence"]] for g in out["prejudged"]],
        # The charge scorer's candidates, proposal and checks: what the conviction was decided from.
        "scored_charges": out["scored_charges"],
        "proposed": out["proposed"],
        "set_aside": out["set_aside"],
        "family_checks": out["family_checks"],
        "acts": len(out["acts"]),
        "pruned": [v["article_id"] for v in out["verdicts"] if not v["applicable"]],
        "verdicts": verdict_rows(out["verdicts"]),
        "stages_ms": stage_totals(out["trace"]),
    }


def mark_known_citations(prediction: Prediction, statutes: StatuteRepository) -> None:
    """Add which cited ids exist in the KB (``cited_in_kb``) and, for a Legal Basis, which texts are the
    KB's own, verbatim (``basis_verbatim``): checked against the store, never trusted."""
    if "cited" not in prediction:
        return
    found, _ = statutes.check_citations(prediction["cited"])
    prediction["cited_in_kb"] = [a.id for a in found]
    if basis := prediction.get("basis"):
        prediction["basis_verbatim"] = [a.id for a in found if basis.get(a.id) == a.text]


def judgment_system(task: str, name: str, context: MeasuredJudge, top_k: int) -> System:
    """A runner for the ljp or charge task: ``full`` is the judge graph; ``naive_rag`` reads ``top_k`` articles."""
    if name == "no_rag":
        return lambda item: _predict_judgment(task, item["fact"], context, None)
    if name == "naive_rag":
        return lambda item: _predict_judgment(task, item["fact"], context, _dense_evidence(item["fact"], top_k))
    if name == "full":
        return lambda item: _full_judgment(item["fact"], context)
    if name in JUDGE_VARIANTS:
        varied = replace(context, **ABLATIONS[name])
        return lambda item: _full_judgment(item["fact"], varied)
    known = ", ".join(["full", *JUDGE_VARIANTS, *JUDGMENT_BASELINES])
    raise InputError(f"unknown system {name!r} for task {task}: choose from {known}")


class JudgeScore(BaseModel):
    """LLM-as-judge scores of one answer against the reference (the hybrid-RAG paper's four criteria)."""

    correctness: int = Field(ge=0, le=10)
    completeness: int = Field(ge=0, le=10)
    relevance: int = Field(ge=0, le=10)
    legal_reasoning: int = Field(ge=0, le=10)
    reason: str = Field(max_length=120)


def judge_answer(item: dict[str, Any], answer: str, model_spec: str, context: Context) -> dict[str, Any]:
    """Scores of ``answer`` by the judge model; ``mean`` is the average of the four criteria."""
    model = load_chat_model(model_spec, load_settings())
    prompt = render_prompt(
        "judge_answer", context.language, question=item["question"], reference=item["answer"], answer=answer
    )
    score, usage = invoke_structured(model, [HumanMessage(content=prompt)], JudgeScore, context.structured_retries)
    values = score.model_dump()
    criteria = [values[k] for k in ("correctness", "completeness", "relevance", "legal_reasoning")]
    return {**values, "mean": sum(criteria) / len(criteria), "usage": usage}


def retrieval_system(depth: int, contexts: EvalContexts, prejudge_model: str | None) -> System:
    """Every retriever's ranking for an item, in one call. For ljp items the judge's Researcher strategies
    run too; the only model call is its pre-judgment, made only when ``prejudge_model`` is given."""
    from graphs.research import graph as research

    # One repository for the whole run: its alias index is read from the graph once, not per item.
    charges = ChargeRepository(get_services().graph)
    context, judge = contexts.consult, contexts.judge
    own_models = {role: spec for role, spec in judge.models.items() if role != "judge"}
    research_ctx = replace(
        judge,
        model=prejudge_model or judge.model,
        models=own_models,
        feature_extractor="lexical",
        prejudge=judge.prejudge if prejudge_model else "off",
    )
    wide = replace(context, candidates_per_retriever=max(depth, context.candidates_per_retriever))

    def run(item: dict[str, Any]) -> Prediction:
        services = get_services()
        query = query_of(item)
        started = time.perf_counter()
        # The consult graph's LawSearch sources as it runs with the keyword router (no model call); the
        # statute retrievers among them are also scored alone and as the flat hybrid fusion.
        counts = {c: services.vectors.count(c) for c in OPTIONAL_SOURCES}
        # As LawSearch searches: the words without article references, the references read by the exact source.
        words = without_references(query)
        sources = source_rankings(
            words, route_collections(words, counts)[0], services, measured(wide, item), query, query
        )
        statutes = {k: sources[k] for k in STATUTE_RETRIEVERS}
        fused = services.retriever.fuse(statutes, depth)
        # Every source of the fusion is recorded, so that its weights can be refitted offline from the rows;
        # ``cases`` is recorded for every question below, the routed ``cases`` source only for criminal ones.
        recorded = (*STATUTE_RETRIEVERS, "kg", INTERPRETATIONS, COMMUNITY_REPORTS, *CONSULTATION_SOURCES, RERANKED)
        out = {k: sources[k][:depth] for k in recorded if k in sources}
        if CASES in sources:
            out["routed_cases"] = sources[CASES][:depth]
        out["fused"] = [c.article_id for c in fused]
        if services.vectors.count(CASES):
            out["cases"] = articles_cited_by(services.vectors, CASES, query, context.candidates_per_retriever, depth)
        out["law_search"] = [c.article_id for c in fitted_source_fusion(RERANKED in sources).fuse(sources, depth)]
        stages_ms = {"law_search": _ms_since(started)}
        usage = empty_usage()
        if item.get("fact"):
            # The judge's research pipeline itself; a pre-judgment that never validates leaves the others.
            researched = research.invoke(JudgeInput(fact=item["fact"]), context=research_ctx)
            usage = researched["usage"]
            # Every strategy's own ranking; those named like a LawSearch source (bm25, dense, exact, kg, cases)
            # as research_<name>, so that the fusion can be recomputed offline from the rows.
            for name, ranked in researched["rankings"].items():
                out[f"research_{name}" if name in out else name] = ranked[:depth]
            # The pre-judgment's model call is left out: this is the time every strategy without a model takes.
            model_free = [e["ms"] for e in researched["trace"] if e["node"] != "research_charges"]
            stages_ms["researcher"] = round(sum(model_free), 1)
        if item.get("charges") and charges.has_charges():
            # The ceiling of charge-anchored retrieval: the gold charges mapped through DEFINES edges.
            by_charge = charges.articles_for(item["charges"])
            out["charge_oracle"] = list(dict.fromkeys(a for ids in by_charge.values() for a in ids))[:depth]
        return {"rankings": out, "usage": usage, "stages_ms": stages_ms}

    return run


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
