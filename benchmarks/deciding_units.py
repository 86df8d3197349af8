"""Which unit of a lawyer's article the answer shows, against the deciding words the everyday set quotes. Model-free.

    python benchmarks/deciding_units.py benchmarks/everyday_questions.jsonl

Each question of the set names the articles a lawyer cites and quotes, in its ``why``, the words of one of them that
decide it. Per (question, article) pair, per half: does the unit the answer shows hold those words (at least 60% of
their character pairs), when the article is concluded (the passage quoted, :func:`agents.claim_check._passage`) and
when it is conditional (the rule read as 如果……则……, :func:`agents.claim_check.conditional_sentences`)? The
retrieval does not enter: this isolates which sentence of an article is shown once it is in the basis.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from agents.claim_check import _passage, conditional_sentences
from agents.state.consult import LegalBasisItem
from app.eval.tasks import gold_articles
from tools.corpus.halves import half_of
from tools.corpus.laws_db import list_laws, load_articles
from tools.corpus.regulations import load_regulations
from tools.law.abbreviations import spelled_out

QUOTE = re.compile(r"「([^」]+)」")
SHARE = 0.6
"""Share of the quote's character pairs the unit shown must hold to show it."""


def _shows(shown: str, quote: str) -> bool:
    words, text = re.sub(r"\s", "", quote), re.sub(r"\s", "", shown)
    pairs = {words[i : i + 2] for i in range(len(words) - 1)}
    return sum(p in text for p in pairs) >= SHARE * max(1, len(pairs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--regulations", type=Path, default=Path("../shared/data/zh/regulations"))
    args = parser.parse_args()
    texts = {a.id: a.text for law in list_laws() for a in load_articles(law)}
    texts |= {a.id: a.text for _, articles in load_regulations(args.regulations).laws for a in articles}
    counts: Counter[tuple[str, str]] = Counter()
    for line in args.questions.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        quotes, question, half = QUOTE.findall(item["why"]), item["question"], half_of(str(item["id"]))
        for article in gold_articles(item):
            text = texts.get(article, "")
            quote = next((q for q in quotes if re.sub(r"\s", "", q) in re.sub(r"\s", "", text)), None)
            if quote is None:
                continue
            basis: LegalBasisItem = {"article_id": article, "law": "", "number": "", "text": text}
            concluded = _shows(_passage(text, spelled_out(question)), quote)
            conditional = _shows(conditional_sentences([basis], "zh", question)[0], quote)
            counts[(half, "pairs")] += 1
            counts[(half, "concluded")] += concluded
            counts[(half, "conditional")] += conditional
            if not (concluded and conditional):
                print(f"{item['id']}\t{article}\tconcluded {concluded}\tconditional {conditional}")
    for half in ("tune", "report"):
        n = counts[(half, "pairs")]
        print(f"{half}: {n} pairs; the deciding words shown, concluded {counts[(half, 'concluded')]}, "
              f"conditional {counts[(half, 'conditional')]}")  # fmt: skip


if __name__ == "__main__":
    main()
