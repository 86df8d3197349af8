"""benchmarks/charge_breakdown.py: macro-F1 over charges and the precedent buckets of issue 41."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


@pytest.fixture(scope="module")
def breakdown(monkeypatch_module: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch_module.syspath_prepend(str(Path(__file__).parents[2] / "benchmarks"))
    return importlib.import_module("charge_breakdown")


@pytest.fixture(scope="module")
def monkeypatch_module() -> Any:
    with pytest.MonkeyPatch.context() as patch:
        yield patch
    sys.modules.pop("charge_breakdown", None)
    sys.modules.pop("charge_confusions", None)


def _result(gold: list[str], predicted: list[str]) -> dict[str, Any]:
    return {"gold": {"charges": gold}, "prediction": {"charges": predicted}}


def test_macro_f1_weighs_a_rare_charge_as_much_as_a_frequent_one(breakdown: ModuleType) -> None:
    results = [_result(["盗窃"], ["盗窃"])] * 9 + [_result(["放火"], ["盗窃"])]
    # 盗窃: tp 9, predicted 10, gold 9 -> F1 18/19; 放火: F1 0. Micro-F1 would be 0.9.
    assert breakdown.macro_f1(results) == pytest.approx((18 / 19 + 0) / 2)


def test_an_item_falls_in_the_bucket_of_its_rarest_gold_charge(breakdown: ModuleType) -> None:
    counts = {"盗窃": 900, "掩饰、隐瞒犯罪所得、犯罪所得收益": 4}
    assert breakdown.bucket_of(_result(["盗窃"], []), counts) == "10+"
    assert breakdown.bucket_of(_result(["盗窃", "掩饰、隐瞒犯罪所得、犯罪所得收益"], []), counts) == "1-9"
    assert breakdown.bucket_of(_result(["放火"], []), counts) == "0"
    row = breakdown.breakdown([_result(["盗窃"], ["盗窃"]), _result(["放火"], ["盗窃"])], counts)
    assert (row["exact"], row["precedents 10+"], row["precedents 0"]) == ("0.500 (2)", "1.000 (1)", "0.000 (1)")
