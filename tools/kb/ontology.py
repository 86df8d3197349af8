"""The Ontology graph (LegalGraphRAG): case features in four dimensions, kNN similarity, Leiden communities.

(:Case)-[:HAS_FEATURE]->(:Feature {id, dim, value}); (:Case)-[:SIMILAR {score}]->(:Case) for each case's
k nearest neighbours by feature vector (a normalised bag of features, so 5,000 cases take seconds);
(:Case)-[:IN]->(:Community {id, level, size, top_features, summary}) from Leiden at two resolutions
(level 0 coarse, level 1 fine). Feature extraction is pluggable: a lexical extractor needing no model, and
an LLM extractor (LegalGraphRAG's four-dimension prompt).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Annotated

import numpy as np
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from prompts import render_prompt
from tools.errors import InputError
from tools.kb.communities import leiden
from tools.kb.port import GraphStore
from tools.llm.chat import Usage, invoke_structured, invoke_text

DIMENSIONS = ("defendant", "behaviour", "victim", "mental_state")
Features = dict[str, list[str]]
FeatureExtractor = Callable[[str], Features]

# Lexicon of the lexical extractor: feature value -> trigger phrases found in CAIL fact descriptions.
LEXICON: dict[str, dict[str, tuple[str, ...]]] = {
    "defendant": {
        "累犯": ("累犯",),
        "有前科": ("前科", "曾因", "刑满释放"),
        "自首": ("自首", "主动投案", "投案"),
        "坦白": ("如实供述", "坦白"),
        "认罪认罚": ("认罪认罚", "自愿认罪"),
        "退赃退赔": ("退赃", "退赔", "退还"),
        "赔偿谅解": ("谅解", "赔偿"),
        "立功": ("立功",),
        "未成年人": ("未成年", "不满十八周岁"),
        "国家工作人员": ("国家工作人员", "国家机关工作人员", "公职人员"),
        "醉酒": ("醉酒", "酒后", "血液酒精"),
        "共同犯罪": ("伙同", "共同", "合伙"),
    },
    "behaviour": {
        "盗窃": ("盗窃", "窃取", "偷"),
        "抢劫": ("抢劫",),
        "抢夺": ("抢夺",),
        "诈骗": ("诈骗", "骗取", "虚构事实"),
        "殴打伤害": ("殴打", "打伤", "拳打脚踢", "持刀", "捅"),
        "杀人": ("杀害", "致死"),
        "驾驶机动车": ("驾驶",),
        "交通肇事": ("交通事故", "肇事"),
        "毒品交易": ("贩卖", "毒品", "甲基苯丙胺", "海洛因"),
        "容留吸毒": ("容留",),
        "赌博": ("赌博", "赌场"),
        "寻衅滋事": ("寻衅滋事", "随意殴打", "滋事"),
        "非法持有": ("非法持有", "私藏"),
        "职务侵占挪用": ("侵占", "挪用"),
        "受贿行贿": ("受贿", "行贿", "贿赂"),
        "伪造": ("伪造", "变造"),
        "信用卡": ("信用卡",),
        "网络": ("网络", "微信", "支付宝", "QQ"),
        "放火毁坏": ("放火", "毁坏", "损毁"),
        "性侵": ("强奸", "猥亵"),
        "非法拘禁": ("拘禁", "扣押"),
    },
    "victim": {
        "死亡": ("死亡",),
        "重伤": ("重伤",),
        "轻伤": ("轻伤",),
        "轻微伤": ("轻微伤",),
        "未成年被害人": ("幼女", "儿童", "未成年被害人"),
        "妇女": ("妇女", "女子"),
        "单位财产": ("公司", "单位", "超市", "商店"),
        "公共安全": ("公共安全", "道路上", "公共场所"),
    },
    "mental_state": {
        "非法占有目的": ("非法占有",),
        "明知": ("明知",),
        "琐事纠纷": ("琐事", "纠纷", "口角"),
        "报复": ("报复",),
        "预谋": ("预谋", "事先", "商议"),
        "过失": ("过失", "疏忽", "未注意"),
        "营利目的": ("牟利", "营利", "获利"),
    },
}
_AMOUNT_RE = re.compile(r"(?:价值|共计|合计|金额|人民币|现金)[^0-9，。]{0,6}([0-9]+(?:\.[0-9]+)?)\s*(万)?元")
_AMOUNT_BUCKETS = ((1_000, "涉案<1千元"), (10_000, "涉案1千-1万元"), (100_000, "涉案1万-10万元"))


def extract_lexical(fact: str) -> Features:
    """Four-dimension features by phrase matching, plus an amount bucket; no model needed."""
    features: Features = {dim: [] for dim in DIMENSIONS}
    for dim, values in LEXICON.items():
        features[dim] = [value for value, triggers in values.items() if any(t in fact for t in triggers)]
    amounts = [float(m.group(1)) * (10_000 if m.group(2) else 1) for m in _AMOUNT_RE.finditer(fact)]
    if amounts:
        top = max(amounts)
        features["victim"].append(next((label for limit, label in _AMOUNT_BUCKETS if top < limit), "涉案>=10万元"))
    return features


class CaseFeatures(BaseModel):
    """LegalGraphRAG's four dimensions, as short phrases."""

    defendant: list[Annotated[str, Field(max_length=20)]] = Field(max_length=6)
    behaviour: list[Annotated[str, Field(max_length=20)]] = Field(max_length=6)
    victim: list[Annotated[str, Field(max_length=20)]] = Field(max_length=6)
    mental_state: list[Annotated[str, Field(max_length=20)]] = Field(max_length=4)


