from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import laws_db_text
from tools.corpus.laws_db import list_laws, load_articles, resolve_laws
from tools.errors import CorpusError, InputError


def test_only_current_laws_are_listed_with_unique_short_names() -> None:
    laws = list_laws()
    assert len(laws) == 353  # 378 in laws.db, less 11 historical versions and 14 repealed acts
    assert len({law.short for law in laws}) == len(laws)


def test_resolve_accepts_short_and_full_names() -> None:
    laws = list_laws()
    chosen = resolve_laws(["刑法", "中华人民共和国民法典", "刑法"], laws)
    assert [law.short for law in chosen] == ["刑法", "民法典"]


def test_unknown_law_is_an_input_error_with_suggestions() -> None:
    with pytest.raises(InputError, match=r"unknown law name\(s\): '刑罚法'.*did you mean"):
        resolve_laws(["刑罚法"], list_laws())


def test_criminal_law_articles_have_stable_ids_and_verbatim_text() -> None:
    (law,) = resolve_laws(["刑法"], list_laws())
    articles = load_articles(law)
    assert len(articles) == 505
    by_id = {a.id: a for a in articles}
    assert len(by_id) == 505
    drunk = by_id["刑法:133-1"]
    assert drunk.label == "第一百三十三条之一"
    assert drunk.suffix == "之一"
    assert drunk.number == 133
    assert drunk.text == laws_db_text("中华人民共和国刑法", "第一百三十三条之一")
    assert "醉酒驾驶机动车" in drunk.text
    assert by_id["刑法:264"].chapter.startswith("第五章")


def test_a_file_that_is_not_laws_db_is_a_corpus_error(tmp_path: Path) -> None:
    bogus = tmp_path / "laws.db"
    bogus.write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(CorpusError, match=r"not a laws\.db statute database"):
        list_laws(bogus)
    with pytest.raises(CorpusError, match="not found"):
        list_laws(tmp_path / "missing.db")
