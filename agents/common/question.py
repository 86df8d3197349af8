"""Validation of what a user types: a question or a fact description."""

from __future__ import annotations

from collections.abc import Sequence

from agents.state.consult import Turn
from tools.errors import InputError
from tools.text import control_character


def validate_question(
    question: str, max_chars: int, what: str = "question", setting: str = "JURIS_MAX_QUESTION_CHARS"
) -> str:
    """The stripped text; empty, over-long or control-character input (a question, or a fact description)
    is an InputError naming ``what`` and the limit or the character."""
    text = (question or "").strip()
    if not text:
        raise InputError(f"the {what} is empty")
    if where := control_character(text):
        raise InputError(f"the {what} holds a control character ({where}): remove it")
    if len(text) > max_chars:
        raise InputError(
            f"the {what} has {len(text)} characters, more than the limit of {max_chars} "
            f"({setting}); shorten it or raise the limit"
        )
    return text


def user_words(question: str, history: Sequence[Turn] = ()) -> str:
    """What the user said in a thread: the question and the earlier turns' questions (never the model's answers or
    its element graph). Article references and stated facts are read from these words only."""
    return "\n".join([question, *(str(turn["question"]) for turn in history)])
