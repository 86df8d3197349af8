"""Long judgment texts reduced to their fact section: real judgments run to tens of thousands of characters,
most of them procedure, evidence lists and the court's answers to the defence."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from tools.law.articles import without_references

_FACT_START = re.compile(r"经(?:二审)?审理查明[:：，,]?")
# Where the facts end and the evidence for them begins ("上述事实，有……证据证实", "为证实上述指控，公诉机关提交…").
_EVIDENCE = re.compile(r"(?:上述|以上|上列)(?:犯罪)?事实[，,]?\s*(?:有|经)|认定上述事实的证据|为证实上述(?:指控|事实)")
_PROCEDURE = re.compile(r"立案|组成合议庭|公开开庭|不公开开庭|提起公诉|审理终结|到庭参加诉讼|适用简易程序|现已审理")
_SENTENCE_END = re.compile(r"(?<=[。；！？\n])")
_GAP = "……"


@dataclass(frozen=True)
class ReducedFact:
    """A fact description as the judge reads it, and what was done to it (empty when nothing)."""

    text: str
    note: str


def reduce_fact(text: str, budget: int) -> ReducedFact:
    """``text`` unchanged when it fits ``budget`` characters; otherwise its fact section (from 经审理查明 when
    there is one, up to the evidence list), without procedural sentences, and if still too long its first
    two thirds and last third of whole sentences, with ``……`` where the middle was left out."""
    if len(text) <= budget:
        return ReducedFact(text, "")
    section = text
    if start := _FACT_START.search(section):
        section = section[start.end() :]
    if end := _EVIDENCE.search(section):
        section = section[: end.start()]
    sentences = [s for s in _SENTENCE_END.split(section) if s.strip() and not _PROCEDURE.search(s)]
    kept = "".join(sentences).strip()
    steps = [f"事实原文 {len(text)} 字，超过 {budget} 字：只取事实部分，删去程序与证据（余 {len(kept)} 字）"]
    if len(kept) > budget:
        kept = _head_and_tail(sentences, budget)
        steps.append(f"再删去中段，保留首尾 {len(kept)} 字")
    return ReducedFact(kept, "；".join(steps) + "。")


def _head_and_tail(sentences: list[str], budget: int) -> str:
    """Whole sentences from the start (two thirds of the budget) and from the end (the rest)."""
    room = budget - len(_GAP)
    head: list[str] = []
    for sentence in sentences:
        if sum(map(len, head)) + len(sentence) > room * 2 // 3:
            break
        head.append(sentence)
    tail: list[str] = []
    for sentence in reversed(sentences[len(head) :]):
        if sum(map(len, head)) + sum(map(len, tail)) + len(sentence) > room:
            break
        tail.insert(0, sentence)
    body = "".join(head) + _GAP + "".join(tail)
    # A single sentence longer than the budget leaves nothing whole to keep: cut it.
    return body if head or tail else "".join(sentences)[:room] + _GAP


CLAIM_MASK = "××"
"""What a charge name the fact concludes with becomes: CAIL's facts are published so (以××追究其刑事责任)."""


def without_claims(fact: str, charge_names: Iterable[str]) -> str:
    """``fact`` as evidence: a charge it concludes with (…构成故意杀人罪, 涉嫌诈骗) masked as CAIL masks its facts,
    and its article references removed. A name or an article the text states is the writer's claim, not what
    happened: left in, it would rank its own article first (the exact source, the KG's charge links, the offence
    index) and convict on the claim alone."""
    names = sorted({n for n in charge_names if n}, key=len, reverse=True)
    if names:
        alternatives = "|".join(map(re.escape, names))
        fact = re.sub(rf"(?:{alternatives})罪|(?<=涉嫌)(?:{alternatives})", CLAIM_MASK, fact)
    return without_references(fact)
