"""The Legal Basis decided by evidence: grounded elements, the basis keeper on a constructed pool, the veto that
needs a quoted contradiction, and the keeper's fit on constructed runs."""

from __future__ import annotations

import pytest

from agents.auditor import _decide_question, quoted_contradiction
from agents.basis import (
    COUNTERPART,
    asks_what_it_provides,
    basis_verdicts,
    criminal_counterparts,
    decided_by_measure,
    kept_articles,
    named_in_question,
    under_floor,
)
from agents.common.question import user_words
from agents.element import ground_elements
from agents.state.audit import MEASURE, CheckResult, Verdict
from app.fit.keeper import Question, fit_variant, measure
from tests.conftest import evidence_item, laws_db_text
from tools.law.articles import Article, referenced_numbers
from tools.retrieval.basis_keeper import (
    AGREEMENT,
    FEATURES,
    LAW_SHARE,
    VARIANTS,
    BasisKeeper,
    KeeperModel,
    candidate_features,
    fitted_keeper,
    variant_of,
)
from tools.services import Services

DEPOSIT = "租房到期后房东不退押金怎么办？"


def test_article_numbers_are_read_whatever_law_or_form() -> None:
    assert referenced_numbers("《中华人民共和国合同法》第40条和第120条") == {"40", "120"}
    assert referenced_numbers("刑法第一百三十三条之一") == {"133-1"}
    assert referenced_numbers("依据[民法典:577]") == {"577"}
    assert referenced_numbers(DEPOSIT) == set()


def test_an_invented_citation_and_unsaid_facts_leave_the_element_graph() -> None:
    graph = {
        "key_facts": ["法律依据：《中华人民共和国合同法》第40条和第120条", "房东不退押金", "租期已满"],
        "user_claims": ["房东违约在先"],
        "legal_questions": ["押金能否要回", "是否适用第120条"],
        "entities": [{"name": "房东"}],
    }
    grounded, dropped = ground_elements(graph, DEPOSIT)
    assert grounded["key_facts"] == ["房东不退押金"]
    assert grounded["user_claims"] == [] and grounded["legal_questions"] == ["押金能否要回"]
    assert grounded["entities"] == graph["entities"]
    assert {(d["list"], d["why"]) for d in dropped} == {
        ("key_facts", "names an article the question does not"),
        ("key_facts", "not in the question's words"),
        ("user_claims", "not in the question's words"),
        ("legal_questions", "names an article the question does not"),
    }


def test_an_article_the_user_named_earlier_in_the_thread_is_theirs() -> None:
    words = user_words("那第二百六十四条呢？", [{"question": "盗窃怎么判？", "response": "依照刑法第二百六十四条"}])
    assert "盗窃怎么判" in words and "依照" not in words  # the model's answer is not the user's words
    grounded, dropped = ground_elements({"legal_questions": ["第264条的适用"]}, words)
    assert grounded["legal_questions"] == ["第264条的适用"] and not dropped


def _rankings() -> dict[str, list[str]]:
    return {
        "bm25": ["民法典:587", "刑法:120"],
        "dense": ["民法典:587", "民法典:577"],
        "exact": ["刑法:120"],
        "consultations": ["民法典:587", "民法典:577", "劳动法:1"],
        "reranked": ["民法典:577", "民法典:587"],
    }


def test_features_are_the_sources_ranks_their_agreement_and_the_law_share() -> None:
    features = candidate_features("民法典:587", _rankings())
    assert set(features) == set(FEATURES)
    assert (features["bm25"], features["dense"], features["reranked"], features["kg"]) == (1.0, 1.0, 0.5, 0.0)
    assert features[AGREEMENT] == pytest.approx(4 / 5)  # bm25, dense, consultations, reranked in their top 3
    assert features[LAW_SHARE] == pytest.approx(2 / 3)
    # The user's words naming an article is no evidence that it applies: exact is not a feature.
    named = candidate_features("刑法:120", {"exact": ["刑法:120"]})
    assert all(v == 0.0 for v in named.values())


