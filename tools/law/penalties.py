"""Penalties as statutes state them: the penalty kinds and quantities a text names, the sentence range of
every tier of an article, an article's offence apart from its sentencing bands and its wording without its
penalties, read by code so that what a model writes about punishment can be checked against the article it
cites. Every reading of penalties from statute text lives here.

Months are the unit of every range (CAIL's ``term_months``): 拘役 is one to six months, 管制 three months to
two years, a fixed term of 有期徒刑 six months to fifteen years (Criminal Law arts. 38, 42, 45).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tools.law.abbreviations import spelled_out
from tools.law.articles import ARTICLE_REF, CN_NUMERAL, cn_to_int, law_of, make_article_id
from tools.law.wording import bigram_share, unstated_repeat, without_unmet

PRINCIPAL_KINDS = ("管制", "拘役", "有期徒刑", "无期徒刑", "死刑")
"""The principal criminal penalties (Criminal Law art. 33)."""
ACCESSORY_KINDS = ("罚金", "剥夺政治权利", "没收财产")
"""The accessory criminal penalties (art. 34)."""

_KINDS: dict[str, str] = {
    # 管制刀具 is an object, not a penalty; 刑事拘留 a coercive measure, not the administrative 拘留.
    "管制": r"管制(?!刀具|物品|器具|药品|区)",
    "拘役": r"拘役",
    "有期徒刑": r"有期徒刑",
    "无期徒刑": r"无期徒刑",
    "死刑": r"死刑",
    "罚金": r"罚金",
    "剥夺政治权利": r"剥夺政治权利",
    "没收财产": r"没收(?:个人)?(?:全部|部分)?财产",
    "罚款": r"罚款",
    "拘留": r"(?<!刑事)拘留",
    "警告": r"警告",
    "没收违法所得": r"没收违法所得",
    "吊销驾驶证": r"吊销[^，。；、]{0,6}驾驶证",
    "暂扣驾驶证": r"暂扣[^，。；、]{0,6}驾驶证",
    "吊销执照": r"吊销[^，。；、]{0,6}(?:营业执照|许可证)",
    "责令停产停业": r"责令停产停业",
}
PENALTY_KINDS = tuple(_KINDS)
"""Every penalty kind code recognises: criminal (principal and accessory) and administrative."""
_KIND_RE = {kind: re.compile(pattern) for kind, pattern in _KINDS.items()}

NUMBER = rf"(?:\d+(?:\.\d+)?|[{CN_NUMERAL}]+)"
"""A number as statutes and people write it: 3, 2.5 or 三, 十二."""
_QUANTITY = re.compile(rf"百分之(?P<percent>{NUMBER})|(?P<value>{NUMBER})\s*(?P<unit>%|个月|年|日|天|万元|元|倍)")
# Dates are not claims about the law, nor periods: 2016年3月28日 names a day, 5.1号 a holiday.
DATE = re.compile(r"\d{2,4}年(?:\d{1,2}月(?:\d{1,2}[日号])?)?|\d{1,2}月\d{1,2}[日号]")
_UNIT = {"天": "日", "万元": "元", "%": "%"}


@dataclass(frozen=True)
class Quantity:
    """An amount or period with its unit, normalised (三年 and 3年 are one quantity; 5万元 is 50000 元)."""

    value: float
    unit: str
    text: str


def penalty_kinds(text: str) -> list[str]:
    """The penalty kinds ``text`` names, in the order of :data:`PENALTY_KINDS`."""
    return [kind for kind, pattern in _KIND_RE.items() if pattern.search(text)]


def number_value(text: str) -> float | None:
    """The value of a :data:`NUMBER` match (三 is 3.0), None when it is no numeral."""
    try:
        return float(text) if text[0].isdigit() else float(cn_to_int(text))
    except ValueError:
        return None


def quantities(text: str) -> list[Quantity]:
    """The amounts and periods ``text`` states with a unit: N年, N个月, N日, N元, N倍, 百分之N (dates aside)."""
    found: list[Quantity] = []
    for match in _QUANTITY.finditer(DATE.sub(" ", text)):
        if match["percent"]:
            value, unit = number_value(match["percent"]), "%"
        else:
            value, unit = number_value(match["value"]), match["unit"]
            if unit == "万元" and value is not None:
                value *= 10000
        if value is not None:
            found.append(Quantity(value, _UNIT.get(unit, unit), match.group(0)))
    return found


FIXED_TERM_MONTHS = (6, 180)
"""有期徒刑 alone: six months to fifteen years (art. 45)."""
DETENTION_MONTHS = (1, 6)
"""拘役: one to six months (art. 42)."""
SURVEILLANCE_MONTHS = (3, 24)
"""管制: three months to two years (art. 38)."""


@dataclass(frozen=True)
class Tier:
    """One penalty an article sets: the condition it applies under and the sentence range it allows."""

    paragraph: int
    """Index of the article's paragraph (款) it stands in, from 0."""
    condition: str
    """The article's words before the penalty (with the items listed under it): when this tier applies."""
    penalty: str
    """The penalty as the article words it (处三年以下有期徒刑、拘役或者管制，并处或者单处罚金)."""
    low: int
    high: int
    """The fixed-term range in months (0 when a non-custodial penalty is allowed)."""
    life: bool
    death: bool
    kinds: tuple[str, ...]
    """The penalty kinds this tier names."""
    basic: bool
    """The first tier of a paragraph that states an offence: not a heavier or lighter band of one."""


