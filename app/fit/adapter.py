"""Learn the reranker's question adapter from answered consultations, and refit LawSearch's fusion beside it.

    JURIS_DATA_DIR=$KB/consult jurisgraph fit adapter RUN_A:DATA_A.jsonl RUN_B:DATA_B.jsonl [--write]

Each RUN is a `jurisgraph eval --task retrieval` directory: its rows record the candidates every source found
(the reranker orders their union), the gold articles come from the data file. The adapter q -> normalise(q +
U V q) of the reranker's question vector is learned on the tuning halves of all the files: a softmax over each
question's candidates at cosine x TEMPERATURE, its gold articles the targets, an L2 penalty on U V; the article
vectors stay the shipped ones (``make rerank-vectors``). Needs torch, which the reranker's
sentence-transformers brings.

LawSearch's fusion weighs the reranker's ordering against its other sources, so it is refitted with the
adapter, on honest rankings: each tuning item is ranked by an adapter learned on the other tuning items of a
salted two-way split (cross-fitting; a fusion fitted on items the adapter learned from would trust it too
much), each report item by the adapter learned on every tuning item (as the product ranks it). Printed: R@5 /
R@10 of the fusion on both halves without an adapter, with it at the shipped fusion and with it refitted,
and R@5 of the reranker's ordering alone. With ``--write`` the adapter (learned on every tuning item) replaces
``tools/retrieval/query_adapter.json`` and the refitted fusion ``tools/retrieval/source_weights.json``, each
with its provenance.

The question vectors are the slow part (about a question a second on two cores): they are cached in
``--cache`` by the text's digest and model, so a second fit embeds nothing.
"""

from __future__ import annotations

import hashlib
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.law_search import RERANKED
from app.eval.tasks import HALVES, half_of
from app.fit.sources import DEPTH, Item, fit, fit_without_reranker, recall, recorded_rows, write_fusion
from tools.corpus.laws_db import BUNDLED_RERANK_VECTORS
from tools.errors import InputError
from tools.fitted import provenance, write_fitted
from tools.llm.embeddings import embeddings_name
from tools.retrieval.query_adapter import BUNDLED_ADAPTER, QueryAdapter
from tools.retrieval.source_weights import SourceFusion, fitted_source_fusion
from tools.retrieval.vector_cache import read_vector_file, text_digest
from tools.retrieval.vectors import STATUTES
from tools.services import get_services

TEMPERATURE = 30.0
"""Cosines times this before the softmax: EmbeddingGemma's cosines of one question's candidates span about 0.2."""
SALTS = ("fold", "a", "b", "c")
"""The cross-fitting splits whose rankings the fusion is fitted on together."""
STEPS = 100
LEARNING_RATE = 3e-3
"""Full-batch Adam steps and their rate: the tuning objective levels off by 100 (docs/results.md, s34)."""


@dataclass
class Question:
    """One answered item of a run, as the adapter sees it."""

    id: str
    file: str
    half: str
    rankings: dict[str, list[str]]
    """Every source's recorded ranking (the reranker's replaced by the adapter's)."""
    gold: list[str]
    pool: list[int]
    """Rows of the candidates the reranker orders (every other source's top DEPTH), first seen first."""
    text: str


@dataclass(frozen=True)
class Articles:
    """The shipped reranker vector of every statute article the KB holds."""

    model: str
    ids: list[str]
    rows: dict[str, int]
    vectors: np.ndarray
    """Unit rows, one per id."""


def fold(item_id: str, salt: str) -> int:
    """The cross-fitting fold of a tuning item: a salted hash, independent of ``half_of`` (which hashes the bare id)."""
    return int(hashlib.sha256(f"{salt}:{item_id}".encode()).hexdigest(), 16) % 2


def article_vectors() -> Articles:
    """The shipped reranker vectors of the KB's statute articles whose text they were made from."""
    services = get_services()
    ids = list(services.retriever.statute_index().ids)
    texts = services.vectors.texts(STATUTES, ids)
    shipped = read_vector_file(BUNDLED_RERANK_VECTORS)
    position = {d: i for i, d in enumerate(shipped.digests)}
    found = [(a, position[d]) for a in ids if a in texts and (d := text_digest(texts[a])) in position]
    if not found:
        where = services.settings.data_dir
        raise InputError(f"no statute of the KB in {where} has a vector in {BUNDLED_RERANK_VECTORS}")
    vectors = shipped.vectors[[row for _, row in found]].astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return Articles(shipped.model, [a for a, _ in found], {a: i for i, (a, _) in enumerate(found)}, vectors)


