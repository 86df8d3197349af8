"""What any judgment, the Adjudicator's or code's, is held to: a charge stands only on an audited article
defining it, the charge scorer's audited proposal is the conviction, and the term stays within what the
convicted charges' articles allow at the tier the facts meet. Shared by the Adjudicator's model call and the
fast profile's code-set judgment (:mod:`agents.adjudicator`).
"""

from __future__ import annotations

from typing import Any

from agents.context import JudgeContext
from agents.state.judge import ScoredCharge, SetAside, Term, TermCheck, no_term
from prompts import label
from tools.kb.cases import get_cases, sentenced_convictions
from tools.kb.charges import ChargeRepository
from tools.law.charge_model import fitted_charge_policy
from tools.law.charge_names import ground_charge, normalise_charge
from tools.law.penalties import penalty_reference
from tools.law.sentencing import Allowed, clamp, judgment_allowed, mitigated, precedent_term
from tools.services import get_services


def supported_charges(
    named: list[str], evidence_articles: set[str], charges: ChargeRepository
) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """(kept, dropped, grounded): a charge is kept only when an audited evidence article defines it. A
    precedent's conviction does not count: it was decided on other facts, and accepting it let precedents'
    charges into judgments whose own articles were pruned. A name the charge table does not know is
    grounded on the charges the evidence articles define (:func:`tools.charges.ground_charge`; ``grounded``
    maps it to them); a known charge no evidence article defines is dropped, not grounded, since 保险诈骗
    is not 诈骗. Without a charge index nothing can be checked and every charge is kept."""
    named = [n for n in named if n.strip()]
    if not charges.has_charges():
        return list(dict.fromkeys(normalise_charge(n) for n in named)), [], {}
    defined = charges.articles_for(named)
    kept: list[str] = []
    dropped: list[str] = []
    grounded: dict[str, list[str]] = {}
    resolved = {raw: charges.resolve(raw) for raw in named}
    # One read of the evidence articles' charges, and only when a name needs grounding.
    evidence_charges = charges.defined_by(evidence_articles) if None in resolved.values() else set()
    for raw in named:
        name = resolved[raw]
        if name and set(defined.get(raw, [])) & evidence_articles:
            kept.append(name)
        elif not name and (found := ground_charge(raw, evidence_charges)):
            kept.extend(found)
            grounded[raw] = found
        else:
            dropped.append(f"charge:{raw}")
    return list(dict.fromkeys(kept)), dropped, grounded


def anchor_conviction(
    charges: list[str], anchors: list[str], evidence_articles: set[str], repository: ChargeRepository
) -> tuple[list[str], list[str]]:
    """(charges, anchored): when the Adjudicator named no charge the evidence supports, the pre-judged
    charges (``anchors``) an audited evidence article defines stand in, so that a fact the audit found
    criminal is not convicted of nothing. They are as traceable as the Adjudicator's own: the same check
    admits them. ``anchored`` names them; it is empty when the Adjudicator's charges stand."""
    if charges or not anchors:
        return charges, []
    anchored, _, _ = supported_charges(anchors, evidence_articles, repository)
    return anchored, anchored


def convict(
    named: list[str],
    proposed: list[str],
    scored: list[ScoredCharge],
    evidence_articles: set[str],
    ctx: JudgeContext,
    floor: float | None = None,
) -> tuple[list[str], list[str], list[SetAside]]:
    """(charges, refused, set_aside): the scorer's proposed charges that the audit left a defining article
    for stand, whatever the Adjudicator wrote (its checklist answers and the family checks were the model's
    verification); a supported charge the Adjudicator adds stands when the scorer gave it at least
    ``floor`` (default: the fitted policy's; else it is refused, named as ``charge:NAME``); a proposed
    charge whose every defining article failed the audit is set aside with that reason. ``named`` are the Adjudicator's
    charges already checked against the evidence (:func:`supported_charges`). Without a scorer's proposal
    the Adjudicator's charges stand as they are."""
    if not proposed:
        return named, [], []
    floor = fitted_charge_policy().floor if floor is None else floor
    by_name = {s["name"]: s for s in scored}
    verified = [c for c in proposed if set(by_name[c]["articles"] if c in by_name else []) & evidence_articles]
    charges = list(verified)
    refused: list[str] = []
    for name in named:
        if name in charges:
            continue
        if name in by_name and by_name[name]["probability"] >= floor:
            charges.append(name)
        else:
            refused.append(f"charge:{name}")
    reason = label("audit_failed", ctx.language)
    set_aside: list[SetAside] = [
        {"name": c, "probability": by_name[c]["probability"] if c in by_name else 0.0, "reason": reason}
        for c in proposed
        if c not in verified
    ]
    return charges[: ctx.max_charges], refused, set_aside


def term_bounds(
    fact: str, charges: list[str], articles: list[str], evidence_articles: set[str], repository: ChargeRepository
) -> tuple[Allowed | None, list[str]]:
    """(allowed, articles): what the convicted charges' articles allow at the tier the facts meet
    (:mod:`tools.law.sentencing`; None when no such article sets a penalty code can read), and ``articles``
    with each convicted charge's defining evidence article and the articles it is punished under added: a
    conviction names the article defining it and its penalty's (受贿: 385, 386 and 383; 行贿: 389 and 390), found
    by the retriever or not. A knowledge base without a charge table ties no charge to its article: the bounds
    are then those of the audited articles the judgment cites."""
    if repository.has_charges():
        ids_of = repository.articles_for(charges)
        defining = {c: [a for a in ids if a in evidence_articles] for c, ids in ids_of.items()}
    else:
        defining = {c: [a for a in articles if a in evidence_articles] for c in charges}
    punished = punished_under(defining)
    allowed = judgment_allowed(punished, fact)
    return allowed, list(dict.fromkeys([*articles, *(a for texts in punished.values() for a in texts)]))


