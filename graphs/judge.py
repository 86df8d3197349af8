"""The judge graph (LegalGraphRAG + AALawyer):

the research pipeline (graphs/research.py: align_ontology -> {research_semantic, research_community,
research_charges} in parallel -> fuse_candidates) -> score_charges (candidate charges scored from their
signals, act by act, family checks, and whether the fact states an offence at all: if not, straight to
adjudicate) -> audit_research (the audit subgraph over the best articles and the
proposed charges') -> adjudicate.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agents.adjudicator import adjudicate
from agents.context import JudgeContext
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
    builder.add_node("score_charges", score_charges, destinations=("audit_research", "adjudicate"))
    builder.add_node("audit_research", make_audit_research(audit_graph))
    builder.add_node("adjudicate", adjudicate)
    builder.add_edge(researched, "score_charges")
    # score_charges routes itself (Command): to the audit of its proposal, or, when the fact states no offence,
    # straight to adjudicate, which then gives 不构成犯罪 with the reason.
    builder.add_edge("audit_research", "adjudicate")
    builder.add_edge("adjudicate", END)
    return builder.compile(checkpointer=checkpointer, store=store, name="judge")


graph = build_graph()