def llm_extractor(model: BaseChatModel, language: str = "zh", retries: int = 2) -> tuple[FeatureExtractor, list[Usage]]:
    """An extractor that asks the model; the usages of its calls are appended to the returned list."""
    usages: list[Usage] = []

    def extract(fact: str) -> Features:
        prompt = render_prompt("extract_features", language, fact=fact)
        parsed, usage = invoke_structured(model, [HumanMessage(content=prompt)], CaseFeatures, retries)
        usages.append(usage)
        return {dim: list(dict.fromkeys(v.strip() for v in getattr(parsed, dim) if v.strip())) for dim in DIMENSIONS}

    return extract, usages


def feature_vocab(features: Sequence[Features]) -> dict[str, int]:
    """Column of every dim:value occurring in ``features``, in order of first occurrence."""
    vocab: dict[str, int] = {}
    for f in features:
        for dim, value in _pairs(f):
            vocab.setdefault(_key(dim, value), len(vocab))
    return vocab


def vectorise(features: Sequence[Features], vocab: Mapping[str, int]) -> np.ndarray:
    """Rows: L2-normalised bag-of-features vectors over ``vocab`` (features outside it are ignored)."""
    matrix = np.zeros((len(features), max(len(vocab), 1)), dtype=np.float32)
    for row, f in enumerate(features):
        for dim, value in _pairs(f):
            if (col := vocab.get(_key(dim, value))) is not None:
                matrix[row, col] = 1.0
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def feature_matrix(features: Sequence[Features]) -> np.ndarray:
    """Rows: L2-normalised bag-of-features vectors (one column per dim:value)."""
    return vectorise(features, feature_vocab(features))


def knn_edges(matrix: np.ndarray, k: int) -> list[tuple[int, int, float]]:
    """(i, j, cosine) for each row's k most similar other rows with a positive similarity."""
    if len(matrix) < 2 or k <= 0:
        return []
    sims = matrix @ matrix.T
    np.fill_diagonal(sims, -1.0)
    k = min(k, len(matrix) - 1)
    neighbours = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    return [
        (i, int(j), round(float(sims[i, j]), 4)) for i in range(len(matrix)) for j in neighbours[i] if sims[i, j] > 0
    ]


def top_features(features: Sequence[Features], limit: int = 8) -> list[str]:
    """The most frequent dim:value features of a group of cases."""
    counts = Counter(f"{dim}:{v}" for f in features for dim in DIMENSIONS for v in f.get(dim, []))
    return [name for name, _ in counts.most_common(limit)]


