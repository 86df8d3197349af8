"""How answers and judgments read at the terminal: Response, Legal Basis, judgment, audit trail."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table

from app.cli.console import console, err, print_panel, print_usage
from tools.law.charge_scores import SIGNALS

if TYPE_CHECKING:
    from agents.state.audit import CheckResult, Verdict

VERDICT_LABELS = {
    "unverified": "未核验 unverified",
    "retained": "保留 retained",
    "reviewer": "复核 reviewed",
    "contradiction": "[yellow]排除 contradicted[/yellow]",
}
"""How a verdict reads when neither its checklist's rule nor the model's final call decided it."""
EVIDENCE_LABELS = {True: "依据 kept (evidence)", False: "[dim]未采用 not kept[/dim]"}
"""A consultation's verdict decided by the basis keeper's evidence."""


def _mark(check: CheckResult) -> str:
    return "✓" if check["holds"] else "✗" if check.get("stated", True) else "–"


def print_verdicts(verdicts: list[Verdict]) -> None:
    """The audit trail: each candidate article, whether it stayed, why, and every checklist answer."""
    from agents.auditor import is_borderline

    if not verdicts:
        return
    header = "清单 Checklist (✓ holds, ✗ does not, – the question does not state it)"
    table = Table("法条 Article", "核验 Verdict", header, title="核验 Audit")
    for verdict in verdicts:
        outcome = "适用 applies" if verdict["applicable"] else "[yellow]排除 pruned[/yellow]"
        if verdict["applicable"] and is_borderline(verdict):
            outcome = "保留待复核 kept, mixed"
        outcome = VERDICT_LABELS.get(verdict["decided_by"], outcome)
        if verdict["decided_by"] == "evidence":
            outcome = EVIDENCE_LABELS[verdict["applicable"]]
        checks = "\n".join(f"{_mark(c)} {escape(c['item'])}" for c in verdict["checks"])
        table.add_row(escape(verdict["article_id"]), outcome, checks or escape(verdict["reason"]))
    console.print(table)


def print_charge_scores(out: dict[str, Any]) -> None:
    """What the conviction was decided from: each scored candidate's probability, signals and act, which
    were convicted, the acts, the family checks and what was set aside."""
    scored = out.get("scored_charges") or []
    if not scored:
        return
    for i, act in enumerate(out.get("acts") or [], 1):
        console.print(f"  [dim]行为 Act {i}:[/dim] {escape(act[:80])}{'…' if len(act) > 80 else ''}")
    table = Table("罪名 Charge", "p", *SIGNALS, "行为 Act", title="罪名评分 Charge scores")
    for entry in scored:
        mark = "[bold green]✓[/bold green] " if entry["name"] in out["charges"] else ""
        signals = entry["signals"]
        values = [f"{signals.get(k, 0.0):.2f}" for k in SIGNALS]
        act = "" if entry["act"] is None else str(entry["act"] + 1)
        table.add_row(mark + escape(entry["name"]), f"{entry['probability']:.2f}", *values, act)
    console.print(table)
    for check in out.get("family_checks") or []:
        decided = check["decided"]
        outcome = "holds" if decided == check["charge"] else f"-> {escape(decided)}" if decided else "left out"
        # A charge left out as untold may belong to no family and name no element: nothing empty is printed.
        family = f"{escape(check['family'])}, " if check["family"] else ""
        element = f": {escape(check['element'])}" if check["element"] else ""
        console.print(
            f"  [dim]相近罪名 Family check ({family}by {check['by']}):[/dim] "
            f"{escape(check['charge'])} {outcome}{element}"
            + (f"; the fact says 「{escape(check['quote'])}」" if check.get("quote") else "")
            + ("; the fact never tells this act" if check["by"] == "untold" else "")
            + ("; the law lets only one stand for one course of conduct" if check["by"] == "law" else "")
        )
    for aside in out.get("set_aside") or []:
        name, reason = escape(aside["name"]), escape(aside["reason"])
        err.print(f"[yellow]Set aside:[/yellow] {name} ({aside['probability']:.2f}): {reason}")


def describe_term(term: dict[str, Any]) -> str:
    """The sentence as a reader expects it. Months count fixed-term imprisonment and criminal detention
    alike (the Adjudicator folds 拘役 into months), so a term in months is not labelled 有期徒刑: 危险驾驶
    carries 拘役 only."""
    if term["death"]:
        return "死刑"
    if term["life"]:
        return "无期徒刑"
    if not term["months"]:
        return "免予刑事处罚或非监禁刑"
    return f"{term['months']} 个月（有期徒刑或拘役）"


def print_term(out: dict[str, Any], sentence: str) -> None:
    """The sentence, the judgments a term code set came from, and the circumstances that moved it."""
    console.print(f"[bold]刑期 Term:[/bold] {sentence}")
    if out.get("term_precedents"):
        console.print(f"  [dim]量刑判例 Term from:[/dim] {escape('、'.join(out['term_precedents']))}")
    for c in out.get("circumstances") or []:
        provision = f"（{escape(c['article'])}）" if c["article"] else ""
        console.print(
            f"  [dim]量刑情节 Circumstance:[/dim] {escape(c['name'])}{provision} x{c['factor']:.2f}: "
            f"「{escape(c['found'])}」"
        )


def print_no_offence(out: dict[str, Any]) -> None:
    """A charge set aside under its threshold beside one that stands (with none standing, ``undecided`` says it)."""
    for record in out.get("no_offence") or [] if out["charges"] else []:
        err.print(f"[yellow]Not an offence:[/yellow] {escape(record['reason'])}")


def print_judgment(out: dict[str, Any]) -> None:
    """A judgment: charges, articles, term, reasoning, numbered evidence, audit trail, and what was changed."""
    # No conviction is no sentence: a term of 0 months under no charge would read as an exemption.
    sentence = describe_term(out["term"]) if out["charges"] else "（未判决 undecided：没有定罪，不量刑）"
    if out.get("no_offence") and not out["charges"]:
        sentence = "不构成犯罪 Not a crime：不判处刑罚"
    if (check := out.get("term_check")) and check.get("fine") and out["term"]["months"]:
        sentence += "，并处罚金"
    if out.get("fact_reduction"):
        err.print(f"[yellow]Fact reduced:[/yellow] {escape(out['fact_reduction'])}")
    print_ignored(out)
    console.print(f"[bold]罪名 Charges:[/bold] {escape('、'.join(out['charges']) or '（无）')}")
    console.print(f"[bold]适用法条 Articles:[/bold] {escape('、'.join(out['articles']) or '（无）')}")
    print_term(out, sentence)
    if out.get("undecided"):
        err.print(f"[yellow]No sentence:[/yellow] {escape(out['undecided'])}")
    print_no_offence(out)
    print_panel(out["reasoning"] or "（无）", "理由 Reasoning")
    console.print("[bold]证据 Evidence[/bold]")
    for item in out["evidence"]:
        console.print(f"  [cyan]\\[{item['n']}][/cyan] {escape(item['id'])}　{escape(item['text'])}")
    print_charge_scores(out)
    print_verdicts(out["verdicts"])
    for raw, names in out["grounded"].items():
        err.print(f"[yellow]Charge named as:[/yellow] {escape(raw)} -> {escape('、'.join(names))}")
    if out["anchored"]:
        err.print(
            "[yellow]No charge the Adjudicator named is supported; convicted of the pre-judged:[/yellow] "
            + escape("、".join(out["anchored"]))
        )
    if out["dropped"]:
        err.print(f"[yellow]Dropped (not supported by the evidence):[/yellow] {escape(', '.join(out['dropped']))}")
    if (check := out.get("term_check")) and check["corrected"]:
        also = "".join(
            f", {kind}" for kind, allowed in (("无期徒刑", check["life"]), ("死刑", check["death"])) if allowed
        )
        err.print(
            f"[yellow]Term corrected:[/yellow] {describe_term(check['original'])} -> {sentence}; "
            f"{escape('、'.join(check['articles']))} allow {check['low']}-{check['high']} months{also}"
        )
    print_usage(out)


NOTHING_CONCLUDED = "（没有可据以直接得出结论的条文；下列条文在一定条件下适用）"
"""What stands under the Legal Basis when nothing concludes but a conditional tier follows: "nothing supports an
answer" above the articles that do, under a condition, read as if there were none."""


