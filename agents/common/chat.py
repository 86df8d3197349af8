"""The consult graph as a chat: a question may come as the conversation's last human message, and each answer
goes back as an AI message with its Legal Basis quoted (LangGraph Studio's chat view, agent-chat-ui)."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from agents.state.common import LegalBasisItem
from prompts import label


def asked(messages: Sequence[AnyMessage]) -> str | None:
    """The question a chat asks now: the text of its last message when that is a human one (an answered
    question is followed by the answer's AI message), else None."""
    if not messages or not isinstance(messages[-1], HumanMessage):
        return None
    content = messages[-1].content
    if isinstance(content, str):
        return content
    # A multimodal message: its text parts (the graph reads text only).
    return "".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)


def reply(response: str, basis: list[LegalBasisItem], lang: str) -> AIMessage:
    """The answer as a chat message: the Response, then each basis article verbatim; the basis also rides in
    the message's ``additional_kwargs`` for a client that shows it apart."""
    quoted = "".join(
        f"\n《{item['law']}》{item['number']}{label('text_separator', lang)}{item['text']}" for item in basis
    )
    content = response + (f"\n\n{label('basis_heading', lang)}{quoted}" if basis else "")
    return AIMessage(content=content, additional_kwargs={"legal_basis": [dict(item) for item in basis]})
