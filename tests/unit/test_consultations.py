"""Answered consultations: the file reader and the signals LawSearch draws from similar consultations."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tools.corpus.consultations import cited_articles, load_consultations
from tools.errors import CorpusError
from tools.retrieval.consultations import Neighbour, cited_laws, prior_ranking, use_weight, vote

ANSWER = "回答:可以要求返还。法律依据:《中华人民共和国民法典》第五百八十七条；《中华人民共和国民法典》第一百八十八条"


def _write(tmp_path: Path, rows: list[object]) -> Path:
    path = tmp_path / "mine.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def test_cited_articles_come_from_the_basis_part_only() -> None:
    answer = "回答:参照《中华人民共和国刑法》第二百六十四条的精神……法律依据:《中华人民共和国民法典》第一千零七十九条"
    assert cited_articles(answer) == ["民法典:1079"]
    assert cited_articles("回答:见《民法典》第五百八十七条") == ["民法典:587"]
    assert cited_articles("法律依据:&lt;中华人民共和国劳动合同法&gt;第八十二条") == []


def test_a_file_is_read_with_source_and_cited_articles(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            {"id": "q1", "question": " 定金不退怎么办？ ", "answer": ANSWER},
            {"id": 7, "question": "借钱不还", "answer": ANSWER},
        ],
    )
    (first, second), uncited = load_consultations(path)
    assert uncited == []
    assert (first.id, first.source, first.question) == ("q1", "mine", "定金不退怎么办？")
    assert first.articles == ("民法典:587", "民法典:188")
    assert second.id == "7"
    assert first.content_hash != second.content_hash


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"id": "a", "question": "", "answer": ANSWER}, "field question must be a non-empty string"),
        ({"id": "a", "question": "问", "answer": ["x"]}, "field answer must be a non-empty string"),
        ({"id": "a", "question": "问\x00题", "answer": ANSWER}, r"control character \(U\+0000"),
        ({"id": "a", "question": "问" * 20001, "answer": ANSWER}, "at most 20000"),
        ({"question": "问", "answer": ANSWER}, "needs id"),
    ],
)
def test_a_bad_line_is_named(tmp_path: Path, row: dict[str, object], message: str) -> None:
    path = _write(tmp_path, [{"id": "ok", "question": "问", "answer": ANSWER}, row])
    with pytest.raises(CorpusError, match=rf"mine.jsonl:2: .*{message}"):
        load_consultations(path)


def test_an_answer_citing_no_article_is_left_out_with_its_line(tmp_path: Path) -> None:
    rows = [{"id": "a", "question": "问", "answer": "回答:不知道。"}, {"id": "b", "question": "问", "answer": ANSWER}]
    found, uncited = load_consultations(_write(tmp_path, rows))
    assert [c.id for c in found] == ["b"] and uncited == [1]
    with pytest.raises(CorpusError, match="holds no consultations citing an article"):
        load_consultations(_write(tmp_path, rows[:1]))


def test_duplicate_ids_and_empty_files_are_refused(tmp_path: Path) -> None:
    row = {"id": "a", "question": "问", "answer": ANSWER}
    with pytest.raises(CorpusError, match=r"mine\.jsonl:2: duplicate consultation id 'a'"):
        load_consultations(_write(tmp_path, [row, row]))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="holds no consultations"):
        load_consultations(empty)


POOL = [
    Neighbour("c1", 0.9, ("民法典:587", "民法典:586")),
    Neighbour("c2", 0.8, ("民法典:587",)),
    Neighbour("c3", 0.7, ("劳动合同法:82",)),
    Neighbour("c4", 0.3, ("劳动合同法:82", "劳动合同法:10")),
]


def test_the_vote_weighs_each_cited_article_by_its_neighbours_similarity() -> None:
    # 587: 0.9 + 0.8; 82: 0.7 + 0.3; 586: 0.9; 10: 0.3.
    assert vote(POOL, 10) == ["民法典:587", "劳动合同法:82", "民法典:586", "劳动合同法:10"]
    assert vote(POOL, 2) == ["民法典:587", "劳动合同法:82"]
    assert vote([], 5) == []


def test_the_router_counts_a_law_once_per_neighbour() -> None:
    # 民法典: 0.9 + 0.8 (c1 cites it twice, counted once); 劳动合同法: 0.7 + 0.3.
    assert cited_laws(POOL, 2) == ["民法典", "劳动合同法"]
    assert cited_laws(POOL[2:], 1) == ["劳动合同法"]


def test_the_prior_reorders_candidates_and_adds_none() -> None:
    counts = Counter({"民法典:1079": 30, "民法典:587": 5, "刑法:264": 1})
    candidates = ["刑法:264", "民法典:999", "民法典:587", "刑法:264"]
    assert prior_ranking(counts, candidates, 10) == ["民法典:587", "刑法:264"]


def test_a_line_separator_inside_a_string_does_not_split_the_line(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    row = {"id": "a", "question": "定金\u2028不退怎么办？", "answer": ANSWER}
    path.write_text(json.dumps(row, ensure_ascii=False) + "\r\n", encoding="utf-8")
    (found,), _ = load_consultations(path)
    assert found.question == "定金\u2028不退怎么办？"


def test_a_neighbour_votes_for_an_article_as_much_as_its_answer_uses_it() -> None:
    used = [
        Neighbour("deposit1", 0.9, ("民法典:394", "民法典:577"), (0.02, 0.18)),
        Neighbour("deposit2", 0.8, ("民法典:394",), (0.04,)),
        Neighbour("deposit3", 0.5, ("民法典:577",), (0.11,)),
    ]
    # Uses weighed with a saturation of 0.08: 394 gets 0.9 × 0.25 + 0.8 × 0.5; 577 gets 0.9 + 0.5 in full.
    assert vote(used, 5, 0.08) == ["民法典:577", "民法典:394"]
    # A saturation of 0 counts every citation in full (394: 1.7 against 1.4).
    assert vote(used, 5, 0.0) == ["民法典:394", "民法典:577"]
    assert use_weight(0.04, 0.08) == 0.5 and use_weight(0.3, 0.08) == 1.0 and use_weight(0.0, 0.0) == 1.0
