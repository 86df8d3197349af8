"""No conviction without an offence: the checks that leave a fact's proposed charges, or all of them, unconvicted.

The charge scorer always has a best candidate: the precedents are all criminal, and a quarrel, an unpaid loan or
a parking ticket shares words with some of them. These checks, each on evidence a reader can verify, decide
that the fact states no offence instead (不构成犯罪):
- the teller's own account of what was done to them (:func:`tools.law.wording.victim_account`): no act of theirs
  is stated;
- an act told as done under the leave the law gives it, and nothing beyond (:mod:`tools.law.lawful_acts`: a
  licensed logger's 采伐, a headmaster's exam held as the bureau provides): no offence of doing it without leave;
- a proposed charge whose stated amount or level is under the floor its interpretation sets
  (:mod:`tools.law.thresholds`: 盗窃 58 元, 饮酒 45 mg/100 ml), set aside, citing the interpretation;
- a proposed charge whose element the fact does not state (:mod:`tools.law.elements`: 交通肇事 without a death,
  a serious injury or a heavy loss; a 战时 offence without a war), set aside, naming the element; a charge no
  element covers, whose name's object the fact never names (:mod:`tools.law.named_objects`: 侵犯通信自由 with no
  letter or message), the same;
- the fitted floor (``tools/law/offence_floor.json``): the offence description the fact covers best, on the
  offence index's scale, under the least that criminal facts of the fitting data reach.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from agents.state.judge import NoOffence
from prompts import label
from tools.law.charge_families import Ask, FamilyCheck, check_families, tells_act, told_acts, untold_act
from tools.law.charge_model import OffenceFloor, fitted_offence_floor
from tools.law.charge_relations import Merged, stand_together
from tools.law.elements import Element, missing_element, states_element
from tools.law.lawful_acts import Permitted, permitted_act
from tools.law.named_objects import NamedObject, missing_object
from tools.law.thresholds import Shortfall, shortfall
from tools.law.wording import prosecution_record, victim_account


def _number(value: float) -> str:
    return f"{value:g}"


def threshold_record(charge: str, found: Shortfall, language: str) -> NoOffence:
    """The record of a proposed charge whose stated measure is under its floor."""
    t = found.threshold
    stated = (
        label("stated_injury", language)
        if t.measure == "injury"
        else label(f"floor_{t.measure}", language, value=_number(found.value))
    )
    floor = label(f"floor_{t.measure}", language, value=_number(found.floor))
    instead = label("no_offence_instead", language, law=t.instead) if t.instead else ""
    # A halved floor is the source's first rule as its 第二条 halves it: both are named, or 500 yuan would be cited
    # to the article that says 1,000.
    source_article = t.source_article + (f"、{t.halved_article}" if found.floor < t.floor else "")
    reason = label(
        "no_offence_threshold",
        language,
        charge=charge,
        article=t.article,
        measure=label(f"measure_{t.measure}", language),
        floor=floor,
        source=t.source,
        source_article=source_article,
        quote=t.quote,
        stated=stated,
        instead=instead,
    )
    return {
        "charge": charge,
        "article": t.article,
        "by": "threshold",
        "stated": stated,
        "floor": floor,
        "source": f"{t.source}{source_article}",
        "quote": t.quote,
        "instead": t.instead,
        "reason": reason,
    }


def element_record(charge: str, element: Element, language: str) -> NoOffence:
    """The record of a proposed charge whose element the fact does not state."""
    return {
        "charge": charge,
        "article": element.article,
        "by": "element",
        "stated": "",
        "floor": element.element,
        "source": element.article,
        "quote": element.element,
        "instead": "",
        "reason": label(
            "no_offence_element", language, charge=charge, article=element.article, element=element.element
        ),
    }


def named_record(charge: str, article: str, named: NamedObject, language: str) -> NoOffence:
    """The record of a proposed charge whose name's object the fact never names."""
    words = label("list_separator", language).join(named.words)
    return {
        "charge": charge,
        "article": article,
        "by": "named",
        "stated": "",
        "floor": words,
        "source": article,
        "quote": words,
        "instead": "",
        "reason": label("no_offence_named", language, charge=charge, article=article, object=words),
    }


def victim_record(quote: str, language: str) -> NoOffence:
    """The record of a fact that is its teller's own account of what was done to them."""
    return {
        "charge": "",
        "article": "",
        "by": "victim",
        "stated": quote,
        "floor": "",
        "source": "",
        "quote": quote,
        "instead": "",
        "reason": label("no_offence_victim", language, quote=quote),
    }


