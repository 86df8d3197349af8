"""The Legal Basis's conditional tier: which candidates join, and how the answer states each."""

from __future__ import annotations

from agents.claim_check import conditional_sentences, settled_by_period
from agents.state.common import LegalBasisItem
from tests.conftest import article_texts
from tools.retrieval.conditional import CONDITIONAL_MAX, conditional_articles

DEPOSIT = "租房到期后房东不退押金怎么办？"


def _row(article: str, support: float, shared: int = 3, reranked: float = 0.0) -> dict[str, object]:
    return {"article_id": article, "support": support, "shared": shared, "signals": {"reranked": reranked}}


def test_the_next_best_supported_join_until_the_basis_holds_three() -> None:
    evidence = [_row("民法典:577", 0.30), _row("民法典:509", 0.20), _row("民法典:703", 0.15), _row("民法典:721", 0.12)]
    assert conditional_articles(evidence, [], DEPOSIT, 0.1) == ["民法典:577", "民法典:509", "民法典:703"]
    assert conditional_articles(evidence, ["民法典:577"], DEPOSIT, 0.1) == ["民法典:509", "民法典:703"]
    assert len(conditional_articles(evidence, [], DEPOSIT, 0.0)) == CONDITIONAL_MAX
    assert conditional_articles(evidence, [], DEPOSIT, 0.25) == ["民法典:577"]  # under the floor: out


def test_the_evidence_s_first_articles_join_under_the_floor_with_nothing_concluded() -> None:
    # The search ranked 667 second; the keeper's support puts it under the floor.
    loan = "借钱给朋友一直不还，只有微信转账记录能起诉吗？"
    evidence = [
        _row("民事诉讼法:123", 0.11),
        _row("民法典:667", 0.04),
        _row("民法典:675", 0.03),
        _row("民法典:680", 0.02),
    ]
    assert conditional_articles(evidence, [], loan, 0.1) == ["民事诉讼法:123"]
    assert conditional_articles(evidence, [], loan, 0.1, top=2) == ["民事诉讼法:123", "民法典:667"]
    # Beside a concluded basis ``top`` lets none in; ``beside_top`` lets in the first that may join (the concluded
    # one takes no place), and no more than it; a ``rank`` given is its place in the evidence.
    assert conditional_articles(evidence, ["民事诉讼法:123"], loan, 0.1, top=2) == []
    assert conditional_articles(evidence, ["民事诉讼法:123"], loan, 0.1, top=2, beside_top=1) == ["民法典:667"]
    assert conditional_articles(evidence, ["民事诉讼法:123"], loan, 0.1, beside_top=2) == ["民法典:667", "民法典:675"]
    assert conditional_articles(evidence, [], loan, 0.1, beside_top=2) == ["民事诉讼法:123"]
    ranked = [{**row, "rank": rank} for rank, row in enumerate(evidence) if rank != 3]
    assert conditional_articles(list(reversed(ranked)), [], loan, 0.1, top=2) == ["民事诉讼法:123", "民法典:667"]
    # One that may not join takes no place among the first: criminal procedure ranked first for a civil question
    # leaves its place to the next.
    procedure = [_row("刑事诉讼法:50", 0.05), *evidence[1:]]
    assert conditional_articles(procedure, [], loan, 0.1, top=2) == ["民法典:667", "民法典:675"]
    # Untouched, it stays out whatever its place.
    assert conditional_articles([_row("民法典:394", 0.04, shared=0)], [], loan, 0.1, top=3) == []


def test_criminal_procedure_never_joins_a_civil_question_and_untouched_words_stay_out() -> None:
    evidence = [_row("刑事诉讼法:101", 0.5), _row("刑法:270", 0.4), _row("民法典:394", 0.3, shared=0)]
    assert conditional_articles(evidence, [], DEPOSIT, 0.1) == []
    # The victim of a fraud speaks of a crime: the Criminal Procedure Law's claim for losses may join.
    scammed = "我在网上被骗了3万元，能追回来吗？"
    assert conditional_articles(evidence, [], scammed, 0.1) == ["刑事诉讼法:101", "刑法:270"]
    # Deceit that induced a contract is civil (民法典:148); 诈骗 beside it still speaks of a crime.
    assert conditional_articles(evidence, [], "对方欺骗我签了买卖合同，能撤销吗？", 0.1) == []
    assert conditional_articles(evidence, [], "对方以欺骗手段诈骗了我三万元，能追回来吗？", 0.1) == [
        "刑事诉讼法:101",
        "刑法:270",
    ]
    # However the victim says it: 被人骗了 holds no 被骗.
    assert conditional_articles(evidence, [], "在网上被人骗了五千块钱，应该怎么办？", 0.1) == [
        "刑事诉讼法:101",
        "刑法:270",
    ]
    # An interpretation on criminal cases is criminal law; 偷偷 (secretly) speaks of no theft, 偷 of one.
    fines = "最高人民法院 最高人民检察院关于办理侵犯知识产权刑事案件具体应用法律若干问题的解释（三）:10"
    tips = [_row(fines, 0.5), _row("民法典:145", 0.4)]
    child = "十岁的孩子偷偷用我的手机给主播打赏了两万元，钱能要回来吗？"
    assert conditional_articles(tips, [], child, 0.1) == ["民法典:145"]
    assert conditional_articles(tips, [], "有人偷了我的钱包，能追回来吗？", 0.1) == [fines, "民法典:145"]


