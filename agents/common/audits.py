"""Running the audit subgraph from a node of another graph: the nodes that embed it (consult's ``keep_basis``,
judge's ``audit_research``) are given the compiled subgraph by graphs/, so no agent imports a graph."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph.state import CompiledStateGraph

from agents.context import AuditContext
from agents.state.audit import AuditInput, AuditOutput, AuditState

AuditGraph = CompiledStateGraph[AuditState, AuditContext, AuditInput, AuditOutput]
"""The compiled audit subgraph."""


def run_audit(
    audit: AuditGraph, facts: str, ids: list[str], ctx: AuditContext, facts_kind: Literal["case", "question"]
) -> dict[str, Any]:
    """The audit subgraph over ``ids``; verdicts come back in the order of ``ids``. Its interrupt (human
    review) propagates to the caller's graph, which resumes it with ``Command(resume=...)``."""
    request = AuditInput(facts=facts, article_ids=ids, facts_kind=facts_kind)
    return dict(audit.invoke(request, context=ctx))
