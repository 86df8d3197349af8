from __future__ import annotations

import pytest

from app.services import Services
from tools.retrieval import named_articles

pytestmark = pytest.mark.integration


def test_named_articles_resolve_law_and_number() -> None:
    laws = {"刑法", "道路交通安全法"}
    assert named_articles("《中华人民共和国刑法》第一百三十三条之一怎么理解？", laws) == ["刑法:133-1"]
    assert named_articles("根据刑法第264条，盗窃怎么判", laws) == ["刑法:264"]
    assert named_articles("第九十一条规定了什么", laws) == ["刑法:91", "道路交通安全法:91"]


def test_hybrid_retrieval_finds_the_drunk_driving_article(kb: Services) -> None:
    hits = kb.retriever.retrieve("醉酒驾驶机动车会受到什么处罚？", k=5)
    assert "刑法:133-1" in [h.article_id for h in hits]
    assert all(h.sources for h in hits)


def test_an_article_the_question_names_comes_first(kb: Services) -> None:
    hits = kb.retriever.retrieve("刑法第二百六十四条规定了什么？", k=3)
    assert hits[0].article_id == "刑法:264"
    assert "exact" in hits[0].sources


def test_lexical_tokens_are_cached_on_disk(kb: Services) -> None:
    kb.retriever.retrieve("盗窃", k=1)
    assert kb.retriever.cache_dir is not None
    assert list(kb.retriever.cache_dir.glob("bm25-*.json"))
