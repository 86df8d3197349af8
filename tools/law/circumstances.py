"""Sentencing circumstances a fact states (自首, 坦白, 立功, 累犯, 未遂, 从犯, 谅解, 退赃退赔, 认罪认罚), the
provision each invokes, and how far each moves a term.

A precedent median is the sentence of the typical case of a charge; a defendant who surrendered (Criminal Law
art. 67) or is a recidivist (art. 65) is not typical. How far each circumstance moves the term is data
(``circumstance_factors.json``, fitted by ``jurisgraph fit circumstances`` on the KB's judged cases, whose terms
the courts set with these provisions), not a constant here. A circumstance the fact negates (不构成自首, 无前科)
is not read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tools.fitted import read_fitted
from tools.law.wording import denied_at

BUNDLED_FACTORS = Path(__file__).with_name("circumstance_factors.json")


@dataclass(frozen=True)
class Rule:
    """How a circumstance is written in a fact, and the provision that gives it effect (None: a discretionary
    circumstance, 酌定情节, that no article of the Criminal Law names)."""

    name: str
    pattern: re.Pattern[str]
    article: str | None


RULES = (
    Rule("自首", re.compile(r"自首|(?:主动|自动)[^，。；]{0,10}投案"), "刑法:67"),  # 主动到公安机关投案 too
    Rule("坦白", re.compile(r"坦白|如实供述"), "刑法:67"),
    Rule("立功", re.compile(r"立功"), "刑法:68"),
    Rule("累犯", re.compile(r"累犯"), "刑法:65"),
    Rule("未遂", re.compile(r"未遂|未得逞"), "刑法:23"),
    Rule("从犯", re.compile(r"从犯|次要作用|辅助作用"), "刑法:27"),
    Rule("谅解", re.compile(r"谅解"), None),
    Rule("退赃退赔", re.compile(r"退赃|退赔|退还[^，。；]{0,8}(?:赃|款|财物)|赔偿[^，。；]{0,12}(?:损失|经济)"), None),
    Rule("认罪认罚", re.compile(r"认罪认罚"), "刑事诉讼法:15"),
)
"""Every circumstance read, in the order a judgment lists them."""
_DELIMITERS = "，。；"


@dataclass(frozen=True)
class Circumstance:
    """A circumstance the fact states: its name, the provision it invokes, and the clause it was read from."""

    name: str
    article: str | None
    found: str


def stated_circumstances(fact: str) -> list[Circumstance]:
    """The circumstances ``fact`` states, each once, with the clause it was read from; 坦白 is not read beside
    自首, which art. 67 para. 1 already covers."""
    found: list[Circumstance] = []
    for rule in RULES:
        matches = list(rule.pattern.finditer(fact))
        # One denial anywhere settles it: 辩护人所提自首的意见…经查不构成自首 is no surrender.
        if not matches or any(denied_at(fact, m.start(), finding=True) for m in matches):
            continue
        match = matches[0]
        start = max(fact.rfind(d, 0, match.start()) for d in _DELIMITERS) + 1
        ends = [i for i in (fact.find(d, match.end()) for d in _DELIMITERS) if i >= 0]
        found.append(Circumstance(rule.name, rule.article, fact[start : min(ends, default=len(fact))]))
    names = {c.name for c in found}
    return [c for c in found if not (c.name == "坦白" and "自首" in names)]


@dataclass(frozen=True)
class CircumstanceFactors:
    """How far each circumstance moves a term: the term (in months, plus one) is multiplied by exp(weight)."""

    weights: Mapping[str, float]

    def factor(self, names: Sequence[str]) -> float:
        return math.exp(sum(self.weights.get(n, 0.0) for n in names))

    def apply(self, months: int, names: Sequence[str]) -> int:
        """``months`` moved by the circumstances ``names`` (0 stays 0: no term is no term)."""
        if months <= 0:
            return months
        return max(1, round((months + 1) * self.factor(names)) - 1)


@lru_cache(maxsize=1)
def fitted_circumstance_factors() -> CircumstanceFactors:
    """The shipped factors (read once)."""
    data = read_fitted(BUNDLED_FACTORS)
    return CircumstanceFactors({str(k): float(v) for k, v in data["weights"].items()})


PROBATION_MONTHS = 36
"""Art. 72: 缓刑 may be declared for a sentence of 拘役 or of at most three years' imprisonment."""
REMORSE = frozenset({"自首", "坦白", "谅解", "退赃退赔", "认罪认罚"})
"""Circumstances that show 悔罪表现, one of art. 72's conditions."""


def probation_open(months: int, names: Sequence[str]) -> bool:
    """Whether art. 72's conditions that code can read are met: a term of at most three years, a circumstance
    showing remorse, and no recidivism (art. 74 bars 累犯). The rest (情节较轻, no risk of reoffending, the
    community) is for the court, so this opens the question, it does not decide it."""
    return 0 < months <= PROBATION_MONTHS and "累犯" not in names and bool(REMORSE.intersection(names))
