"""The everyday set (benchmarks/everyday_questions.jsonl) holds labels a lawyer would accept: each question names
the articles a lawyer would cite, and its ``why`` quotes the words that decide it, verbatim from one of them."""

from __future__ import annotations

import json
import re
from functools import lru_cache

import pytest

from app.eval.tasks import gold_articles
from tests.conftest import REPO, SHARED_DATA
from tools.corpus.laws_db import list_laws, load_articles
from tools.corpus.regulations import load_regulations

EVERYDAY = REPO / "benchmarks" / "everyday_questions.jsonl"
ITEMS = [json.loads(line) for line in EVERYDAY.read_text(encoding="utf-8").splitlines() if line.strip()]
QUOTE = re.compile(r"「([^」]+)」")


@lru_cache(maxsize=1)
def article_texts() -> dict[str, str]:
    """Every article's text by id: the laws of laws.db and the shared administrative regulations."""
    texts = {a.id: a.text for law in list_laws() for a in load_articles(law)}
    regulations = load_regulations(SHARED_DATA / "zh" / "regulations")
    return texts | {a.id: a.text for _, articles in regulations.laws for a in articles}


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
