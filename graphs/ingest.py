"""The ingest graph: reset_stores? -> load_statutes -> (link_charges -> load_interpretations?)? -> load_cases?
-> load_consultations? -> build_ontology?.

Every step is idempotent and resumable (content hashes in both stores), so re-running the graph after a
failure or a kill completes the work without duplicates.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agents.context import Context
from agents.ingester import (
    build_case_ontology,
    link_charges,
    load_cases_file,
    load_consultations_file,
    load_interpretations,
    load_statutes,
    reset_stores,
)
from agents.state.ingest import IngestInput, IngestOutput, IngestState


def route_start(state: IngestState) -> Literal["reset_stores", "load_statutes"]:
    return "reset_stores" if state.reset else "load_statutes"


def route_after_statutes(
    state: IngestState,
) -> Literal["link_charges", "load_cases", "load_consultations", "build_ontology", "__end__"]:
    if state.interpretations:
        return "link_charges"
    return route_after_interpretations(state)


def route_after_charges(
    state: IngestState,
) -> Literal["load_interpretations", "load_cases", "load_consultations", "build_ontology", "__end__"]:
    return route_after_interpretations(state) if state.charges_only else "load_interpretations"


def route_after_interpretations(
    state: IngestState,
) -> Literal["load_cases", "load_consultations", "build_ontology", "__end__"]:
    if state.cases:
        return "load_cases"
    return route_after_cases(state)


def route_after_cases(state: IngestState) -> Literal["load_consultations", "build_ontology", "__end__"]:
    if state.consultations:
        return "load_consultations"
    return route_after_consultations(state)


def route_after_consultations(state: IngestState) -> Literal["build_ontology", "__end__"]:
    return "build_ontology" if state.ontology else "__end__"


def build_graph(
    checkpointer: Any = None, store: Any = None
) -> CompiledStateGraph[IngestState, Context, IngestInput, IngestOutput]:
    """Compile the ingest graph."""
    builder = StateGraph(IngestState, context_schema=Context, input_schema=IngestInput, output_schema=IngestOutput)
    builder.add_node("reset_stores", reset_stores)
    builder.add_node("load_statutes", load_statutes)
    builder.add_node("link_charges", link_charges)
    builder.add_node("load_interpretations", load_interpretations)
    builder.add_node("load_cases", load_cases_file)
    builder.add_node("load_consultations", load_consultations_file)
    builder.add_node("build_ontology", build_case_ontology)
    builder.add_conditional_edges(START, route_start)
    builder.add_edge("reset_stores", "load_statutes")
    builder.add_conditional_edges("load_statutes", route_after_statutes)
    builder.add_conditional_edges("link_charges", route_after_charges)
    builder.add_conditional_edges("load_interpretations", route_after_interpretations)
    builder.add_conditional_edges("load_cases", route_after_cases)
    builder.add_conditional_edges("load_consultations", route_after_consultations)
    builder.add_edge("build_ontology", END)
    return builder.compile(checkpointer=checkpointer, store=store, name="ingest")


graph = build_graph()
