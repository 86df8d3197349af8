"""Which articles the Legal Basis keeps for everyday questions, model-free, as the product searches (no half hidden).

    JURIS_DATA_DIR=$KB/consult JURIS_RERANKER=$G python benchmarks/everyday_basis.py benchmarks/everyday_questions.jsonl

Each question of the file names the articles a lawyer would cite (its ``answer``'s 法律依据, with ``why`` from the
law); the search reads the question alone (no element graph: no model), fuses the evidence as LawSearch does and
keeps what the basis keeper passes, with the Criminal Law articles their liability clauses name. Printed: per
question the kept articles with their support, whether a lawyer's article is among them, and the evidence's top
five; then how many questions keep one, and the kept precision.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agents.basis import criminal_counterparts, kept_articles
from agents.common.evidence import fetch_evidence
from agents.context import ConsultContext
from agents.law_search import RERANKED, nearest_consultations, source_rankings, with_support
from agents.state.consult import EvidenceItem
from app.eval.tasks import gold_articles
from tools.kb.statutes import StatuteRepository
from tools.law.articles import without_references
from tools.retrieval.basis_keeper import fitted_keeper
from tools.retrieval.hybrid import OPTIONAL_SOURCES, route_collections
from tools.retrieval.source_weights import fitted_source_fusion
from tools.services import Services, get_services


def searched(
    question: str, services: Services, ctx: ConsultContext, counts: dict[str, int]
) -> tuple[list[EvidenceItem], list[str]]:
    """(evidence, kept): the evidence LawSearch fuses for ``question`` alone, with support, and the articles the
    keeper keeps with their criminal counterparts (``counts``: each optional source's size)."""
    words = without_references(question)
    neighbours = nearest_consultations(question, services, ctx)
    rankings = source_rankings(
        words, route_collections(words, counts)[0], services, ctx, question, question, neighbours
    )
    return basis_of(rankings, services.statutes, ctx)


def basis_of(
    rankings: dict[str, list[str]], statutes: StatuteRepository, ctx: ConsultContext
) -> tuple[list[EvidenceItem], list[str]]:
    """(evidence, kept) from the sources' rankings, as LawSearch and the keeper make them: fused (with the fusion
    fitted beside the reranker when it ranked anything), supported, kept, with the criminal counterparts."""
    fused = fitted_source_fusion(bool(rankings.get(RERANKED))).fuse(rankings, ctx.top_k)
    evidence = with_support(fetch_evidence(statutes, fused)[0], rankings)
    kept = kept_articles(evidence, min(fitted_keeper().max_kept, ctx.audit_k))
    counterparts, evidence = criminal_counterparts(kept, evidence, statutes)
    return evidence, [*kept, *counterparts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path, help="JSONL: id, question, answer (法律依据: the lawyer's articles)")
    parser.add_argument("--out", type=Path, help="also write the per-question rows here (JSON)")
    args = parser.parse_args()
    services, ctx = get_services(), ConsultContext()
    counts = {c: services.vectors.count(c) for c in OPTIONAL_SOURCES}
    rows = []
    for line in args.questions.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        question, gold = item["question"], set(gold_articles(item))
        evidence, kept = searched(question, services, ctx, counts)
        support = {e["article_id"]: e["support"] for e in evidence}
        rows.append(
            {
                "id": item["id"],
                "kept": kept,
                "kept_gold": [a for a in kept if a in gold],
                "evidence": [(e["article_id"], e["support"]) for e in evidence],
                "gold": sorted(gold),
            }
        )
        mark = "✓" if set(kept) & gold else ("–" if not kept else "✗")
        shown = ", ".join(f"{a} {support[a]:.2f}" for a in kept) or "none kept"
        top = " ".join(f"{a}{'*' if a in gold else ''}" for a, _ in rows[-1]["evidence"])
        print(f"{mark} {item['id']}: {shown}   | evidence: {top}")
    kept_total = sum(len(r["kept"]) for r in rows)
    good = sum(len(r["kept_gold"]) for r in rows)
    covered = sum(bool(r["kept_gold"]) for r in rows)
    print(
        f"\n{covered} of {len(rows)} questions keep a lawyer's article; {sum(not r['kept'] for r in rows)} keep none; "
        f"kept precision {good}/{kept_total}; a lawyer's article in the evidence for "
        f"{sum(bool(set(a for a, _ in r['evidence']) & set(r['gold'])) for r in rows)}"
    )
    if args.out:
        args.out.write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
