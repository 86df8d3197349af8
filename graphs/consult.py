"""The consult graph (JurisMA with LegalGraphRAG's auditor):

start_turn -> check_topic (a question that is not a legal one ends here, declined) -> [search_law -> keep_basis (the
keeper, then the audit subgraph)]? -> extract_elements? -> draft_answer -> [review_draft -> route_manager ->
{check_format -> (search_law -> keep_basis)?, search_law -> keep_basis} -> draft_answer]* (at most max_rounds, until
Pass) -> check_content -> verify_claims. The basis is kept before the draft, so the draft reasons from it alone; a
search that keeps nothing goes straight to check_content, as no draft would be read. The element graph is the
draft's reading of the question, built only when a draft is written: the search reads the question's own words, as
every fitted ranking was measured.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from agents.basis import make_keep_basis
from agents.claim_check import penalties_said_by_code, verify_claims
from agents.content_check import check_content
from agents.context import ConsultContext
from agents.context.experiment import consult_switches
from agents.draft import draft_answer
from agents.element import extract_elements
from agents.format_check import check_format
from agents.law_search import search_law
from agents.manager import review_draft
from agents.session import start_turn
from agents.state.audit import MEASURE
from agents.state.consult import ConsultInput, ConsultOutput, ConsultState
from agents.topic import check_topic
from graphs.audit import graph as audit_graph

START_TURN: Final = "start_turn"
CHECK_TOPIC: Final = "check_topic"
EXTRACT_ELEMENTS: Final = "extract_elements"
SEARCH_LAW: Final = "search_law"
KEEP_BASIS: Final = "keep_basis"
DRAFT_NODE: Final = "draft_answer"
"""The node whose model tokens are the draft: the Response itself when profile=fast keeps the draft."""
REVIEW_DRAFT: Final = "review_draft"
CHECK_FORMAT: Final = "check_format"
ANSWER_NODE: Final = "check_content"
"""The node whose model tokens are the Response: stream_mode="messages" shows them as they come (verify_claims
may still rewrite or cut claims its Legal Basis does not state; the output's ``response`` is the final text)."""
VERIFY_CLAIMS: Final = "verify_claims"


def route_after_topic(
    state: ConsultState, runtime: Runtime[ConsultContext]
) -> Literal["search_law", "extract_elements", "draft_answer", "__end__"]:
    """A declined question ends here, with the answer saying why; any other is searched (or, in JurisMA's
    element-graph-only first draft, drafted from its element graph first)."""
    if state.declined:
        return "__end__"
    return SEARCH_LAW if consult_switches(runtime.context).initial_search else _before_draft(state, runtime.context)


def _before_draft(state: ConsultState, ctx: ConsultContext) -> Literal["extract_elements", "draft_answer"]:
    """The turn's first draft reads the question's element graph, built just before it (none in the 'without
    element graph' ablation); a later round's draft reads the one built then."""
    return EXTRACT_ELEMENTS if consult_switches(ctx).use_elements and not state.draft else DRAFT_NODE


def route_after_keep(
    state: ConsultState, runtime: Runtime[ConsultContext]
) -> Literal["extract_elements", "draft_answer", "check_content"]:
    """The draft reasons from the kept basis; with none kept, verify_claims writes the Response from the conditional
    tier (or says nothing supports an answer) whatever a draft said, so none is asked for: 15 of 20 everyday
    questions kept nothing, and each spent about 15 s on a draft that was thrown away. Articles a number the
    question states decided are said by code too (a draft quoted the wrong paragraph of 道路交通安全法:91): a draft
    is asked for only when the keeper concluded something else, and (profile='fast') code cannot say its penalties
    either. Nor is the element graph built for an answer code writes: the search reads the question itself."""
    concluded = {v["article_id"] for v in state.verdicts if v["applicable"] and v["decided_by"] != MEASURE}
    # With profile='fast', a punishment question whose every concluded article has a tier for the case asked is
    # answered by code, which quotes each tier: a draft's penalties were removed and replaced by them.
    texts = {e["article_id"]: e["text"] for e in state.evidence if e["article_id"] in concluded}
    said = runtime.context.profile == "fast" and len(texts) == len(concluded)
    if concluded and not (said and penalties_said_by_code(state.question, texts.values())):
        return _before_draft(state, runtime.context)
    return ANSWER_NODE


def route_after_draft(
    state: ConsultState, runtime: Runtime[ConsultContext]
) -> Literal["review_draft", "check_content"]:
    """Another Manager round while rounds remain and the last revision changed something; otherwise the draft
    goes to ContentCheck as it is."""
    return REVIEW_DRAFT if state.round < runtime.context.max_rounds and not state.stalled else ANSWER_NODE


def route_manager(state: ConsultState) -> Literal["check_format", "search_law", "check_content"]:
    """Act on the Manager's decision: Pass goes to ContentCheck, otherwise the first planned step."""
    return ANSWER_NODE if not state.plan else state.plan[0]  # type: ignore[return-value]


def route_after_format(state: ConsultState) -> Literal["search_law", "draft_answer"]:
    """FormatCheck then LawSearch when the Manager asked for both."""
    return SEARCH_LAW if SEARCH_LAW in state.plan else DRAFT_NODE


def build_graph(
    checkpointer: Any = None, store: Any = None
) -> CompiledStateGraph[ConsultState, ConsultContext, ConsultInput, ConsultOutput]:
    """Compile the consult graph; pass a checkpointer for multi-turn threads when embedding it. Nodes are added
    in the order a question meets them (the README's diagram), each edge with why it is there."""
    builder = StateGraph(
        ConsultState, context_schema=ConsultContext, input_schema=ConsultInput, output_schema=ConsultOutput
    )
    builder.add_node(START_TURN, start_turn)
    builder.add_node(CHECK_TOPIC, check_topic)
    builder.add_node(SEARCH_LAW, search_law)
    builder.add_node(KEEP_BASIS, make_keep_basis(audit_graph))
    builder.add_node(EXTRACT_ELEMENTS, extract_elements)
    builder.add_node(DRAFT_NODE, draft_answer)
    builder.add_node(REVIEW_DRAFT, review_draft)
    builder.add_node(CHECK_FORMAT, check_format)
    builder.add_node(ANSWER_NODE, check_content)
    builder.add_node(VERIFY_CLAIMS, verify_claims)
    # Each turn of a thread starts by validating its question and clearing the last turn's answer.
    builder.add_edge(START, START_TURN)
    builder.add_edge(START_TURN, CHECK_TOPIC)
    # A question that is not a legal one ends here; the others go on to the law search.
    builder.add_conditional_edges(CHECK_TOPIC, route_after_topic)
    # Every search is followed by the keeper, so that each draft reasons from the basis as it stands; a search that
    # keeps nothing has nothing to draft from, and ContentCheck and verify_claims answer from the conditional tier.
    builder.add_edge(SEARCH_LAW, KEEP_BASIS)
    builder.add_conditional_edges(KEEP_BASIS, route_after_keep)
    # The element graph is built for the draft that reads it, and for nothing else.
    builder.add_edge(EXTRACT_ELEMENTS, DRAFT_NODE)
    # JurisMA's loop: the Manager reviews each draft while rounds remain, and routes it to FormatCheck, LawSearch
    # (through the keeper again) or, on Pass, to ContentCheck.
    builder.add_conditional_edges(DRAFT_NODE, route_after_draft)
    builder.add_conditional_edges(REVIEW_DRAFT, route_manager)
    builder.add_conditional_edges(CHECK_FORMAT, route_after_format)
    # The Response's claims are checked against the Legal Basis last: nothing after may add one.
    builder.add_edge(ANSWER_NODE, VERIFY_CLAIMS)
    builder.add_edge(VERIFY_CLAIMS, END)
    return builder.compile(checkpointer=checkpointer, store=store, name="consult")


graph = build_graph()