_PENALTY_START = re.compile(
    r"(?<![判并单])处(?=[一二三四五六七八九十]+年|拘役|管制|罚金|死刑|无期|有期|警告|暂扣|吊销|[^，。；]{0,12}(?:罚款|拘留))"
    # A body named as imposing the measure (道路交通安全法:91: 醉酒驾驶机动车的，由公安机关交通管理部门约束至酒醒，
    # 吊销机动车驾驶证，依法追究刑事责任): without it the drunk driver's tier was none, and the drinker's answered him.
    r"|由[^，。；]{2,16}(?=约束至酒醒|吊销|暂扣)"
)
_CLAUSE = re.compile(r"(?<=[。；;\n])")
_LIST_ITEM = re.compile(r"^\s*[（(][一二三四五六七八九十]+[)）]")
_AGGRAVATES = re.compile(r"犯(?:前款|第[一二三四五]款)罪")
"""A paragraph opening 犯前款罪，致人重伤的 sets a heavier band of the offence above, not an offence of its own."""
_BAND = re.compile(r"([一二三四五六七八九十]+)年以上(?:([一二三四五六七八九十]+)年以下)?有期徒刑")
_CAP = re.compile(r"([一二三四五六七八九十]+)年以下有期徒刑")


def _range(penalty: str) -> tuple[int, int]:
    """(low, high) months of fixed-term imprisonment, 拘役 or 管制 a penalty text allows."""
    spans: list[tuple[int, int]] = []
    if band := _BAND.search(penalty):
        spans.append((cn_to_int(band[1]) * 12, cn_to_int(band[2]) * 12 if band[2] else FIXED_TERM_MONTHS[1]))
    elif cap := _CAP.search(penalty):
        spans.append((FIXED_TERM_MONTHS[0], cn_to_int(cap[1]) * 12))
    if "拘役" in penalty:
        spans.append(DETENTION_MONTHS)
    if _KIND_RE["管制"].search(penalty):
        spans.append(SURVEILLANCE_MONTHS)
    if not spans:
        # 处无期徒刑或者死刑 (or a fine alone): no fixed term; the range collapses onto its nearest bound.
        top = FIXED_TERM_MONTHS[1] if "无期" in penalty or "死刑" in penalty else 0
        return top, top
    low, high = min(s[0] for s in spans), max(s[1] for s in spans)
    # A fine alone (单处罚金) or an exemption leaves a term of nothing.
    if "单处" in penalty or "免除" in penalty:
        low = 0
    return low, high


def _paragraphs(text: str) -> list[str]:
    """The article's paragraphs (款); a line opening with a list item ((一)…) belongs to the paragraph above."""
    paragraphs: list[str] = []
    for line in filter(str.strip, text.split("\n")):
        if paragraphs and _LIST_ITEM.match(line):
            paragraphs[-1] += "\n" + line
        else:
            paragraphs.append(line)
    return paragraphs