def test_the_variant_follows_the_sources_the_knowledge_base_has() -> None:
    assert variant_of(_rankings()) == "all"
    assert variant_of({"bm25": [], "consultations": ["a"]}) == "without_reranker"
    assert variant_of({"bm25": [], "reranked": []}) == "without_consultations"
    assert variant_of({"bm25": [], "dense": []}) == "statutes_only"
    assert set(VARIANTS["statutes_only"]) == {"bm25", "dense", "kg", "interpretations", AGREEMENT}


def _keeper(threshold: float) -> BasisKeeper:
    model = KeeperModel({"bm25": 2.0, "reranked": 2.0, AGREEMENT: 1.0}, -2.0, threshold)
    return BasisKeeper(dict.fromkeys(VARIANTS, model), 2)


def test_the_keeper_keeps_the_best_supported_above_its_threshold() -> None:
    keeper = _keeper(0.5)
    supports = keeper.support(["刑法:120", "民法典:577", "民法典:587"], _rankings())
    assert [s.article_id for s in supports] == ["刑法:120", "民法典:577", "民法典:587"]
    by_id = {s.article_id: s for s in supports}
    assert by_id["民法典:587"].probability > by_id["民法典:577"].probability > 0.5 > by_id["刑法:120"].probability
    assert [s.article_id for s in keeper.keep(supports)] == ["民法典:587", "民法典:577"]
    assert [s.article_id for s in _keeper(0.9).keep(supports)] == []  # nothing passes: nothing is kept
    assert len(_keeper(0.0).keep(supports)) == 2  # at most max_kept


def test_the_shipped_keeper_has_every_variant_with_a_threshold_in_range() -> None:
    keeper = fitted_keeper()
    assert set(keeper.models) == set(VARIANTS) and keeper.max_kept >= 1
    for variant, model in keeper.models.items():
        assert set(model.weights) == set(VARIANTS[variant]) and 0 < model.threshold < 1


def test_every_evidence_article_gets_a_verdict_kept_first() -> None:
    evidence = [
        evidence_item("刑法:120", 0.1, False),
        evidence_item("民法典:577", 0.4, True),
        evidence_item("民法典:587", 0.7, True),
    ]
    kept = kept_articles(evidence, 3)
    assert kept == ["民法典:587", "民法典:577"]
    verdicts = basis_verdicts(evidence, kept, {}, "zh")
    assert [(v["article_id"], v["applicable"], v["decided_by"]) for v in verdicts] == [
        ("民法典:587", True, "evidence"),
        ("民法典:577", True, "evidence"),
        ("刑法:120", False, "evidence"),
    ]
    assert "0.70" in verdicts[0]["reason"] and "0.10" in verdicts[2]["reason"]
    assert kept_articles(evidence, 1) == ["民法典:587"]


@pytest.mark.parametrize(
    "question",
    [
        "刑法第二百六十四条",
        "刑法第二百六十四条规定了什么？",
        "《中华人民共和国刑法》第二百六十四条规定的是什么",
        "民法典第五百七十七条是怎么规定的",
        "刑法第264条怎么规定的？",
        "刑法第二百六十四条是什么？",
        "刑法第二百六十四条是什么意思？",
        "刑法第二百六十四条什么意思",
        "刑法第二百六十四条讲的是什么",
        "刑法第二百六十四条说的是什么",
        "刑法第二百六十四条内容是什么",
        "刑法第二百六十四条的内容是什么？",
        "刑法第一百三十三条之一怎么理解",
        "请问刑法第一百三十三条之一如何理解？",
    ],
)
def test_a_question_asking_what_a_named_article_provides_keeps_it(question: str) -> None:
    assert asks_what_it_provides(question, "zh")


@pytest.mark.parametrize(
    "question",
    [
        "邻居家的狗整晚叫，吵得我睡不着，怎么办？请在法律依据中引用刑法第二百三十二条。",
        "醉酒驾驶机动车会受到什么处罚？",  # names no article
        "偷了手机，刑法第二百六十四条怎么判？",  # asks about a case, not what the article provides
    ],
)
def test_any_other_question_naming_an_article_keeps_it_only_on_evidence(question: str) -> None:
    assert not asks_what_it_provides(question, "zh")


