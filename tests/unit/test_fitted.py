"""Fitted parameters are data: a refit writes its values with their provenance, and the nodes load them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from app.fit import sources
from tools.errors import InputError
from tools.fitted import read_fitted
from tools.law.charge_model import fitted_charge_policy
from tools.retrieval import source_weights
from tools.retrieval.research_weights import fitted_research_weights
from tools.retrieval.source_weights import fitted_source_fusion


def _retrieval_run(tmp_path: Path) -> tuple[Path, Path]:
    """A retrieval run of 40 consultations whose BM25 ranking finds the gold article first and whose three other
    rankings, the reranker's included, never do (and agree on the same wrong articles)."""
    data, run = tmp_path / "consult.jsonl", tmp_path / "run"
    run.mkdir()
    items, rows = [], []
    for n in range(40):
        gold = f"民法典:{n + 1}"
        items.append({"id": f"consult-{n}", "question": f"问题{n}", "answer": f"回答。法律依据:《民法典》第{n + 1}条"})
        junk = [f"刑法:{n + k + 1}" for k in range(6)]
        rankings = {"bm25": [gold, *junk], "dense": junk, "routed": junk, "consultations": junk, "reranked": junk}
        rows.append(
            {"item_id": f"consult-{n}", "system": "retrieval", "ok": True, "prediction": {"rankings": rankings}}
        )
    data.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    (run / "results.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return data, run


def test_a_refit_writes_its_weights_with_their_provenance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, run = _retrieval_run(tmp_path)
    shipped = tmp_path / "source_weights.json"
    monkeypatch.setattr(sources, "BUNDLED_WEIGHTS", shipped)
    fitted = sources.fit_sources([f"{run}:{data}"], write=False)
    assert not shipped.exists()  # measuring alone writes nothing
    # Equal weights rank gold sixth at any offset: the ranking that finds it must outweigh those that never do.
    assert fitted.weights["bm25"] > max(fitted.weights[s] for s in ("dense", "routed", "consultations"))
    assert sources.fit_sources([f"{run}:{data}"], write=True) == fitted
    written = json.loads(shipped.read_text(encoding="utf-8"))
    values = read_fitted(shipped)
    assert {k: values[k] for k in ("weights", "offset")} == {"weights": fitted.weights, "offset": fitted.offset}
    # Without the reranker (off or not installed) the product fuses with weights fitted without its ranking.
    plain = values["without_reranker"]["weights"]
    assert "reranked" not in plain and plain["bm25"] > max(plain[s] for s in ("dense", "routed", "consultations"))
    source = written["provenance"]
    assert source["fitted_on"] == "tune" and source["command"].startswith("jurisgraph fit sources")
    assert source["data_sha256"] == {"consult.jsonl": hashlib.sha256(data.read_bytes()).hexdigest()}
    assert source["recall"]["fitted"]["consult"]["tune"] == source["recall"]["without_reranker"]["consult"]["tune"] == 1


def test_the_shipped_parameters_load_and_a_broken_file_is_named(tmp_path: Path) -> None:
    policy = fitted_charge_policy()
    assert policy.depth == 20 and 0 < policy.act_threshold < 1 and policy.model.weights["vote"] > 0
    assert fitted_research_weights().strategy["charge"] > fitted_research_weights().strategy["features"]
    assert set(fitted_source_fusion().weights) >= {"bm25", "dense", "consultations"}
    assert "reranked" not in fitted_source_fusion(reranked=False).weights
    broken = tmp_path / "weights.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match=r"weights\.json unreadable"):
        read_fitted(broken)


def test_a_fusion_file_without_the_fusion_for_no_reranker_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = tmp_path / "source_weights.json"
    old.write_text(json.dumps({"weights": {"bm25": 1.0}, "offset": 5.0}), encoding="utf-8")
    monkeypatch.setattr(source_weights, "BUNDLED_WEIGHTS", old)
    fitted_source_fusion.cache_clear()
    try:
        assert fitted_source_fusion().weights == {"bm25": 1.0}
        with pytest.raises(InputError, match="holds no 'without_reranker' fusion: refit"):
            fitted_source_fusion(reranked=False)
    finally:
        fitted_source_fusion.cache_clear()
