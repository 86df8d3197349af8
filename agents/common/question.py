"""Validation of what a user types: a question or a fact description."""

from __future__ import annotations

from tools.errors import InputError


def validate_question(
    question: str, max_chars: int, what: str = "question", setting: str = "JURIS_MAX_QUESTION_CHARS"
) -> str:
    """The stripped text; empty or over-long input (a question, or a fact description) is an InputError
    naming ``what`` and the limit."""
    text = (question or "").strip()
    if not text:
        raise InputError(f"the {what} is empty")
    if len(text) > max_chars:
        raise InputError(
            f"the {what} has {len(text)} characters, more than the limit of {max_chars} "
            f"({setting}); shorten it or raise the limit"
        )
    return text