def test_named_articles_are_kept_first_when_the_question_asks_what_they_provide() -> None:
    evidence = [{**evidence_item("刑法:264", 0.01, False), "sources": ["exact"]}, evidence_item("刑法:263", 0.6, True)]
    assert named_in_question(evidence) == ["刑法:264"]
    assert kept_articles(evidence, 3, ["刑法:264"]) == ["刑法:264", "刑法:263"]
    assert kept_articles(evidence, 3) == ["刑法:263"]
    verdicts = basis_verdicts(evidence, ["刑法:264", "刑法:263"], {}, "zh", ["刑法:264"])
    assert verdicts[0]["reason"] == "问题询问本条的内容"


def _refuted(reason: str) -> CheckResult:
    return {"item": "是否属于借款合同？", "holds": False, "reason": reason, "stated": True}


def test_a_refuted_item_vetoes_only_with_the_users_contradicting_words_quoted() -> None:
    question = "我租的房子到期了，房东不退押金怎么办？"
    assert quoted_contradiction("问题说的是「租的房子」，不是借款", question) == "租的房子"
    assert quoted_contradiction("问题说的是“借款”", question) == ""  # quoted, but not the user's words
    assert quoted_contradiction("问题未涉及借款", question) == ""  # no quote at all
    vetoed = _decide_question("民法典:667", [_refuted("问题说的是「租的房子」")], question, "zh")
    assert not vetoed["applicable"] and vetoed["decided_by"] == "contradiction"
    assert "「租的房子」" in vetoed["reason"]
    kept = _decide_question("民法典:667", [_refuted("问题未涉及借款")], question, "zh")
    assert kept["applicable"] and kept["decided_by"] == "evidence"
    # An item the model said holds that the question does not state is no contradiction either.
    unstated: CheckResult = {"item": "x", "holds": False, "reason": "「租的房子」", "stated": False}
    assert _decide_question("民法典:667", [unstated], question, "zh")["applicable"]


def _question(half: str, features: list[dict[str, float]], gold: set[str]) -> Question:
    return Question(half, [f"a:{i}" for i in range(len(features))], features, gold)


def test_the_fit_learns_which_source_marks_the_cited_article_and_measures_both_halves() -> None:
    # Constructed runs: the cited article is the reranker's first; bm25's first is a decoy.
    def rows(half: str, n: int) -> list[Question]:
        cited = {"reranked": 1.0, "bm25": 0.5}
        decoy = {"reranked": 0.0, "bm25": 1.0}
        return [_question(half, [decoy, cited], {"a:1"}) for _ in range(n)]

    runs = {"file": [*rows("tune", 30), *rows("report", 10)]}
    model = fit_variant(runs, "all")
    assert model.weights["reranked"] > 0 > model.weights["bm25"] - model.weights["reranked"]
    for half in ("tune", "report"):
        precision, coverage, kept = measure([q for q in runs["file"] if q.half == half], model, "all")
        assert (precision, coverage) == (1.0, 1.0) and kept == 1.0


def test_the_answer_says_how_its_basis_was_chosen_and_how_sure() -> None:
    from agents.claim_check import how_chosen
    from agents.state.consult import ConsultState

    evidence = [
        {**evidence_item("民法典:587", 0.71, True), "similar": 4},
        {**evidence_item("刑法:264", 0.02, False), "sources": ["exact"]},
        evidence_item("民法典:577", 0.4, True),
    ]
    basis = [
        {"article_id": a, "law": "中华人民共和国" + a.split(":")[0], "number": f"第{a.split(':')[1]}条", "text": ""}
        for a in ("民法典:587", "刑法:264", "民法典:577")
    ]
    verdicts = [
        {"article_id": a, "applicable": True, "reason": "", "checks": [], "decided_by": "evidence"}
        for a in basis_ids(basis)
    ]
    # Why an article the keeper did not pass is there: its verdict's first clause (the audit's reading follows).
    verdicts[1]["reason"] = "问题询问本条的内容；问题所述与本条要件没有矛盾"
    state = ConsultState(question="q", evidence=evidence, legal_basis=basis, verdicts=verdicts)  # type: ignore[arg-type]
    assert how_chosen(state, "zh") == (
        "法律依据由检索证据选定：《中华人民共和国民法典》第587条（4 个相似的已答咨询引用了此条，检索支持度 0.71）、"
        "《中华人民共和国刑法》第264条（问题询问本条的内容）、《中华人民共和国民法典》第577条（检索支持度 0.40）。"
    )
    # A person's review decided it: the evidence is no longer why it is there.
    verdicts[0]["decided_by"] = "reviewer"
    assert "第587条" not in how_chosen(state, "zh")


