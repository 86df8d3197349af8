"""Candidate charges' signals, their scores, and the choice of charges to convict."""

from __future__ import annotations

from tools.law.charge_scores import (
    SIGNALS,
    ChargeModel,
    assign_acts,
    charge_signals,
    choose_charges,
    precedented,
    rank_charges,
)

CHARGES_OF = {"刑法:264": {"盗窃"}, "刑法:266": {"诈骗"}, "刑法:234": {"故意伤害"}, "刑法:67": set()}


def test_signals_come_from_rank_offence_precedents_and_pre_judgment() -> None:
    signals = charge_signals(
        fused=["刑法:67", "刑法:264", "刑法:266"],
        offence=[("刑法:264", 2.0), ("刑法:266", 1.0)],
        precedents=[(["盗窃"], 3.0), (["盗窃", "诈骗"], 1.0)],
        prejudged={"故意伤害": 0.6},
        charges_of=CHARGES_OF,
    )
    assert set(signals) == {"盗窃", "诈骗", "故意伤害"}
    # No judgment counts: a charge could have filled every neighbour, so coverage is its share of them.
    assert signals["盗窃"] == {
        "vote": 1.0, "coverage": 1.0, "offence": 1.0, "rank": 0.5, "prejudged": 0.0,
    }  # fmt: skip
    assert signals["诈骗"] == {
        "vote": 0.25, "coverage": 0.5, "offence": 0.5, "rank": 0.3333, "prejudged": 0.0,
    }  # fmt: skip
    assert signals["故意伤害"] == dict.fromkeys(SIGNALS, 0.0) | {"prejudged": 0.6}


def test_a_rare_charge_whose_few_judgments_are_all_neighbours_covers_fully() -> None:
    precedents = [(["盗窃"], 5.0)] * 7 + [(["职务侵占"], 1.0)] * 2 + [(["盗窃"], 1.0)]
    signals = charge_signals(
        fused=[],
        offence=[],
        precedents=precedents,
        prejudged={},
        charges_of={},
        judgments={"盗窃": 900, "职务侵占": 2},
    )
    # 盗窃 holds most of the vote, but 职务侵占's only two judgments are both among the ten neighbours.
    assert signals["盗窃"]["vote"] > 0.9 and signals["职务侵占"]["vote"] < 0.06
    assert signals["盗窃"]["coverage"] == 0.8
    assert signals["职务侵占"]["coverage"] == 1.0


def test_the_best_is_chosen_and_others_only_above_the_threshold_or_best_in_an_act() -> None:
    model = ChargeModel({"vote": 4.0, "rank": 2.0}, bias=-3.0)
    signals = {
        "盗窃": {"vote": 0.8, "rank": 1.0},
        "诈骗": {"vote": 0.2, "rank": 0.5},
        "故意伤害": {"vote": 0.0, "rank": 0.2},
    }
    ranked = rank_charges(signals, model)
    assert [name for name, _ in ranked] == ["盗窃", "诈骗", "故意伤害"]
    assert choose_charges(ranked, threshold=0.9, most=3) == ["盗窃"]
    assert choose_charges(ranked, threshold=0.2, most=3) == ["盗窃", "诈骗"]
    assert choose_charges(ranked, threshold=0.2, most=1) == ["盗窃"]
    acts = [[("盗窃", 0.9)], [("故意伤害", 0.7), ("盗窃", 0.1)]]
    assert choose_charges(ranked, 0.9, 3, acts, act_threshold=0.5) == ["盗窃", "故意伤害"]
    assert choose_charges(ranked, 0.9, 3, acts, act_threshold=0.8) == ["盗窃"]
    assert assign_acts(["盗窃", "故意伤害", "诈骗"], acts) == {"盗窃": 0, "故意伤害": 1, "诈骗": None}
    assert assign_acts(["盗窃"], acts[:1]) == {"盗窃": None}  # one act: nothing to tell apart
    # Two acts scoring a charge alike (their conclusions masked): it goes to the act no earlier charge took.
    tied = [[("盗窃", 0.85), ("敲诈勒索", 0.08)], [("盗窃", 0.2), ("敲诈勒索", 0.08)]]
    assert assign_acts(["盗窃", "敲诈勒索"], tied) == {"盗窃": 0, "敲诈勒索": 1}
    assert choose_charges([], 0.5, 3) == []
    # The fact says it holds two charges: the acts' best, then the next-best candidate, fill up to two.
    assert choose_charges(ranked, 0.9, 3, acts, act_threshold=0.8, least=2) == ["盗窃", "故意伤害"]
    assert choose_charges(ranked, 0.9, 3, least=2) == ["盗窃", "诈骗"]
    assert choose_charges(ranked, 0.9, 1, least=2) == ["盗窃"]
    # ... but only a candidate with its own support: 诈骗 (0.23) reaches 0.2, not 0.3; 故意伤害 (0.07) neither.
    assert choose_charges(ranked, 0.9, 3, least=3, stated_threshold=0.2) == ["盗窃", "诈骗"]
    assert choose_charges(ranked, 0.9, 3, least=2, stated_threshold=0.3) == ["盗窃"]


def test_a_candidate_is_precedented_when_some_nearest_precedent_convicted_of_it() -> None:
    signals = {
        "非法制造、出售非法制造的发票": {"vote": 0.42, "offence": 0.0},
        "为亲友非法牟利": {"vote": 0.0, "offence": 1.0},  # the offence index alone is no precedent
        "诈骗": {"prejudged": 0.8},
    }
    assert precedented(signals) == {"非法制造、出售非法制造的发票"}