def article_tiers(text: str) -> list[Tier]:
    """Every penalty the article sets, in order, with its condition. Items listed under a tier ((一) 追逐竞驶…)
    join that tier's condition; a clause without a penalty joins the next tier's condition."""
    tiers: list[Tier] = []
    for paragraph, body in enumerate(_paragraphs(text)):
        pending: list[str] = []
        first = True
        for clause in filter(None, (c.strip() for c in _CLAUSE.split(body))):
            start = _PENALTY_START.search(clause)
            if start is None:
                if _LIST_ITEM.match(clause) and tiers and tiers[-1].paragraph == paragraph:
                    tiers[-1] = replace(tiers[-1], condition=tiers[-1].condition + clause)
                else:
                    pending.append(clause)
                continue
            penalty = clause[start.start() :].rstrip("。；;：:")
            condition = "".join([*pending, clause[: start.start()]])
            low, high = _range(penalty)
            tiers.append(
                Tier(
                    paragraph=paragraph,
                    condition=condition,
                    penalty=penalty,
                    low=low,
                    high=high,
                    life="无期" in penalty,
                    death="死刑" in penalty,
                    kinds=tuple(penalty_kinds(penalty)),
                    basic=first and not _AGGRAVATES.match(condition),
                )
            )
            pending, first = [], False
    return tiers


# An article that only applies another's penalty (刑法:386: 对犯受贿罪的…依照本法第三百八十三条的规定处罚); not one
# that also convicts under it (…的规定定罪处罚: 163's third paragraph sends state staff to 385 and 386's charge).
_PUNISHED_UNDER = re.compile(rf"依照本法{ARTICLE_REF}的规定处罚")


def penalty_reference(article_id: str, text: str) -> str | None:
    """The article whose penalty an article that sets none of its own applies (刑法:386 -> 刑法:383); None when
    the article sets a penalty or names no other's."""
    if article_tiers(text) or not (found := _PUNISHED_UNDER.search(text)):
        return None
    return make_article_id(law_of(article_id), cn_to_int(found[1]), cn_to_int(found[2]) if found[2] else 0)


_CONDITION_PART = re.compile(r"[，,；;：:（）()\n]|或者")


def _parts(tier: Tier) -> list[str]:
    return [p.strip() for p in _CONDITION_PART.split(tier.condition) if len(p.strip()) > 1]


def condition_match(tier: Tier, question: str) -> float:
    """How well ``question`` states the tier's condition: the best share of one of its parts (an element, a
    listed item, an alternative) whose character pairs the question contains. A listing article's condition
    is long, and 醉酒驾驶机动车的 alone is the part a drunk-driving question states (醉驾 read as the law words it:
    :func:`~tools.law.abbreviations.spelled_out`)."""
    if unstated_repeat(tier.condition, question):
        return 0.0
    question = spelled_out(without_unmet(question))
    return max((bigram_share(p, question) for p in _parts(tier)), default=0.0)


def stated_condition(tier: Tier, question: str) -> str:
    """The part of the tier's condition ``question`` states best, as the article words it and ready to precede
    the penalty (醉酒驾驶机动车的，), or nothing when the question states none of it."""
    question = spelled_out(without_unmet(question))
    scored = [(bigram_share(p, question), p) for p in _parts(tier) if not p.startswith("有下列情形")]
    share, part = max(scored, default=(0.0, ""))
    return f"{part}，" if share > 0 else ""


ASKED_TIER_SHARE = 0.8
"""How well a question must state one of an article's penalty tiers (its condition's character pairs) for that
tier alone to answer it: 醉酒驾驶机动车会受到什么处罚？ states 91's drunk-driving tier (1.0), and the drinking tier's
暂扣六个月 and 一千元以上二千元以下罚款 (0.5) are another case's penalties."""
ASKED_RUN = 4
"""Characters of the question that must stand word for word in a tier's condition, and in no tier that shares
fewer, for the tiers holding them to answer it when no tier reaches :data:`ASKED_TIER_SHARE`: 醉酒驾驶会受到什么处罚？
names 醉酒驾驶, which 91's drunk-driving tiers hold and its 饮酒后 tiers do not (they share one word, 驾驶)."""


def _longest_run(part: str, question: str) -> int:
    return max(
        (n for i in range(len(part)) for n in range(len(part) - i, 0, -1) if part[i : i + n] in question), default=0
    )


