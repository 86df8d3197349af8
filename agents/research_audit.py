"""The judge graph's ``audit_research`` node: the audit subgraph over the Researcher's best candidates and the
proposed charges' defining articles; what rests on a pruned article (precedents citing it, a pre-judged charge
whose every defining article failed) goes with it."""

from __future__ import annotations

import time
from typing import Any, Protocol

from langgraph.runtime import Runtime

from agents.common.audits import AuditGraph, run_audit
from agents.context import JudgeContext
from agents.context.experiment import code_decides, judge_switches
from agents.state.audit import Verdict
from agents.state.common import trace_event
from agents.state.judge import CaseRef, JudgeState, ScoredCharge
from prompts import label
from tools.kb.charges import ChargeRepository
from tools.services import get_services


class JudgeNode(Protocol):
    def __call__(self, state: JudgeState, runtime: Runtime[JudgeContext]) -> dict[str, Any]: ...


def _pruned(verdicts: list[Verdict]) -> list[str]:
    return [v["article_id"] for v in verdicts if not v["applicable"]]


def retain_best(verdicts: list[Verdict], lang: str, convicting: set[str]) -> list[Verdict]:
    """When no article in ``convicting`` (those that define a charge) survived its audit, the best-ranked
    of them stays, marked ``retained``: a criminal fact is convicted under some such article, and without
    one the judgment can only convict of nothing. A person's rejection is final and never retained."""
    if any(v["applicable"] and v["article_id"] in convicting for v in verdicts):
        return verdicts
    for i, verdict in enumerate(verdicts):
        if verdict["article_id"] in convicting and verdict["decided_by"] != "reviewer":
            kept: Verdict = {**verdict, "applicable": True, "decided_by": "retained", "reason": label("retained", lang)}
            return [*verdicts[:i], kept, *verdicts[i + 1 :]]
    return verdicts


def surviving_cases(cases: list[CaseRef], pruned: set[str]) -> list[str]:
    """Precedents citing none of the pruned articles: a case applying an article the audit rejected for
    these facts is a precedent for other facts."""
    return [c["case_id"] for c in cases if not set(c["articles"]) & pruned]


def judge_candidates(fused: list[str], scored: list[ScoredCharge], proposed: list[str], audit_k: int) -> list[str]:
    """The articles to audit: the Researcher's best ``audit_k``, and for each proposed charge whose defining
    articles are all outside them, its best-ranked defining article (a charge is convicted only on an
    audited article, so the scorer's choice must reach the audit)."""
    candidates = fused[:audit_k]
    for charge in scored:
        if charge["name"] in proposed and charge["articles"] and not set(charge["articles"]) & set(candidates):
            ranked = sorted(charge["articles"], key=lambda a: fused.index(a) if a in fused else len(fused))
            candidates.append(ranked[0])
    return candidates


def make_audit_research(audit: AuditGraph) -> JudgeNode:
    """The judge graph's ``audit_research`` node over the given audit subgraph."""

    def audit_research(state: JudgeState, runtime: Runtime[JudgeContext]) -> dict[str, Any]:
        """Audit the best of the Researcher's fused candidates (fused by ``score_charges``) and the proposed
        charges' articles, prune what rests on failed articles."""
        started = time.perf_counter()
        ctx = runtime.context
        fused = state.rankings.get("researcher", [])
        # When code convicts of the proposal, a verdict on another candidate decides nothing and costs a model
        # call: on the s41 report runs 287 of 289 judgments convicted of the proposal as proposed, and the audit
        # of the Researcher's best five took three quarters of a judgment's time. No proposal (a knowledge base
        # without the charge table): the Adjudicator decides, from the audited best candidates.
        breadth = 0 if code_decides(ctx) and state.proposed else ctx.audit_k
        candidates = judge_candidates(fused, state.scored_charges, state.proposed, breadth)
        ranked_cases = sorted(state.cases.values(), key=lambda c: -c["score"])
        update: dict[str, Any] = {}
        if not ctx.audit:
            update["verdicts"] = []
            update["kept_cases"] = [c["case_id"] for c in ranked_cases]
            update["trace"] = [trace_event("audit_research", started, candidates=candidates, skipped=True)]
            return update
        out = run_audit(audit, state.fact, candidates, ctx, "case")
        if judge_switches(ctx).audit_keep_best:
            charges = ChargeRepository(get_services().graph)
            convicting = charges.defining(candidates) if charges.has_charges() else set(candidates)
            out["verdicts"] = retain_best(out["verdicts"], ctx.language, convicting)
        pruned = set(_pruned(out["verdicts"]))
        applicable = {v["article_id"] for v in out["verdicts"] if v["applicable"]}
        update |= {
            "verdicts": out["verdicts"],
            "kept_cases": surviving_cases(ranked_cases, pruned),
            # A pre-judged charge survives while one of its defining articles was not pruned.
            "prejudged": [g for g in state.prejudged if not g["articles"] or set(g["articles"]) - pruned],
            "usage": out["usage"],
            "trace": [
                *out["trace"],
                trace_event("audit_research", started, candidates=candidates, applicable=sorted(applicable)),
            ],
        }
        return update

    return audit_research