_FEATURES_OF_CASES = "MATCH (c:Case) RETURN c.id AS id, c.fact AS fact, c.features_done AS done ORDER BY id"
_WRITE_FEATURES = """
UNWIND $rows AS row
MATCH (c:Case {id: row.id})
SET c.features_done = true
WITH c, row
OPTIONAL MATCH (c)-[old:HAS_FEATURE]->(:Feature)
DELETE old
WITH DISTINCT c, row
UNWIND row.features AS f
MERGE (feat:Feature {id: f.id})
SET feat.dim = f.dim, feat.value = f.value
MERGE (c)-[:HAS_FEATURE]->(feat)
"""
_CLEAR_SIMILAR = "MATCH (:Case)-[s:SIMILAR]->(:Case) DELETE s"
_STORED_FEATURES = """
MATCH (c:Case)-[:HAS_FEATURE]->(f:Feature)
RETURN c.id AS id, f.dim AS dim, f.value AS value
"""
_CLEAR_COMMUNITIES = "MATCH (m:Community) DETACH DELETE m"
_WRITE_SIMILAR = """
UNWIND $rows AS row
MATCH (a:Case {id: row.a}), (b:Case {id: row.b})
MERGE (a)-[s:SIMILAR]->(b)
SET s.score = row.score
"""
_WRITE_COMMUNITIES = """
UNWIND $rows AS row
MERGE (m:Community {id: row.id})
SET m.level = row.level, m.size = row.size, m.top_features = row.top_features, m.summary = ''
WITH m, row
UNWIND row.cases AS case_id
MATCH (c:Case {id: case_id})
MERGE (c)-[:IN]->(m)
"""

_COMMUNITY = """
MATCH (c:Case)-[:IN]->(m:Community {id: $id})
RETURN m.size AS size, m.top_features AS features, m.summary AS summary, c.charges AS charges, c.fact AS fact
ORDER BY c.id
"""
_SAVE_SUMMARY = "MATCH (m:Community {id: $id}) SET m.summary = $summary, m.summary_model = $model"
_COMMUNITIES = """
MATCH (m:Community) WHERE m.level = $level
RETURN m.id AS id, m.size AS size, m.top_features AS top_features, m.summary AS summary
ORDER BY m.size DESC, m.id
"""
_EXAMPLES_PER_SUMMARY = 3
_EXAMPLE_CHARS = 150

RESOLUTIONS = (0.3, 1.0)
"""Leiden resolution per level: 0 coarse, 1 fine."""


class OntologyRepository:
    """Builds and reads the Ontology graph on any :class:`GraphStore`."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store

    def cases(self) -> list[tuple[str, str, bool]]:
        """(id, fact, features already extracted) of every case."""
        return [(r["id"], r["fact"], bool(r["done"])) for r in self.store.read(_FEATURES_OF_CASES)]

    def stored_features(self) -> dict[str, Features]:
        """Features already in the graph, per case id (cases without any are absent)."""
        stored: dict[str, Features] = {}
        for row in self.store.read(_STORED_FEATURES):
            stored.setdefault(row["id"], {dim: [] for dim in DIMENSIONS})[row["dim"]].append(row["value"])
        return stored

    def write_features(self, features: Mapping[str, Features], batch_size: int = 200) -> None:
        rows = [
            {
                "id": case_id,
                "features": [
                    {"id": f"{dim}:{v}", "dim": dim, "value": v} for dim in DIMENSIONS for v in f.get(dim, [])
                ],
            }
            for case_id, f in features.items()
        ]
        for start in range(0, len(rows), batch_size):
            self.store.query(_WRITE_FEATURES, {"rows": rows[start : start + batch_size]})

    def rebuild_structure(
        self, ids: Sequence[str], features: Sequence[Features], k: int, batch_size: int = 500
    ) -> dict[str, int]:
        """Replace SIMILAR edges and communities for the given cases (all cases of the graph)."""
        matrix = feature_matrix(features)
        edges = knn_edges(matrix, k)
        self.store.query(_CLEAR_SIMILAR)
        self.store.query(_CLEAR_COMMUNITIES)
        similar = [{"a": ids[i], "b": ids[j], "score": w} for i, j, w in edges]
        for start in range(0, len(similar), batch_size):
            self.store.query(_WRITE_SIMILAR, {"rows": similar[start : start + batch_size]})
        counts = {"cases": len(ids), "similar": len(similar)}
        for level, resolution in enumerate(RESOLUTIONS):
            membership = leiden(len(ids), edges, resolution) if edges else [0] * len(ids)
            groups: dict[int, list[int]] = {}
            for node, community in enumerate(membership):
                groups.setdefault(community, []).append(node)
            rows = [
                {
                    "id": f"L{level}-C{community}",
                    "level": level,
                    "size": len(members),
                    "top_features": top_features([features[m] for m in members]),
                    "cases": [ids[m] for m in members],
                }
                for community, members in groups.items()
            ]
            for start in range(0, len(rows), 50):
                self.store.query(_WRITE_COMMUNITIES, {"rows": rows[start : start + 50]})
            counts[f"communities_level_{level}"] = len(rows)
        return counts

    def communities(self, level: int) -> list[dict[str, object]]:
        """Communities of one level, largest first, with their cached summaries ('' when none yet)."""
        return self.store.read(_COMMUNITIES, {"level": level})

    def summarise(
        self, community_id: str, model: BaseChatModel, model_name: str, language: str = "zh", refresh: bool = False
    ) -> tuple[str, Usage | None]:
        """The community's summary: cached on the node, written by the model on first demand."""
        rows = self.store.read(_COMMUNITY, {"id": community_id})
        if not rows:
            raise InputError(f"no community {community_id!r}")
        if rows[0]["summary"] and not refresh:
            return str(rows[0]["summary"]), None
        charges = Counter(name for row in rows for name in (row["charges"] or []))
        examples = "\n".join(f"- {str(row['fact'])[:_EXAMPLE_CHARS]}" for row in rows[:_EXAMPLES_PER_SUMMARY])
        prompt = render_prompt(
            "summarise_community",
            language,
            size=rows[0]["size"],
            features="、".join(rows[0]["features"] or []) or "（无）",
            charges="、".join(f"{name}({n})" for name, n in charges.most_common(5)) or "（无）",
            examples=examples,
        )
        text, usage = invoke_text(model, [HumanMessage(content=prompt)])
        self.store.query(_SAVE_SUMMARY, {"id": community_id, "summary": text.strip(), "model": model_name})
        return text.strip(), usage