def test_an_article_the_question_touches_only_by_meaning_joins_when_the_reranker_ranks_it_high() -> None:
    # 房东不退押金 shares no character pair with 577's 不履行合同义务; the reranker reads them as near (rank 2).
    near = [_row("民法典:577", 0.3, shared=0, reranked=1 / 2)]
    assert conditional_articles(near, [], DEPOSIT, 0.1) == ["民法典:577"]
    # Ranked below the reranker's top ten, with no word shared: the question touches it in no way.
    far = [_row("民法典:577", 0.3, shared=0, reranked=1 / 11), _row("民法典:394", 0.3, shared=0)]
    assert conditional_articles(far, [], DEPOSIT, 0.1) == []


def test_each_conditional_article_is_stated_as_if_then_in_its_own_words() -> None:
    basis: list[LegalBasisItem] = [
        {
            "article_id": "民法典:577",
            "law": "中华人民共和国民法典",
            "number": "第五百七十七条",
            "text": "当事人一方不履行合同义务或者履行合同义务不符合约定的，"
            "应当承担继续履行、采取补救措施或者赔偿损失等违约责任。",
        },
        {
            "article_id": "刑法:133-1",
            "law": "中华人民共和国刑法",
            "number": "第一百三十三条之一",
            "text": "在道路上驾驶机动车，有下列情形之一的，处拘役，并处罚金：\n（一）追逐竞驶，情节恶劣的；",
        },
    ]
    said = "".join(conditional_sentences(basis, "zh"))
    assert said.startswith(
        "如果当事人一方不履行合同义务或者履行合同义务不符合约定，则应当承担继续履行、采取补救措施或者赔偿损失等违约责任"
        "（《中华人民共和国民法典》第五百七十七条）。"
    )
    # A rule that introduces a list is quoted, not cut at its lead.
    assert "《中华人民共和国刑法》第一百三十三条之一规定：在道路上驾驶机动车，有下列情形之一的" in said
    # The rule closest to the question is the one stated: asked of unpaid wages, 30's second paragraph.
    wages: list[LegalBasisItem] = [
        {
            "article_id": "劳动合同法:30",
            "law": "中华人民共和国劳动合同法",
            "number": "第三十条",
            "text": "用人单位应当按照劳动合同约定和国家规定，向劳动者及时足额支付劳动报酬。\n"
            "用人单位拖欠或者未足额支付劳动报酬的，劳动者可以依法向当地人民法院申请支付令，人民法院应当依法发出支付令。",
        }
    ]
    assert "".join(conditional_sentences(wages, "zh", "公司拖欠了我三个月工资，我该怎么办？")).startswith(
        "如果用人单位拖欠或者未足额支付劳动报酬，则劳动者可以依法向当地人民法院申请支付令"
    )


def test_an_article_of_an_institution_the_question_is_silent_on_stays_out() -> None:
    from tools.law.institutions import institutions, unspoken

    evidence = [_row("民法典:394", 0.4, reranked=1.0), _row("民法典:577", 0.3, shared=0, reranked=1 / 2)]
    assert conditional_articles(evidence, [], DEPOSIT, 0.1) == ["民法典:577"]
    mortgage = "借钱时把车抵押给了对方，没办抵押登记，有效吗？"
    assert conditional_articles(evidence, [], mortgage, 0.1) == ["民法典:394", "民法典:577"]
    for institution in institutions():
        # Each entry's examples, and its why quoted from its own article, which lies in its range.
        assert unspoken(f"{institution.law}:{institution.first}", institution.silent) is institution
        assert unspoken(f"{institution.law}:{institution.last}", institution.speaks) is None
        # Past its range the entry keeps nothing out (a neighbouring entry may: 1208-1217 and 1218-1228).
        assert unspoken(f"{institution.law}:{institution.last + 1}", institution.silent) is not institution
        assert institution.holds(institution.why_article)
        assert institution.why.strip("「」") in article_texts()[institution.why_article]


