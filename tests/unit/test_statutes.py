from __future__ import annotations

import pytest

from tools.law.articles import cn_to_int, make_article_id, parse_article_label, parse_citations, short_law_name


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("一", 1),
        ("十", 10),
        ("十三", 13),
        ("二十", 20),
        ("一百零三", 103),
        ("一百三十三", 133),
        ("二百六十四", 264),
        ("一千二百六十", 1260),
        ("四百五十二", 452),
        ("264", 264),
        ("一万零一", 10001),
    ],
)
def test_cn_to_int(text: str, value: int) -> None:
    assert cn_to_int(text) == value


def test_cn_to_int_rejects_non_numerals() -> None:
    with pytest.raises(ValueError, match="not a Chinese numeral"):
        cn_to_int("第三")


def test_article_labels_map_to_stable_ids() -> None:
    assert parse_article_label("第一百三十三条之一").key == "133-1"
    assert parse_article_label("第一百三十三条之一").suffix == "之一"
    assert parse_article_label("第二百六十四条").key == "264"
    assert parse_article_label("条目三").key == "条目3"
    assert parse_article_label("全文").key == "全文"
    with pytest.raises(ValueError, match="unrecognised"):
        parse_article_label("附则")


def test_ids_use_short_law_names() -> None:
    assert short_law_name("中华人民共和国刑法") == "刑法"
    assert short_law_name("《中华人民共和国道路交通安全法》") == "道路交通安全法"
    assert make_article_id("中华人民共和国刑法", 133, 1) == "刑法:133-1"
    assert make_article_id("刑法", 264) == "刑法:264"


def test_parse_citations_reads_ids_and_prose_in_order_without_repeats() -> None:
    text = (
        "依据[刑法:133-1]，醉驾构成危险驾驶罪；另见《中华人民共和国道路交通安全法》第九十一条"
        "和【刑法:133-1】，以及《刑法》第264条。根据刑法:999 的说法不算引用。"
    )
    assert parse_citations(text) == ["刑法:133-1", "道路交通安全法:91", "刑法:264"]


def test_parse_citations_reads_an_interpretation_whose_title_names_a_law() -> None:
    # A provision is cited by the interpretation's full title, which names its law in brackets of its own
    # (or in 〈〉, with the official prefix); both give the id its ingested provision has.
    guarantee = "最高人民法院关于适用《民法典》有关担保制度的解释:68"
    assert parse_citations("《最高人民法院关于适用《民法典》有关担保制度的解释》第六十八条") == [guarantee]
    assert parse_citations("《最高人民法院关于适用〈中华人民共和国民法典〉有关担保制度的解释》第六十八条") == [
        guarantee
    ]
    loans = "最高人民法院关于审理民间借贷案件适用法律若干问题的规定"
    assert parse_citations(f"《民法典》第五百七十七条、《{loans}》第二十五条") == ["民法典:577", f"{loans}:25"]
    # The model names it by id as it names a law's article.
    assert parse_citations(f"[{guarantee}]和【{loans}:25】") == [guarantee, f"{loans}:25"]
    # Two laws in a row are two citations, not one title.
    assert parse_citations("依据《民法典》和《刑法》第一条") == ["刑法:1"]


def test_parse_citations_handles_suffix_in_prose() -> None:
    assert parse_citations("《中华人民共和国刑法》第一百三十三条之一规定") == ["刑法:133-1"]


def test_parse_citations_reads_english_prose_of_the_india_pack() -> None:
    text = (
        "Taking the bicycle is theft under Section 378 of the Indian Penal Code, punishable under Sections 379 "
        "and 380, IPC; see also IPC Section 120A, s. 41 CrPC, Article 21 of the Constitution and [IEA:65B]."
    )
    assert parse_citations(text) == [
        "IPC:378",
        "IPC:379",
        "IPC:380",
        "IPC:120A",
        "CrPC:41",
        "Constitution:21",
        "IEA:65B",
    ]
    assert parse_citations("Section 5 of some other act") == []


def test_parse_citations_reads_bare_ids_of_latin_named_codes_only() -> None:
    # A small model lists ids without brackets ("Citations: IPC:382"); Chinese ids stay bracket-only.
    assert parse_citations("Citations: IPC:382, CrPC:41A and [IPC:379]") == ["IPC:382", "CrPC:41A", "IPC:379"]
    assert parse_citations("根据刑法:999 的说法；time 10:30") == []
