"""Long judgments reduced to their fact section before judging."""

from __future__ import annotations

from tools.law.facts import reduce_fact

FACTS = "被告人张某于2016年3月在某地秘密窃取他人手机一部，价值3000元。案发后张某主动投案。"
JUDGMENT = (
    "某市人民检察院以某检刑诉〔2016〕1号起诉书指控被告人张某犯盗窃罪，于2016年5月1日向本院提起公诉。"
    "本院依法组成合议庭，公开开庭审理了本案。现已审理终结。经审理查明："
    + FACTS
    + "上述事实，有下列证据证实：1.被害人陈述。2.证人李某的证言。"
    + "本院认为，被告人张某以非法占有为目的，秘密窃取他人财物，数额较大，其行为已构成盗窃罪。" * 20
)


def test_a_fact_within_the_budget_is_untouched() -> None:
    reduced = reduce_fact(FACTS, 4000)
    assert reduced.text == FACTS and reduced.note == ""


def test_the_fact_section_is_kept_without_procedure_and_evidence() -> None:
    reduced = reduce_fact(JUDGMENT, 200)
    assert reduced.text == FACTS
    assert (
        reduced.note
        == f"事实原文 {len(JUDGMENT)} 字，超过 200 字：只取事实部分，删去程序与证据（余 {len(FACTS)} 字）。"
    )


def test_a_fact_section_still_too_long_keeps_its_head_and_tail() -> None:
    acts = "".join(f"第{n}次，被告人张某在第{n}号商店秘密窃取财物。" for n in range(1, 200))
    reduced = reduce_fact(acts, 600)
    assert len(reduced.text) <= 600 and "……" in reduced.text
    assert reduced.text.startswith("第1次") and reduced.text.endswith("第199号商店秘密窃取财物。")
    assert "再删去中段，保留首尾" in reduced.note
