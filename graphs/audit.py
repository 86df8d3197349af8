"""The audit subgraph, shared by consult and judge: one ``verify_article`` branch per candidate (Send),
verdicts collected by the state reducer, then ``review_verdicts`` (ordering, and the optional human review)."""

from __future__ import annotations

from typing import Any, cast

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send

from agents.auditor import review_verdicts, verify_article
from agents.context import AuditContext
from agents.state.audit import ArticleTask, AuditInput, AuditOutput, AuditState


def route_articles(state: AuditState) -> list[Send] | str:
    """Fan out: one verification per distinct candidate; with nothing to verify, go straight to review."""
    ids = list(dict.fromkeys(state.article_ids))
    if not ids:
        return "review_verdicts"
    return [
        Send("verify_article", ArticleTask(facts=state.facts, article_id=article_id, facts_kind=state.facts_kind))
        for article_id in ids
    ]


def build_graph(
    checkpointer: Any = None, store: Any = None
) -> CompiledStateGraph[AuditState, AuditContext, AuditInput, AuditOutput]:
    """Compile the audit subgraph."""
    builder = StateGraph(AuditState, context_schema=AuditContext, input_schema=AuditInput, output_schema=AuditOutput)
    # The branch input is the Send payload, not the graph state; StateGraph's overloads do not model that
    # (mypy reports it as call-overload or arg-type depending on its cache), hence the cast.
    builder.add_node("verify_article", cast(Any, verify_article), input_schema=ArticleTask)
    builder.add_node("review_verdicts", review_verdicts)
    builder.add_conditional_edges(START, route_articles, ["verify_article", "review_verdicts"])
    builder.add_edge("verify_article", "review_verdicts")
    builder.add_edge("review_verdicts", END)
    return builder.compile(checkpointer=checkpointer, store=store, name="audit")


graph = build_graph()
