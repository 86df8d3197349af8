"""The consult graph (JurisMA with LegalGraphRAG's auditor):

start_turn -> check_topic (a question that is not a legal one ends here, declined) -> extract_elements? ->
[search_law -> keep_basis (the keeper, then the audit subgraph)]? -> draft_answer -> [review_draft -> route_manager ->
{check_format -> (search_law -> keep_basis)?, search_law -> keep_basis} -> draft_answer]* (at most max_rounds, until
Pass) -> check_content -> verify_claims. The basis is kept before the draft, so the draft reasons from it alone.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from agents.basis import make_keep_basis
from agents.claim_check import verify_claims
from agents.content_check import check_content
from agents.context import ConsultContext
from agents.draft import draft_answer
from agents.element import extract_elements
from agents.format_check import check_format
from agents.law_search import search_law
from agents.manager import review_draft
from agents.session import start_turn
from agents.state.consult import ConsultInput, ConsultOutput, ConsultState
from agents.topic import check_topic
from graphs.audit import graph as audit_graph

ANSWER_NODE: Final = "check_content"
"""The node whose model tokens are the Response: stream_mode="messages" shows them as they come (verify_claims
may still rewrite or cut claims its Legal Basis does not state; the output's ``response`` is the final text)."""
DRAFT_NODE: Final = "draft_answer"
"""The node whose model tokens are the draft: the Response itself when profile=fast keeps the draft."""


def route_after_elements(
    _state: ConsultState, runtime: Runtime[ConsultContext]
) -> Literal["search_law", "draft_answer"]:
    """Search before the first draft unless JurisMA's element-graph-only first draft is asked for."""
    return "search_law" if runtime.context.initial_search else "draft_answer"


def route_start(
    state: ConsultState, runtime: Runtime[ConsultContext]
) -> Literal["extract_elements", "search_law", "draft_answer"]:
    """Skip element extraction in the 'without element graph' ablation."""
    return "extract_elements" if runtime.context.use_elements else route_after_elements(state, runtime)


def route_topic(
    state: ConsultState, runtime: Runtime[ConsultContext]
) -> Literal["extract_elements", "search_law", "draft_answer", "__end__"]:
    """A declined question ends here, with the answer saying why; any other goes on as the profile asks."""
    return "__end__" if state.declined else route_start(state, runtime)


def route_after_draft(
    state: ConsultState, runtime: Runtime[ConsultContext]
) -> Literal["review_draft", "check_content"]:
    """Another Manager round while rounds remain and the last revision changed something; otherwise the draft
    goes to ContentCheck as it is."""
    return "review_draft" if state.round < runtime.context.max_rounds and not state.stalled else ANSWER_NODE


def route_manager(state: ConsultState) -> Literal["check_format", "search_law", "check_content"]:
    """Act on the Manager's decision: Pass goes to ContentCheck, otherwise the first planned step."""
    return ANSWER_NODE if not state.plan else state.plan[0]  # type: ignore[return-value]


def route_after_format(state: ConsultState) -> Literal["search_law", "draft_answer"]:
    """FormatCheck then LawSearch when the Manager asked for both."""
    return "search_law" if "search_law" in state.plan else DRAFT_NODE


def build_graph(
    checkpointer: Any = None, store: Any = None
) -> CompiledStateGraph[ConsultState, ConsultContext, ConsultInput, ConsultOutput]:
    """Compile the consult graph; pass a checkpointer for multi-turn threads when embedding it."""
    builder = StateGraph(
        ConsultState, context_schema=ConsultContext, input_schema=ConsultInput, output_schema=ConsultOutput
    )
    builder.add_node("start_turn", start_turn)
    builder.add_node("check_topic", check_topic)
    builder.add_node("extract_elements", extract_elements)
    builder.add_node("search_law", search_law)
    builder.add_node("keep_basis", make_keep_basis(audit_graph))
    builder.add_node(DRAFT_NODE, draft_answer)
    builder.add_node("review_draft", review_draft)
    builder.add_node("check_format", check_format)
    builder.add_node(ANSWER_NODE, check_content)
    builder.add_node("verify_claims", verify_claims)
    builder.add_edge(START, "start_turn")
    builder.add_edge("start_turn", "check_topic")
    # A question that is not a legal one ends here; the others go on as the settings ask.
    builder.add_conditional_edges("check_topic", route_topic)
    builder.add_conditional_edges("extract_elements", route_after_elements)
    # Every search is followed by the keeper, so that each draft reasons from the basis as it stands.
    builder.add_edge("search_law", "keep_basis")
    builder.add_edge("keep_basis", DRAFT_NODE)
    builder.add_conditional_edges(DRAFT_NODE, route_after_draft)
    builder.add_conditional_edges("review_draft", route_manager)
    builder.add_conditional_edges("check_format", route_after_format)
    builder.add_edge(ANSWER_NODE, "verify_claims")
    builder.add_edge("verify_claims", END)
    return builder.compile(checkpointer=checkpointer, store=store, name="consult")


graph = build_graph()
