"""Basis agent: which evidence articles the answer may reason from, decided before the draft is written.

The basis keeper (``tools/retrieval/basis_keeper.py``, fitted on the dev files' tuning halves) has read each
evidence article's support from the retrieval sources when LawSearch found it; the most supported ones that pass
its threshold are kept. The audit subgraph then reads each kept article's checklist against the user's own words:
it explains the article and excludes it only where a checklist item is refuted by words the question says
(quoted). What is not kept stays in the evidence, named as unverified when nothing is kept.
"""

from __future__ import annotations

import re
import time
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from langgraph.runtime import Runtime

from agents.common.answers import legal_basis
from agents.common.audits import AuditGraph, run_audit
from agents.common.evidence import fetch_evidence
from agents.common.question import user_words
from agents.context import ConsultContext
from agents.state.audit import MEASURE, Verdict
from agents.state.common import trace_event
from agents.state.consult import ConsultState, EvidenceItem
from prompts import label, load_table
from tools.kb.statutes import StatuteRepository
from tools.law.articles import NAMED_REF_RE, without_references
from tools.law.elements import missing_element
from tools.law.period_limits import decided_by_limit
from tools.law.period_rules import decided_by_period
from tools.law.rate_caps import exceeded_caps
from tools.law.thresholds import Threshold, load_thresholds
from tools.law.wording import shared_pairs
from tools.llm.chat import empty_usage
from tools.retrieval.basis_keeper import fitted_keeper
from tools.retrieval.conditional import conditional_articles, fitted_conditional_floor, fitted_conditional_top
from tools.retrieval.hybrid import Candidate
from tools.services import get_services


class ConsultNode(Protocol):
    def __call__(self, state: ConsultState, runtime: Runtime[ConsultContext]) -> dict[str, Any]: ...


def asks_what_it_provides(question: str, lang: str) -> bool:
    """Whether ``question`` only asks what the article it names provides (刑法第二百六十四条规定了什么？): its words
    besides the reference are one of the language's frames (``prompts/<lang>/article_questions.json``)."""
    if not NAMED_REF_RE.search(question):
        return False
    table = load_table("article_questions", lang)
    rest = re.sub(r"[\W_]", "", without_references(question)).lower()
    for lead in table["leads"]:
        rest = rest.removeprefix(lead)
    return rest in table["frames"]


def named_in_question(evidence: list[EvidenceItem]) -> list[str]:
    """The evidence articles the user's words name (found by the exact source)."""
    return [e["article_id"] for e in evidence if "exact" in e["sources"]]


def kept_articles(evidence: list[EvidenceItem], most: int, asked: Sequence[str] = ()) -> list[str]:
    """The evidence articles the keeper passes, most supported first, at most ``most``; ``asked`` (the articles a
    question asking only what they provide names) first, whatever their support."""
    passing = sorted((e for e in evidence if e["passes"]), key=lambda e: -e["support"])
    return list(dict.fromkeys([*asked, *(e["article_id"] for e in passing)]))[:most]


COUNTERPART = "counterpart"
"""The source of an evidence article the law's structure added: the Criminal Law article of a kept article's
liability clause (:func:`criminal_counterparts`)."""


def criminal_counterparts(
    kept: Sequence[str], evidence: list[EvidenceItem], statutes: StatuteRepository
) -> tuple[dict[str, str], list[EvidenceItem]]:
    """The Criminal Law articles naming a conduct for which a kept article says 依法追究刑事责任 (each -> the kept
    article; :meth:`~tools.kb.statutes.StatuteRepository.criminal_counterparts`), and the evidence with those it
    lacked added, verbatim from the graph. The kept article decides the conduct is a crime, so the keeper's
    evidence for it carries to the article saying what the person faces: asked 醉酒驾驶会受到什么处罚？, the
    answer keeps 道路交通安全法:91 and, with it, 刑法:133-1 (危险驾驶罪: 拘役，并处罚金)."""
    by_id = {e["article_id"]: e for e in evidence}
    found: dict[str, str] = {}
    for article_id in kept:
        for counterpart in statutes.criminal_counterparts(by_id[article_id]["text"]):
            if counterpart not in kept:
                found.setdefault(counterpart, article_id)
    return found, with_evidence(evidence, found, COUNTERPART, statutes)


def with_evidence(
    evidence: list[EvidenceItem], articles: Collection[str], source: str, statutes: StatuteRepository
) -> list[EvidenceItem]:
    """``evidence`` with those of ``articles`` it lacks added, verbatim from the graph, found by ``source`` (the law's
    structure or a stated measure, not a search)."""
    have = {e["article_id"] for e in evidence}
    lacking = [Candidate(a, 0.0, [source]) for a in articles if a not in have]
    return [*evidence, *fetch_evidence(statutes, lacking)[0]]


