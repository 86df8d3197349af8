import json
from dataclasses import replace
from pathlib import Path

import pytest

from agents import researcher
from agents.context import JudgeContext
from agents.researcher import fuse_strategies
from tools.errors import InputError
from tools.retrieval.article_priors import ArticlePriors, bundled_priors, count_priors, read_priors
from tools.retrieval.research_weights import ResearchWeights, fitted_research_weights

# 100 cases: 刑法:247 (刑讯逼供) in every top ten and never cited, 刑法:264 in half of them and cited by all
# of those, 刑法:348 ranked twice and never cited.
CASES = (
    [(["刑法:247", "刑法:264", "刑法:348"], ["刑法:264"])] * 2
    + [(["刑法:247", "刑法:264"], ["刑法:264"])] * 48
    + [(["刑法:247"], ["刑法:264"])] * 50
)


def test_counts_are_top_depth_appearances_and_citations() -> None:
    priors = count_priors([*CASES, (["刑法:1", "刑法:1", "刑法:2"], ["刑法:2"])], depth=2, provenance={})
    assert priors.cases == 101
    assert priors.ranked["刑法:247"] == 100
    assert priors.ranked["刑法:264"] == 50
    assert "刑法:348" not in priors.ranked  # third in its rankings: beyond the depth
    assert priors.cited == {"刑法:264": 50, "刑法:2": 1}
    assert priors.ranked["刑法:1"] == 1  # a repeated id counts once per case


def test_only_an_article_ranked_for_most_cases_that_do_not_cite_it_is_demoted() -> None:
    priors = count_priors(CASES, depth=3, provenance={})
    assert priors.magnet_rate("刑法:247") == 1.0
    assert priors.magnet_rate("刑法:264") == 0.0  # ranked for half the cases, cited by every one of them
    assert priors.magnet_rate("刑法:348") == pytest.approx(0.02)  # never cited, but rarely ranked: no magnet
    assert priors.magnet_rate("刑法:999") == 0.0  # never ranked
    half = count_priors([(["刑法:247"], [])] * 2 + [([], [])] * 2, depth=3, provenance={})
    assert half.factor("刑法:247", 0.2, 1.0) == pytest.approx(0.5)
    assert half.factor("刑法:247", 0.2, 2.0) == pytest.approx(0.25)
    assert half.factor("刑法:247", 0.6, 1.0) == 1.0  # under the threshold
    assert priors.factor("刑法:348", 0.01, 1.0) == pytest.approx(0.98)
    # Scores 0.10 > 0.08 > 0.07: the magnet (rate 0.5) falls below both at strength 1, stays first at 0.
    scored = [("刑法:247", 0.10), ("刑法:264", 0.08), ("刑法:348", 0.07)]
    assert half.demote(scored, 0.2, 1.0) == ["刑法:264", "刑法:348", "刑法:247"]
    assert half.demote(scored, 0.2, 0.0) == ["刑法:247", "刑法:264", "刑法:348"]
    assert half.demote(scored, 0.2, 1.0, exempt={"刑法:247"}) == ["刑法:247", "刑法:264", "刑法:348"]


def test_the_fusion_demotes_magnets_by_the_context_strength(monkeypatch: pytest.MonkeyPatch) -> None:
    magnets = count_priors([(["刑法:247"], [])] * 9 + [([], [])], 3, {})  # rate 0.9
    monkeypatch.setattr(researcher, "bundled_priors", lambda: magnets)
    rankings = {"bm25": ["刑法:247", "刑法:264"], "dense": ["刑法:247", "刑法:263"]}
    ctx = JudgeContext(model="fake")
    plain = ResearchWeights(fitted_research_weights().strategy, 0.2, 0.0)
    assert fuse_strategies(rankings, ctx, 3, weights=plain)[0] == "刑法:247"
    assert fuse_strategies(rankings, ctx, 3, weights=replace(plain, prior_strength=1.0)) == [
        "刑法:264",
        "刑法:263",
        "刑法:247",
    ]
    assert (
        fuse_strategies(rankings, ctx, 3, weights=replace(plain, magnet_threshold=0.95, prior_strength=1.0))[0]
        == "刑法:247"
    )
    # A fact that names the magnet's charge (the KG strategy links it) keeps it where it was.
    named = {**rankings, "kg": ["刑法:247"]}
    assert fuse_strategies(named, ctx, 3, weights=replace(plain, prior_strength=1.0))[0] == "刑法:247"


def test_priors_round_trip_and_a_bad_file_is_named(tmp_path: Path) -> None:
    priors = count_priors(CASES, 3, {"code": "abc"})
    path = tmp_path / "priors.json"
    path.write_text(json.dumps(priors.to_json()), encoding="utf-8")
    assert read_priors(path) == priors
    path.write_text('{"depth": 10, "cases": 3, "ranked": [1, 2]}', encoding="utf-8")
    with pytest.raises(InputError, match=r"priors\.json"):
        read_priors(path)


def test_the_shipped_priors_demote_the_procedural_magnets_only() -> None:
    priors = bundled_priors()
    assert isinstance(priors, ArticlePriors)
    fitted = fitted_research_weights()
    for magnet in ("刑法:247", "刑法:316"):  # 刑讯逼供, 脱逃: words of every court fact
        assert priors.factor(magnet, fitted.magnet_threshold, fitted.prior_strength) < 0.5
    # 盗窃, 故意伤害, 毒品 (often cited), 受贿 and its penalty (the sample holds no bribery case at all).
    for offence in ("刑法:264", "刑法:234", "刑法:347", "刑法:385", "刑法:386"):
        assert priors.factor(offence, fitted.magnet_threshold, fitted.prior_strength) == 1.0