def question_vectors(texts: Sequence[str], model: str, cache: Path) -> np.ndarray:
    """The reranker's unit question vectors of ``texts`` (rows in order), read from and added to ``cache``."""
    known: dict[str, np.ndarray] = {}
    if cache.is_file():
        with np.load(cache, allow_pickle=False) as saved:
            if str(saved["model"]) == model:
                known = dict(zip((str(d) for d in saved["digests"]), saved["vectors"], strict=True))
    digests = [text_digest(t) for t in texts]
    missing = {d: t for d, t in zip(digests, texts, strict=True) if d not in known}
    if missing:
        reranker = get_services().reranker.get()
        if reranker is None or embeddings_name(reranker.embeddings) != model:
            why = get_services().reranker.missing or f"the reranker is off or not {model}"
            raise InputError(f"cannot embed {len(missing)} questions: {why}")
        for count, (digest, text) in enumerate(missing.items(), 1):
            known[digest] = np.asarray(reranker.embeddings.embed_query(text), dtype=np.float32)
            if count % 100 == 0 or count == len(missing):
                print(f"\rquestions embedded: {count}/{len(missing)}", end="", flush=True)
                cache.parent.mkdir(parents=True, exist_ok=True)
                saved = {"digests": np.array(list(known)), "vectors": np.stack(list(known.values()))}
                np.savez(cache, model=np.array(model), **saved)
        print()
    matrix = np.stack([known[d] for d in digests])
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def load_questions(specs: Sequence[str], articles: Articles) -> list[Question]:
    questions: list[Question] = []
    for spec in specs:
        file = Path(spec.partition(":")[2]).stem
        for item, rankings, gold in recorded_rows(spec):
            pool = [a for source, ranked in rankings.items() if source != RERANKED for a in ranked]
            rows = [articles.rows[a] for a in dict.fromkeys(pool) if a in articles.rows]
            item_id = str(item["id"])
            questions.append(Question(item_id, file, half_of(item_id), rankings, gold, rows, str(item["question"])))
    if not any(q.half == "tune" for q in questions):
        raise InputError(f"no answered tuning-half item with gold articles in {', '.join(specs)}")
    return questions


def learn(questions: Sequence[Question], q: np.ndarray, articles: Articles, rank: int, l2: float) -> QueryAdapter:
    """The adapter learned on ``questions`` (``q``: their unit vectors, rows in order)."""
    import torch  # the reranker's dependency; only a refit needs it

    torch.manual_seed(0)
    examples = []
    for row, question in enumerate(questions):
        golds = list(dict.fromkeys(articles.rows[a] for a in question.gold if a in articles.rows))
        if golds:
            examples.append((row, list(dict.fromkeys([*golds, *question.pool])), len(golds)))
    if not examples:
        raise InputError("no tuning item's gold article has a shipped reranker vector: nothing to learn from")
    width = max(len(c) for _, c, _ in examples)
    index = np.zeros((len(examples), width), dtype=np.int64)
    mask = np.zeros((len(examples), width), dtype=bool)
    target = np.zeros((len(examples), width), dtype=np.float32)
    for n, (_, candidates, count) in enumerate(examples):
        index[n, : len(candidates)] = candidates
        mask[n, : len(candidates)] = True
        target[n, :count] = 1.0 / count
    start = torch.from_numpy(q[[row for row, _, _ in examples]].astype(np.float32))
    candidates_t = torch.from_numpy(articles.vectors[index])
    mask_t, target_t = torch.from_numpy(mask), torch.from_numpy(target)
    dim = articles.vectors.shape[1]
    up = (0.01 * torch.randn(dim, rank)).requires_grad_()
    down = torch.zeros(rank, dim, requires_grad=True)  # starts as the identity: the raw vectors' ranking
    optimiser = torch.optim.Adam([up, down], lr=LEARNING_RATE)
    for _ in range(STEPS):
        optimiser.zero_grad()
        delta = up @ down
        adapted = start + start @ delta.T
        adapted = adapted / adapted.norm(dim=1, keepdim=True)
        scores = (TEMPERATURE * torch.einsum("nmd,nd->nm", candidates_t, adapted)).masked_fill(~mask_t, -1e9)
        loss = -(torch.log_softmax(scores, 1) * target_t).sum(1).mean() + l2 * (delta**2).sum()
        loss.backward()
        optimiser.step()
    u, v = (m.detach().numpy().astype(np.float64) for m in (up, down))
    return QueryAdapter(articles.model, u, v)


def reranked(vector: np.ndarray, pool: Sequence[int], articles: Articles, adapter: QueryAdapter | None) -> list[str]:
    """The reranker's ordering of ``pool``, as ``ArticleReranker.rank`` makes it."""
    query = vector if adapter is None else adapter.apply(vector)
    scores = articles.vectors[list(pool)] @ query
    return [articles.ids[pool[i]] for i in np.argsort(-scores, kind="stable")[:DEPTH]]


