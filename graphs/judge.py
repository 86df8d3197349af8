"""The judge graph (LegalGraphRAG + AALawyer):

align_ontology -> {research_semantic, research_community, research_charges} (in parallel) ->
score_charges (fusion, candidate charges scored from their signals, act by act, family checks) ->
audit_research (the audit subgraph over the best articles and the proposed charges') -> adjudicate.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agents.adjudicator import adjudicate
from agents.auditor import make_audit_research
from agents.context import JudgeContext
from agents.researcher import align_ontology, research_charges, research_community, research_semantic
from agents.scorer import score_charges
from agents.state.judge import JudgeInput, JudgeOutput, JudgeState
from graphs.audit import graph as audit_graph

STRATEGIES = ("research_semantic", "research_community", "research_charges")


def build_graph(
    checkpointer: Any = None, store: Any = None
) -> CompiledStateGraph[JudgeState, JudgeContext, JudgeInput, JudgeOutput]:
    """Compile the judge graph."""
    builder = StateGraph(JudgeState, context_schema=JudgeContext, input_schema=JudgeInput, output_schema=JudgeOutput)
    builder.add_node("align_ontology", align_ontology)
    builder.add_node("research_semantic", research_semantic)
    builder.add_node("research_community", research_community)
    builder.add_node("research_charges", research_charges)
    builder.add_node("score_charges", score_charges)
    builder.add_node("audit_research", make_audit_research(audit_graph))
    builder.add_node("adjudicate", adjudicate)
    builder.add_edge(START, "align_ontology")
    for strategy in STRATEGIES:
        builder.add_edge("align_ontology", strategy)
    builder.add_edge(list(STRATEGIES), "score_charges")
    builder.add_edge("score_charges", "audit_research")
    builder.add_edge("audit_research", "adjudicate")
    builder.add_edge("adjudicate", END)
    return builder.compile(checkpointer=checkpointer, store=store, name="judge")


graph = build_graph()
