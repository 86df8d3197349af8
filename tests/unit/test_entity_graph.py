from __future__ import annotations

from tools.kb.communities import hierarchical_leiden
from tools.kb.entity_graph import (
    Chunk,
    Extraction,
    chunk_articles,
    entity_key,
    merge_extractions,
    pack_community_context,
)
from tools.law.articles import Article
from tools.llm.tokens import count_tokens


def _article(number: int, text: str) -> Article:
    law = "数据安全法"
    return Article(f"{law}:{number}", law, f"中华人民共和国{law}", number, "", f"第{number}条", "", text)


def test_chunks_respect_the_budget_and_never_split_an_article() -> None:
    articles = [_article(n, "数据处理者应当履行数据安全保护义务。" * (1 + n % 3)) for n in range(1, 13)]
    chunks = chunk_articles(articles, chunk_tokens=80)
    assert [a for c in chunks for a in c.article_ids] == [a.id for a in articles]  # all, in order, once
    for chunk in chunks:
        assert len(chunk.lines) == len(chunk.article_ids)
        assert count_tokens(chunk.text) <= 80 or len(chunk.article_ids) == 1
    assert len({c.id for c in chunks}) == len(chunks)


def _extraction(entities: list[tuple[str, str]], relations: list[tuple[str, str, int]]) -> Extraction:
    return Extraction.model_validate(
        {
            "entities": [{"name": n, "type": "主体", "description": d} for n, d in entities],
            "relations": [{"source": s, "target": t, "description": "关联", "strength": w} for s, t, w in relations],
        }
    )


def test_same_name_entities_merge_and_relations_need_known_ends() -> None:
    lines = ("[数据安全法:27] 数据处理者应当…", "[数据安全法:31] 重要数据的出境…")
    one = Chunk("数据安全法", ("数据安全法:27", "数据安全法:31"), lines)
    two = Chunk("数据安全法", ("数据安全法:30",), ("[数据安全法:30] 重要数据的处理者应当…",))
    graph = merge_extractions(
        [
            (
                one,
                _extraction(
                    [("数据处理者", "负有保护义务"), ("重要数据", "出境须评估")], [("数据处理者", "重要数据", 4)]
                ),
            ),
            (
                two,
                _extraction(
                    [("重要 数据", "须定期风险评估"), ("处理者", "开展风险评估")],
                    [("处理者", "重要数据", 3), ("处理者", "国家网信部门", 9)],  # the last names an unlisted entity
                ),
            ),
        ]
    )
    assert set(graph.entities) == {entity_key("数据处理者"), "重要数据", "处理者"}
    important = graph.entities["重要数据"]
    assert important.descriptions == ["出境须评估", "须定期风险评估"]
    assert important.article_ids == {"数据安全法:31", "数据安全法:30"}  # the articles whose text names it
    assert graph.entities["数据处理者"].article_ids == {"数据安全法:27"}
    assert graph.dropped_relations == 1
    assert graph.degree()["重要数据"] == 2


def test_hierarchy_splits_large_communities_inside_their_parent() -> None:
    # Two dense groups of 6 joined by one weak edge, plus an isolated node.
    edges = [(i, j, 5.0) for group in (range(6), range(6, 12)) for i in group for j in group if i < j]
    edges.append((5, 6, 0.1))
    clusters = hierarchical_leiden(13, edges, max_cluster_size=4, max_levels=2)
    top = [c for c in clusters if c.level == 0]
    assert sorted(m for c in top for m in c.members) == list(range(13))  # a partition of every node
    assert {tuple(c.members) for c in top} >= {tuple(range(6)), tuple(range(6, 12))}
    for cluster in clusters:
        if cluster.parent is not None:
            assert set(cluster.members) <= set(clusters[cluster.parent].members)
            assert cluster.level == clusters[cluster.parent].level + 1
    assert all(c.level < 2 for c in clusters)


def test_report_context_keeps_the_best_connected_relations_when_over_budget() -> None:
    chunk = Chunk("数据安全法", ("数据安全法:1",), ("[数据安全法:1] 甲乙丙丁戊",))
    names = ["甲", "乙", "丙", "丁", "戊"]
    relations = [("甲", n, 5) for n in names[1:]] + [("乙", "丙", 1)]
    graph = merge_extractions([(chunk, _extraction([(n, f"{n}的描述" * 5) for n in names], relations))])
    full, fitted = pack_community_context(names, graph, budget=10_000)
    assert fitted and all(n in full for n in names)
    small, fitted = pack_community_context(names, graph, budget=120, child_reports=["# 子社区\n甲与乙的规则"])
    assert not fitted and count_tokens(small) <= 120 + 40  # headings aside, within the budget
    assert "子社区" in small
    relations = small.split("关系（实体 — 实体|描述|权重）：\n")[1].splitlines()
    assert relations and all("甲" in line for line in relations)  # the hub's relations come first
    assert "丙 — 乙" in full and "丙 — 乙" not in small  # the weakest-connected relation is left out


def test_lexical_terms_are_recurring_head_word_names_and_definitions() -> None:
    from tools.kb.statute_terms import LexicalConfig, find_terms, lexical_graph

    articles = [
        _article(1, "重要数据的处理者应当明确数据安全负责人。处理重要数据应当开展风险评估。"),
        _article(2, "重要数据的处理者应当按照规定对其数据处理活动定期开展风险评估，并向有关主管部门报送风险评估报告。"),
        _article(3, "有关主管部门应当对重要数据的处理者进行监督。"),
        _article(4, "本法所称数据，是指任何以电子或者其他方式对信息的记录。"),
    ]
    terms = find_terms(articles, LexicalConfig())
    # 处理重要数据 is an act on 重要数据; 数据 is defined; one-off phrases are not terms.
    assert {"重要数据", "风险评估", "有关主管部门", "数据"} <= set(terms)
    assert "处理重要数据" not in terms and "风险评估报告" not in terms
    assert terms["有关主管部门"] == "机关" and terms["风险评估"] == "程序" and terms["数据"] == "概念"

    graph = lexical_graph(articles)
    important = graph.entities[entity_key("重要数据")]
    assert important.article_ids == {"数据安全法:1", "数据安全法:2", "数据安全法:3"}
    assert graph.entities["数据"].description == "[数据安全法:4] 是指任何以电子或者其他方式对信息的记录"
    # 重要数据 hides the 数据 inside it: article 3 names no other 数据, articles 1 and 2 do (数据处理活动).
    assert graph.entities["数据"].article_ids == {"数据安全法:1", "数据安全法:2", "数据安全法:4"}
    pair = tuple(sorted((entity_key("重要数据"), entity_key("风险评估"))))
    relation = graph.relations[pair]  # type: ignore[index]
    assert relation.weight == 2  # two sentences name both
    assert relation.descriptions[0].startswith("[数据安全法:1] 处理重要数据应当开展风险评估")
