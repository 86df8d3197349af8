"""The Legal Basis's second tier: the next best-supported evidence articles, joined as a conditional basis when the
keeper keeps fewer than :data:`CONDITIONAL_MAX`.

The keeper concludes only from what it keeps, and keeps little: most everyday questions kept nothing, and the
person read "nothing supports an answer" above the very articles a lawyer would cite. A candidate the keeper
did not pass may still be one a lawyer cites; it joins the basis as conditional, and the answer says when it
applies (如果……，则……), when four things hold: its support reaches the fitted floor, or it is among the
search's first few that may join (``conditional_floor.json``, each chosen on labels a lawyer would accept:
``benchmarks/conditional_basis.py``; beside a concluded basis, where a question is answered already, a higher
floor and fewer first), the question touches it (:func:`touches`: an article the question touches in no way
stays out), it is not criminal law for a question about no crime (a civil question's basis is never criminal
procedure), and it is of no institution the question is silent on (:mod:`tools.law.institutions`: a mortgage
article for a deposit).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from prompts import load_table
from tools.fitted import read_fitted
from tools.law.articles import law_of
from tools.law.institutions import unspoken
from tools.law.wording import mentions

BUNDLED_FLOOR = Path(__file__).with_name("conditional_floor.json")
CONDITIONAL_MAX = 3
"""Articles the basis holds, both tiers together, before no further candidate joins."""


@lru_cache(maxsize=4)
def _crime_words(lang: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(words that speak of a crime, words that hold one of them but speak of none, the laws that join a
    conditional basis only for a question about a crime): ``prompts/<lang>/crime_words.json``."""
    table = load_table("crime_words", lang)
    return tuple(table["words"]), tuple(table["civil_words"]), tuple(table["criminal_laws"])


def _criminal(law: str, criminal_laws: Sequence[str]) -> bool:
    """Whether ``law`` is criminal law: one of ``criminal_laws``, or a judicial interpretation on criminal cases
    (……关于办理侵犯知识产权刑事案件……的解释), whose fines opened the answer to a child's secret payment to a streamer
    (s70-everyday-new20)."""
    return law in criminal_laws or "刑事" in law


def about_crime(question: str, kept: Sequence[str], lang: str = "zh") -> bool:
    """Whether ``question`` speaks of a crime (a word of ``crime_words.json``, once its civil words are set aside:
    欺骗 holds 骗), or the concluded basis already holds a criminal law article."""
    words, civil, laws = _crime_words(lang)
    for word in civil:
        question = question.replace(word, "")
    return mentions(words, question) or any(_criminal(law_of(a), laws) for a in kept)


RERANKED_TOP = 10
"""An article the reranker ranks this high for the question is touched by its meaning. People ask in their own
words: 楼上掉下的花盆 shares no character pair with 民法典:1254's 从建筑物上坠落的物品, nor 房东不退押金 with 577's
不履行合同义务. On the 75 everyday questions (session 53), shared words alone let a lawyer's article into the
basis for 0.61 / 0.46 of the tune / report halves at the floor 0.06 (one floor for both cases then); with the
reranker's top ten as well, 0.75 / 0.59, at the same conditional precision (0.20 / 0.19 → 0.22 / 0.23)."""


def touches(item: Mapping[str, Any]) -> bool:
    """Whether the question touches an evidence article: they share a character pair (``shared``), or the
    reranker ranks the article in its :data:`RERANKED_TOP` for it (``signals``' reciprocal rank)."""
    reranked = float((item.get("signals") or {}).get("reranked", 0.0))
    return int(item["shared"]) >= 1 or reranked >= 1 / RERANKED_TOP


def conditional_articles(
    evidence: Sequence[Mapping[str, Any]],
    kept: Sequence[str],
    question: str,
    floor: float,
    top: int = 0,
    beside_top: int = 0,
    lang: str = "zh",
) -> list[str]:
    """The evidence articles (in the evidence's order; each with ``article_id``, ``support``, ``shared``: the
    character pairs it shares with the question, ``signals``: the sources' reciprocal ranks, and ``rank``: its
    place in the evidence, else its place here) that may join the basis as conditional (not kept, touched by the
    question: :func:`touches`, no criminal law for a question about no crime, of no institution the question is
    silent on) and do, best supported first: support at least ``floor`` or, with nothing kept, among the first
    ``top`` of those that may (the search's own ranking, which finds a lawyer's article that the keeper's support
    puts under the floor; one that may not join takes no place: a civil question's first-ranked criminal
    procedure article leaves its place to the next), or among the first ``beside_top`` beside a concluded basis
    (where the keeper's choice is wrong, the search's next is often right); while the basis holds fewer than
    :data:`CONDITIONAL_MAX`."""
    criminal = about_crime(question, kept, lang)
    criminal_laws = _crime_words(lang)[2]

    def may_join(article: str, item: Mapping[str, Any]) -> bool:
        if article in kept or not touches(item):
            return False
        return not (_criminal(law_of(article), criminal_laws) and not criminal) and not unspoken(article, question)

    ranked = sorted(
        ((int(item.get("rank", i)), str(item["article_id"]), item) for i, item in enumerate(evidence)),
        key=lambda r: r[0],
    )
    ranked = [r for r in ranked if may_join(r[1], r[2])]
    first = {article for _, article, _ in ranked[: beside_top if kept else top]}
    best = sorted(ranked, key=lambda r: -float(r[2]["support"]))
    joined = [article for _, article, item in best if float(item["support"]) >= floor or article in first]
    return joined[: CONDITIONAL_MAX - len(kept)]


@lru_cache(maxsize=2)
def fitted_conditional_top(beside: bool = False) -> int:
    """The shipped ``top`` (read once): how many of the first evidence articles that may join do join a basis with
    nothing concluded, or ``beside`` a concluded one, whatever their support."""
    return int(read_fitted(BUNDLED_FLOOR).get("beside_top" if beside else "top", 0))


@lru_cache(maxsize=2)
def fitted_conditional_floor(beside: bool = False) -> float:
    """The shipped floor (read once): for a basis with nothing concluded, or ``beside`` a concluded one, where a
    question is answered already and a candidate that joins is right less often (on the tune halves at 0.06: 9 of
    68 beside a concluded basis, against 0.22 of those joining alone)."""
    values = read_fitted(BUNDLED_FLOOR)
    return float(values["beside"] if beside else values["floor"])
