from __future__ import annotations

import math

import pytest

from app.eval.metrics import (
    bootstrap_ci,
    canonical_charges,
    hallucination_risk,
    match_charges,
    micro_prf,
    recall_at_k,
    reciprocal_rank,
    rouge_l,
    set_counts,
    term_log_score,
)
from app.eval.tasks import gold_articles
from tools.law.charge_names import charge_variants, normalise_charge


def test_charge_names_are_normalised_and_bracket_alternatives_expanded() -> None:
    assert normalise_charge(" 盗窃罪 ") == "盗窃"
    assert normalise_charge("[走私、贩卖、运输、制造]毒品") == "走私、贩卖、运输、制造毒品"
    assert charge_variants("[走私、贩卖、运输、制造]毒品") == {
        "走私、贩卖、运输、制造毒品",
        "走私毒品",
        "贩卖毒品",
        "运输毒品",
        "制造毒品",
    }
    # One verb before two objects: each object with the verb.
    assert charge_variants("拐卖妇女、儿童罪") == {"拐卖妇女、儿童", "拐卖妇女", "拐卖儿童"}
    assert charge_variants("强制猥亵、侮辱") == {"强制猥亵、侮辱", "强制猥亵", "强制侮辱"}
    assert charge_variants("窝藏、包庇") == {"窝藏、包庇"}  # two verbs, no object: nothing to expand
    assert charge_variants("组织残疾人、儿童乞讨") == {"组织残疾人、儿童乞讨"}  # verb in front, object behind
    # A judgment's annotation is not part of the name; a bracketed character may be left out or written plainly.
    assert normalise_charge("诈骗（未遂）") == normalise_charge("诈骗(未遂)罪") == "诈骗"
    assert normalise_charge("（单位）非法吸收公众存款") == "非法吸收公众存款"
    assert charge_variants("偷越国（边）境罪") == {"偷越国（边）境", "偷越国境", "偷越国边境"}


def test_charge_matching_counts_each_gold_charge_once() -> None:
    assert match_charges(["贩卖毒品罪", "盗窃"], ["[走私、贩卖、运输、制造]毒品", "盗窃"]) == (2, 2, 2)
    assert match_charges(["贩卖毒品", "运输毒品"], ["[走私、贩卖、运输、制造]毒品"]) == (1, 2, 1)
    assert match_charges([], ["盗窃"]) == (0, 0, 1)


def test_charge_labels_are_rejoined_and_renamed_charges_followed() -> None:
    # The names a charge table knows exactly, and what its looser resolution (single alternatives) finds.
    table = {"盗窃": "盗窃", "故意伤害": "故意伤害", "走私、贩卖、运输、制造毒品": "走私、贩卖、运输、制造毒品"}
    table["伪造、变造居民身份证"] = "伪造、变造、买卖身份证件"  # renamed by Amendment IX

    def named(name: str) -> str | None:
        return table.get(normalise_charge(name))

    def resolve(name: str) -> str | None:
        return named(name) or ("走私、贩卖、运输、制造毒品" if normalise_charge(name) == "贩卖毒品" else None)

    # ljp_dev splits names on 、: the pieces of one name are joined, never two charges into one.
    assert canonical_charges(["盗窃", "伪造", "变造居民身份证"], named, resolve) == ["盗窃", "伪造、变造、买卖身份证件"]
    assert canonical_charges(["故意伤害", "走私", "贩卖", "运输", "制造毒品"], named, resolve) == [
        "故意伤害",
        "走私、贩卖、运输、制造毒品",
    ]
    assert canonical_charges(["贩卖毒品罪", "盗窃罪", "盗窃"], named, resolve) == ["走私、贩卖、运输、制造毒品", "盗窃"]
    # Unknown names stay as written (normalised): a wrong name is not made right.
    assert canonical_charges(["容留他人吸食毒品罪", " "], named, resolve) == ["容留他人吸食毒品"]
    assert canonical_charges(["制造", "贩卖"], named, resolve) == ["制造", "贩卖"]


