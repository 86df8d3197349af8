"""The tuning/report split of the dev files: fixed by item id, balanced, and applied before --limit."""

from __future__ import annotations

import pytest

from agents.context import ConsultContext
from app.eval.systems import measured
from app.eval.tasks import half_of, select_items
from tools.errors import InputError


def test_an_item_keeps_its_half_and_the_halves_are_balanced() -> None:
    ids = [f"ljp-{n}" for n in range(400)]
    halves = [half_of(i) for i in ids]
    assert halves == [half_of(i) for i in ids]
    assert 160 < halves.count("tune") < 240
    # Pinned: changing how the half is computed would silently move items between tuning and reporting.
    assert halves[:4] == ["tune", "report", "tune", "report"]


def test_limit_counts_within_the_half() -> None:
    items = [{"id": f"consult-{n}"} for n in range(50)]
    report = select_items(items, "report", None)
    assert report and all(half_of(i["id"]) == "report" for i in report)
    assert select_items(items, "report", 3) == report[:3]
    assert select_items(items, None, 5) == items[:5]


@pytest.mark.parametrize(("half", "limit", "message"), [("dev", None, "--half"), (None, 0, "--limit")])
def test_bad_half_or_limit_is_an_input_error(half: str | None, limit: int | None, message: str) -> None:
    with pytest.raises(InputError, match=message):
        select_items([{"id": "x"}], half, limit)


def test_an_item_is_measured_with_its_own_halfs_consultations_hidden() -> None:
    for item_id in ("consult-0", "consult-1", "stard-5"):
        context = measured(ConsultContext(model="fake"), {"id": item_id})
        assert context.hidden_consultation_half == half_of(item_id)
    assert ConsultContext(model="fake").hidden_consultation_half == ""  # the product reads every consultation