def test_a_listing_article_is_quoted_with_the_item_the_question_points_to_or_none() -> None:
    from tools.law.abbreviations import spelled_out

    def stated(article: str, question: str) -> str:
        item: LegalBasisItem = {"article_id": article, "law": "", "number": "", "text": article_texts()[article]}
        return "".join(conditional_sentences([item], "zh", spelled_out(question)))

    commute = stated("工伤保险条例:14", "上班路上被车撞了算工伤吗？")
    assert "应当认定为工伤：……(六)在上下班途中，受到非本人主要责任的交通事故" in commute
    assert "(一)" not in commute and "(七)" not in commute
    assert "……（三）未依法为劳动者缴纳社会保险费的" in stated(
        "劳动合同法:38", "公司一直不给我交社保，我辞职能要经济补偿吗？"
    )
    # No item stands out from the others: the items, in the law's order, as many as a quote holds; never the lead
    # alone, never one item that may not be the person's.
    pregnant = stated("劳动合同法:42", "我怀孕了，公司能辞退我吗？")
    assert "解除劳动合同：（一）从事接触职业病危害作业" in pregnant
    assert "；（四）女职工在孕期、产期、哺乳期的" in pregnant
    assert pregnant.endswith("；……。") and "（六）" not in pregnant
    # A short list is said whole.
    shared = stated("民法典:1062", "男方婚前买的房子，离婚时我能分吗？")
    assert "归夫妻共同所有：（一）工资、奖金、劳务报酬；（二）" in shared and "（五）其他应当归共同所有的财产" in shared
    assert "……" not in shared


def test_a_proviso_that_lists_its_cases_is_said_with_them() -> None:
    # 森林资源 解释 第五条 (a provision, quoted as an article is): 但下列情形除外： said alone excepted nothing.
    from tests.conftest import SHARED_DATA
    from tools.corpus.interpretations import interpretation_files, parse_interpretation, provisions

    path = next(
        p for p in interpretation_files(SHARED_DATA / "zh/interpretations/lawrefbook") if "森林资源民事纠纷" in p.name
    )
    article = next(a for a in provisions(parse_interpretation(path))[1] if a.label == "第五条")
    item: LegalBasisItem = {"article_id": article.id, "law": article.law, "number": article.label, "text": article.text}
    said = "".join(conditional_sentences([item], "zh", "违反民主议定程序的承包合同是否有效？"))
    assert said.startswith("如果当事人以违反法律规定的民主议定程序为由，主张集体林地承包合同无效，则人民法院应予支持")
    assert "但下列情形除外：（一）合同订立时，法律、行政法规没有关于民主议定程序的强制性规定的" in said
    assert "除外：（" + "）" not in said and not said.rstrip("。").endswith("：")


def test_a_condition_with_alternatives_is_stated_whole() -> None:
    def stated(article: str, question: str) -> str:
        item: LegalBasisItem = {"article_id": article, "law": "", "number": "", "text": article_texts()[article]}
        return "".join(conditional_sentences([item], "zh", question))

    fight = stated("治安管理处罚法:51", "跟人打架把对方打出了鼻血，会被拘留吗？")
    assert fight.startswith("如果殴打他人的，或者故意伤害他人身体，则处五日以上十日以下拘留")


def test_a_rules_proviso_says_what_follows_the_other_way() -> None:
    def stated(article: str, question: str) -> str:
        item: LegalBasisItem = {"article_id": article, "law": "", "number": "", "text": article_texts()[article]}
        return "".join(conditional_sentences([item], "zh", question))

    # 1245's rule and its 但是: the owner is liable, unless the harm came of the victim's intent or gross negligence.
    dog = stated("民法典:1245", "被邻居家的狗咬伤了，狗主人要承担什么责任？")
    assert dog.startswith(
        "如果饲养的动物造成他人损害，则动物饲养人或者管理人应当承担侵权责任；但是，能够证明损害是因被侵权人故意或者"
        "重大过失造成的，可以不承担或者减轻责任（"
    )
    # A rule no proviso follows is stated alone (82's is a rule of its own paragraph).
    assert "但" not in stated("劳动合同法:82", "入职半年了公司一直不跟我签劳动合同，能要什么？")


