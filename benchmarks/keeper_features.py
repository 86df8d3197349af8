"""Candidate features for the basis keeper, fitted and measured as `jurisgraph fit keeper` fits the shipped ones
(a benchmark, not a test; no model). A feature that moves no report figure is not shipped.

    R=benchmarks/runs
    JURIS_DATA_DIR=$KB/consult python benchmarks/keeper_features.py --feature chapter_share \\
        $R/s45-stard-retrieval:$D/stard_train.jsonl $R/s45-consult-retrieval:$D/consult_dev.jsonl

Features (each added to the ``all`` variant's, one at a time):

- ``chapter_share``: the share of the answered consultations' best-voted articles, the candidate aside, in the
  candidate's chapter (the law's own structure: 押金 questions vote 民法典:394, a mortgage article, while the
  lease chapter holds the other votes).
- ``answer_agreement``: of the nearest answered consultations (the measured item's half hidden) citing the
  candidate, the most of the candidate's character pairs (up to 60) the lawyer's reasoning holds: a citation the
  answer never uses (押金 answered, 394 cited) is read as noise. Reads the neighbours again (minutes).

Printed per feature: its fitted weight, the threshold, and precision / coverage per file and half beside the
shipped features fitted the same way.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from typing import Any

from app.eval.tasks import half_of
from app.fit.keeper import VARIANTS, fit_variant, load_questions, summary
from tools.law.articles import law_of
from tools.retrieval.basis_keeper import VOTES, candidate_features
from tools.retrieval.offence import bigrams
from tools.retrieval.vectors import CONSULTATIONS
from tools.services import get_services

AGREEMENT_PAIRS = 60
"""Character pairs of an article read for agreement: a long article's first paragraphs, about one sentence's."""


@cache
def chapter(article_id: str) -> str:
    """The candidate's law and chapter (第十四章 of 民法典), '' for an article the KB lacks."""
    found = get_services().statutes.get_articles([article_id])
    head = re.match(r"\S+", found[0].chapter or "") if found else None
    return f"{law_of(article_id)}/{head.group(0)}" if head else ""


# Every feature takes (candidate, rankings, item); each reads what it needs.
def chapter_share(article_id: str, rankings: Mapping[str, Sequence[str]], item: Mapping[str, Any]) -> float:  # noqa: ARG001
    votes = list(rankings.get("consultations", ()))[:VOTES]
    own = chapter(article_id)
    return sum(chapter(a) == own for a in votes if a != article_id) / len(votes) if votes and own else 0.0


@cache
def article_pairs(article_id: str) -> frozenset[str]:
    found = get_services().statutes.get_articles([article_id])
    return frozenset(bigrams(found[0].text)) if found else frozenset()


@lru_cache(maxsize=4096)
def neighbours_of(question: str, half: str) -> tuple[tuple[tuple[str, ...], frozenset[str]], ...]:
    """(cited articles, reasoning's character pairs) of the nearest answered consultations, ``half`` hidden."""
    services = get_services()
    found = services.consultations.neighbours(question, VOTES, half)
    meta = services.vectors.metadata(CONSULTATIONS, [n.id for n in found])
    return tuple((n.articles, frozenset(bigrams(str(meta.get(n.id, {}).get("reasoning", ""))))) for n in found)


def answer_agreement(article_id: str, rankings: Mapping[str, Sequence[str]], item: Mapping[str, Any]) -> float:  # noqa: ARG001
    own = article_pairs(article_id)
    if not own:
        return 0.0
    shares = [
        len(own & said) / min(len(own), AGREEMENT_PAIRS)
        for cited, said in neighbours_of(str(item["question"]), half_of(str(item["id"])))
        if article_id in cited
    ]
    return max(shares, default=0.0)


FEATURES = {"chapter_share": chapter_share, "answer_agreement": answer_agreement}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="RUN:DATA.jsonl retrieval runs, as `jurisgraph fit keeper` reads")
    parser.add_argument("--feature", action="append", choices=sorted(FEATURES), required=True)
    args = parser.parse_args()
    shipped = VARIANTS["all"]
    for n, name in enumerate(args.feature):
        extra = FEATURES[name]

        def read(article_id: str, rankings: Mapping[str, Sequence[str]], item: Mapping[str, Any]) -> dict[str, float]:
            return {**candidate_features(article_id, rankings), name: extra(article_id, rankings, item)}  # noqa: B023

        runs = {label: qs["all"] for label, qs in (load_questions(spec, read) for spec in args.runs)}
        # The shipped features' fit is the same whichever extra feature the rows carry: printed once.
        variants = [shipped, (*shipped, name)] if n == 0 else [(*shipped, name)]
        for names in variants:
            model = fit_variant(runs, "all", names)
            weight = model.weights.get(name)
            print(f"## {'with ' + name if weight is not None else 'shipped features'}: weight {weight}, "
                  f"threshold {model.threshold}")  # fmt: skip
            print(json.dumps(summary(runs, {"all": model})["all"], ensure_ascii=False))


if __name__ == "__main__":
    main()
