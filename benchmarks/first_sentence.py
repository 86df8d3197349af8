"""Does a consultation's answer open with the law that answers it? Read from a ``jurisgraph eval --task consult`` run.

    python benchmarks/first_sentence.py benchmarks/runs/RUN/results.jsonl DATA.jsonl [--replay]

Per ``full`` answer: whether its first sentence (up to the first 。) cites an article a lawyer cites for the
question (the data file's ``answer``), cites another, cites none, or is the old opening that said nothing decides
it. With ``--replay`` (JURIS_DATA_DIR on the run's KB) an answer with nothing concluded is written again by today's
code from what the run recorded (the question and its conditional articles, read from the KB): that answer is code
only, no model, so the replay is what the product writes now; it also checks that, past its opening, the replay
says what the recorded answer said.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import SimpleNamespace

from agents.claim_check import verify_claims
from agents.common.answers import legal_basis
from agents.context import ConsultContext
from agents.state.consult import ConsultState
from app.eval.runner import read_results
from app.eval.tasks import gold_articles
from prompts import label
from tools.kb.statutes import StatuteRepository
from tools.law.articles import parse_citations
from tools.services import get_services

OLD_OPENING = "现有检索结果不足以直接得出结论"
"""How an answer with nothing concluded opened until session 59."""
OLD_PREFIX = OLD_OPENING + "；下列条文在一定条件下适用，能否适用取决于您的具体情况："


def opening(answer: str, gold: set[str]) -> str:
    """What the answer's first sentence does: ``disclaims`` (the old opening), ``lawyer's`` (cites an article a lawyer
    cites), ``other`` (cites only others) or ``none`` (cites nothing)."""
    first = answer.split("。", 1)[0]
    if first.startswith(OLD_OPENING):
        return "disclaims"
    cited = {a.split("-")[0] for a in parse_citations(first)} | set(parse_citations(first))
    if not cited:
        return "none"
    return "lawyer's" if cited & gold else "other"


def _past_opening(answer: str) -> str:
    """What an answer with nothing concluded says after its first article's sentence, in either wording: the old
    opening, the hedge and the sentence that introduces the other articles set aside."""
    for words in (OLD_PREFIX, label("conditional_turns_on", "zh"), label("conditional_also", "zh")):
        answer = answer.replace(words, "", 1)
    return answer.split("。", 1)[-1]


def replayed(question: str, conditional: list[str]) -> str:
    """The answer today's code writes for ``question`` with nothing concluded and ``conditional`` joined: code's own
    opening, without the model's restatement of it (``phrase_rule``), which only rewords the same article."""
    articles = StatuteRepository(get_services().graph).get_articles(conditional)
    state = ConsultState(question=question, conditional_basis=legal_basis(articles, []))
    context = ConsultContext(phrase_rule=False)
    return str(verify_claims(state, SimpleNamespace(context=context))["response"])  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path)
    parser.add_argument("data", type=Path)
    parser.add_argument("--replay", action="store_true", help="write answers with nothing concluded again")
    args = parser.parse_args()
    items = {row["id"]: row for row in (json.loads(x) for x in args.data.read_text(encoding="utf-8").splitlines())}
    counts: dict[str, int] = {}
    same_tail = replays = 0
    # A committed run's results.jsonl.gz is read through its results.jsonl path, as every run reader does.
    for row in read_results(args.results):
        if row["system"] != "full" or row["item_id"] not in items:
            continue
        item, prediction = items[row["item_id"]], row["prediction"]
        gold = set(gold_articles(item))
        answer = prediction["answer"]
        if args.replay and not prediction.get("basis") and prediction.get("conditional"):
            again = replayed(item["question"], prediction["conditional"])
            replays += 1
            same_tail += _past_opening(answer) == _past_opening(again)
            answer = again
        kind = opening(answer, gold)
        counts[kind] = counts.get(kind, 0) + 1
        print(f"{row['item_id']:32} {kind:10} {answer.split('。', 1)[0][:90]}")
    total = sum(counts.values())
    print(f"\n{total} answers: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if args.replay:
        print(f"replayed {replays} with nothing concluded; the same ending as recorded: {same_tail}")


if __name__ == "__main__":
    main()
