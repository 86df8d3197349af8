"""Per-item checks the summary needs from the knowledge base, derived when a run is reported (so runs
recorded before a check existed are scored by it too): the claims of a consult answer its basis supports,
whether a judgment's term fits its convicted articles, and LawBench's per-item F1s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.eval.metrics import lawbench_article_numbers, lawbench_charges, set_f1
from app.eval.runner import Result
from tools.kb.charges import ChargeRepository
from tools.kb.statutes import StatuteRepository
from tools.law.claims import SUPPORTED, UNSUPPORTED, check_claims
from tools.law.sentencing import in_range, judgment_allowed, mitigated


def claim_counts(
    result: Result, statutes: StatuteRepository, charges: ChargeRepository, names: set[str], question: str
) -> dict[str, int]:
    """(supported, unsupported) claims of an answer: against its Legal Basis when it has one, else against
    the texts of the articles it cites (the baselines); claims that only repeat the question are left out."""
    prediction = result["prediction"]
    basis = prediction.get("basis")
    if basis is None:
        basis = {a.id: a.text for a in statutes.get_articles(prediction.get("cited_in_kb", prediction["cited"]))}
    defined = charges.charges_of(basis) if names else {}
    verdicts = [v for _, v, _ in check_claims(prediction["answer"], basis, question, names, defined)]
    return {"supported": verdicts.count(SUPPORTED), "unsupported": verdicts.count(UNSUPPORTED)}


def term_fits(result: Result, statutes: StatuteRepository, charges: ChargeRepository, fact: str) -> bool | None:
    """Whether a judgment's term fits what its convicted charges' articles allow (the articles it cites that
    define them, or every defining article when it cites none); None when no such article sets a penalty."""
    prediction = result["prediction"]
    cited = set(prediction.get("articles", []))
    chosen = {
        c: [a for a in ids if a in cited] or ids for c, ids in charges.articles_for(prediction["charges"]).items()
    }
    texts = {c: {a.id: a.text for a in statutes.get_articles(ids)} for c, ids in chosen.items()}
    allowed = judgment_allowed(texts, fact)
    if allowed is None:
        return None
    term = (prediction["term_months"], prediction["life_imprisonment"], prediction["death_penalty"])
    return in_range(*term, allowed, mitigated(sorted(cited), fact))


def derive_checks(
    task: str,
    results: Sequence[Result],
    items: dict[str, dict[str, Any]],
    statutes: StatuteRepository,
    charges: ChargeRepository,
) -> None:
    """Add ``derived`` to every successful result: claim counts (consult), LawBench F1s and the term check
    (ljp, charge). ``items`` are the task file's items by id (their question or fact)."""
    names = charges.names() if charges.has_charges() else set()
    options = names | {c for r in results for c in r["gold"].get("charges", [])}
    for r in results:
        if not r.get("ok") or task not in ("consult", "ljp", "charge"):
            continue
        item = items.get(r["item_id"], {})
        if task == "consult":
            r["derived"] = {"claims": claim_counts(r, statutes, charges, names, item.get("question", ""))}
            continue
        predicted = lawbench_charges(r["prediction"]["charges"], options)
        derived: dict[str, Any] = {
            "lawbench_charge_f1": set_f1(predicted, r["gold"]["charges"]),
            "lawbench_charge_abstained": not predicted,
        }
        if task == "ljp":
            numbers = lawbench_article_numbers(r["prediction"]["articles"])
            derived["lawbench_article_f1"] = set_f1(numbers, lawbench_article_numbers(r["gold"]["articles"]))
            derived["lawbench_article_abstained"] = not numbers
            derived["term_in_range"] = term_fits(r, statutes, charges, item.get("fact", "")) if names else None
        r["derived"] = derived
