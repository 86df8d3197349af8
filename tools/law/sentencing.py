"""The sentence a judgment may impose: the range the tiers of its charges' articles allow at the tier the facts
meet, combined for several charges (Criminal Law art. 69), and a term outside it clamped to the nearest
bound. A 1.5B model sentenced 失火 (art. 115 para. 2: at most seven years) to death; code catches that.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tools.law.penalties import DETENTION_MONTHS, Tier, article_tiers
from tools.law.wording import told

MITIGATING_ARTICLES = frozenset(f"刑法:{n}" for n in (17, 18, 19, 20, 21, 22, 23, 24, 27, 28, 63, 67, 68))
"""General provisions that allow a sentence below a tier's floor (减轻处罚): minors, the mentally ill, excess in
defence or necessity, preparation, attempt, abandonment, accessories, coercion, art. 63, surrender, merit.
A judgment applying one is not clamped up to the floor."""
COMBINED_CAPS = ((420, 240), (None, 300))
"""Art. 69: a combined fixed term is capped at 20 years when the terms sum to under 35 years, else at 25."""
# A degree a court weighs; an amount's is one whatever it counts (贪污数额巨大, 虚开的税款数额较大): the counted thing
# is no condition a fact must repeat (a 受贿 fact never says 贪污, yet 386 punishes it under 383's bands).
_DEGREE = re.compile(
    r"[^，。；、（）()]{0,8}?数额(?:较大|巨大|特别巨大)|(?:有)?其他(?:特别)?(?:严重|恶劣)情节|情节(?:较轻|严重|特别严重|恶劣|特别恶劣)"
    r"|(?:造成)?(?:严重|特别严重)后果|(?:特别)?重大损失"
)
_VAGUE = re.compile(rf"{_DEGREE.pattern}|有下列情形之一|犯前款罪|依照前款的规定处罚|多次")
# A band's alternatives: 或者, and the items of a list (（一）…；（二）…).
_ALTERNATIVE = re.compile(r"或者|[；;]|[（(][一二三四五六七八九十]+[）)]")
_PART = re.compile(r"[，,；;：:、（）()\n]|或者|并且|并")
_LEAD = re.compile(r"^(?:致使|致人|致|造成|使)")
# The person a consequence befalls, as an article names it (造成就诊人死亡): a fact names the person, not the role.
_VICTIM = re.compile(r"^[^，。；、]{0,4}?人(?=死亡|重伤)")


@dataclass(frozen=True)
class Allowed:
    """What the convicted articles allow: a fixed-term range in months, and whether life or death may be
    imposed."""

    low: int
    high: int
    life: bool
    death: bool
    kinds: tuple[str, ...]
    articles: tuple[str, ...]
    floor: int = 0
    """The floor of the basic offence's tier (a heavier or lighter band aside): where a term starts when no
    precedent sets one (刑法:328, 盗掘古墓葬: three years, not the 拘役 of its 情节较轻 band)."""


def negligent(charge: str) -> bool:
    """Whether a charge is the negligent form of an offence (过失致人死亡, 失火): its article's paragraph that
    begins 过失犯前款罪 applies, not the intentional one."""
    return "过失" in charge or charge.startswith("失")


def tier_met(tier: Tier, fact: str) -> bool:
    """Whether the facts may meet a tier: the basic offence always; a band when one of its concrete conditions
    (致人重伤, 死亡, 入户抢劫…) is written in the fact, or when it or one of its alternatives is only a degree code
    cannot weigh (数额巨大, 情节特别严重), which a court decides from amounts and circumstances."""
    if tier.basic:
        return True
    alternatives = _ALTERNATIVE.split(tier.condition)
    concrete = [_concrete(a) for a in alternatives]
    if not any(concrete) or any(_DEGREE.search(a) and not c for a, c in zip(alternatives, concrete, strict=True)):
        return True
    return any(_stated(p, fact) for parts in concrete for p in parts)


def band_stated(tier: Tier, fact: str, offence: str = "") -> bool:
    """Whether the fact states, in its words and not denied, a concrete condition of a heavier or lighter band
    (致人死亡, 入户抢劫) that names no degree and is not part of ``offence`` (the basic tier's condition: 328's
    band of 盗掘古墓葬，并盗窃珍贵文物 is not stated by 古墓葬): the band then applies, where a degree (数额巨大,
    情节严重, 重大损失) only may, as a court weighs it."""
    if tier.basic:
        return False
    alternatives = [a for a in _ALTERNATIVE.split(tier.condition) if not _DEGREE.search(a)]
    return any(p not in offence and _stated(p, fact) for a in alternatives for p in _concrete(a))


def _stated(part: str, fact: str) -> bool:
    """``part`` occurs in ``fact`` other than denied (所幸未造成人员死亡, 未达重伤)."""
    return told(re.escape(part), fact)


def _concrete(condition: str) -> list[str]:
    """The parts of a condition a fact must state in its words: what is left without degrees and structure."""
    parts = [
        _VICTIM.sub("", _LEAD.sub("", p.strip())).removesuffix("的") for p in _PART.split(_VAGUE.sub("", condition))
    ]
    return [p for p in parts if len(p) >= 2 and not re.fullmatch(r"[（）()一二三四五六七八九十的]+", p)]


def _paragraph_for(tiers: list[Tier], charge: str) -> list[Tier]:
    """The tiers of the paragraphs a charge falls under: the 过失 paragraphs for a negligent charge, the others
    for an intentional one (an article without a 过失 paragraph: all of them)."""
    careless = {t.paragraph for t in tiers if t.basic and "过失" in t.condition}
    if not careless:
        return tiers
    return [t for t in tiers if (t.paragraph in careless) == negligent(charge)]


def charge_allowed(charge: str, articles: Mapping[str, str], fact: str) -> Allowed | None:
    """The range for one charge from the articles defining it (id -> text), or None when none sets a penalty."""
    met: list[tuple[str, Tier]] = []
    stated: list[int] = []
    for article_id, text in articles.items():
        tiers = _paragraph_for(article_tiers(text), charge)
        met += [(article_id, t) for t in tiers if tier_met(t, fact)]
        # With no precedent the term starts where a band whose concrete condition the fact states starts (致人死亡).
        offence = "".join(t.condition for t in tiers if t.basic)
        stated += [t.low for t in tiers if band_stated(t, fact, offence)]
    if not met:
        return None
    tiers = [t for _, t in met]
    basic = [t.low for t in tiers if t.basic]
    return Allowed(
        floor=max(stated) if stated else min(basic) if basic else min(t.low for t in tiers),
        low=min(t.low for t in tiers),
        high=max(t.high for t in tiers),
        life=any(t.life for t in tiers),
        death=any(t.death for t in tiers),
        kinds=tuple(dict.fromkeys(k for t in tiers for k in t.kinds)),
        articles=tuple(dict.fromkeys(a for a, _ in met)),
    )


def combine(ranges: Sequence[Allowed]) -> Allowed:
    """Several charges punished together (数罪并罚, art. 69): at least the highest floor, at most the sum of
    the ceilings under the art. 69 cap."""
    if len(ranges) == 1:
        return ranges[0]
    total = sum(r.high for r in ranges)
    cap = next(c for limit, c in COMBINED_CAPS if limit is None or total < limit)
    return Allowed(
        floor=max(r.floor for r in ranges),
        low=max(r.low for r in ranges),
        high=min(total, cap),
        life=any(r.life for r in ranges),
        death=any(r.death for r in ranges),
        kinds=tuple(dict.fromkeys(k for r in ranges for k in r.kinds)),
        articles=tuple(dict.fromkeys(a for r in ranges for a in r.articles)),
    )


def judgment_allowed(charge_articles: Mapping[str, Mapping[str, str]], fact: str) -> Allowed | None:
    """What a judgment may impose: each convicted charge's range from its articles (charge -> id -> text),
    combined (:func:`combine`); None when no article sets a penalty code can read."""
    ranges = [r for charge, texts in charge_articles.items() if (r := charge_allowed(charge, texts, fact))]
    return combine(ranges) if ranges else None


def in_range(months: int, life: bool, death: bool, allowed: Allowed, mitigated: bool = False) -> bool:
    """Whether a sentence fits what ``allowed`` permits (a mitigated one may fall below the floor)."""
    if death or life:
        return allowed.death if death else allowed.life
    return (0 if mitigated else allowed.low) <= months <= allowed.high


def clamp(months: int, life: bool, death: bool, allowed: Allowed, mitigated: bool = False) -> tuple[int, bool, bool]:
    """The sentence moved to the nearest one ``allowed`` permits. Death not allowed becomes life where life is;
    life (or death) allowed by no tier is dropped, and the fixed term the model also gave is kept within the
    range, or is the longest one when it gave none (a death sentence for 失火 becomes seven years, not one
    month). A fixed term goes to the nearer bound."""
    if death and not allowed.death and allowed.life:
        return months, True, False
    if (death and not allowed.death) or (life and not allowed.life):
        life = death = False
        if months <= 0:
            return allowed.high, False, False
    if death or life:
        return months, life, death
    return min(max(months, 0 if mitigated else allowed.low), allowed.high), False, False


def precedent_term(terms: Sequence[tuple[int, bool, bool]]) -> tuple[int, bool, bool] | None:
    """The median sentence of precedents' (months, life, death), life above every fixed term and death above
    life; None without precedents. A median, not a mean: one life sentence among fixed terms would drag a mean
    anywhere. An even count of fixed terms gives the mean of the middle two (the lower one alone sent the
    README's surrendered 2,300-yuan theft to no prison term, five of its ten precedents being fines only;
    ljp_dev by code, term MAE 20.36 → 20.09 tune, 27.74 → 27.34 report); a middle life or death sentence, the lower."""
    if not terms:
        return None
    ordered = sorted(terms, key=lambda t: (t[2], t[1], t[0]))
    low, high = ordered[(len(ordered) - 1) // 2], ordered[len(ordered) // 2]
    if low[1] or low[2] or high[1] or high[2]:
        return low
    return (round((low[0] + high[0]) / 2), False, False)


_CN = "零〇一二两三四五六七八九十百"
_DURATION = rf"(?:[{_CN}\d]+年(?:零?[{_CN}\d]+个?月)?|[{_CN}\d]+个?月)"
_TERM_MENTION = re.compile(
    rf"(?:判处|判|处以)?(?:有期徒刑|拘役|管制){_DURATION}|(?:判处|判|处以)?{_DURATION}的?(?:有期徒刑|拘役|管制)"
    rf"|判处?{_DURATION}|判处(?:无期徒刑|死刑(?:缓期二年执行)?)"
)
_MITIGATION = re.compile(r"自首|未遂|从犯|胁从|立功|未成年|不满十八周岁|防卫过当|避险过当|犯罪预备|中止")


def mitigated(articles: Sequence[str], fact: str) -> bool:
    """Whether a sentence below the tier's floor may stand: the judgment applies a provision that allows
    减轻处罚, or the fact states a circumstance that does (自首, 未遂, 从犯…)."""
    return bool(MITIGATING_ARTICLES.intersection(articles)) or _MITIGATION.search(fact) is not None


def describe_term(months: int, life: bool, death: bool, detention: bool = False) -> str:
    """A sentence in words: 死刑, 无期徒刑, 拘役3个月 (up to six months where ``detention`` may be imposed),
    有期徒刑3年6个月, 免予监禁 (no term)."""
    if death:
        return "死刑"
    if life:
        return "无期徒刑"
    if months <= 0:
        return "免予监禁"
    if detention and months <= DETENTION_MONTHS[1]:
        return f"拘役{months}个月"
    years, rest = divmod(months, 12)
    return "有期徒刑" + (f"{years}年" if years else "") + (f"{rest}个月" if rest else "")


def align_reasoning(reasoning: str, term: str) -> str:
    """The reasoning with every sentence it names written as ``term`` (the judgment's own), or ``term``
    appended when it names none: the model's prose and its number disagreed (3 years written, 3 months set)."""
    if _TERM_MENTION.search(reasoning):
        return _TERM_MENTION.sub(f"判处{term}", reasoning)
    return f"{reasoning}（判处{term}）" if reasoning else f"判处{term}"