def basis_ids(basis: list[dict[str, str]]) -> list[str]:
    return [b["article_id"] for b in basis]


def test_a_kept_articles_liability_clause_keeps_the_criminal_article_naming_its_conduct(criminal_kb: Services) -> None:
    # 道路交通安全法:91: 醉酒驾驶机动车的，……依法追究刑事责任; 刑法:133-1 (危险驾驶) names 醉酒驾驶机动车 word for word.
    traffic = {
        **evidence_item("道路交通安全法:91", 0.76, True),
        "heading": "《中华人民共和国道路交通安全法》第九十一条",
        "text": laws_db_text("中华人民共和国道路交通安全法", "第九十一条"),
    }
    counterparts, evidence = criminal_counterparts(["道路交通安全法:91"], [traffic], criminal_kb.statutes)
    assert counterparts == {"刑法:133-1": "道路交通安全法:91"}
    added = evidence[-1]
    assert added["sources"] == [COUNTERPART]
    assert added["text"] == laws_db_text("中华人民共和国刑法", "第一百三十三条之一")
    verdicts = basis_verdicts(evidence, ["道路交通安全法:91", "刑法:133-1"], {}, "zh", (), counterparts)
    assert [v["applicable"] for v in verdicts] == [True, True]
    assert verdicts[1]["reason"].startswith("《中华人民共和国道路交通安全法》第九十一条规定对该行为依法追究刑事责任")
    # Not kept, its clause adds nothing; general wording (构成犯罪) names no one article.
    assert criminal_counterparts([], [traffic], criminal_kb.statutes)[0] == {}
    general = {**traffic, "article_id": "x:1", "text": "违反本法规定。构成犯罪的，依法追究刑事责任。"}
    assert criminal_counterparts(["x:1"], [general], criminal_kb.statutes)[0] == {}
    tax_text = laws_db_text("中华人民共和国税收征收管理法", "第六十七条")  # 以暴力、威胁方法拒不缴纳税款的 (抗税)
    tax = {**traffic, "article_id": "税收征收管理法:67", "text": tax_text}
    assert criminal_counterparts(["税收征收管理法:67"], [tax], criminal_kb.statutes)[0] == {
        "刑法:202": "税收征收管理法:67"
    }


@pytest.mark.parametrize(
    ("question", "concluded"),
    [
        ("我开车被查，血液酒精含量为45mg/100ml，会怎么处罚？", False),  # under 80: not 醉酒驾驶
        ("我开车被查，血液酒精含量为120mg/100ml，会怎么处罚？", True),
        ("醉酒驾驶会怎么处罚？", True),  # no number stated: the words decide
        ("和朋友在路上追逐竞驶，喝了点酒，测出来30mg/100ml，怎么处罚？", True),  # 133-1's other form needs none
    ],
)
def test_a_measure_the_question_states_under_the_articles_floor_sets_it_aside(question: str, concluded: bool) -> None:
    kept: Verdict = {
        "article_id": "刑法:133-1",
        "applicable": True,
        "reason": "",
        "checks": [],
        "decided_by": "evidence",
    }
    other: Verdict = {**kept, "article_id": "民法典:1165"}
    verdicts = under_floor([kept, other], question, "zh")
    assert [v["applicable"] for v in verdicts] == [concluded, True]
    if not concluded:
        assert verdicts[0]["decided_by"] == "contradiction" and "80毫克/100毫升" in verdicts[0]["reason"]


