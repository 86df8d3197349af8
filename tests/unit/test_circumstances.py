"""Sentencing circumstances read from a fact, and the fitted factors that move a term."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.fit.circumstances import ridge
from tools.law.circumstances import CircumstanceFactors, fitted_circumstance_factors, stated_circumstances


def test_circumstances_are_read_with_their_provision_and_clause() -> None:
    fact = "被告人系累犯。案发后被告人主动投案，如实供述了犯罪事实，并取得被害人谅解。"
    found = {c.name: c for c in stated_circumstances(fact)}
    assert set(found) == {"累犯", "自首", "谅解"}  # 坦白 (如实供述) is part of 自首, art. 67 para. 1
    assert found["自首"].article == "刑法:67" and found["自首"].found == "案发后被告人主动投案"
    assert found["累犯"].article == "刑法:65" and found["谅解"].article is None
    # Courts often name where the defendant surrendered; it is still 自首, not the lesser 坦白.
    [surrender] = stated_circumstances("案发后，被告人主动到公安机关投案，如实供述了自己的罪行。")
    assert (surrender.name, surrender.found) == ("自首", "被告人主动到公安机关投案")


def test_a_denied_circumstance_is_not_read() -> None:
    assert stated_circumstances("被告人到案后拒不如实供述，其辩护人所提自首的意见，经查不构成自首。") == []


def test_factors_move_a_term_and_leave_no_term_alone() -> None:
    factors = CircumstanceFactors({"自首": math.log(0.5), "累犯": math.log(2.0)})
    assert factors.apply(11, ["自首"]) == 5 and factors.apply(11, ["累犯"]) == 23
    assert factors.apply(11, ["自首", "累犯"]) == 11 and factors.apply(0, ["累犯"]) == 0
    assert factors.apply(1, ["自首"]) == 1  # a term never falls to nothing by a factor


def test_the_shipped_factors_lower_for_surrender_and_raise_for_recidivism() -> None:
    shipped = fitted_circumstance_factors()
    assert shipped.factor(["自首"]) < 1 < shipped.factor(["累犯"])


def test_ridge_recovers_the_weights_of_clean_data() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, size=(400, 3)).astype(float)
    y = 0.2 + x @ np.array([-0.3, 0.0, 0.25])
    intercept, weights = ridge(x, y, 1e-6)
    assert abs(intercept - 0.2) < 1e-3 and np.allclose(weights, [-0.3, 0.0, 0.25], atol=1e-3)


def test_the_fit_reads_judged_cases_and_checks_on_the_ljp_halves(capsys: pytest.CaptureFixture[str]) -> None:
    from app.fit.circumstances import fit_circumstances
    from tests.conftest import SHARED_DATA

    cases = SHARED_DATA / "zh/cases/cail2018_sample_train.jsonl"
    ljp = SHARED_DATA / "zh/eval/ljp_dev.jsonl"
    fit_circumstances([cases], [ljp], ljp, write=False)
    printed = capsys.readouterr().out
    assert "cases with one charge, a fixed term" in printed
    assert "自首: stated in" in printed and "'tune': {'median'" in printed and "'report': {'median'" in printed


def test_probation_is_opened_only_within_three_years_with_remorse_and_no_recidivism() -> None:
    from tools.law.circumstances import probation_open

    assert probation_open(24, ["自首"]) and probation_open(36, ["谅解"])
    assert not probation_open(37, ["自首"]) and not probation_open(0, ["自首"])
    assert not probation_open(12, []) and not probation_open(12, ["自首", "累犯"])