def test_micro_prf_sums_counts_before_dividing() -> None:
    prf = micro_prf([(1, 2, 1), (0, 1, 2), (2, 2, 2)])
    assert (prf.tp, prf.predicted, prf.gold) == (3, 5, 5)
    assert prf.precision == pytest.approx(0.6) and prf.recall == pytest.approx(0.6) and prf.f1 == pytest.approx(0.6)
    assert micro_prf([]).f1 == 0.0
    assert set_counts(["刑法:264", "刑法:1"], ["刑法:264"]) == (1, 2, 1)


def test_hallucination_risk() -> None:
    assert hallucination_risk(1.0, 1.0) == 0.0
    assert hallucination_risk(0.5, 0.8) == pytest.approx(0.6)


def test_rouge_l_is_character_level_f1() -> None:
    assert rouge_l("危险驾驶罪", "危险驾驶罪") == 1.0
    # LCS of 醉驾构成危险驾驶罪 / 构成危险驾驶 is 6 characters: P = 6/8, R = 6/6.
    assert rouge_l("醉驾构成危险驾驶罪", "构成危险驾驶") == pytest.approx(2 * (6 / 9) * 1 / (6 / 9 + 1))
    assert rouge_l("", "x") == 0.0 and rouge_l("甲", "乙") == 0.0


def test_term_log_score_matches_lawbench_normalisation() -> None:
    assert term_log_score([12], [12]) == 1.0
    expected = (math.log(216) - abs(math.log(7) - math.log(13))) / math.log(216)
    assert term_log_score([6], [12]) == pytest.approx(expected)


def test_ranking_metrics() -> None:
    ranked = ["刑法:1", "刑法:264", "刑法:133-1"]
    assert recall_at_k(ranked, ["刑法:264", "刑法:9"], 2) == 0.5
    assert reciprocal_rank(ranked, ["刑法:133-1"]) == pytest.approx(1 / 3)
    assert reciprocal_rank(ranked, ["刑法:9"]) == 0.0


def test_bootstrap_interval_brackets_the_mean_and_is_reproducible() -> None:
    values = [0.0] * 50 + [1.0] * 50
    low, high = bootstrap_ci(values, lambda xs: sum(xs) / len(xs))  # type: ignore[arg-type]
    assert low < 0.5 < high and low > 0.3 and high < 0.7
    assert bootstrap_ci(values, lambda xs: sum(xs) / len(xs)) == (low, high)  # type: ignore[arg-type]


def test_gold_articles_of_consult_answers_unescape_html_entities() -> None:
    item = {"answer": "回答:……法律依据:《实施&lt;中华人民共和国社会保险法&gt;若干规定》第八条 ……"}
    assert gold_articles(item) == ["实施<中华人民共和国社会保险法>若干规定:8"]
    assert gold_articles({"articles": [264]}) == ["刑法:264"]


def test_lawbench_scores_items_as_its_scorer_does() -> None:
    from app.eval.metrics import lawbench_article_numbers, lawbench_charges, set_f1

    # 3-1: article numbers only (第一百三十三条之一 is 133), other laws are not Criminal Law articles.
    assert lawbench_article_numbers(["刑法:133-1", "刑法:264", "民法典:1", "刑法:条目3"]) == {133, 264}
    # 3-3: every option contained in the prediction's text; a name outside the options is no prediction.
    options = {"诈骗", "合同诈骗", "盗窃"}
    assert lawbench_charges(["合同诈骗"], options) == {"合同诈骗", "诈骗"}
    assert lawbench_charges(["不存在的罪名"], options) == set()
    assert set_f1({"合同诈骗", "诈骗"}, {"合同诈骗"}) == pytest.approx(2 / 3)
    assert set_f1(set(), {"盗窃"}) == 0.0  # an abstention scores 0 and stays in the average
    assert set_f1({1, 2}, {2, 3}) == 0.5
