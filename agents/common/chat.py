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


def reply(
    response: str, basis: list[LegalBasisItem], lang: str, conditional: list[LegalBasisItem] | None = None
) -> AIMessage:
    """The answer as a chat message: the Response, then each basis article verbatim, then the conditional tier's
    under its own heading (articles that apply under the condition the Response states); both tiers also ride
    in the message's ``additional_kwargs`` for a client that shows them apart."""

    def quoted(items: list[LegalBasisItem]) -> str:
        return "".join(f"\n《{i['law']}》{i['number']}{label('text_separator', lang)}{i['text']}" for i in items)

    conditional = conditional or []
    content = response + (f"\n\n{label('basis_heading', lang)}{quoted(basis)}" if basis else "")
    content += f"\n\n{label('conditional_heading', lang)}{quoted(conditional)}" if conditional else ""
    extra = {"legal_basis": [dict(item) for item in basis], "conditional_basis": [dict(i) for i in conditional]}
    return AIMessage(content=content, additional_kwargs=extra)