def asked_tiers(tiers: list[Tier], question: str) -> list[Tier]:
    """The tiers of an article that ``question`` states, told from its other tiers: those whose condition it
    states best when that reaches :data:`ASKED_TIER_SHARE`; else those whose condition holds the longest run of
    the question's characters, when that run is :data:`ASKED_RUN` long and some tier holds a shorter one. None
    when the article has one tier or the question tells none from the rest."""
    if len(tiers) < 2:
        return []
    best = max(condition_match(t, question) for t in tiers)
    if best >= ASKED_TIER_SHARE:
        return [t for t in tiers if condition_match(t, question) >= best]
    written = spelled_out(without_unmet(question))
    runs = [
        0 if unstated_repeat(t.condition, question) else max((_longest_run(p, written) for p in _parts(t)), default=0)
        for t in tiers
    ]
    longest = max(runs)
    if longest < ASKED_RUN or min(runs) == longest:
        return []
    return [t for t, run in zip(tiers, runs, strict=True) if run == longest]


def closest_tier(tiers: list[Tier], question: str) -> Tier | None:
    """The tier whose condition ``question`` matches best (:func:`condition_match`); the first basic tier on
    a tie."""
    if not tiers:
        return None
    return max(tiers, key=lambda t: (condition_match(t, question), t.basic, -tiers.index(t)))


CRIMINAL_PENALTY = re.compile(r"(?<![判并单])处(?:[一二三四五六七八九十]+年|拘役|管制|罚金|死刑|无期|有期)")
"""Where a statutory criminal penalty starts ("处三年以下有期徒刑", "处拘役"); neither "被判处…" in the general
part nor an accessory fine ("并处罚金", "单处罚金") starts one."""
_CLAUSE_END = re.compile(r"[。；;\n]")
_FLOOR = re.compile(r"处(?:[一二三四五六七八九十]+年以上|无期|死刑)")


def penalty_tiers(article_text: str) -> tuple[str, str] | None:
    """(basic offence, sentencing bands) of an article that sets penalties, or None for one that does not.

    Read clause by clause (。；and line breaks). A clause whose penalty has a floor ("处三年以上…", 无期,
    死刑) is a band, and so are the numbered items listed under it ("有下列情形之一的，处十年以上…：（一）
    入户抢劫的"). The text before the first penalty, a clause whose penalty starts from nothing ("猥亵儿童的，
    处五年以下"), a clause without a penalty ("奸淫不满十四周岁的幼女的，以强奸论") and items listed under
    such clauses ("…有下列情形之一的，处拘役…：（一）追逐竞驶…") are the offence."""
    if CRIMINAL_PENALTY.search(article_text) is None:
        return None
    offence: list[str] = []
    bands: list[str] = []
    seen_penalty = listing_band = False
    for clause in filter(None, (c.strip() for c in _CLAUSE_END.split(article_text))):
        penalty = CRIMINAL_PENALTY.search(clause)
        if _LIST_ITEM.match(clause) and seen_penalty:
            (bands if listing_band else offence).append(clause)
            continue
        listing_band = bool(penalty and seen_penalty and _FLOOR.match(clause, penalty.start()))
        if listing_band:
            bands.append(clause)
        else:
            offence.append(clause[: penalty.start()] if penalty else clause)
        seen_penalty = seen_penalty or penalty is not None
    return "".join(offence), "".join(bands)


_SETS_PENALTY = re.compile(r"有期徒刑|拘役|管制|罚金|死刑|无期|没收财产|剥夺政治权利|处罚|论处|定罪")
"""Words of a clause that sets a penalty or refers to another article's; such clauses describe no act."""


def offence_description(text: str) -> str:
    """An article's wording without the clauses that set penalties (…的，处三年以下有期徒刑 -> …的) and
    without sentences about the penalty of an offence defined elsewhere (对犯受贿罪的，…)."""
    kept: list[str] = []
    for sentence in re.split(r"[；。\n]", text):
        if sentence.startswith("对犯"):
            continue
        clauses = [c for c in sentence.split("，") if c and not c.startswith("处") and not _SETS_PENALTY.search(c)]
        if clauses:
            kept.append("，".join(clauses))
    return "。".join(kept)
