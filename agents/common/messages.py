"""Messages that open with what every call of one run shares.

llama.cpp keeps the previous call's tokens and evaluates a new prompt only from the first token that
differs. Calls about one case (pre-judgment, one audit per article, the judgment) or one question (one
audit per article) that open with the system text and then the facts pay for the facts once; the
instruction of each call comes after them.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from prompts import label, render_prompt

FactsKind = Literal["case", "question"]

_HEADINGS: dict[FactsKind, str] = {"case": "case_facts", "question": "question_facts"}


def facts_first(lang: str, kind: FactsKind, facts: str, task: str) -> list[BaseMessage]:
    """System text, then the facts under their heading, then ``task`` (a prompt that reads the facts above)."""
    shared = label(_HEADINGS[kind], lang, facts=facts)
    return [SystemMessage(content=render_prompt("system", lang)), HumanMessage(content=f"{shared}\n\n{task}")]
