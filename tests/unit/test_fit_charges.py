"""Fitting the charge scorer on a charge-balanced tuning set."""

from __future__ import annotations

from app.fit.charges import balanced


def test_a_balanced_tuning_set_keeps_the_first_items_of_each_gold_charge_set() -> None:
    golds = (["盗窃"], ["盗窃"], ["诈骗"], ["盗窃"], ["盗窃", "诈骗"])
    rows = [{"id": n, "gold": gold} for n, gold in enumerate(golds)]
    assert [r["id"] for r in balanced(rows, 2)] == [0, 1, 2, 4]  # a third 盗窃 dropped; a two-charge set is its own
    assert [r["id"] for r in balanced(rows, 1)] == [0, 2, 4]
    assert balanced(rows, 0) == rows
