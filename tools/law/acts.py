"""A criminal fact split into its acts, so that each act's charge is decided on that act's own words.

One fact often holds several offences: a theft and then an extortion, a beating and then false testimony
arranged to cover it. Read whole, the fact is dominated by its longest act and a second or third charge is
lost. Prosecutors' and courts' texts mark acts plainly: enumerations (（一）, 二、, 3., 第四起), a
conclusion per act (其行为已构成××。), and paragraphs. Procedure (the prosecution's evidence and opinion)
belongs to no act and is left out.
"""

from __future__ import annotations

import itertools
import re

_ENUMERATION = re.compile(
    r"(?:[（(][一二三四五六七八九十]{1,3}[）)]|[一二三四五六七八九十]{1,3}、|第[一二三四五六七八九十\d]{1,3}起|"
    r"(?<![\d.．])\d{1,2}[、．.](?=\d{4}年|[^\d]))"
)
_CONCLUSION = re.compile(r"其(?:上述)?行为(?:已|又|均)?(?:触犯|构成)[^。]*。")
_PROCEDURE = re.compile(
    r"^(?:公诉机关|本院认为|针对上述|对上述指控|对于上述指控|为证实|为证明|上述事实|认定上述|以上事实|案发后|"
    r"另查明|本案(?:在)?审理|庭审中|(?:同时)?辩称|被告人[^，。]{0,6}(?:到案后|归案后|如实供述|一人犯数罪|表示|辩称|当庭|对指控)|"
    r"就上述指控|该院认为|检察院认为|"
    r"[^，。]{0,15}(?:人民检察院|公诉机关)(?:向本院|认为|提请|建议))"
)
_PROCEDURAL = re.compile(
    r"提起公诉|建议判处|提请[^。]{0,12}(?:判处|惩处|处罚|审判)|向本院移送|当庭出示|抓获|一人犯数罪|谅解|赔偿|退赃|"
    r"自首|如实供述|证据[^。]{0,6}(?:证实|予以证明)"
)
PROCEDURAL_CHARS = 80
"""A sentence this short that speaks of procedure (arrest, evidence, compensation, the prosecution's request) is
no act; a longer one is kept, since acts are often told with their aftermath."""
MIN_ACT_CHARS = 20
"""A piece shorter than this (a heading such as （一）盗窃部分) joins the act after it."""


def _pieces(fact: str) -> list[str]:
    text = fact.strip()
    cuts = {0, len(text)}
    cuts |= {m.start() for m in _ENUMERATION.finditer(text) if m.start() == 0 or text[m.start() - 1] in "。；：:， \n"}
    cuts |= {m.end() for m in _CONCLUSION.finditer(text)}
    cuts |= {m.end() for m in re.finditer(r"[。；]\s+", text)}
    bounds = sorted(cuts)
    return [text[a:b].strip() for a, b in itertools.pairwise(bounds) if text[a:b].strip()]


def _procedural(sentence: str) -> bool:
    body = _ENUMERATION.sub("", sentence, count=1).strip() if _ENUMERATION.match(sentence) else sentence
    return bool(_PROCEDURE.match(body) or (len(body) < PROCEDURAL_CHARS and _PROCEDURAL.search(body)))


def split_acts(fact: str) -> list[str]:
    """The acts of ``fact`` in order (the whole fact as its one act when nothing marks several): pieces cut
    at enumerations, per-act conclusions and paragraph breaks, procedural sentences dropped, short pieces
    joined to the next."""
    acts: list[str] = []
    carry = ""
    for piece in _pieces(fact):
        piece = "".join(s for s in re.split(r"(?<=。)", piece) if s and not _procedural(s))
        if not piece:
            continue
        piece = carry + piece
        if len(piece) < MIN_ACT_CHARS:
            carry = piece
            continue
        acts.append(piece)
        carry = ""
    if carry and acts:
        acts[-1] += carry
    return acts if len(acts) > 1 else [fact.strip()]


_NAME = r"(?:××|[\u4e00-\u9fff]{2,12}罪)"
_CONCLUDED = re.compile(rf"(?:构成|以|犯|涉嫌)({_NAME}(?:[、和及与，,]\s*{_NAME})*)")
_ONE_CONCLUSION = re.compile(r"构成××|构成[\u4e00-\u9fff]{2,10}罪")


def stated_charge_count(fact: str) -> int:
    """How many charges the fact's own words say it holds (0: it does not say): the most charges one
    conclusion names (以××和××追究, the names redacted as ×× in CAIL facts), the number of per-act conclusions
    (其行为构成××), and at least two where it speaks of combined punishment (数罪并罚, 一人犯数罪). On charge_dev
    a count of two or more went with two or more gold charges on 22 of 30 items."""
    named = max((len(re.findall(r"××|罪", group)) for group in _CONCLUDED.findall(fact)), default=0)
    count = max(named, len(_ONE_CONCLUSION.findall(fact)))
    return max(count, 2) if "数罪并罚" in fact or "一人犯数罪" in fact else count
