from __future__ import annotations

import json

import numpy as np

from tests.conftest import SHARED_DATA
from tools.kb.communities import leiden
from tools.kb.ontology import extract_lexical, feature_matrix, knn_edges, llm_extractor, top_features
from tools.llm.fake import FakeChatModel


def _fact(i: int) -> str:
    lines = (SHARED_DATA / "zh/cases/cail2018_sample_train.jsonl").read_text(encoding="utf-8").splitlines()
    return str(json.loads(lines[i])["fact"])


def test_lexical_features_of_a_real_injury_case() -> None:
    features = extract_lexical(_fact(0))  # 因琐事…致王×左臂受伤…轻伤…投案自首
    assert "自首" in features["defendant"]
    assert "轻伤" in features["victim"]
    assert "琐事纠纷" in features["mental_state"]
    assert set(features) == {"defendant", "behaviour", "victim", "mental_state"}


def test_amounts_fall_into_buckets() -> None:
    assert "涉案1千-1万元" in extract_lexical("秘密盗走被害人支付宝内人民币3723元")["victim"]
    assert "涉案>=10万元" in extract_lexical("骗取被害人现金共计12.5万元")["victim"]


def test_knn_and_leiden_separate_two_groups() -> None:
    theft = {"behaviour": ["盗窃"], "mental_state": ["非法占有目的"], "defendant": [], "victim": []}
    fight = {"behaviour": ["殴打伤害"], "victim": ["轻伤"], "defendant": [], "mental_state": []}
    features = [theft] * 4 + [fight] * 4
    matrix = feature_matrix(features)
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0)
    edges = knn_edges(matrix, 2)
    assert all((i < 4) == (j < 4) for i, j, _ in edges)  # no positive similarity across the groups
    membership = leiden(8, edges, resolution=1.0)
    assert len(set(membership[:4])) == 1 and len(set(membership[4:])) == 1 and membership[0] != membership[4]
    assert top_features(features[:4], 2) == ["behaviour:盗窃", "mental_state:非法占有目的"]


def test_the_llm_extractor_validates_and_records_usage() -> None:
    reply = json.dumps({"defendant": ["自首"], "behaviour": ["推倒", "推倒"], "victim": ["轻伤"], "mental_state": []})
    extract, usages = llm_extractor(FakeChatModel(responses=[reply]))
    assert extract(_fact(0)) == {"defendant": ["自首"], "behaviour": ["推倒"], "victim": ["轻伤"], "mental_state": []}
    assert usages[0]["llm_calls"] == 1


def test_feature_index_finds_similar_cases_and_their_community() -> None:
    from tools.kb.ontology import FeatureIndex

    theft = {"behaviour": ["盗窃"], "defendant": ["自首"]}
    index = FeatureIndex(
        ["c1", "c2", "c3", "c4"],
        [theft, {"behaviour": ["盗窃"]}, {"behaviour": ["诈骗"]}, {"behaviour": ["诈骗"], "defendant": ["自首"]}],
        {"c1": "A", "c2": "A", "c3": "B", "c4": "B"},
        stamp=0,
    )
    assert [c for c, _ in index.similar(theft, 4)] == ["c1", "c2", "c4"]  # c3 shares nothing
    assert index.similar(theft, 4)[0][1] == 1.0
    assert index.best_community(theft, 4) == "A"
    assert [c for c, _ in index.similar(theft, 4, within="B")] == ["c4"]
    assert index.similar({"behaviour": ["未知特征"]}, 3) == []
    assert FeatureIndex([], [], {}, 0).best_community(theft, 3) is None
    # The fact's own copies (a judgment stored per defendant) are never its neighbours or its community's.
    assert [c for c, _ in index.similar(theft, 4, skip={"c1", "c2"})] == ["c4"]
    assert index.best_community(theft, 4, skip={"c1", "c2"}) == "B"
