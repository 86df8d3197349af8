"""ContentCheck agent (JurisMA): the final answer in two parts, Response (回答) and Legal Basis (法律依据).

The model only rewrites the draft's prose (dropping what rested on pruned articles); the Legal Basis is
built by code: every article kept before the draft (``keep_basis``) and not vetoed, most supported first, with
text fetched verbatim from the knowledge graph. Which of them the draft cites does not choose the basis: the
evidence decided it, and a 1.5B draft citing 民法典:1085 (抚养费) for "离婚时孩子抚养权怎么判" dropped the
kept 1084, the article that decides custody. Any citation outside the basis is removed from the response and
reported.
"""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from agents.common.answers import legal_basis, split_draft, strip_citation
from agents.common.models import chat_model
from agents.context import ConsultContext
from agents.state.common import trace_event
from agents.state.consult import ConsultState
from prompts import label, render_prompt
from tools.law.articles import Article, malformed_citations, parse_citations
from tools.llm.chat import empty_usage, invoke_text
from tools.services import get_services


def _rewrite(
    state: ConsultState, ctx: ConsultContext, applicable: list[Article], outside: list[str]
) -> tuple[str, Any]:
    # What the draft cited outside the basis, with why it is not the basis: the prose that rested on it goes.
    reasons = {v["article_id"]: v["reason"] for v in state.verdicts}
    outside_basis = label("outside_basis", ctx.language)
    pruned = [{"article_id": a, "reason": reasons.get(a, outside_basis)} for a in outside]
    prompt = render_prompt(
        "check_content",
        ctx.language,
        question=state.question,
        draft=split_draft(state.draft),
        # The texts, not only headings: the answer says in plain words what the articles provide.
        applicable="\n".join(f"[{a.id}] {a.heading}{label('text_separator', ctx.language)}{a.text}" for a in applicable)
        or label("none", ctx.language),
        pruned="\n".join(f"[{v['article_id']}] {v['reason']}" for v in pruned) or label("none", ctx.language),
    )
    model = chat_model(ctx, "draft")
    system = SystemMessage(content=render_prompt("system", ctx.language))
    text, usage = invoke_text(model, [system, HumanMessage(content=prompt)])
    return split_draft(text), usage


def check_content(state: ConsultState, runtime: Runtime[ConsultContext]) -> dict[str, Any]:
    """Write the final Response and build the Legal Basis from the audited applicable articles."""
    started = time.perf_counter()
    ctx = runtime.context
    statutes = get_services().statutes
    draft_cited = parse_citations(state.draft)
    # The basis was kept before the draft (keep_basis): nothing else may be cited.
    allowed = [v["article_id"] for v in state.verdicts if v["applicable"]]
    applicable = statutes.get_articles(allowed)
    allowed_ids = {a.id for a in applicable}
    # The rewrite's task is the prose that rested on articles outside the basis: with none cited, fast keeps it.
    pruned_cited = [a for a in dict.fromkeys(draft_cited) if a not in allowed_ids]
    # With no basis there is no draft to rewrite (the graph asks for none): verify_claims writes the Response.
    rewrite = ctx.content_check and bool(applicable) and (ctx.profile == "thorough" or bool(pruned_cited))
    if rewrite:
        response, usage = _rewrite(state, ctx, applicable, pruned_cited)
    else:
        response, usage = split_draft(state.draft), empty_usage()
    cited = parse_citations(response)
    dropped = [a for a in dict.fromkeys([*draft_cited, *cited]) if a not in allowed_ids]
    for article_id in dropped:
        response = strip_citation(response, article_id)
    for raw in malformed_citations(response):
        response = response.replace(raw, "")
        dropped.append(raw)
    return {
        "response": response.strip(),
        # In the keeper's order (the verdicts list the kept articles most supported first).
        "legal_basis": legal_basis(applicable, []),
        "dropped_citations": dropped,
        "usage": usage,
        "trace": [
            trace_event(
                "check_content",
                started,
                rounds=state.round,
                rewritten=rewrite,
                legal_basis=sorted(allowed_ids),
                dropped=dropped,
            )
        ],
    }
