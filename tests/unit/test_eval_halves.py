"""The tuning/report split of the dev files: fixed by item id, balanced, and applied before --limit."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from agents.context import ConsultContext, JudgeContext
from agents.context.experiment import (
    ConsultSwitches,
    JudgeSwitches,
    MeasuredJudge,
    consult_switches,
)
from app.eval.tasks import half_of, load_items, select_items
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


def test_the_product_reads_every_consultation() -> None:
    # The product reads every consultation, and no user can hide some: the switch is not in its Context.
    assert consult_switches(ConsultContext(model="fake")).hidden_consultation_half == ""
    assert "hidden_consultation_half" not in {f.name for f in fields(ConsultContext)}


def test_a_context_a_user_or_studio_sees_holds_no_experiment_switch() -> None:
    for context, switches in ((ConsultContext, ConsultSwitches), (JudgeContext, JudgeSwitches)):
        assert not {f.name for f in fields(context)} & {f.name for f in fields(switches)}
    with pytest.raises(InputError, match="bad setting 'use_elements=false'"):
        ConsultContext().with_overrides(["use_elements=false"])
    assert MeasuredJudge().with_overrides(["sentencing_guard=false"]).sentencing_guard is False


def test_a_judgment_written_once_per_defendant_is_one_charge_item(tmp_path: Path) -> None:
    rows = [
        {"id": "cmdl-0", "fact": "甲乙共同盗窃，乙销赃。", "articles": [264], "charges": ["盗窃"]},
        {"id": "cmdl-1", "fact": "甲乙共同盗窃，乙销赃。", "articles": [312], "charges": ["掩饰、隐瞒犯罪所得"]},
        {"id": "cmdl-2", "fact": "丙诈骗。", "articles": [266], "charges": ["诈骗"]},
    ]
    path = tmp_path / "cmdl.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    items = load_items("charge", path)
    assert [(i["id"], i["charges"], i["articles"]) for i in items] == [
        ("cmdl-0", ["盗窃", "掩饰、隐瞒犯罪所得"], [264, 312]),
        ("cmdl-2", ["诈骗"], [266]),
    ]
