from __future__ import annotations

from agents.content_check import split_draft, strip_citation


def test_the_answer_line_is_kept_and_the_citation_line_dropped() -> None:
    draft = "回答：醉驾构成危险驾驶罪[刑法:133-1]，处拘役并处罚金。\n\n引用：[刑法:133-1]、[刑法:999]"
    assert split_draft(draft) == "醉驾构成危险驾驶罪[刑法:133-1]，处拘役并处罚金。"
    assert split_draft("回答: 多行回答\n第二行\n引用: 无") == "多行回答\n第二行"
    assert split_draft("没有按格式的回答[刑法:264]。") == "没有按格式的回答[刑法:264]。"


def test_invented_ids_are_removed_with_their_separator() -> None:
    text = "依据[刑法:133-1]、[刑法:999]和【中华人民共和国刑法:999】处理"
    assert strip_citation(text, "刑法:999") == "依据[刑法:133-1]和处理"