_MEMBERSHIP = """
MATCH (c:Case)-[:IN]->(m:Community) WHERE m.level = $level
RETURN m.id AS community, c.id AS case_id
"""
_FEATURE_EDGES = "MATCH (:Case)-[r:HAS_FEATURE]->(:Feature) RETURN count(r) AS n"


class FeatureIndex:
    """The Ontology graph in memory for queries: every case's feature vector and its community at one
    level. Read once and reused while the graph's feature edges are unchanged."""

    def __init__(self, ids: list[str], features: list[Features], membership: dict[str, str], stamp: int) -> None:
        self.ids = ids
        self.vocab = feature_vocab(features)
        self.matrix = vectorise(features, self.vocab)
        self.membership = membership
        self.stamp = stamp

    @classmethod
    def load(cls, repo: OntologyRepository, level: int) -> FeatureIndex:
        stored = repo.stored_features()
        ids = sorted(stored)
        membership = {r["case_id"]: r["community"] for r in repo.store.read(_MEMBERSHIP, {"level": level})}
        return cls(ids, [stored[i] for i in ids], membership, feature_stamp(repo))

    def similar(
        self, features: Features, n: int, within: str | None = None, skip: Collection[str] = ()
    ) -> list[tuple[str, float]]:
        """The ``n`` cases most similar to ``features`` (cosine > 0), optionally only those of one community,
        never those of ``skip`` (the fact's own copies: a case is not its own precedent)."""
        if not self.ids:
            return []
        sims = self.matrix @ vectorise([features], self.vocab)[0]
        order = np.argsort(-sims, kind="stable")
        found: list[tuple[str, float]] = []
        for i in order:
            if sims[i] <= 0 or len(found) == n:
                break
            if self.ids[i] not in skip and (within is None or self.membership.get(self.ids[i]) == within):
                found.append((self.ids[i], round(float(sims[i]), 4)))
        return found

    def best_community(self, features: Features, n_neighbours: int, skip: Collection[str] = ()) -> str | None:
        """The community most of the query's nearest cases (``skip`` aside) belong to (similarity-weighted
        vote)."""
        votes: dict[str, float] = {}
        for case_id, score in self.similar(features, n_neighbours, skip=skip):
            if (community := self.membership.get(case_id)) is not None:
                votes[community] = votes.get(community, 0.0) + score
        return max(votes, key=lambda c: votes[c]) if votes else None


def _pairs(features: Features) -> list[tuple[str, str]]:
    return [(dim, v) for dim in DIMENSIONS for v in features.get(dim, [])]


def _key(dim: str, value: str) -> str:
    return f"{dim}:{value}"


def feature_stamp(repo: OntologyRepository) -> int:
    """A cheap change marker of the Ontology graph: its number of HAS_FEATURE edges."""
    rows = repo.store.read(_FEATURE_EDGES)
    return int(rows[0]["n"]) if rows else 0
