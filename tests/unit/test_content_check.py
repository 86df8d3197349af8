from __future__ import annotations

from agents.common.answers import split_draft, strip_citation
from agents.content_check import cited_basis
from tools.law.articles import Article
from tools.retrieval.lexical import tokenize


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


def _section(number: int) -> Article:
    return Article(f"IPC:{number}", "IPC", "Indian Penal Code, 1860", number, "", f"Section {number}", "", "text")


def test_legal_basis_lists_the_cited_applicable_articles_in_citation_order() -> None:
    applicable = [_section(356), _section(379), _section(380)]
    assert [b["article_id"] for b in cited_basis(applicable, ["IPC:380", "IPC:999", "IPC:379"])] == [
        "IPC:380",
        "IPC:379",
    ]
    # An answer that cites none of them still shows every verified article.
    assert [b["article_id"] for b in cited_basis(applicable, ["IPC:999"])] == ["IPC:356", "IPC:379", "IPC:380"]


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