def lawful_record(found: Permitted, language: str) -> NoOffence:
    """The record of a fact whose act is told as done under a permission the law gives, and nothing beyond it."""
    p = found.permission
    return {
        "charge": "",
        "article": p.article,
        "by": "lawful",
        "stated": found.words,
        "floor": "",
        "source": p.article,
        "quote": p.quote,
        "instead": "",
        "reason": label(
            "no_offence_lawful", language, words=found.words, permission=p.name, article=p.article, quote=p.quote
        ),
    }


def floor_record(charge: str, article: str, coverage: float, floor: float, language: str) -> NoOffence:
    """The record of a fact whose best candidate's offence description it hardly covers."""
    stated, needed = f"{coverage:.2f}", f"{floor:.2f}"
    return {
        "charge": charge,
        "article": article,
        "by": "floor",
        "stated": stated,
        "floor": needed,
        "source": "",
        "quote": "",
        "instead": "",
        # A fact that shares no words at all with any offence description is told so, not given a "nearest" one.
        "reason": label(
            "no_offence_floor" if coverage > 0 else "no_offence_none",
            language,
            charge=charge,
            article=article,
            coverage=stated,
            floor=needed,
        ),
    }


def untold_record(charge: str, article: str, language: str) -> NoOffence:
    """The record of a fact whose best-scored charge is an act offence whose act it never tells, with no other
    candidate strong enough to stand in."""
    return {
        "charge": charge,
        "article": article,
        "by": "untold",
        "stated": "",
        "floor": "",
        "source": "",
        "quote": "",
        "instead": "",
        "reason": label("no_offence_untold", language, charge=charge, article=article),
    }


def offences_stated(
    proposed: Sequence[str],
    fact: str,
    nearest: tuple[str, str, float],
    language: str,
    floor: OffenceFloor | None = None,
    untold: tuple[str, str] | None = None,
    articles: Mapping[str, Sequence[str]] | None = None,
) -> tuple[list[str], list[NoOffence]]:
    """(charges, records): ``proposed`` without the charges ``fact`` states no offence of, and why. A victim's
    own account leaves none, and so does an act told as done with the law's leave; so does the best-scored
    charge's untold act with nothing to stand in (``untold``); when the offence description the fact covers best
    (``nearest``: its charge, article and offence-index score) is under ``floor``, no charge is left, with that
    offence named; a charge under its threshold, or whose element (or name's object) the fact does not state, is
    set aside, citing its first article in ``articles``. ``untold`` (charge, article): the act offence the scorer
    chose and left out because the fact never tells its act, with nothing to stand in (``proposed`` is then
    empty)."""
    if not proposed and not untold:
        return [], []
    if quote := victim_account(fact):
        return [], [victim_record(quote, language)]
    if permitted := permitted_act(fact):
        return [], [lawful_record(permitted, language)]
    # The charge the fact was most like, whose act it never tells, says more to a reader than the floor does.
    if untold and not proposed:
        return [], [untold_record(*untold, language)]
    floor = floor or fitted_offence_floor()
    charge, article, score = nearest
    if score < floor.coverage:
        return [], [floor_record(charge, article, score, floor.coverage, language)]
    records: list[NoOffence] = []
    kept: list[str] = []
    for name in proposed:
        if record := set_aside(name, fact, language, _first(articles or {}, name)):
            records.append(record)
        else:
            kept.append(name)
    return kept, records


def _first(articles: Mapping[str, Sequence[str]], charge: str) -> str:
    return (list(articles.get(charge, [])) or [""])[0]


def set_aside(charge: str, fact: str, language: str, article: str = "") -> NoOffence | None:
    """The record of ``charge`` set aside because ``fact`` states its measure under the floor, does not state its
    element, or never names what its name says it is done to (cited to ``article``, its defining article); None
    when no check sets it aside."""
    if found := shortfall(charge, fact):
        return threshold_record(charge, found, language)
    if element := missing_element(charge, fact):
        return element_record(charge, element, language)
    if named := missing_object(charge, fact):
        return named_record(charge, article, named, language)
    return None


