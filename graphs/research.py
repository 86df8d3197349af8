"""The research pipeline (LegalGraphRAG's Researcher with AALawyer's article prediction):

align_ontology -> {research_semantic, research_community, research_charges} (in parallel) -> fuse_candidates.

The judge graph opens with it (:func:`add_research`); compiled alone it is the Researcher the retrieval eval
and the fitting commands measure, so there is one assembly of it.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agents.context import JudgeContext
from agents.researcher import (
    align_ontology,
    fuse_candidates,
    research_charges,
    research_community,
    research_semantic,
)
from agents.state.judge import JudgeInput, JudgeState, ResearchOutput

STRATEGIES = ("research_semantic", "research_community", "research_charges")
LAST = "fuse_candidates"
"""The node the pipeline ends on, which a graph opening with it continues from."""


def add_research(builder: StateGraph[Any, Any, Any, Any]) -> str:
    """Add the pipeline's nodes and edges from START to ``builder``; return its last node."""
    builder.add_node("align_ontology", align_ontology)
    builder.add_node("research_semantic", research_semantic)
    builder.add_node("research_community", research_community)
    builder.add_node("research_charges", research_charges)
    builder.add_node(LAST, fuse_candidates)
    builder.add_edge(START, "align_ontology")
    for strategy in STRATEGIES:
        builder.add_edge("align_ontology", strategy)
    builder.add_edge(list(STRATEGIES), LAST)
    return LAST


def build_graph(
    checkpointer: Any = None, store: Any = None
) -> CompiledStateGraph[JudgeState, JudgeContext, JudgeInput, ResearchOutput]:
    """Compile the research pipeline alone."""
    builder = StateGraph(JudgeState, context_schema=JudgeContext, input_schema=JudgeInput, output_schema=ResearchOutput)
    builder.add_edge(add_research(builder), END)
    return builder.compile(checkpointer=checkpointer, store=store, name="research")


graph = build_graph()