def _decided_by_numbers(question: str, statutes: StatuteRepository, lang: str) -> dict[str, str]:
    """The articles a period or a rate the question states decides (each -> why): a period in an article's range
    (八个月 without a written contract: 劳动合同法:82), one set against the limit its article sets (试用期六个月 for a
    one-year contract: 劳动合同法:19's 二个月), and a rate above the highest its cap can be (月息5分: 民间借贷规定:25's
    四倍)."""
    found: dict[str, str] = {}
    for rule, period in decided_by_period(question):
        for article in statutes.get_articles([rule.article]):
            found[article.id] = label("period_decides", lang, stated=period.text, range=rule.range.text)
    for limit in decided_by_limit(question):
        for article in statutes.get_articles([limit.article]):
            found[article.id] = label("limit_decides", lang, limited=limit.limited.text, limit=limit.band.limit.text)
    for cap, rate in exceeded_caps(question):
        for article in statutes.get_articles([cap.article]):
            found[article.id] = label("rate_decides", lang, stated=rate.text, yearly=f"{rate.yearly:g}",
                                      highest=f"{cap.highest:g}", quote=cap.quote)  # fmt: skip
    return found


def decided_by_measure(
    question: str, evidence: list[EvidenceItem], statutes: StatuteRepository, lang: str
) -> tuple[dict[str, str], list[EvidenceItem]]:
    """The articles a measure the question states decides (each -> why, the interpretation's floor quoted), and the
    evidence with those it lacked added, verbatim from the graph. A measure names a conduct
    (:meth:`~tools.law.thresholds.Threshold.conduct`: 95 mg/100 ml is 醉酒驾驶, 45 is 饮酒后驾驶); the threshold's
    article and the provision named beside it decide the question where their text names that conduct and the
    question tells the element they share (driving): code compares the number, as the judge does, and the answer
    says what follows. Asked 血液酒精含量是95mg/100ml，会怎么处罚？, the basis was 道路交通安全法:91 as a condition
    ("取决于您的情况") and 刑法:133-1 was nowhere. A period in the range an article's condition names decides it the
    same way (:mod:`tools.law.period_rules`: 八个月 without a written contract, 劳动合同法:82's double wages), and a
    period set against the limit its article puts on it (:mod:`tools.law.period_limits`: a six-month probation in a
    one-year contract, 劳动合同法:19)."""
    found: dict[str, str] = {}
    for threshold in load_thresholds().values():
        conduct = threshold.conduct(question)
        if not conduct or missing_element(threshold.charge, question) is not None:
            continue
        key = "measured" if conduct == threshold.act else "measured_under"
        source = threshold.source.split("；")[-1]
        why = label(key, lang, conduct=conduct, source=source, source_article=threshold.source_article,
                    quote=threshold.quote)  # fmt: skip
        for article in statutes.get_articles([threshold.article, threshold.instead]):
            if conduct in article.text:
                found[article.id] = why
    found |= _decided_by_numbers(question, statutes, lang)
    return found, with_evidence(evidence, found, MEASURE, statutes)


def basis_verdicts(
    evidence: list[EvidenceItem],
    kept: list[str],
    audited: dict[str, Verdict],
    lang: str,
    asked: Sequence[str] = (),
    counterparts: dict[str, str] | None = None,
    measured: Mapping[str, str] | None = None,
) -> list[Verdict]:
    """A verdict on every evidence article, the kept ones first (most supported first): an audited one as its
    checklist read it, with why it was kept (the evidence, the question asking what it provides, or the kept
    article whose liability clause it completes, or the measure the question states: ``measured``, decided by code
    and not audited); a kept one not audited on that alone; the rest not kept, with their support."""
    by_id = {e["article_id"]: e for e in evidence}
    counterparts = counterparts or {}
    measured = measured or {}
    verdicts: list[Verdict] = []
    for article_id in [*kept, *(a for a in by_id if a not in kept)]:
        support = f"{by_id[article_id]['support']:.2f}"
        if article_id in measured:
            verdicts.append(
                {
                    "article_id": article_id,
                    "applicable": True,
                    "reason": measured[article_id],
                    "checks": [],
                    "decided_by": MEASURE,
                }
            )
            continue
        if article_id in asked:
            why = label("asked", lang)
        elif article_id in counterparts:
            why = label("counterpart", lang, article=by_id[counterparts[article_id]]["heading"])
        else:
            why = label("kept", lang, support=support)
        verdict = audited.get(article_id)
        if verdict is not None:
            reason = (
                f"{why}{label('clause_separator', lang)}{verdict['reason']}"
                if verdict["applicable"]
                else verdict["reason"]
            )
            verdicts.append({**verdict, "reason": reason})
        elif article_id in kept:
            verdicts.append(
                {"article_id": article_id, "applicable": True, "reason": why, "checks": [], "decided_by": "evidence"}
            )
        else:
            reason = label("not_kept", lang, support=support)
            verdicts.append(
                {
                    "article_id": article_id,
                    "applicable": False,
                    "reason": reason,
                    "checks": [],
                    "decided_by": "evidence",
                }
            )
    return verdicts


def _floor_unmet(article_id: str, question: str) -> Threshold | None:
    """The threshold of ``article_id`` (:mod:`tools.law.thresholds`) that the question's own stated measure falls
    under, or None."""
    threshold = next((t for t in load_thresholds().values() if t.article == article_id), None)
    return threshold if threshold is not None and threshold.shortfall(question) is not None else None