def test_every_crime_word_speaks_of_a_crime_by_its_example_and_a_civil_word_of_none() -> None:
    from prompts import load_table
    from tools.retrieval.conditional import about_crime

    table = load_table("crime_words", "zh")
    for word, example in table["words"].items():
        assert word in example and about_crime(example, []), word
    for word, entry in table["civil_words"].items():
        assert word in entry["example"] and not about_crime(entry["example"], []), word
    # A concluded criminal law article makes the question one about a crime, whatever its words.
    assert all(about_crime("房东不退押金怎么办？", [f"{law}:1"]) for law in table["criminal_laws"])
    assert not about_crime("房东不退押金怎么办？", ["民法典:577"])


def test_a_stated_period_is_set_against_the_range_the_rule_names() -> None:
    from tools.law.periods import condition_range, stated_period

    text = article_texts()["劳动合同法:82"]

    def stated(question: str) -> str:
        item: LegalBasisItem = {"article_id": "劳动合同法:82", "law": "", "number": "", "text": text}
        return "".join(conditional_sentences([item], "zh", question))

    # 半年 lies in 82's 超过一个月不满一年: said, in the sentence of the rule, whose other conditions stay conditions.
    assert stated("入职半年了公司一直不跟我签劳动合同，能要什么？").startswith(
        "您所说的半年在本条“超过一个月不满一年”的范围内：如果用人单位自用工之日起超过一个月不满一年"
    )
    assert stated("入职两年了公司一直不跟我签劳动合同，能要什么？").startswith(
        "您所说的两年不在本条“超过一个月不满一年”的范围内，本条的这一规定不适用于您的情况。"
    )
    # The sentence settles whether the rule applies, so the answer does not say it turns on the person's facts.
    item: LegalBasisItem = {"article_id": "劳动合同法:82", "law": "", "number": "", "text": text}
    assert settled_by_period(item, "入职半年了公司一直不跟我签劳动合同，能要什么？")
    assert settled_by_period(item, "入职两年了公司一直不跟我签劳动合同，能要什么？")
    assert not settled_by_period(item, "公司一直不跟我签劳动合同，能要什么？")
    # No period, or two of them: nothing is compared.
    assert stated("公司一直不跟我签劳动合同，能要什么？").startswith("如果用人单位")
    assert stated("入职8个月又10天，公司一直不跟我签劳动合同").startswith("如果用人单位")
    # The bounds as the law words them: 超过 excludes, 满 includes, 不满 excludes; a date is no period.
    months = condition_range("超过一个月不满一年")
    assert months is not None and [months.holds(m) for m in (1, 1.5, 12)] == [False, True, False]
    year = condition_range("满一年")
    assert year is not None and [year.holds(m) for m in (11, 12)] == [False, True]
    assert stated_period("2020年3月入职，干了三个月") == stated_period("三个月")
    assert (period := stated_period("工作了一年半")) is not None and period.months == 18


def test_a_proviso_is_said_with_its_rule_never_as_a_condition_of_its_own() -> None:
    item: LegalBasisItem = {"article_id": "民法典:574", "law": "", "number": "", "text": article_texts()["民法典:574"]}
    # The question shares more with 574's proviso (到期, 债务) than with its rule; the rule is still the one stated.
    said = "".join(conditional_sentences([item], "zh", "对方欠我到期债务，我能领取提存物吗？"))
    assert said.startswith("《》规定：债权人可以随时领取提存物；但是，债权人对债务人负有到期债务的，")
    assert "如果但" not in said


def test_a_listed_item_is_read_with_its_lead_and_a_stated_level_under_the_floor_keeps_the_article_out() -> None:
    from agents.basis import conditional_basis
    from tools.law.abbreviations import spelled_out

    text = article_texts()["刑法:133-1"]
    item: LegalBasisItem = {"article_id": "刑法:133-1", "law": "", "number": "", "text": text}
    drunk = spelled_out("我开车被查，血液酒精含量是120mg/100ml，会怎么处罚？")
    # The item the level names is quoted after the lead that holds the sentence, never alone.
    assert "".join(conditional_sentences([item], "zh", drunk)) == (
        "《》规定：在道路上驾驶机动车，有下列情形之一的，处拘役，并处罚金：……（二）醉酒驾驶机动车的。"
    )
    # 45 mg/100 ml is under 133-1's 80: the article never joins the conditional tier; 91 does.
    evidence = [
        {"article_id": a, "text": article_texts()[a], "support": 0.3, "signals": {}}
        for a in ("刑法:133-1", "道路交通安全法:91")
    ]
    drinking = "我喝了一瓶啤酒开车，血液酒精含量是45mg/100ml，会怎么处罚？"
    assert conditional_basis(evidence, [], drinking, "zh") == ["道路交通安全法:91"]  # type: ignore[arg-type]
    assert conditional_basis(evidence, [], drunk, "zh") == ["刑法:133-1", "道路交通安全法:91"]  # type: ignore[arg-type]
