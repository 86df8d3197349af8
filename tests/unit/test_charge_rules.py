"""Charge-name rules parsed from the real LawRefBook files in ../shared/data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA
from tools.corpus.charge_rules import article_ids, load_charge_rules
from tools.errors import CorpusError

RULES_DIR = SHARED_DATA / "zh" / "interpretations" / "lawrefbook"


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load_charge_rules(RULES_DIR)


def test_article_references_ignore_paragraphs_and_read_suffixes() -> None:
    assert article_ids("第114条、第115条第1款") == ["刑法:114", "刑法:115"]
    assert article_ids("第一百三十三条之二") == ["刑法:133-2"]


def test_base_opinion_and_all_eight_supplements_are_applied_in_date_order(rules) -> None:  # type: ignore[no-untyped-def]
    assert rules.sources[0].startswith("最高人民检察院关于适用刑法分则规定的犯罪的罪名的意见")
    assert len(rules.sources) == 9
    assert "(2024-01-30)" in rules.sources[-1]
    assert rules.articles["盗窃"] == ["刑法:264"]
    assert rules.articles["危险驾驶"] == ["刑法:133-1"]
    assert rules.articles["妨害安全驾驶"] == ["刑法:133-2"]  # supplement VII, amendment note not read as 第二条
    assert rules.articles["投放危险物质"] == ["刑法:114", "刑法:115"]


def test_abolished_and_renamed_charges_resolve_to_their_replacement(rules) -> None:  # type: ignore[no-untyped-def]
    assert "投毒" not in rules.articles
    assert rules.resolve("投毒罪") == "投放危险物质"
    assert rules.resolve("偷税") == "逃税"
    assert rules.resolve("生产、销售假药") == "生产、销售、提供假药"
    assert rules.resolve("徇私舞弊低价折股、出售国有资产") == "徇私舞弊低价折股、出售公司、企业资产"
    assert rules.articles["徇私舞弊低价折股、出售公司、企业资产"] == ["刑法:169"]
    assert rules.resolve("[走私、贩卖、运输、制造]毒品") == "走私、贩卖、运输、制造毒品"
    assert rules.resolve("贩卖毒品") == "走私、贩卖、运输、制造毒品"
    # The 2002 supplement also writes "（取消X罪）", and puts two new charges in one cell, each with its note.
    assert not [name for name in rules.articles if "取消" in name or re.search("[^犯]罪", name)]
    assert rules.articles["国家机关工作人员签订、履行合同失职被骗"] == ["刑法:406"]
    assert rules.resolve("国家机关工作人员签订、履行合同失职") == "国家机关工作人员签订、履行合同失职被骗"
    assert rules.resolve("枉法追诉、裁判") == "徇私枉法" and rules.resolve("枉法裁判") == "民事、行政枉法裁判"
    assert rules.articles["国有公司、企业、事业单位人员失职"] == ["刑法:168"]
    assert rules.articles["玩忽职守"] == rules.articles["滥用职权"] == ["刑法:397"]
    assert rules.resolve("中介组织人员出具证明文件重大失实") == "出具证明文件重大失实"
    # A space inside a name is a line wrap, not two charges.
    assert rules.articles["非法猎捕、收购、运输、出售陆生野生动物"] == ["刑法:341"]


def test_coverage_of_the_cail_charge_labels(rules) -> None:  # type: ignore[no-untyped-def]
    labels = [line.strip() for line in (SHARED_DATA / "zh/cases/cail2018_charges.txt").read_text().splitlines()]
    labels = [label for label in labels if label]
    unmapped = [label for label in labels if rules.resolve(label) is None]
    assert len(labels) == 202
    # CAIL merges some charges into one label (组织、强迫、引诱、容留、介绍卖淫) or uses non-charge labels (经济犯).
    assert len(unmapped) <= 5, unmapped


def test_a_name_holding_a_bracketed_character_is_a_charge(rules) -> None:  # type: ignore[no-untyped-def]
    # 偷越国（边）境罪（第322条）: the bracket inside the name is not the article note after it.
    assert rules.articles["偷越国（边）境"] == ["刑法:322"]
    assert rules.articles["组织他人偷越国（边）境"] == ["刑法:318"]
    assert rules.articles["放行偷越国（边）境人员"] == ["刑法:415"]
    assert rules.resolve("偷越国境") == rules.resolve("偷越国边境") == "偷越国（边）境"
    assert rules.resolve("偷越国(边)境罪") == "偷越国（边）境"


def test_a_directory_without_rules_is_a_corpus_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="no charge-name opinion"):
        load_charge_rules(tmp_path)
