"""Citation step: the Legal Basis is data from the knowledge graph, never model prose.

Ids the draft cites are looked up; those the knowledge base holds become the Legal Basis with their
verbatim text, those it does not are removed from the response and reported as dropped.
"""

from __future__ import annotations

import re
import time
from typing import Any

from app.services import get_services
from graphs.state import ConsultState, LegalBasisItem, trace_event
from tools.statutes import parse_citations


def strip_citation(text: str, article_id: str) -> str:
    """Remove bracketed occurrences of ``article_id`` (and the separator before them) from ``text``."""
    law, _, key = article_id.partition(":")
    pattern = rf"[、，,]?\s*[\[【]\s*《?(?:中华人民共和国)?{re.escape(law)}》?\s*[:：]\s*{re.escape(key)}\s*[\]】]"
    return re.sub(pattern, "", text)


_ANSWER_RE = re.compile(r"^\s*回答[:：]\s*", re.MULTILINE)
_CITES_RE = re.compile(r"^\s*引用[:：].*$", re.MULTILINE | re.DOTALL)


def split_draft(draft: str) -> str:
    """The answer part of a draft in the prompt's two-line format (回答：… / 引用：…); other text unchanged.

    The 引用 line only lists ids, which the Legal Basis shows with their text, so it is not repeated.
    """
    if not _ANSWER_RE.search(draft):
        return draft.strip()
    answer = _CITES_RE.sub("", _ANSWER_RE.sub("", draft, count=1))
    return answer.strip()


def cite_articles(state: ConsultState) -> dict[str, Any]:
    """Build the Legal Basis from the KB and drop citations to articles that do not exist."""
    started = time.perf_counter()
    cited = parse_citations(state.draft)
    found, dropped = get_services().statutes.check_citations(cited)
    response = split_draft(state.draft)
    for article_id in dropped:
        response = strip_citation(response, article_id)
    basis: list[LegalBasisItem] = [
        {"article_id": a.id, "law": a.law_full, "number": a.label, "text": a.text} for a in found
    ]
    return {
        "response": response.strip(),
        "legal_basis": basis,
        "dropped_citations": dropped,
        "trace": [trace_event("cite_articles", started, cited=cited, dropped=dropped)],
    }