def print_basis(
    items: list[dict[str, Any]], title: str = "法律依据 Legal Basis", empty: str = "（回答未引用知识库中的法条）"
) -> None:
    """The Legal Basis (or its conditional tier, by ``title``): each article's id, law, number and verbatim text;
    ``empty`` when it holds none."""
    console.print(f"[bold]{title}[/bold]")
    if not items:
        console.print(f"  {empty}")
    for item in items:
        console.print(
            f"  [cyan]\\[{escape(item['article_id'])}][/cyan] 《{escape(item['law'])}》{escape(item['number'])}"
        )
        console.print(f"    {escape(item['text'])}")


def print_dropped(dropped: list[str], why: str) -> None:
    """Citations removed from an answer, and why, on stderr."""
    if dropped:
        err.print(f"[yellow]Dropped citations ({why}):[/yellow] " + escape(", ".join(dropped)))


def print_ignored(out: dict[str, Any]) -> None:
    """The sentences of the user's text that addressed the system and were not followed, on stderr."""
    for sentence in out.get("ignored_instructions") or []:
        err.print(f"[yellow]Instruction ignored (a question is data, not a command):[/yellow] {escape(sentence)}")


def print_answer(out: dict[str, Any]) -> None:
    """A consult answer: Response, Legal Basis, audit trail, dropped citations and the Manager's rounds."""
    print_ignored(out)
    print_panel(out["response"] or "（无回答）", "回答 Response")
    if not out.get("conditional_basis"):
        print_basis(out["legal_basis"])
    else:
        print_basis(out["legal_basis"], empty=NOTHING_CONCLUDED)
        print_basis(
            out["conditional_basis"], "条件适用 Conditional basis (applies under the condition the Response states)"
        )
    print_verdicts(out.get("verdicts", []))
    for note in out.get("audit_notes", []):
        console.print(f"  [dim]核验说明 Audit note:[/dim] {escape(note)}")
    print_dropped(out["dropped_citations"], "not in the knowledge base or not audited as applicable")
    for check in out.get("claim_checks", []):
        if check["verdict"] in ("rewritten", "removed", "added"):
            where = f" ({escape(check['article'])})" if check["article"] else ""
            err.print(f"[yellow]Claim {check['verdict']}:[/yellow] {escape(check['claim'])}{where}")
    for decision in out.get("decisions", []):
        err.print(
            f"[dim]Manager round {decision['round']}: {decision['decision']} ({escape(decision['reason'])})[/dim]"
        )
    print_usage(out)
