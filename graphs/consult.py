"""The consult graph (JurisMA, first slice): extract_elements -> search_law -> draft_answer -> cite_articles."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agents.cite import cite_articles
from agents.draft import draft_answer
from agents.element import extract_elements
from agents.law_search import search_law
from app.context import Context
from graphs.state import ConsultInput, ConsultOutput, ConsultState


def build_graph(
    checkpointer: Any = None, store: Any = None
) -> CompiledStateGraph[ConsultState, Context, ConsultInput, ConsultOutput]:
    """Compile the consult graph; pass a checkpointer for multi-turn threads when embedding it."""
    builder = StateGraph(ConsultState, context_schema=Context, input_schema=ConsultInput, output_schema=ConsultOutput)
    builder.add_node("extract_elements", extract_elements)
    builder.add_node("search_law", search_law)
    builder.add_node("draft_answer", draft_answer)
    builder.add_node("cite_articles", cite_articles)
    builder.add_edge(START, "extract_elements")
    builder.add_edge("extract_elements", "search_law")
    builder.add_edge("search_law", "draft_answer")
    builder.add_edge("draft_answer", "cite_articles")
    builder.add_edge("cite_articles", END)
    return builder.compile(checkpointer=checkpointer, store=store, name="consult")


graph = build_graph()
