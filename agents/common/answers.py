"""Answer text shared by the answering agents: evidence as prompts show it, the draft's form problems, its
answer part, citations removed from prose, and Legal Basis entries built from stored articles."""

from __future__ import annotations

import re

from agents.state.audit import Verdict
from agents.state.common import LegalBasisItem
from agents.state.consult import EvidenceItem
from prompts import label
from tools.law.articles import Article, parse_citations, prose_citation_spans


def format_evidence(evidence: list[EvidenceItem], lang: str = "zh") -> str:
    """Evidence as the prompt shows it: ``[id] heading：text`` per article."""
    if not evidence:
        return label("none", lang)
    return "\n".join(f"[{e['article_id']}] {e['heading']}{label('text_separator', lang)}{e['text']}" for e in evidence)


def basis_evidence(evidence: list[EvidenceItem], verdicts: list[Verdict]) -> list[EvidenceItem]:
    """The evidence articles kept as the basis (applicable verdicts), in the verdicts' order: what a draft may
    reason from and cite."""
    by_id = {e["article_id"]: e for e in evidence}
    return [by_id[v["article_id"]] for v in verdicts if v["applicable"] and v["article_id"] in by_id]


def format_evidence_headings(evidence: list[EvidenceItem], lang: str = "zh") -> str:
    """Evidence ids and headings only, for agents that judge a draft rather than write one."""
    return "\n".join(f"[{e['article_id']}] {e['heading']}" for e in evidence) or label("none", lang)


_ANSWER_LINE = re.compile(r"^\s*(?:回答|answer)[:：]", re.MULTILINE | re.IGNORECASE)
# The local model writes the list on the answer's line (…处罚。引用：[刑法:133-1]); split_draft reads that form
# too, so asking for a second line only cost Manager rounds that returned the same draft.
_CITES_LINE = re.compile(r"(?:^\s*|[。；.;!?！？]\s*)(?:引用|citations?)[:：]", re.MULTILINE | re.IGNORECASE)


def format_problems(draft: str, evidence_ids: set[str], lang: str = "zh") -> list[str]:
    """Format problems found by code: missing answer/citation lines, citations of articles not in the evidence."""
    problems = []
    if not _ANSWER_LINE.search(draft):
        problems.append(label("missing_answer_line", lang))
    if not _CITES_LINE.search(draft):
        problems.append(label("missing_cites_line", lang))
    outside = [a for a in parse_citations(draft) if a not in evidence_ids]
    if outside:
        problems.append(label("outside_evidence", lang, ids=label("list_separator", lang).join(outside)))
    return problems


_DANGLING = re.compile(r"(根据|依据|依照|按照)\s*[、，,]\s*")
_LEAD_IN = re.compile(r"(?:根据|依据|依照|按照)$")
_LEAD_OUT = re.compile(r"^(?:的|之)?规定[，,]?|^[，,]")


def strip_citation(text: str, article_id: str) -> str:
    """Remove the occurrences of ``article_id`` from ``text``: bracketed ([刑法:264], 【刑法:264】), bare
    (IPC:382, 个人信息保护法:39, as a small model writes them) with the separator before each, and in prose
    (《中华人民共和国矿产资源法》第二十六条) with its 根据…的规定，frame."""
    law, _, key = article_id.partition(":")
    law_re = rf"《?(?:中华人民共和国)?{re.escape(law)}》?\s*[:：]\s*{re.escape(key)}"
    text = re.sub(rf"[、，,]?\s*[\[【]\s*{law_re}\s*[\]】]", "", text)
    text = re.sub(rf"[、，,]?\s*{law_re}(?![\dA-Za-z-])", "", text)
    for start, end, cited in reversed(prose_citation_spans(text)):
        if cited == article_id:
            before, after = text[:start], text[end:]
            if _LEAD_IN.search(before):
                before, after = _LEAD_IN.sub("", before), _LEAD_OUT.sub("", after)
            text = before + after
    # 根据[刑法:133-1]、[刑法:277]的规定 without its first id must not read 根据、…
    return _DANGLING.sub(r"\1", text)


_ANSWER_RE = re.compile(r"^\s*(?:回答|answer)[:：]\s*", re.MULTILINE | re.IGNORECASE)


_CITES_RE = re.compile(r"(?:引用|citations?)[:：].*$", re.DOTALL | re.IGNORECASE)
# The 1.5B model often goes on after its answer by copying the prompt's next sections (适用法条…, 修改建议…);
# the answer is one paragraph, so a blank line ends it.
_ECHO_RE = re.compile(r"\n\s*\n.*$", re.DOTALL)


def split_draft(draft: str) -> str:
    """The answer part of a draft in the prompt's format (回答：… / 引用：…): what follows 回答 up to the 引用
    list or the first blank line; text without 回答 unchanged.

    The 引用 list only names ids, which the Legal Basis shows with their text, so it is not repeated.
    """
    if not _ANSWER_RE.search(draft):
        return draft.strip()
    answer = _ECHO_RE.sub("", _ANSWER_RE.split(draft, maxsplit=1)[1].strip())
    return _CITES_RE.sub("", answer).strip()


def legal_basis(articles: list[Article], cited_first: list[str]) -> list[LegalBasisItem]:
    """Legal Basis entries, articles the response cites first (in citation order), then the rest."""
    rank = {a: i for i, a in enumerate(cited_first)}
    ordered = sorted(articles, key=lambda a: rank.get(a.id, len(rank)))
    return [{"article_id": a.id, "law": a.law_full, "number": a.label, "text": a.text} for a in ordered]
