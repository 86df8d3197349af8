"""The everyday set (benchmarks/everyday_questions.jsonl) holds labels a lawyer would accept: each question names
the articles a lawyer would cite, and its ``why`` quotes the words that decide it, verbatim from one of them."""

from __future__ import annotations

import json
import re

import pytest

from app.eval.tasks import gold_articles
from tests.conftest import REPO, article_texts

EVERYDAY = REPO / "benchmarks" / "everyday_questions.jsonl"
ITEMS = [json.loads(line) for line in EVERYDAY.read_text(encoding="utf-8").splitlines() if line.strip()]
QUOTE = re.compile(r"「([^」]+)」")


def test_the_set_is_large_enough_and_its_ids_are_unique() -> None:
    assert len(ITEMS) >= 60
    assert len({item["id"] for item in ITEMS}) == len(ITEMS)


@pytest.mark.parametrize("item", ITEMS, ids=[item["id"] for item in ITEMS])
def test_each_why_quotes_the_deciding_words_of_one_of_its_articles(item: dict[str, str]) -> None:
    articles = gold_articles(item)
    assert articles, f"{item['id']}: its answer cites no article"
    quotes = QUOTE.findall(item["why"])
    assert quotes, f"{item['id']}: its why quotes nothing"
    texts = article_texts()
    assert all(a in texts for a in articles), f"{item['id']}: {[a for a in articles if a not in texts]} not in force"
    for quote in quotes:
        found = [a for a in articles if re.sub(r"\s", "", quote) in re.sub(r"\s", "", texts[a])]
        assert found, f"{item['id']}: 「{quote}」 is in none of {articles}"
