"""Would the reranker order LawSearch's candidates better with a question adapter learned from answered
consultations? (issue 39; a benchmark, not yet the product)

    JURIS_DATA_DIR=$KB/consult JURIS_RERANKER=$G python benchmarks/query_adapter.py \
        --run benchmarks/runs/s32-consult-retrieval:$D/consult_dev.jsonl \
        --run benchmarks/runs/s32-stard-retrieval:$D/stard_train.jsonl --out benchmarks/runs/s34-query-adapter

The reranker (EmbeddingGemma-300M) embeds the question and orders every other source's candidates by cosine.
Answered consultations say which of those candidates a lawyer cited: a low-rank correction of the question's
vector, q -> normalise(q + U V q), is learned on the tuning halves of both files (softmax over each question's
candidates, gold articles the targets, an L2 penalty on U V), the article vectors staying the shipped ones.

Each configuration is chosen on the tuning halves alone by cross-fitting: the tuning items are split in two
(a salted hash, independent of the halves), each fold's `reranked` ranking comes from the adapter learned on
the other fold, and LawSearch's fusion is refitted (`app.fit.sources.fit_weights`) on those honest rankings;
the report halves are ranked by the adapter learned on the whole tuning halves. Printed per configuration:
the cross-fitted objective (mean over the files of tuning-half R@5), R@5 / R@10 of the refitted fusion and R@5
of `reranked` alone on both halves. Question vectors are cached in OUT (the slow part: about a question a
second on two cores); the results go to OUT/report.md. Needs torch (installed with the reranker).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from agents.law_search import RERANKED
from app.eval.tasks import HALVES, half_of
from app.fit.sources import DEPTH, fit_weights, recall, recorded_rows
from tools.corpus.laws_db import BUNDLED_RERANK_VECTORS
from tools.retrieval.source_weights import SourceFusion, fitted_source_fusion
from tools.retrieval.vector_cache import read_vector_file, text_digest
from tools.retrieval.vectors import STATUTES
from tools.services import get_services

TEMPERATURE = 30.0
"""Cosines times this before the softmax: EmbeddingGemma's cosines of a question's candidates span about 0.2."""
CONFIGURATIONS = ((8, 0.01), (16, 0.003), (16, 0.01), (16, 0.03), (32, 0.01))
"""(rank of U V, L2 penalty) tried; 100 full-batch Adam steps at 3e-3 each."""


@dataclass
class Item:
    id: str
    file: str
    half: str
    rankings: dict[str, list[str]]
    gold: list[str]
    pool: list[int]
    """Rows of the candidates the reranker orders (every other source's top DEPTH), in first-seen order."""
    question: int
    """Row of the question's vector."""


def fold(item_id: str, salt: str) -> int:
    """A cross-fitting fold independent of ``half_of`` (which hashes the bare id)."""
    return int(hashlib.sha256(f"{salt}:{item_id}".encode()).hexdigest(), 16) % 2


def article_vectors() -> tuple[dict[str, int], np.ndarray]:
    """Every statute article's shipped reranker vector (unit rows), by article id."""
    services = get_services()
    ids = list(services.retriever.statute_index().ids)
    texts = services.vectors.texts(STATUTES, ids)
    shipped = read_vector_file(BUNDLED_RERANK_VECTORS)
    position = {d: i for i, d in enumerate(shipped.digests)}
    digests = {a: text_digest(texts[a]) for a in ids if a in texts}
    found = [(a, position[d]) for a, d in digests.items() if d in position]
    vectors = shipped.vectors[[row for _, row in found]].astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return {a: i for i, (a, _) in enumerate(found)}, vectors


def question_vectors(questions: dict[str, str], cache: Path) -> dict[str, np.ndarray]:
    """The reranker's query vectors of ``questions`` (id -> text), read from and added to ``cache``."""
    known: dict[str, np.ndarray] = {}
    if cache.exists():
        with np.load(cache) as saved:
            known = dict(zip((str(i) for i in saved["ids"]), saved["vectors"], strict=True))
    missing = [i for i in questions if i not in known]
    if missing:
        reranker = get_services().reranker.get()
        if reranker is None:
            raise SystemExit(f"no reranker: {get_services().reranker.missing or 'JURIS_RERANKER is off'}")
        for count, item_id in enumerate(missing, 1):
            known[item_id] = np.asarray(reranker.embeddings.embed_query(questions[item_id]), dtype=np.float32)
            if count % 100 == 0 or count == len(missing):
                print(f"\rquestions embedded: {count}/{len(missing)}", end="", flush=True)
                np.savez(cache, ids=np.array(list(known)), vectors=np.stack(list(known.values())))
        print()
    return {i: v / np.linalg.norm(v) for i, v in known.items() if i in questions}


def load(specs: Sequence[str], rows_of: dict[str, int]) -> tuple[list[Item], dict[str, str]]:
    items: list[Item] = []
    questions: dict[str, str] = {}
    for spec in specs:
        file = Path(spec.partition(":")[2]).stem
        for item, rankings, gold in recorded_rows(spec):
            pool = [a for s, ranked in rankings.items() if s != RERANKED for a in ranked]
            rows = [rows_of[a] for a in dict.fromkeys(pool) if a in rows_of]
            item_id = str(item["id"])
            questions[item_id] = str(item["question"])
            items.append(Item(item_id, file, half_of(item_id), rankings, gold, rows, -1))
    return items, questions


def learn(
    items: Sequence[Item], q: np.ndarray, v: np.ndarray, rows_of: dict[str, int], rank: int, l2: float
) -> np.ndarray:
    """The adapter's matrix I + U V learned on ``items``."""
    torch.manual_seed(0)
    examples = []
    for item in items:
        golds = [rows_of[a] for a in item.gold if a in rows_of]
        if golds:
            examples.append((item.question, list(dict.fromkeys([*golds, *item.pool])), len(set(golds))))
    width = max(len(c) for _, c, _ in examples)
    index = np.zeros((len(examples), width), dtype=np.int64)
    mask = np.zeros((len(examples), width), dtype=bool)
    target = np.zeros((len(examples), width), dtype=np.float32)
    for n, (_, candidates, golds) in enumerate(examples):
        index[n, : len(candidates)] = candidates
        mask[n, : len(candidates)] = True
        target[n, :golds] = 1.0 / golds
    questions = torch.from_numpy(q[[e[0] for e in examples]])
    candidates_t, mask_t, target_t = torch.from_numpy(v[index]), torch.from_numpy(mask), torch.from_numpy(target)
    dim = v.shape[1]
    up = (0.01 * torch.randn(dim, rank)).requires_grad_()
    down = torch.zeros(rank, dim, requires_grad=True)
    optimiser = torch.optim.Adam([up, down], lr=3e-3)
    for _ in range(100):
        optimiser.zero_grad()
        delta = up @ down
        adapted = questions + questions @ delta.T
        adapted = adapted / adapted.norm(dim=1, keepdim=True)
        scores = (TEMPERATURE * torch.einsum("nmd,nd->nm", candidates_t, adapted)).masked_fill(~mask_t, -1e9)
        loss = -(torch.log_softmax(scores, 1) * target_t).sum(1).mean() + l2 * (delta**2).sum()
        loss.backward()
        optimiser.step()
    return np.eye(dim, dtype=np.float32) + (up @ down).detach().numpy()


def reranked(item: Item, q: np.ndarray, v: np.ndarray, ids: list[str], matrix: np.ndarray | None) -> list[str]:
    vector = q[item.question] if matrix is None else matrix @ q[item.question]
    scores = v[item.pool] @ (vector / np.linalg.norm(vector))
    return [ids[item.pool[i]] for i in np.argsort(-scores, kind="stable")[:DEPTH]]


def measure(items: Sequence[Item], ranking: Callable[[Item], list[str]], label: str, refit: bool = True) -> str:
    runs: dict[str, list[tuple[str, dict[str, list[str]], list[str]]]] = {}
    for item in items:
        runs.setdefault(item.file, []).append((item.half, {**item.rankings, RERANKED: ranking(item)}, item.gold))
    fusion = fit_weights(runs, fitted_source_fusion(True)) if refit else fitted_source_fusion(True)
    objective = statistics.fmean(recall(rows, fusion, 5, "tune") for rows in runs.values())
    alone = SourceFusion({RERANKED: 1.0})
    cells = [
        f"{recall(rows, fusion, 5, h):.3f} / {recall(rows, fusion, 10, h):.3f} ({recall(rows, alone, 5, h):.3f})"
        for rows in runs.values()
        for h in HALVES
    ]
    weights = json.dumps({k: w for k, w in fusion.weights.items()}, ensure_ascii=False)
    return f"| {label} | {objective:.4f} | {' | '.join(cells)} | {weights}, offset {fusion.offset:g} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", action="append", required=True, help="RUN_DIR:DATA.jsonl (repeatable)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--salt", default="fold", help="the cross-fitting split's hash salt (another: another split)")
    parser.add_argument("--only", help="one configuration RANK:L2 instead of all")
    args = parser.parse_args()
    configurations = [(int(r), float(l2)) for r, l2 in [args.only.split(":")]] if args.only else CONFIGURATIONS
    args.out.mkdir(parents=True, exist_ok=True)
    rows_of, v = article_vectors()
    ids = list(rows_of)
    items, questions = load(args.run, rows_of)
    vectors = question_vectors(questions, args.out / "question_vectors.npz")
    order = list(vectors)
    q = np.stack([vectors[i] for i in order])
    position = {i: n for n, i in enumerate(order)}
    for item in items:
        item.question = position[item.id]
    tune = [i for i in items if i.half == "tune"]
    files = list(dict.fromkeys(i.file for i in items))
    head = " | ".join(f"{f} {h} R@5 / R@10 (reranked alone)" for f in files for h in HALVES)
    lines = [f"| adapter | cross-fitted objective | {head} | refitted fusion |", "|---" * (3 + 2 * len(files)) + "|"]
    lines.append(measure(items, lambda i: reranked(i, q, v, ids, None), "none (shipped reranker)"))
    print(lines[-1], flush=True)
    for rank, l2 in configurations:
        by_fold = {f: learn([i for i in tune if fold(i.id, args.salt) != f], q, v, rows_of, rank, l2) for f in (0, 1)}
        whole = learn(tune, q, v, rows_of, rank, l2)
        matrix = {item.id: by_fold[fold(item.id, args.salt)] if item.half == "tune" else whole for item in items}
        for refit in (False, True):
            label = f"rank {rank}, L2 {l2:g}, {'refitted' if refit else 'shipped'} fusion"
            lines.append(measure(items, lambda i, m=matrix: reranked(i, q, v, ids, m[i.id]), label, refit))
            print(lines[-1], flush=True)
    name = "report.md" if args.salt == "fold" and not args.only else f"report-{args.salt}-{args.only or 'all'}.md"
    (args.out / name.replace(":", "_")).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