def runs_of(questions: Sequence[Question], ranking: Callable[[int, Question], list[str]]) -> dict[str, list[Item]]:
    """The rows ``fit sources`` fits on, the reranker's ordering given by ``ranking(row, question)``."""
    runs: dict[str, list[Item]] = {}
    for row, question in enumerate(questions):
        rankings = {**question.rankings, RERANKED: ranking(row, question)}
        runs.setdefault(question.file, []).append((question.half, rankings, question.gold))
    return runs


def table_row(label: str, runs: Mapping[str, Sequence[Item]], fusion: SourceFusion) -> str:
    alone = SourceFusion({RERANKED: 1.0})
    cells = [
        f"{recall(rows, fusion, 5, h):.3f} / {recall(rows, fusion, 10, h):.3f} ({recall(rows, alone, 5, h):.3f})"
        for rows in runs.values()
        for h in HALVES
    ]
    tune = statistics.fmean(recall(rows, fusion, 5, "tune") for rows in runs.values())
    return f"| {label} | {tune:.3f} | {' | '.join(cells)} |"


def cross_fitted(
    questions: Sequence[Question],
    q: np.ndarray,
    articles: Articles,
    whole: QueryAdapter,
    salt: str,
    rank: int,
    l2: float,
) -> dict[str, list[Item]]:
    """The rows with each tuning item ranked by the adapter learned on the other fold of split ``salt``, each
    report item by ``whole``."""
    tune = [n for n, x in enumerate(questions) if x.half == "tune"]
    folds = {}
    for f in (0, 1):
        rows = [n for n in tune if fold(questions[n].id, salt) != f]
        folds[f] = learn([questions[n] for n in rows], q[rows], articles, rank, l2)
    return runs_of(
        questions,
        lambda row, x: reranked(q[row], x.pool, articles, folds[fold(x.id, salt)] if x.half == "tune" else whole),
    )


def fit_adapter(
    specs: Sequence[str], rank: int, l2: float, salts: Sequence[str], cache: Path, write: bool
) -> QueryAdapter:
    """Learn, print the table, and with ``write`` replace the shipped adapter and fusion."""
    if rank < 1 or l2 < 0 or not salts:
        got = f"got {rank}, {l2}, {list(salts)}"
        raise InputError(f"--rank must be at least 1, --l2 not negative, one --salt at least ({got})")
    articles = article_vectors()
    questions = load_questions(specs, articles)
    q = question_vectors([x.text for x in questions], articles.model, cache)
    tune = [n for n, x in enumerate(questions) if x.half == "tune"]
    whole = learn([questions[n] for n in tune], q[tune], articles, rank, l2)
    splits = {salt: cross_fitted(questions, q, articles, whole, salt, rank, l2) for salt in salts}
    # One fusion for every split: each split's tuning rows count as a file of their own, so the weights do not
    # follow one split's luck (fitted on one split, report R@5 varied by 0.04 between splits).
    pooled = {f"{file} ({salt})": rows for salt, runs in splits.items() for file, rows in runs.items()}
    shipped = fitted_source_fusion(True)
    refitted = fit(pooled, dict(shipped.weights))
    raw = runs_of(questions, lambda row, x: reranked(q[row], x.pool, articles, None))
    head = " | ".join(f"{file} {h} R@5 / R@10 (reranked alone)" for file in raw for h in HALVES)
    print(f"| ranking | tune R@5, mean of files | {head} |\n" + "|---" * (2 + 2 * len(raw)) + "|")
    print(table_row("no adapter, shipped fusion", raw, shipped))
    for salt, adapted in splits.items():
        label = f"adapter rank {rank} L2 {l2:g}, split {salt}"
        print(table_row(f"{label}, shipped fusion", adapted, shipped))
        print(table_row(f"{label}, refitted fusion (offset {refitted.offset:g})", adapted, refitted))
    if write:
        options = " ".join(f"--salt {salt}" for salt in salts)
        command = f"jurisgraph fit adapter {' '.join(specs)} --rank {rank} --l2 {l2:g} {options} --write"
        data = [Path(spec.partition(":")[2]) for spec in specs]
        details: dict[str, Any] = {"runs": [s.partition(":")[0] for s in specs], "rank": rank, "l2": l2}
        details |= {"temperature": TEMPERATURE, "steps": STEPS, "learning_rate": LEARNING_RATE}
        write_fitted(BUNDLED_ADAPTER, whole.values(), provenance(data, "tune", command, **details))
        how = f"by the adapter, cross-fitted on the tuning halves ({len(salts)} splits pooled)"
        # The reranker's ordering is all the splits differ by: one split's rows fit the fusion without it.
        plain = fit_without_reranker(splits[salts[0]])
        write_fusion(pooled, specs, refitted, plain, command, reranked=how)
    return whole