def look_further(
    ranked: Sequence[tuple[str, float]],
    tried: Collection[str],
    fact: str,
    least: float,
    articles: Mapping[str, Sequence[str]],
    language: str,
    check: Callable[[list[str]], list[str]] = list,
    below: bool = False,
    precedented: Collection[str] = (),
) -> tuple[list[str], list[NoOffence]]:
    """(charges, records) for a fact whose proposal every check set aside: the best further candidate of
    ``ranked`` (best first; those in ``tried`` were the proposal) that has its own evidence (probability at least
    ``least``, the bar a stand-in for an untold act must clear), whose act the fact tells and whose threshold and
    elements it meets, after ``check`` (its neighbours and relations, as any proposal's); with a record of each
    candidate set aside on the way. The first candidate failing is no proof that no offence is stated: a fact
    whose 盗窃 is untold may still state the 破坏电力设备 ranked under it. With ``below``, a candidate under the bar
    is looked at too where the fact itself tells its act or states its element, or where the judged cases nearest
    the fact convicted of it (``precedented``: 非法制造、出售非法制造的发票 for a charge sheet selling fake invoices,
    whose pre-judgment said 诈骗) (:func:`decide_charges` sets it for a charge sheet). ``articles``: each charge's
    defining articles, which the records cite."""
    records: list[NoOffence] = []
    for name, probability in ranked:
        if name in tried:
            continue
        evidenced = name in precedented or tells_act(name, fact) or states_element(name, fact)
        if probability < least and not (below and evidenced):
            continue
        kept: list[str] = []
        for charge in [name] if untold_act(name, fact) else check([name]):
            if untold_act(charge, fact):
                records.append(untold_record(charge, _first(articles, charge), language))
            elif record := set_aside(charge, fact, language, _first(articles, charge)):
                records.append(record)
            else:
                kept.append(charge)
        if kept:
            return kept, records
    return [], records


@dataclass(frozen=True)
class Decision:
    """What the fact states, step by step: the charges whose act it tells (``told``), after the family checks
    (``families``) and the relations (``related``), after the offence checks (``stated``) and after looking further
    (``proposed``), with the family checks, the relations' merges and every record of a charge set aside."""

    told: list[str]
    families: list[str]
    related: list[str]
    stated: list[str]
    proposed: list[str]
    checks: list[FamilyCheck] = field(default_factory=list)
    merged: list[Merged] = field(default_factory=list)
    no_offence: list[NoOffence] = field(default_factory=list)


def decide_charges(
    chosen: Sequence[str],
    ranked: Sequence[tuple[str, float]],
    fact: str,
    acts: Mapping[str, int | None],
    articles: Mapping[str, Sequence[str]],
    nearest: tuple[str, str, float],
    language: str,
    stand_in: float,
    ask: Ask | None = None,
    precedented: Collection[str] = (),
) -> Decision:
    """The offence decision over the scorer's ``chosen`` charges and its ``ranked`` candidates (best first, with
    their probabilities): told acts (a candidate with ``stand_in`` evidence stands in for an untold one), family
    checks (``ask``: the model's yes/no question on an element), relations (``acts``: the act each charge scores
    best on), thresholds, elements and the victim rule, then looking further before acquitting (``precedented``:
    the candidates the nearest judged cases convicted of). One function for the judge graph's node and for the
    replays that predict it (``benchmarks/offence_replay.py``)."""
    candidates = [name for name, _ in ranked]
    able = [name for name, p in ranked if p >= stand_in]
    told = told_acts(chosen, candidates, fact, able)
    families, checks = check_families(told, candidates, fact, ask)
    # After the families, which choose each charge on its element: the law then says which may stand together
    # (charges each found on an act of its own are separate offences).
    related, merged = stand_together(families, fact, acts)
    left_out = (chosen[0], _first(articles, chosen[0])) if chosen and not told else None
    stated, no_offence = offences_stated(related, fact, nearest, language, untold=left_out, articles=articles)
    proposed = stated
    if not stated and no_offence and no_offence[0]["by"] not in ("victim", "lawful", "floor"):
        # Every charge proposed was set aside on its own element: the next candidates with evidence of their own
        # are checked the same way before the fact is held to state no offence.
        def check(charges: list[str]) -> list[str]:
            return stand_together(check_families(charges, candidates, fact, ask)[0], fact, acts)[0]

        tried = {*chosen, *told, *(r["charge"] for r in no_offence)}
        # A criminal proceeding's record (公诉机关指控, 经审理查明) charges an offence: where the proposal failed on
        # its act or element, not on its amount, the candidates the fact itself gives evidence of are looked at
        # even under the bar (猥亵儿童 for a charge sheet whose 盗窃 the scorer chose; 36 → 5 criminal facts of the
        # replays left with no charge, no non-crime fact convicted more: s63-offence).
        below = bool(prosecution_record(fact)) and all(r["by"] in ("untold", "element", "named") for r in no_offence)
        proposed, records = look_further(ranked, tried, fact, stand_in, articles, language, check, below, precedented)
        no_offence = no_offence + records
    return Decision(told, families, related, stated, proposed, checks, merged, no_offence)


def not_a_crime(records: Sequence[NoOffence], language: str) -> str:
    """The judgment's reason (``undecided``) when no charge is left: every record's reason, and, where candidates
    were set aside one by one, that no other had evidence enough to stand."""
    reasons = [r["reason"] for r in records]
    if any(r["by"] in ("untold", "threshold", "element", "named") for r in records):
        reasons.append(label("no_offence_other", language))
    return label("not_a_crime", language, reasons=label("clause_separator", language).join(reasons))