def punished_under(defining: dict[str, list[str]]) -> dict[str, dict[str, str]]:
    """Charge -> the articles it is punished under (id -> text): its defining articles, the article that only
    sets their penalty (382 -> 383, 389 -> 390: :meth:`~tools.kb.statutes.StatuteRepository.penalty_companions`)
    and the one whose penalty such an article applies (386 -> 383: :func:`~tools.law.penalties.penalty_reference`).
    A penalty is the statute's consequence of the conviction, not a fact to audit: read from the audited
    articles alone, a 受贿 whose 383 the retriever did not find could be given no sentence."""
    statutes = get_services().statutes
    companions = statutes.penalty_companions()
    chains = {
        c: list(dict.fromkeys(x for a in ids for x in (a, companions.get(a)) if x)) for c, ids in defining.items()
    }
    texts = {a.id: a.text for a in statutes.get_articles(list({a for ids in chains.values() for a in ids}))}
    referred = {a: r for a, text in texts.items() if (r := penalty_reference(a, text))}
    texts |= {a.id: a.text for a in statutes.get_articles(sorted(set(referred.values()) - texts.keys()))}
    return {
        c: {x: texts[x] for a in ids for x in (a, referred.get(a)) if x and x in texts} for c, ids in chains.items()
    }


def bounded_term(term: Term, allowed: Allowed, articles: list[str], fact: str) -> tuple[Term, TermCheck]:
    """``term`` moved into ``allowed`` (below its floor only where ``articles`` or the fact allow 减轻处罚), and
    the record of it."""
    eased = mitigated(articles, fact)
    months, life, death = clamp(term["months"], term["life"], term["death"], allowed, eased)
    check: TermCheck = {
        "low": allowed.low,
        "high": allowed.high,
        "life": allowed.life,
        "death": allowed.death,
        "articles": list(allowed.articles),
        "mitigated": eased,
        "fine": "罚金" in allowed.kinds,
        "corrected": (months, life, death) != (term["months"], term["life"], term["death"]),
        "original": term,
    }
    return {"months": months, "life": life, "death": death}, check


def check_term(
    term: Term,
    fact: str,
    charges: list[str],
    articles: list[str],
    evidence_articles: set[str],
    repository: ChargeRepository,
) -> tuple[Term, TermCheck | None, list[str]]:
    """(term, check, articles): the judgment's term moved into its :func:`term_bounds`, the record of it (None
    when code reads no bounds), and the articles with each convicted charge's defining one."""
    if not charges:
        return term, None, articles
    allowed, articles = term_bounds(fact, charges, articles, evidence_articles, repository)
    if allowed is None:
        return term, None, articles
    term, check = bounded_term(term, allowed, articles, fact)
    return term, check, articles


def precedent_sentence(
    fact: str, charges: list[str], repository: ChargeRepository, limit: int
) -> tuple[Term, list[str]]:
    """(term, precedents): the median sentence of the ``limit`` judgments most like ``fact`` (the case index's
    BM25) among those convicted of exactly ``charges`` that record their sentence, else among those convicted of
    one of them, and the ids of those it was taken from; no term without any. A precedent also convicted of
    another offence carries that offence's sentence: the median of a judgment's shown precedents, three of five
    also convicted of 抢劫, gave a 2,300-yuan theft three years. A judgment that gives no sentence (CMDL's) is no
    precedent for one: counted as 0 months, it sent a tomb robbery to 免予刑事处罚."""
    convictions = sentenced_convictions(repository.store, charges)
    wanted = frozenset(charges)
    index = get_services().case_index.index()
    hits: list[str] = []
    for pool in ({i for i, c in convictions.items() if c == wanted}, set(convictions)):
        # A fact sharing no word with any of them still gets the pool's first: they are convicted as it is.
        found = index.search(fact, limit, skip_identical=True, keep=pool.__contains__, distinct=True)
        hits = [i for i, _ in found] or sorted(pool)[:limit]
        if hits:
            break
    cases = get_cases(repository.store, hits)
    median = precedent_term([(c.term_months or 0, c.life_imprisonment, c.death_penalty) for c in cases])
    months, life, death = median or (0, False, False)
    return {"months": months, "life": life, "death": death}, [c.id for c in cases]


def ungrounded(charges: list[str], articles: list[str], term_check: TermCheck | None, checked: bool) -> str:
    """The label of why a judgment can give no sentence, or '' when it can: a sentence needs a convicted
    charge and an article of the knowledge base, and, when the sentencing guard ran (``checked``), a penalty
    the term was checked against. Every path to a judgment (the model's, code's) ends here."""
    if not charges:
        return "undecided_no_charge"
    if not articles:
        return "undecided_no_article"
    if checked and term_check is None:
        return "undecided_unchecked_term"
    return ""


def grounded_judgment(decided: dict[str, Any], checked: bool, language: str) -> dict[str, Any]:
    """``decided`` as it stands when it has grounds; otherwise with no sentence and ``undecided`` (also its
    reasoning, which may not state a sentence) saying why; charges that rest on no article are not shown as a
    conviction but reported with the dropped (``charge:NAME``)."""
    why = ungrounded(decided["charges"], decided["articles"], decided["term_check"], checked)
    if not why:
        return {**decided, "undecided": ""}
    reason = label(why, language)
    out = {**decided, "term": no_term(), "term_check": None, "reasoning": reason, "undecided": reason}
    if why == "undecided_no_article":
        out["dropped"] = [*decided["dropped"], *(f"charge:{c}" for c in decided["charges"])]
        out["charges"] = []
    return out
