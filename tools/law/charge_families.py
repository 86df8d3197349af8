"""Neighbouring charges: families of offences that differ in one element, and the check that separates them.

A small model confuses 职务侵占 with 盗窃, 保险诈骗 with 诈骗, 寻衅滋事 with 故意伤害: the act is the same, and the
charge turns on who acted (国家工作人员, 公司、企业或者其他单位的人员), on what (保险金, 合同) or why (无事生非). Each
member names that element, the wording by which a fact states it, and a yes/no question for when the fact does not say.
Members are ordered most specific first: a fact that states 保险金 and 虚构事实 is 保险诈骗, not 诈骗.

The families are data (``charge_families.json``, read by :mod:`tools.law.tables`: each member's article, element, the
article's words for it, patterns, the law behind them and an example fact): a pattern that does not compile, a fragment
that is not defined or a member that does not find its own example stated fails at import, naming it. A family stays
while it makes more judgments exact than inexact on corpora no pattern was written from (``benchmarks/charge_crossfit.py
--unseen``: CMDL's report half, the CAIL samples).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tools.law.tables import Entry, read_table
from tools.law.wording import hides_words, told, told_match, told_of_own, with_ages

DEFENDANT = "<defendant>"
"""Stands in a pattern for the defendant: 被告人 or a name the fact gives after it (送给耿某某4万元 is a bribe
the defendant 耿某某 took, not one he gave: CAIL's 非国家工作人员受贿)."""
# Judgments mask names as a surname, a digit perhaps, 某 or ×, and a suffix that tells persons apart (李某某, 杨1某,
# 梁某甲, 陈某B); a longer name the prefix begins (李某某 beside the defendant 李某) is another person.
_MASKED_NAME = r"被告人([\u4e00-\u9fff]{1,2}?\d?[某×][某甲乙丙丁一二三\dA-Z]?)"


def _for_fact(pattern: str, fact: str) -> str:
    """``pattern`` with :data:`DEFENDANT` standing for the defendant's words in ``fact``."""
    if DEFENDANT not in pattern:
        return pattern
    names = sorted({re.escape(n) + r"(?![某甲乙丙丁一二三A-Z])" for n in re.findall(_MASKED_NAME, fact)})
    return pattern.replace(DEFENDANT, "(?:" + "|".join(["被告人", *names]) + ")")


@dataclass(frozen=True)
class Member:
    """One charge of a family and the element that sets it apart from its neighbours."""

    charge: str
    element: str
    """The distinguishing element, as a judgment states it."""
    stated: tuple[str, ...]
    """Patterns that must all occur in the fact for the fact to state the element."""
    article: str = ""
    """The article that defines the charge."""
    example: str = ""
    """A fact that states the element: the member's test case."""

    def stated_in(self, fact: str) -> bool:
        """Whether ``fact`` states the element: every pattern told, other than denied (并非国家工作人员); a birth date
        that makes its person a child at the act reads as stating so (:func:`~tools.law.wording.with_ages`)."""
        fact = with_ages(fact)
        return all(told(_for_fact(pattern, fact), fact) for pattern in self.stated)

    def quote(self, fact: str) -> str:
        """The words of ``fact`` that state the element (each pattern's first match told, joined by …); empty when
        the fact does not state it."""
        fact = with_ages(fact)
        found = [told_match(_for_fact(pattern, fact), fact) for pattern in self.stated]
        # A pattern that asserts an absence (no 重伤 anywhere) matches nothing worth quoting.
        return "…".join(m for m in found if m) if all(m is not None for m in found) else ""


@dataclass(frozen=True)
class Family:
    name: str
    members: tuple[Member, ...]
    """Most specific first."""
    by_law: bool = False
    """The statute itself separates the members by words a fact states (刑法:133-1's third paragraph: a drunk
    driver who causes a serious accident is judged under the heavier 交通肇事; 205-1: 虚开 of an invoice other
    than a VAT special one is 虚开发票; 163/164, 385/389 and 393: who took and who gave, and whether the taker
    was a state functionary), so a member the fact states is weighed even when no retriever proposed it."""

    def member(self, charge: str) -> Member | None:
        return next((m for m in self.members if m.charge == charge), None)


TABLE = Path(__file__).with_name("charge_families.json")


def _member(entry: Entry) -> Member:
    return Member(entry["charge"], entry["element"], entry["stated"], entry["article"], entry["example"])


def _family(entry: Entry) -> Family:
    return Family(entry["name"], entry["members"].build(_member, Member.stated_in), entry["by_law"])


@cache
def load_families(path: Path = TABLE) -> tuple[tuple[Family, ...], dict[str, str]]:
    """(families, act words) from the table, every member checked against its example."""
    table = read_table(path)
    return table.build(_family), dict(table.top["act_words"])


FAMILIES, ACT_WORDS = load_families()
"""The families, most specific member first; and the offences whose element is the act itself (秘密窃取, 虚构事实
骗取, 伤害他人身体) with the words by which a fact tells that act: a fact that tells none is not one of them,
whatever the precedents or the pre-judgment say (the 1.5B model pre-judges 盗窃 for facts of 放火, 假币 or 故意杀人).
Broader than their family members' words, which separate neighbours: taking something away tells a theft."""


@dataclass(frozen=True)
class FamilyCheck:
    """How one convicted charge fared against its neighbours."""

    family: str
    charge: str
    """The charge as proposed."""
    decided: str
    """The charge after the check (the same charge when it held)."""
    by: str
    """"fact" (the fact states the element), "question" (the model answered the targeted question) or
    "default" (neither settled it; the proposal stands)."""
    element: str
    """The element the decision turned on."""
    quote: str = ""
    """Where the fact states it (its words), when the fact decided."""


Ask = Callable[[Member], bool | None]
"""A targeted yes/no question about a member's element (None: no answer)."""


def check_families(
    chosen: Sequence[str], candidates: Sequence[str], fact: str, ask: Ask | None = None
) -> tuple[list[str], list[FamilyCheck]]:
    """(charges, checks): ``chosen`` with each charge that has a neighbour among ``candidates`` (best first)
    checked on the element that separates them. A more specific neighbour whose element the fact states
    replaces the charge; a charge whose own element the fact states stays; otherwise the stated neighbour
    replaces it, and when the fact states no member's element, ``ask`` decides whether the charge's element
    holds (no: it merges into a neighbour already in ``chosen``, else the best-ranked less specific neighbour,
    or the family's most general member, replaces it);
    the family's last, most general member is never asked about: its element is the act itself."""
    out = list(chosen)
    checks: list[FamilyCheck] = []
    for family in FAMILIES:
        act_offence = family.members[-1]
        rivals = [
            m
            for m in family.members
            if m.charge in candidates
            or m.charge in chosen
            or (family.by_law and m.stated_in(fact))
            # An act offence is the neighbour of its specific forms whether or not a retriever proposed it.
            or (m is act_offence and m.charge in ACT_WORDS and any(family.member(c) for c in chosen))
        ]
        if len(rivals) < 2:
            continue
        stated = [m for m in rivals if m.stated_in(fact)]
        for member in [m for c in out if (m := family.member(c))]:
            charge = member.charge
            others = [m for m in rivals if m.charge != charge and m.charge not in out]
            position = family.members.index(member)
            specific = [m for m in stated if family.members.index(m) < position and m.charge not in out]
            decided, by, element, quote = charge, "default", member.element, ""
            if specific:
                decided, by, element, quote = specific[0].charge, "fact", specific[0].element, specific[0].quote(fact)
            elif member in stated:
                by, quote = "fact", member.quote(fact)
            elif others and (alternative := next((m for m in stated if m in others), None)):
                decided, by, element, quote = alternative.charge, "fact", alternative.element, alternative.quote(fact)
            elif others and ask and member != family.members[-1] and (answer := ask(member)) is not None:
                by = "question"
                # No: the charge merges into a neighbour already proposed, else the best-ranked neighbour.
                proposed = [c for c in out if c != charge and family.member(c)]
                if not answer and proposed:
                    decided = proposed[0]
                elif not answer:
                    # Refuting its element leaves a less specific offence, never a more specific one whose own
                    # element the fact does not state either (合同诈骗 refuted must not become 信用卡诈骗): the
                    # next one down whose element the fact states, proposed or not (a village group leader's 贪污
                    # refuted is his 职务侵占, not the 侵占 a retriever ranked), else the best-ranked.
                    lower = [m for m in family.members[position + 1 :] if m.charge not in out]
                    told = [m for m in lower if m.stated_in(fact)]
                    general = told[:1] or [m for m in others if m in lower] or [family.members[-1]]
                    ranked = sorted(
                        general, key=lambda m: candidates.index(m.charge) if m.charge in candidates else len(candidates)
                    )
                    decided = ranked[0].charge
            out = [decided if c == charge else c for c in out]
            checks.append(FamilyCheck(family.name, charge, decided, by, element, quote))
    return list(dict.fromkeys(out)), checks


def act_family(charge: str) -> Family | None:
    """The family whose most general member is ``charge`` (an act offence's: 盗窃's is 侵占财物), if any."""
    return next((family for family in FAMILIES if family.members[-1].charge == charge), None)


def untold_act(charge: str, fact: str) -> bool:
    """Whether ``charge`` is an act offence (:data:`ACT_WORDS`) whose act ``fact`` never tells (a fact whose words
    may hide it, :func:`tools.law.wording.hides_words`, never does)."""
    words = ACT_WORDS.get(charge)
    return words is not None and not hides_words(fact) and not told_of_own(words, fact)


def tells_act(charge: str, fact: str) -> bool:
    """Whether ``charge`` is an act offence whose act ``fact`` tells as the one judged's own (盗窃's 窃取, 诈骗's
    骗取): the fact's own evidence for it, whatever its score."""
    words = ACT_WORDS.get(charge)
    return words is not None and not hides_words(fact) and told_of_own(words, fact)


def act_told(charge: str, fact: str) -> bool:
    """Whether ``charge`` belongs to a family whose act offence's act ``fact`` tells (信用卡诈骗 for a fact that tells
    a deceit): such a charge has the act of its kind behind it, whatever its own probability."""
    return any(
        family.member(charge)
        and family.members[-1].charge in ACT_WORDS
        and not untold_act(family.members[-1].charge, fact)
        for family in FAMILIES
    )


def specific_form_stated(charge: str, ranked: Sequence[str], fact: str) -> bool:
    """Whether ``fact`` states the element of a more specific member of a family whose most general member is
    ``charge``, one the family check would weigh (among ``ranked``, or any member of a family the law decides):
    a keeper who takes his firm's goods by his post tells 职务侵占's act without 盗窃's words, so 盗窃 stays for
    the check to replace, not for a stranger to stand in."""
    family = act_family(charge)
    return family is not None and any(
        m.stated_in(fact) and (m.charge in ranked or family.by_law) for m in family.members[:-1]
    )


def told_acts(
    chosen: Sequence[str], ranked: Sequence[str], fact: str, able: Collection[str] | None = None
) -> list[str]:
    """``chosen`` without the act offences ``fact`` never tells (nor a more specific form of); when that leaves
    none, the best of ``ranked`` that is not one and can stand on its own evidence (in ``able``, when given), or
    has the told act of its family behind it (:func:`act_told`), its neighbours then checked as any proposal's;
    else none: the fact tells no act of the charge it is most like, and nothing else stands (不构成犯罪). A
    stand-in on neither ground was right for few criminal facts and convicted civil disputes and a 58-yuan
    shoplifting of 不报、谎报安全事故."""
    kept = [c for c in chosen if not untold_act(c, fact) or specific_form_stated(c, ranked, fact)]
    if kept or not chosen:
        return kept
    stands = [c for c in ranked if not untold_act(c, fact) and (able is None or c in able or act_told(c, fact))]
    return stands[:1]
