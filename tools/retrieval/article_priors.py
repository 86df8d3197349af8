"""Magnet articles: those the Researcher's fusion ranks near the top for most facts, whatever they are about,
and courts do not cite.

Some offences are told in the words every court fact uses. 刑讯逼供 (art. 247) speaks of 被告人 and 证人证言,
脱逃 (art. 316) of 被告人 and 犯罪嫌疑人, 私放在押人员 (art. 400) of 在押: BM25 and the offence descriptions
put them in the top ten for more than half of all facts. Counted over real cases (1,000 CAIL sample cases,
none of them a dev item), an article's magnet rate is the share of cases whose fused top ten held it although
the case did not cite it. Where that rate exceeds ``Context.magnet_threshold``, the fusion multiplies the
article's score by (1 - rate) ** ``Context.article_prior_strength``; every other article keeps its score, and
so does a magnet whose charge the fact names (the KG strategy's articles): a real 脱逃 case says 脱逃.

Only a rate over all cases is used, not the share of an article's appearances that were cited: the CAIL
sample holds no bribery case, so that share would have demoted 受贿 (385) and its penalty article for every
fact, while its rate, ranked for 2% of cases, leaves it alone.

The counts are fitted by ``jurisgraph fit priors`` (``make article-priors``) and shipped with the
package (``article_priors.json``, a few kilobytes).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from tools.errors import InputError

BUNDLED_PRIORS = Path(__file__).with_name("article_priors.json")
"""The priors fitted on the CAIL sample cases with the judge KB (``make article-priors``)."""


@dataclass(frozen=True)
class ArticlePriors:
    """Top-``depth`` appearances and citations per article over ``cases`` fitting cases."""

    depth: int
    """How deep in the fused ranking an appearance counts."""
    cases: int
    """How many cases the counts are over."""
    ranked: Mapping[str, int]
    """Article id -> cases whose fused top ``depth`` held it."""
    cited: Mapping[str, int]
    """Article id -> of those cases, how many cited it."""
    provenance: Mapping[str, Any] = field(default_factory=dict)
    """What the counts were fitted on (the cases' hash, the code's commit); informative only."""

    def magnet_rate(self, article_id: str) -> float:
        """The share of the fitting cases whose top ``depth`` held the article though they did not cite it."""
        if not self.cases:
            return 0.0
        return (self.ranked.get(article_id, 0) - self.cited.get(article_id, 0)) / self.cases

    def factor(self, article_id: str, threshold: float, strength: float) -> float:
        """(1 - magnet rate) ** strength for an article whose rate exceeds ``threshold``; 1 otherwise."""
        rate = self.magnet_rate(article_id)
        return (1.0 - rate) ** strength if rate > threshold else 1.0

    def demote(
        self, scored: Iterable[tuple[str, float]], threshold: float, strength: float, exempt: Collection[str] = ()
    ) -> list[str]:
        """Ids of ``scored`` (id, fused score) re-ordered by score x factor, best first; ties keep their order.
        ``exempt`` keep their scores: the fact itself names their charge (脱逃 in a real escape)."""
        weighted = [
            (aid, score if aid in exempt else score * self.factor(aid, threshold, strength)) for aid, score in scored
        ]
        return [aid for aid, _ in sorted(weighted, key=lambda item: -item[1])]

    def to_json(self) -> dict[str, Any]:
        return {
            "depth": self.depth,
            "cases": self.cases,
            "ranked": dict(self.ranked),
            "cited": dict(self.cited),
            **self.provenance,
        }


def count_priors(
    cases: Iterable[tuple[Sequence[str], Iterable[str]]], depth: int, provenance: Mapping[str, Any]
) -> ArticlePriors:
    """Priors from (fused ranking, cited articles) per case."""
    ranked: Counter[str] = Counter()
    cited: Counter[str] = Counter()
    count = 0
    for ranking, gold in cases:
        count += 1
        top = list(dict.fromkeys(ranking))[:depth]
        truth = set(gold)
        ranked.update(top)
        cited.update(a for a in top if a in truth)
    return ArticlePriors(depth, count, dict(sorted(ranked.items())), dict(sorted(cited.items())), dict(provenance))


def read_priors(path: Path) -> ArticlePriors:
    """Priors from a file :meth:`ArticlePriors.to_json` wrote; a clear error naming the file otherwise."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        extra = {k: v for k, v in raw.items() if k not in ("depth", "cases", "ranked", "cited")}
        ranked = {str(k): int(v) for k, v in raw["ranked"].items()}
        cited = {str(k): int(v) for k, v in raw["cited"].items()}
        return ArticlePriors(int(raw["depth"]), int(raw["cases"]), ranked, cited, extra)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InputError(f"unreadable article priors {path}: {exc}") from exc


@lru_cache(maxsize=1)
def bundled_priors() -> ArticlePriors | None:
    """The packaged priors, read once; None when the package ships none."""
    return read_priors(BUNDLED_PRIORS) if BUNDLED_PRIORS.exists() else None
