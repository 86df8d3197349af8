from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA
from tools.corpus.interpretations import (
    chunk_document,
    criminal_law_refs,
    interpretation_files,
    mark_superseded,
    parse_interpretation,
    provisions,
)
from tools.errors import CorpusError
from tools.llm.tokens import count_tokens

RULES_DIR = SHARED_DATA / "zh" / "interpretations" / "lawrefbook"
MOTOR = (
    "最高人民法院、最高人民检察院关于办理与盗窃、抢劫、诈骗、抢夺机动车相关刑事案件具体应用法律若干问题的解释"
    "(2007-05-09)"
)


def test_criminal_law_references_in_every_written_form() -> None:
    text = (
        "依照刑法第三百一十二条的规定；《中华人民共和国刑法》第一百三十三条之一；《刑法》第264条；"
        "刑法修正案第一条；刑事诉讼法第七条"
    )
    assert criminal_law_refs(text) == ("刑法:312", "刑法:133-1", "刑法:264")


def test_a_real_interpretation_is_chunked_by_article_with_its_citations() -> None:
    interp = parse_interpretation(RULES_DIR / f"{MOTOR}.md")
    assert interp.id == MOTOR and interp.date == "2007-05-09"
    assert interp.title.startswith("最高人民法院、最高人民检察院关于办理与盗窃")
    labels = [c.label for c in interp.chunks]
    assert labels[0] == "序言" and labels[1] == "第一条"
    assert interp.chunks[1].cites == ("刑法:312",)
    assert interp.chunks[1].text.startswith("第一条 明知是盗窃、抢劫、诈骗、抢夺的机动车")
    assert {"刑法:312", "刑法:280"} <= set(interp.cites)


def test_long_articles_are_split_within_the_token_budget(tmp_path: Path) -> None:
    path = tmp_path / "测试解释(2020-01-01).md"
    paragraphs = [f"（{i}）" + "依照刑法第二百六十四条的规定定罪处罚，" * 3 for i in range(12)]
    path.write_text("# 测试解释\n\n<!-- INFO END -->\n\n第一条 总则。\n" + "\n".join(paragraphs), encoding="utf-8")
    interp = parse_interpretation(path, max_tokens=200)
    assert len(interp.chunks) > 2
    assert all(c.label.startswith("第一条（") for c in interp.chunks)
    assert all(count_tokens(c.text) <= 200 for c in interp.chunks)
    assert "\n".join(c.text for c in interp.chunks) == "第一条 总则。\n" + "\n".join(paragraphs)


def test_malformed_inputs_are_corpus_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_text("没有标题的文件", encoding="utf-8")
    with pytest.raises(CorpusError, match="no '# title' line"):
        parse_interpretation(bad)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CorpusError, match="no interpretation markdown files"):
        interpretation_files(empty)
    assert len(interpretation_files(RULES_DIR)) == 439


FOOD = "最高人民法院、最高人民检察院关于办理危害食品安全刑事案件适用法律若干问题的解释"


def test_an_interpretation_a_later_one_repeals_or_replaces_is_marked() -> None:
    names = [f"{FOOD}(2013-05-02)", f"{FOOD}(2021-12-30)", "人民检察院刑事诉讼规则（试行）(2012-11-22)"]
    names += ["人民检察院刑事诉讼规则(2019-12-02)", MOTOR]
    interps = [parse_interpretation(RULES_DIR / f"{name}.md") for name in names]
    before = [i.content_hash for i in interps]
    assert mark_superseded(interps) == 2
    # The 2021 food-safety interpretation's last article repeals the 2013 one (法释〔2013〕12号); the 2019
    # procuratorate rules replace their （试行） version; the motor-vehicle interpretation stays in force.
    assert [i.repealed_by for i in interps] == [names[1], "", names[3], "", ""]
    assert all(new != old for new, old in zip((i.content_hash for i in interps), before, strict=True))


def test_an_interpretation_of_a_law_no_longer_in_force_is_marked() -> None:
    # 民法典 第一千二百六十条 repealed 婚姻法 and 担保法: their interpretations fell with them. 刑法 stands, and a
    # title naming no law is read by the other rules alone.
    names = [
        "最高人民法院关于适用《婚姻法》若干问题的解释（三）(2011-08-09)",
        "最高人民法院关于适用《担保法》若干问题的解释(2000-12-08)",
        MOTOR,
        "最高人民法院关于审理民间借贷案件适用法律若干问题的规定(2020-12-29)",
    ]
    interps = [parse_interpretation(RULES_DIR / f"{name}.md") for name in names]
    assert mark_superseded(interps, {"刑法", "民法典"}) == 2
    assert [i.repealed_by for i in interps] == ["《婚姻法》已废止", "《担保法》已废止", "", ""]
    # Without the laws in force, only the interpretations' own repeals are read.
    again = [parse_interpretation(RULES_DIR / f"{name}.md") for name in names]
    assert mark_superseded(again) == 0


def test_the_provisions_of_an_interpretation_are_articles_cited_by_its_title(tmp_path: Path) -> None:
    loans = parse_interpretation(RULES_DIR / "最高人民法院关于审理民间借贷案件适用法律若干问题的规定(2020-12-29).md")
    info, articles, documents = provisions(loans)
    law = "最高人民法院关于审理民间借贷案件适用法律若干问题的规定"
    assert (info.short, info.full_name, info.department) == (law, law, "最高人民法院")
    by_id = {a.id: a for a in articles}
    rate = by_id[f"{law}:25"]
    assert (rate.label, rate.number, rate.law) == ("第二十五条", 25, law)
    # The text is the law's, without its label, as a statute article's is; quoted in the basis as 《title》第二十五条.
    assert rate.text.startswith("出借人请求借款人按照合同约定利率支付利息的，人民法院应予支持")
    assert rate.heading == f"《{law}》第二十五条"
    # Its vector is its chunk's: the same text is embedded, so nothing is embedded twice.
    chunk = next(c for c in loans.chunks if c.label == "第二十五条")
    assert documents[rate.id] == chunk_document(loans, chunk)
    assert len(articles) == len({c.label for c in loans.chunks if c.label != "序言"})
    # An article split over chunks is one provision, embedded afresh; a heading line is no part of its text.
    path = tmp_path / "最高人民法院关于测试的规定(2020-01-01).md"
    long = "\n".join(f"第{i}款的内容很长很长。" * 30 for i in range(1, 8))
    # A preamble split over chunks is no provision either.
    text = f"# 最高人民法院关于测试的规定\n<!-- INFO END -->\n{long}\n第一条 {long}\n## 第二章\n第二条 短。\n"
    path.write_text(text, encoding="utf-8")
    split = parse_interpretation(path, max_tokens=200)
    _, articles, documents = provisions(split)
    assert [a.label for a in articles] == ["第一条", "第二条"]
    assert len([c for c in split.chunks if c.label.startswith("第一条")]) > 1
    assert "序言（2）" in [c.label for c in split.chunks]
    assert articles[0].text.startswith("第1款的内容很长很长。") and "## 第二章" not in articles[0].text
    assert list(documents) == ["最高人民法院关于测试的规定:2"]


def test_a_reply_numbered_without_articles_has_no_provisions(tmp_path: Path) -> None:
    path = tmp_path / "最高人民法院关于某问题的批复(2001-01-01).md"
    path.write_text("# 最高人民法院关于某问题的批复\n<!-- INFO END -->\n一、答复如下。\n二、此复。\n", encoding="utf-8")
    assert provisions(parse_interpretation(path))[1] == []
