"""Charge names of the Criminal Law: normalisation, variants and grounding of free-written names.

Names are normalised (no trailing 罪, bracket alternatives spelled out) so labels from CAIL/LawBench,
the charge-name rules and model output compare equal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MAX_CHARGE_CHARS = 32
"""Longest charge name a model may write: the longest in force, 非法收购、运输、加工、出售国家重点保护植物、
国家重点保护植物制品, has 32 characters. Constrained decoding cuts a string at its schema's limit, and with 20
the judge's "虚开增值税专用发票、用于骗取出口退税、抵扣税款发票" (24) became an unknown charge and was dropped."""

_BRACKET_RE = re.compile(r"\[([^\]]+)\]")
_ANNOTATION_RE = re.compile(r"（(?:未遂|既遂|中止|预备|单位|单位犯罪)）")
"""What a judgment writes beside a charge, not part of its name: 诈骗（未遂）, （单位）非法吸收公众存款."""
_OPTIONAL_RE = re.compile(r"（([^（）]{1,2})）")
"""A bracketed character inside a charge's name: 偷越国（边）境 is written 偷越国境 and 偷越国边境 too."""


def normalise_charge(name: str) -> str:
    """Canonical charge name: no spaces, no trailing 罪, bracket alternatives spelled out in full, brackets
    full-width, no annotation such as （未遂）, and the variant character 帐 written 账 (sources disagree:
    会计帐簿 / 会计账簿)."""
    name = re.sub(r"\s+", "", name).replace("帐", "账").replace("(", "（").replace(")", "）")
    name = _ANNOTATION_RE.sub("", _BRACKET_RE.sub(r"\1", name))
    return name[:-1] if name.endswith("罪") and len(name) > 1 else name


def charge_variants(name: str) -> set[str]:
    """Every way a charge may be written: the full name and each single alternative of an enumeration,
    bracketed (``[走私、贩卖、运输、制造]毒品``) or plain (``走私、贩卖、运输、制造毒品``): ``贩卖毒品``."""
    base = re.sub(r"\s+", "", name)
    full = normalise_charge(base)
    variants = {full}
    if _OPTIONAL_RE.search(full):
        variants |= {_OPTIONAL_RE.sub("", full), _OPTIONAL_RE.sub(r"\1", full)}
    match = _BRACKET_RE.search(base)
    if match:
        for alternative in match.group(1).split("、"):
            variants.add(normalise_charge(base[: match.start()] + alternative + base[match.end() :]))
        return variants
    parts = full.split("、")
    verb_length = len(parts[0])
    # Verb lists of equal length before one shared object (走私、贩卖…制造 + 毒品) are expanded, and one verb
    # before two objects when the second is a two-character word (拐卖 + 妇女、儿童; 强制 + 猥亵、侮辱). Other
    # lists are left alone: where a verb ends cannot be told from lengths (非法批准征用、占用土地 is not
    # 非法批准 + 征用/占用土地, and 组织残疾人、儿童乞讨 has its verb in front and its object behind).
    if len(parts) > 1 and all(len(p) == verb_length for p in parts[:-1]) and len(parts[-1]) > verb_length:
        obj = parts[-1][verb_length:]
        variants.update(verb + obj for verb in [*parts[:-1], parts[-1][:verb_length]])
    elif len(parts) == 2 and len(parts[1]) == 2 < len(parts[0]) - 1:
        verb = parts[0][: -len(parts[1])]
        variants.update({parts[0], verb + parts[1]})
    return variants


GROUNDING_MIN_CHARS = 4
"""Shortest unknown name matched to a charge by its characters alone: shorter ones (伪造, 盗窃罪) say too
little to pick one charge."""


def ground_charge(raw: str, defined: Iterable[str]) -> list[str]:
    """The charges among ``defined`` (those the evidence articles define) that a name the charge table does
    not know stands for. Small models describe rather than name: 虐待家庭成员 or 盗窃公私财物 contain a charge
    (虐待, 盗窃), and 盗窃、掩饰、隐瞒犯罪所得 joins two; those are the charges contained, the longest where one
    contains another (合同诈骗 over 诈骗). Failing that, an abridged name (伪造武装部队证件) stands for the one
    shortest charge whose characters include all of its own (伪造、变造、买卖武装部队公文、证件、印章). Only
    charges an evidence article defines are candidates, so grounding never adds an untraceable charge."""
    name = normalise_charge(raw)
    candidates = sorted(set(defined))
    contained = [c for c in candidates if any(v in name for v in charge_variants(c))]
    if contained:
        return [c for c in contained if not any(c != other and c in other for other in contained)]
    found = covering_charge(name, candidates)
    return [found] if found else []


def abridging(name: str, candidates: Iterable[str], least: int = GROUNDING_MIN_CHARS) -> list[str]:
    """The ``candidates`` holding ``name``'s characters in their order: a charge named by the alternative
    committed (骗取贷款 in 骗取贷款、票据承兑、金融票证, 伪造公司印章 in 伪造公司、企业、事业单位、人民团体印章, as the
    SPC's rules for selective charge names write a judgment). None for a name of fewer than ``least``
    characters (包庇 is also 包庇毒品犯罪分子's)."""
    wanted = normalise_charge(name).replace("、", "")
    if len(wanted) < least:
        return []

    def holds(charge: str) -> bool:
        rest = iter(charge)
        return all(letter in rest for letter in wanted)

    return sorted({c for c in candidates if holds(c)})


def covering_charge(name: str, candidates: Iterable[str], least: int = GROUNDING_MIN_CHARS) -> str | None:
    """The one shortest of ``candidates`` whose characters include all of ``name``'s (an abridged name:
    伪造武装部队证件 for 伪造、变造、买卖武装部队公文、证件、印章), or None: a tie, or a name of fewer than
    ``least`` distinct characters."""
    letters = set(normalise_charge(name).replace("、", ""))
    if len(letters) < least:
        return None
    covering = sorted((c for c in set(candidates) if letters <= set(c)), key=lambda c: (len(c), c))
    if len(covering) == 1 or (len(covering) > 1 and len(covering[0]) < len(covering[1])):
        return covering[0]
    return None