def under_floor(verdicts: list[Verdict], question: str, lang: str) -> list[Verdict]:
    """The verdicts with each kept article whose threshold the question's own stated measure falls under set aside,
    the interpretation's words quoted: a driver who states 45 mg/100 ml has not done 刑法:133-1's 醉酒驾驶 (80 or
    more), whatever the retrieval found; the judge reads the same table (:mod:`tools.law.thresholds`)."""
    out: list[Verdict] = []
    for verdict in verdicts:
        threshold = _floor_unmet(verdict["article_id"], question)
        if verdict["applicable"] and threshold is not None:
            source = threshold.source.split("；")[-1]
            reason = label("under_floor", lang, source=source, source_article=threshold.source_article,
                           quote=threshold.quote)  # fmt: skip
            verdict = {**verdict, "applicable": False, "reason": reason, "decided_by": "contradiction"}
        out.append(verdict)
    return out


def conditional_basis(
    evidence: list[EvidenceItem], concluded: list[str], question: str, lang: str, excluded: Collection[str] = ()
) -> list[str]:
    """The evidence articles that join the concluded ones as a conditional basis (:mod:`tools.retrieval.conditional`:
    support over the fitted floor or among the fitted first few of the evidence articles that may join (fewer
    beside a concluded basis): touched by the question, no criminal law for a question about none, of no institution the
    question is silent on); never one of ``excluded``, nor one whose threshold the question's own stated measure
    falls under (45 mg/100 ml is no 醉酒驾驶: 刑法:133-1 would be read out by its item (二) to a driver it does not
    reach; 道路交通安全法:91 answers them)."""
    rows = [
        {
            "article_id": e["article_id"],
            "support": e["support"],
            "shared": shared_pairs(e["text"], question),
            "signals": e.get("signals") or {},
            "rank": rank,
        }
        for rank, e in enumerate(evidence)
        if e["article_id"] not in excluded and _floor_unmet(e["article_id"], question) is None
    ]
    floor = fitted_conditional_floor(beside=bool(concluded))
    top, beside_top = fitted_conditional_top(), fitted_conditional_top(beside=True)
    return conditional_articles(rows, concluded, question, floor, top, beside_top, lang)


def make_keep_basis(audit: AuditGraph) -> ConsultNode:
    """The consult graph's ``keep_basis`` node over the given audit subgraph."""

    def keep_basis(state: ConsultState, runtime: Runtime[ConsultContext]) -> dict[str, Any]:
        """Keep the evidence articles the keeper supports; audit them against the user's words (veto only)."""
        started = time.perf_counter()
        ctx = runtime.context
        asked = named_in_question(state.evidence) if asks_what_it_provides(state.question, ctx.language) else []
        statutes = get_services().statutes
        # A measure the question states decides first: code compares the number (95 mg/100 ml is 醉酒驾驶).
        measured, evidence = decided_by_measure(state.question, state.evidence, statutes, ctx.language)
        kept = kept_articles(evidence, min(fitted_keeper().max_kept, ctx.audit_k), asked)
        kept = list(dict.fromkeys([*measured, *kept]))
        counterparts, evidence = criminal_counterparts(kept, evidence, statutes)
        kept = [*kept, *counterparts]
        audited = dict(state.audited)
        usage, trace = empty_usage(), []
        if ctx.audit and (unread := [a for a in kept if a not in audited and a not in measured]):
            out = run_audit(audit, user_words(state.question, state.history), unread, ctx, "question")
            audited |= {v["article_id"]: v for v in out["verdicts"]}
            usage, trace = out["usage"], out["trace"]
        verdicts = basis_verdicts(
            evidence, kept, audited if ctx.audit else {}, ctx.language, asked, counterparts, measured
        )
        # A number the question states decides before any reading of its words: under the floor, not concluded.
        verdicts = under_floor(verdicts, state.question, ctx.language)
        vetoed = [v["article_id"] for v in verdicts if v["decided_by"] == "contradiction"]
        concluded = [v["article_id"] for v in verdicts if v["applicable"]]
        # The floor was fitted on Chinese labels (the china pack's laws and consultations): other packs keep one tier.
        joins = ctx.conditional_basis and ctx.language == "zh"
        # A kept article the audit or the reviewer excluded stays out of the conditional tier too.
        conditional = conditional_basis(evidence, concluded, state.question, ctx.language, kept) if joins else []
        return {
            "evidence": evidence,
            "verdicts": verdicts,
            # Their text verbatim from the knowledge graph, in the tier's order.
            "conditional_basis": legal_basis(get_services().statutes.get_articles(conditional), []),
            "audited": audited,
            "usage": usage,
            "trace": [
                *trace,
                trace_event(
                    "keep_basis",
                    started,
                    kept=kept,
                    vetoed=vetoed,
                    asked_article=asked,
                    counterparts=counterparts,
                    measured=list(measured),
                    conditional=conditional,
                ),
            ],
        }

    return keep_basis
