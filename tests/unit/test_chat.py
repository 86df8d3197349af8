"""The consult graph as a chat: a question as the last human message, each answer an AI message with its
Legal Basis, turns of a thread by chat or by question alike."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from agents.common.chat import asked, reply
from agents.context import ConsultContext
from graphs.consult import build_graph
from tests.conftest import laws_db_text
from tools.services import Services

DRUNK = "醉酒驾驶机动车会受到什么处罚？"


def test_a_chat_asks_with_its_last_human_message_only() -> None:
    assert asked([HumanMessage(content="问")]) == "问"
    assert asked([HumanMessage(content="问"), AIMessage(content="答")]) is None  # answered
    assert asked([HumanMessage(content=[{"type": "text", "text": "多模态"}])]) == "多模态"
    assert asked([]) is None


def test_an_answer_message_quotes_its_basis() -> None:
    basis = [{"article_id": "刑法:1", "law": "中华人民共和国刑法", "number": "第一条", "text": "正文"}]
    message = reply("回答", basis, "zh")  # type: ignore[arg-type]
    assert message.content == "回答\n\n法律依据 Legal Basis：\n《中华人民共和国刑法》第一条：正文"
    assert message.additional_kwargs["legal_basis"] == basis
    assert reply("回答", [], "zh").content == "回答"


def test_a_thread_answers_chat_turns_and_question_turns_alike(active_kb: Services) -> None:
    graph = build_graph(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "chat"}}
    context = ConsultContext(model="fake")
    first = graph.invoke({"messages": [HumanMessage(content=DRUNK)]}, config, context=context)
    assert [m.type for m in first["messages"]] == ["human", "ai"] and first["response"]
    assert laws_db_text("中华人民共和国刑法", "第一百三十三条之一") in first["messages"][-1].content
    # A follow-up by chat: the new human message is the question, not the thread's last one.
    second = graph.invoke({"messages": [HumanMessage(content="会被吊销驾驶证吗？")]}, config, context=context)
    assert [m.type for m in second["messages"]] == ["human", "ai"] * 2
    assert graph.get_state(config).values["question"] == "会被吊销驾驶证吗？"
    # Then by question (the CLI's --thread): it joins the chat as a human message.
    third = graph.invoke({"question": "醉驾撞伤人怎么办？"}, config, context=context)
    assert [m.type for m in third["messages"]] == ["human", "ai"] * 3
    assert third["messages"][-2].content == "醉驾撞伤人怎么办？"
    assert [turn["question"] for turn in graph.get_state(config).values["history"]] == [
        DRUNK,
        "会被吊销驾驶证吗？",
        "醉驾撞伤人怎么办？",
    ]
