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


def cite_articles(state: ConsultState) -> dict[str, Any]:
    """Build the Legal Basis from the KB and drop citations to articles that do not exist."""
    started = time.perf_counter()
    cited = parse_citations(state.draft)
    found, dropped = get_services().statutes.check_citations(cited)
    response = state.draft
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
