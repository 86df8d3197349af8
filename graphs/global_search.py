"""The global_search graph (Law GraphRAG over the statute entity index):

START -> route_mode -> build_local_context -> write_answer          (local)
                    -> plan_map -> map_reports x N -> write_answer  (global: map-reduce over reports)
write_answer -> quote_basis (verbatim Legal Basis, citations outside the shown context dropped) -> END.
"""

from __future__ import annotations

from typing import Any, cast

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agents.context import GlobalSearchContext
from agents.global_search import (
    build_local_context,
    map_reports,
    plan_map,
    quote_basis,
    route_batches,
    route_mode,
    write_answer,
)
from agents.state.global_search import GlobalSearchInput, GlobalSearchOutput, GlobalSearchState, ReportBatch


def build_graph(
    checkpointer: Any = None, store: Any = None
) -> CompiledStateGraph[GlobalSearchState, GlobalSearchContext, GlobalSearchInput, GlobalSearchOutput]:
    """Compile the global_search graph."""
    builder = StateGraph(
        GlobalSearchState,
        context_schema=GlobalSearchContext,
        input_schema=GlobalSearchInput,
        output_schema=GlobalSearchOutput,
    )
    builder.add_node("build_local_context", build_local_context)
    builder.add_node("plan_map", plan_map)
    builder.add_node("map_reports", cast(Any, map_reports), input_schema=ReportBatch)
    builder.add_node("write_answer", write_answer)
    builder.add_node("quote_basis", quote_basis)
    builder.add_conditional_edges(START, route_mode, ["build_local_context", "plan_map"])
    builder.add_edge("build_local_context", "write_answer")
    builder.add_conditional_edges("plan_map", route_batches, ["map_reports"])
    builder.add_edge("map_reports", "write_answer")
    builder.add_edge("write_answer", "quote_basis")
    builder.add_edge("quote_basis", END)
    return builder.compile(checkpointer=checkpointer, store=store, name="global_search")


graph = build_graph()
