"""Fit the article priors on real cases (``make article-priors``).

    JURIS_DATA_DIR=KB jurisgraph fit priors --cases CAIL.jsonl [--cases MORE.jsonl] \
        --exclude DEV.jsonl [...] --rankings RANKINGS.jsonl [--limit 1000] [--out PRIORS.json]

Runs the model-free Researcher (every strategy but the pre-judgment) on ``--limit`` cases of the ``--cases``
files, chosen by a hash of their ids and never one whose fact a dev file (``--exclude``) holds, fuses each
ranking without priors, and counts per article how often it was in the top ten and how often the case cited
it: each article's magnet rate (:mod:`tools.retrieval.article_priors`). Each case's ranking is appended to
``--rankings`` as it is made, so an interrupted run resumes; the priors are written to ``--out`` (default:
the package's file) with the cases' hash and the code's version.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from tqdm import tqdm

from agents.context import JudgeContext
from agents.researcher import fuse_strategies
from agents.state.judge import JudgeInput
from app.eval.runner import code_version
from tools.atomic import write_text_atomic
from tools.corpus.cail import Case, load_cases
from tools.corpus.jsonl import read_jsonl
from tools.retrieval.article_priors import count_priors
from tools.retrieval.research_weights import fitted_research_weights
from tools.services import get_services

PRIOR_DEPTH = 10
"""Appearances count in the fused top ten: the Researcher's evidence and the audit read that far."""


def chosen_cases(paths: list[Path], exclude: list[Path], limit: int) -> list[Case]:
    """The first ``limit`` cases by the SHA-256 of their ids, none whose fact an excluded file holds."""
    held = {row["fact"] for path in exclude for _, row in read_jsonl(path, ("fact",), "a dev item")}
    cases = [case for path in paths for case in load_cases(path) if case.fact not in held]
    cases.sort(key=lambda case: hashlib.sha256(case.id.encode("utf-8")).hexdigest())
    return cases[:limit]


def fit_priors(case_files: Sequence[Path], exclude: Sequence[Path], rankings: Path, limit: int, out: Path) -> None:
    """Rank ``limit`` cases with the model-free Researcher (resuming from ``rankings``), count the priors and
    write them to ``out``."""
    services = get_services()
    companions = services.statutes.penalty_companions()
    from graphs.research import graph as research

    ctx = JudgeContext(feature_extractor="lexical", prejudge="off")
    no_priors = replace(fitted_research_weights(), prior_strength=0.0)
    cases = chosen_cases(list(case_files), list(exclude), limit)
    done: dict[str, list[str]] = {}
    if rankings.exists():
        for line in rankings.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            done[row["id"]] = row["fused"]
    rankings.parent.mkdir(parents=True, exist_ok=True)
    with rankings.open("a", encoding="utf-8") as sink:
        for case in tqdm([c for c in cases if c.id not in done], desc="article priors"):
            # The judge's research pipeline without a model, its strategies fused without the priors being fitted.
            strategies = dict(research.invoke(JudgeInput(fact=case.fact), context=ctx)["rankings"])
            strategies.pop("researcher", None)
            fused = fuse_strategies(strategies, ctx, PRIOR_DEPTH, companions, no_priors)
            done[case.id] = fused
            sink.write(json.dumps({"id": case.id, "fused": fused}, ensure_ascii=False) + "\n")
            sink.flush()
    digest = hashlib.sha256("\n".join(f"{c.id}:{c.content_hash}" for c in cases).encode("utf-8")).hexdigest()
    provenance = {"cases_sha256": digest[:16], "code": code_version()}
    priors = count_priors(((done[c.id], c.articles) for c in cases), PRIOR_DEPTH, provenance)
    write_text_atomic(out, json.dumps(priors.to_json(), ensure_ascii=False, indent=0) + "\n")
    magnets = sorted(priors.ranked, key=priors.magnet_rate, reverse=True)
    print(f"{priors.cases} cases; highest magnet rates (in the top {PRIOR_DEPTH}, not cited):")
    for article_id in magnets[:10]:
        print(f"  {article_id}: {priors.magnet_rate(article_id):.3f}")
    print(f"written to {out}")
