"""A user's own LangGraph agent embedding consult and judge as subgraphs (the README's example)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from langgraph.graph import END, START, StateGraph

from agents.context import ConsultContext, JudgeContext
from agents.state.judge import JudgeInput
from graphs.consult import build_graph as build_consult
from graphs.judge import build_graph as build_judge
from tests.conftest import laws_db_text
from tools.services import Services

pytestmark = pytest.mark.integration


@dataclass
class Intake:
    """The parent agent's own state: a client's question and case notes, and what it makes of them."""

    question: str = ""
    case_notes: str = ""
    response: str = ""
    legal_basis: list[dict[str, Any]] = field(default_factory=list)
    likely_charges: list[str] = field(default_factory=list)
    memo: str = ""


def assess_case(state: Intake) -> dict[str, Any]:
    """Wrapper node: the parent's ``case_notes`` become the judge's ``fact``; its charges come back."""
    out = build_judge().invoke(JudgeInput(fact=state.case_notes), context=JudgeContext(model="fake"))
    return {"likely_charges": out["charges"] or ["（未定）"]}


def write_memo(state: Intake) -> dict[str, Any]:
    cited = "、".join(b["article_id"] for b in state.legal_basis)
    return {"memo": f"{state.response}（依据：{cited}；可能罪名：{'、'.join(state.likely_charges)}）"}


def _parent() -> Any:
    # The consult subgraph, added directly, runs with the parent's context: the parent takes its settings.
    builder = StateGraph(Intake, context_schema=ConsultContext)
    builder.add_node("consult", build_consult())  # added directly: shares question/response/legal_basis
    builder.add_node("assess_case", assess_case)
    builder.add_node("write_memo", write_memo)
    builder.add_edge(START, "consult")
    builder.add_edge("consult", "assess_case")
    builder.add_edge("assess_case", "write_memo")
    builder.add_edge("write_memo", END)
    return builder.compile(name="intake")


def test_parent_agent_runs_consult_and_judge_as_subgraphs(active_kb: Services) -> None:
    notes = "被告人张某秘密窃取被害人李某的电动自行车一辆，价值人民币2300元。"
    request = Intake(question="醉酒驾驶机动车会受到什么处罚？", case_notes=notes)
    chunks = list(
        _parent().stream(
            request, context=ConsultContext(model="fake"), stream_mode=["updates", "custom"], subgraphs=True
        )
    )
    namespaces = {ns[0].split(":")[0] for ns, _, _ in chunks if ns}
    assert {"consult", "assess_case"} <= namespaces  # both subgraphs' events reach the parent's stream
    consult_nodes = {node for ns, mode, update in chunks if ns and mode == "updates" for node in update}
    # The punishment question is answered by code quoting 133-1's tier: no draft, no Manager, no element graph for
    # a draft (profile='fast').
    assert {"search_law", "keep_basis", "check_content", "verify_claims"} <= consult_nodes
    assert not consult_nodes & {"extract_elements", "draft_answer", "review_draft"}
    judge_done = {e["stage"] for ns, mode, e in chunks if ns and ns[0].startswith("assess_case") and mode == "custom"}
    # The judge decides from the evidence the KB holds when this runs (other tests add precedents): it convicts (the
    # audit, then the Adjudicator) or acquits; either way its stages reach the parent's stream.
    assert "align_ontology" in judge_done
    assert {"audit_research", "adjudicate"} <= judge_done or "acquit" in judge_done, judge_done
    final = _parent().invoke(request, context=ConsultContext(model="fake"))
    basis = {b["article_id"]: b["text"] for b in final["legal_basis"]}
    assert basis["刑法:133-1"] == laws_db_text("中华人民共和国刑法", "第一百三十三条之一")
    assert final["response"] and final["likely_charges"]
    # The stream showed the path the judgment took: an acquittal leaves the parent no charge (its 未定).
    assert "acquit" not in judge_done or final["likely_charges"] == ["（未定）"], final["likely_charges"]
    assert "刑法:133-1" in final["memo"]
