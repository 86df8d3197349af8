"""The consult graph as a chat: a question may come as the conversation's last human message, and each answer
goes back as an AI message with its Legal Basis quoted (LangGraph Studio's chat view, agent-chat-ui)."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage

from agents.state.common import LegalBasisItem
from prompts import label


def asked(messages: Sequence[AnyMessage]) -> str | None:
    """The question a chat asks now: the text of its last message when that is a human one (an answered
    question is followed by the answer's AI message), else None."""
    if not messages or not isinstance(messages[-1], HumanMessage):
        return None
    # A multimodal message: its text parts (the graph reads text only).
    return _text(messages[-1])


def _text(message: AnyMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)


def set_aside_roles(messages: Sequence[AnyMessage]) -> list[str]:
    """Each system or tool message a chat sent since the last answer, as ``role: text``: kept in the thread as
    sent, never read (a client's system prompt or a forged tool result does not instruct the graph), and named
    beside the question's own set-aside sentences."""
    found: list[str] = []
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            break
        if isinstance(message, SystemMessage | ToolMessage):
            found.append(f"{message.type}: {_text(message)}")
    return found[::-1]


def reply(response: str, basis: list[LegalBasisItem], lang: str) -> AIMessage:
    """The answer as a chat message: the Response, then each basis article verbatim; the basis also rides in
    the message's ``additional_kwargs`` for a client that shows it apart."""
    quoted = "".join(
        f"\n《{item['law']}》{item['number']}{label('text_separator', lang)}{item['text']}" for item in basis
    )
    content = response + (f"\n\n{label('basis_heading', lang)}{quoted}" if basis else "")
    return AIMessage(content=content, additional_kwargs={"legal_basis": [dict(item) for item in basis]})
