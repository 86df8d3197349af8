from __future__ import annotations

from types import SimpleNamespace

from agents.common.answers import split_draft, strip_citation
from agents.content_check import check_content
from agents.context import ConsultContext
from agents.state.audit import Verdict
from agents.state.consult import ConsultState
from tools.retrieval.lexical import tokenize
from tools.services import Services


def test_the_answer_line_is_kept_and_the_citation_line_dropped() -> None:
    draft = "回答：醉驾构成危险驾驶罪[刑法:133-1]，处拘役并处罚金。\n\n引用：[刑法:133-1]、[刑法:999]"
    assert split_draft(draft) == "醉驾构成危险驾驶罪[刑法:133-1]，处拘役并处罚金。"
    assert split_draft("回答: 多行回答\n第二行\n引用: 无") == "多行回答\n第二行"
    assert split_draft("没有按格式的回答[刑法:264]。") == "没有按格式的回答[刑法:264]。"
    # What the local model wrote: the 引用 list inline, then the prompt's next sections copied after a blank line.
    echoed = "回答：醉驾处拘役。引用：[刑法:133-1]\n\n适用法条（已逐项核对构成要件）：\n[刑法:133-1] …\n\n只输出一段"
    assert split_draft(echoed) == "醉驾处拘役。"


def test_invented_ids_are_removed_with_their_separator() -> None:
    text = "依据[刑法:133-1]、[刑法:999]和【中华人民共和国刑法:999】处理"
    assert strip_citation(text, "刑法:999") == "依据[刑法:133-1]和处理"


def test_the_legal_basis_is_every_kept_article_in_the_keepers_order_whatever_the_draft_cites(
    active_kb: Services,
) -> None:
    # The evidence kept 133-1 first and 133 second; the draft cites only 133. The basis is both, 133-1 first:
    # which of them a 1.5B draft cites is not evidence (民法典:1085 cited, the custody article 1084 dropped).
    verdicts: list[Verdict] = [
        {"article_id": a, "applicable": kept, "reason": "", "checks": [], "decided_by": "evidence"}
        for a, kept in (("刑法:133-1", True), ("刑法:133", True), ("刑法:264", False))
    ]
    state = ConsultState(question="醉酒驾驶撞了人怎么办？", draft="回答：肇事者担责[刑法:133]。", verdicts=verdicts)
    context = SimpleNamespace(context=ConsultContext(model="fake", profile="fast"))
    out = check_content(state, context)  # type: ignore[arg-type]
    assert [b["article_id"] for b in out["legal_basis"]] == ["刑法:133-1", "刑法:133"]
    assert out["legal_basis"][0]["text"].startswith("在道路上驾驶机动车")  # verbatim from the KB
    assert "刑法:264" not in {b["article_id"] for b in out["legal_basis"]}  # not kept, not the basis


def test_bare_ids_of_latin_named_codes_are_removed_too() -> None:
    text = "Theft [IPC:379], see IPC:382 and [IPC:3820]."
    assert strip_citation(text, "IPC:382") == "Theft [IPC:379], see and [IPC:3820]."
    text = "见个人信息保护法:24和个人信息保护法:55、个人信息保护法:240"
    assert strip_citation(text, "个人信息保护法:24") == "见和个人信息保护法:55、个人信息保护法:240"


def test_english_function_words_do_not_count_in_bm25() -> None:
    assert tokenize("What is the punishment for theft under Indian law?") == ["punish", "theft", "indian", "law"]


def test_prose_citations_of_dropped_articles_are_removed_with_their_frame() -> None:
    text = "根据《中华人民共和国矿产资源法》第二十六条的规定，矿业权可以收回。另见《刑法》第264条。"
    assert strip_citation(text, "矿产资源法:26") == "矿业权可以收回。另见《刑法》第264条。"
    assert (
        strip_citation(text, "刑法:264") == "根据《中华人民共和国矿产资源法》第二十六条的规定，矿业权可以收回。另见。"
    )