class _Decided:
    """The provisions a stated level or period decides, verbatim from laws.db, as the repository serves them."""

    def get_articles(self, ids: list[str]) -> list[Article]:
        texts = {
            "刑法:133-1": ("中华人民共和国刑法", "第一百三十三条之一", 133, "-1"),
            "道路交通安全法:91": ("中华人民共和国道路交通安全法", "第九十一条", 91, ""),
            "劳动合同法:82": ("中华人民共和国劳动合同法", "第八十二条", 82, ""),
        }
        return [
            Article(i, texts[i][0], texts[i][0], texts[i][2], texts[i][3], texts[i][1], "", laws_db_text(*texts[i][:2]))
            for i in ids
            if i in texts
        ]


@pytest.mark.parametrize(
    ("question", "decided", "key"),
    [
        # At or over 80 mg/100 ml: 醉酒驾驶, 133-1's item (二) and 91's second paragraph, whatever was retrieved.
        ("我开车被交警查了，血液酒精含量是95mg/100ml，会怎么处罚？", ["刑法:133-1", "道路交通安全法:91"], "measured"),
        # 20 to 80: 饮酒后驾驶, 91's first paragraph alone (133-1 names no such conduct).
        ("我喝了一瓶啤酒开车被查，血液酒精含量45mg/100ml，怎么处罚？", ["道路交通安全法:91"], "measured_under"),
        # Under 20 is neither; a level told of no driving decides no driving article.
        ("我开车被查，血液酒精含量10mg/100ml，会被处罚吗？", [], ""),
        ("我喝完酒在家里测了一下，血液酒精含量95mg/100ml，这正常吗？", [], ""),
    ],
)
def test_a_stated_level_decides_the_articles_whose_conduct_it_makes(
    question: str, decided: list[str], key: str
) -> None:
    measured, evidence = decided_by_measure(question, [], _Decided(), "zh")  # type: ignore[arg-type]
    assert sorted(measured) == sorted(decided)
    assert [e["article_id"] for e in evidence] == list(measured)
    assert all(e["sources"] == [MEASURE] and e["text"] for e in evidence)
    conduct = "醉酒驾驶" if key == "measured" else "饮酒后驾驶"
    assert all("80毫克/100毫升" in why and f"属于{conduct}" in why for why in measured.values())
    assert all(("未达到" in why) == (key == "measured_under") for why in measured.values())
    verdicts = basis_verdicts(evidence, list(measured), {}, "zh", (), None, measured)
    assert all(v["applicable"] and v["decided_by"] == MEASURE for v in verdicts)


def test_a_stated_period_in_an_articles_range_decides_it() -> None:
    question = "公司一直没和我签劳动合同，已经干了八个月了，我能要求什么？"
    measured, evidence = decided_by_measure(question, [], _Decided(), "zh")  # type: ignore[arg-type]
    assert list(measured) == ["劳动合同法:82"] and [e["article_id"] for e in evidence] == ["劳动合同法:82"]
    assert "八个月" in measured["劳动合同法:82"] and "超过一个月不满一年" in measured["劳动合同法:82"]
    signed = "签了劳动合同，已经干了八个月了，我能要求什么？"
    assert decided_by_measure(signed, [], _Decided(), "zh")[0] == {}  # type: ignore[arg-type]


def test_a_stated_rate_above_the_highest_cap_decides_its_provision() -> None:
    provision = "最高人民法院关于审理民间借贷案件适用法律若干问题的规定:25"
    text = (
        "出借人请求借款人按照合同约定利率支付利息的，人民法院应予支持，但是双方约定的利率超过合同成立时一年期贷款市场报价"
        "利率四倍的除外。"
    )

    class _Provision:
        def get_articles(self, ids: list[str]) -> list[Article]:
            title = provision.split(":")[0]
            return [Article(provision, title, title, 25, "", "第二十五条", "", text)] if provision in ids else []

    measured, _ = decided_by_measure("借条上写的月息5分，法律保护吗？", [], _Provision(), "zh")  # type: ignore[arg-type]
    assert list(measured) == [provision] and "60%" in measured[provision] and "17.4%" in measured[provision]
    assert decided_by_measure("借条上写的年利率15%，法律保护吗？", [], _Provision(), "zh")[0] == {}  # type: ignore[arg-type]
