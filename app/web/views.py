"""What the page shows of an answer or a judgment: the graph's output cut to what a person reads, as JSON.

Every text here is data for the page to set as text (``textContent``), never markup: questions, answers and
the KB's articles are untrusted.
"""

from __future__ import annotations

import re
from typing import Any

from app.cli.printing import describe_term
from app.web.picture import consult_picture, judge_picture
from tools.law.claims import sentences
from tools.law.wording import shared_pairs

ITEM = re.compile(r"\s*[（(][一二三四五六七八九十]+[）)]")
"""The head of an enumerated item of an article: （一）, （二）…"""


def marked_sentences(text: str, question: str, response: str) -> list[dict[str, Any]]:
    """An article's sentences with the one that decides the question marked: the sentence sharing the most
    character pairs with the question (with the answer breaking a tie: the sentence it applied); an item of an
    enumeration (（二）醉酒驾驶机动车的) is marked with the sentence introducing the list, which says what follows
    from it. None is marked when no sentence shares a pair with either."""
    parts: list[str] = []
    for part in sentences(text):  # a line break after a sentence's end stays with it: the page keeps the lines
        if parts and not part.strip():
            parts[-1] += part
        else:
            parts.append(part)
    scores = [(shared_pairs(p, question), shared_pairs(p, response)) for p in parts]
    best = max(range(len(parts)), key=lambda i: (scores[i], -i), default=-1)
    marked = {best} if best >= 0 and scores[best] > (0, 0) else set()
    if marked and ITEM.match(parts[best]):
        leads = [i for i in range(best) if parts[i].rstrip().endswith(("：", ":"))]
        marked |= set(leads[-1:])
    return [{"text": p, "decisive": i in marked} for i, p in enumerate(parts)]


def _verdicts(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "article_id": v["article_id"],
            "applicable": v["applicable"],
            "decided_by": v["decided_by"],
            "reason": v["reason"],
            "checks": [{"item": c["item"], "holds": c["holds"], "stated": c.get("stated", True)} for c in v["checks"]],
        }
        for v in out.get("verdicts") or []
    ]


def consult_view(question: str, out: dict[str, Any]) -> dict[str, Any]:
    """A consultation as the page shows it: the Response, each basis article verbatim with the sentence that
    decided it marked and how sure the evidence was, the audit, what was set aside, and the picture."""
    response = str(out.get("response") or "")
    evidence = {e["article_id"]: e for e in out.get("evidence") or []}
    basis = [
        {
            "article_id": b["article_id"],
            "law": b["law"],
            "number": b["number"],
            "sentences": marked_sentences(b["text"], question, response),
            "support": evidence.get(b["article_id"], {}).get("support"),
            "similar": evidence.get(b["article_id"], {}).get("similar", 0),
        }
        for b in out.get("legal_basis") or []
    ]
    return {
        "graph": "consult",
        "question": question,
        "response": response,
        "declined": bool(out.get("declined")),
        "basis": basis,
        "verdicts": _verdicts(out),
        "audit_notes": [str(n) for n in out.get("audit_notes") or []],
        "conditional": [
            {
                "article_id": b["article_id"],
                "law": b["law"],
                "number": b["number"],
                "sentences": marked_sentences(b["text"], question, response),
            }
            for b in out.get("conditional_basis") or []
        ],
        "ignored": list(out.get("ignored_instructions") or []),
        "dropped": list(out.get("dropped_citations") or []),
        "picture": consult_picture(question, out),
    }


def judge_view(fact: str, out: dict[str, Any]) -> dict[str, Any]:
    """A judgment as the page shows it: charges, articles, term, reasoning, the family checks, the precedents
    that voted, the audit, and the picture."""
    return {
        "graph": "judge",
        "fact": fact,
        "charges": list(out.get("charges") or []),
        "articles": list(out.get("articles") or []),
        # No conviction is no sentence, as the CLI prints it; a fact that states no offence is 不构成犯罪.
        "term": describe_term(out["term"])
        if out.get("charges")
        else "不构成犯罪 Not a crime：不判处刑罚"
        if out.get("no_offence")
        else "（未判决 undecided：没有定罪，不量刑）",
        "no_offence": [str(r["reason"]) for r in out.get("no_offence") or []],
        "undecided": str(out.get("undecided") or ""),
        "reasoning": str(out.get("reasoning") or ""),
        "family_checks": list(out.get("family_checks") or []),
        "precedents": [{"id": e["id"], "text": e["text"]} for e in out.get("evidence") or [] if e["kind"] == "case"],
        "evidence": [{"n": e["n"], "id": e["id"], "text": e["text"]} for e in out.get("evidence") or []],
        "verdicts": _verdicts(out),
        "ignored": list(out.get("ignored_instructions") or []),
        "picture": judge_picture(fact, out),
    }
