"""The judge graph (LegalGraphRAG + AALawyer):

the research pipeline (graphs/research.py: align_ontology -> {research_semantic, research_community,
research_charges} in parallel -> fuse_candidates) -> score_charges (candidate charges scored from their
signals, act by act, and the fitted policy's choice) -> decide_offence (whether the fact states the chosen
charges, or the next candidates, at all) -> audit_research (the audit subgraph over the best articles and the
proposed charges') -> adjudicate; or, where the fact states no offence, decide_offence -> acquit.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agents.adjudicator import acquit, adjudicate
from agents.context import JudgeContext
from agents.offence import decide_offence
from agents.research_audit import make_audit_research
from agents.scorer import score_charges
from agents.state.judge import JudgeInput, JudgeOutput, JudgeState
from graphs.audit import graph as audit_graph
from graphs.research import add_research


def build_graph(
    checkpointer: Any = None, store: Any = None
) -> CompiledStateGraph[JudgeState, JudgeContext, JudgeInput, JudgeOutput]:
    """Compile the judge graph."""
    builder = StateGraph(JudgeState, context_schema=JudgeContext, input_schema=JudgeInput, output_schema=JudgeOutput)
    researched = add_research(builder)
    builder.add_node("score_charges", score_charges)
    builder.add_node("decide_offence", decide_offence, destinations=("audit_research", "acquit"))
    builder.add_node("audit_research", make_audit_research(audit_graph))
    builder.add_node("adjudicate", adjudicate)
    builder.add_node("acquit", acquit)
    builder.add_edge(researched, "score_charges")
    # The scores are evidence; what they mean for this fact is decided once, in the next node.
    builder.add_edge("score_charges", "decide_offence")
    # decide_offence routes itself (Command): to the audit of the charges the fact states, or, when it states
    # none, to acquit, which gives 不构成犯罪 with every reason.
    builder.add_edge("audit_research", "adjudicate")
    builder.add_edge("adjudicate", END)
    builder.add_edge("acquit", END)
    return builder.compile(checkpointer=checkpointer, store=store, name="judge")


graph = build_graph()
