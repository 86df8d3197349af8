"""Validation of what a user types: a question or a fact description."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from agents.state.consult import Turn
from prompts import declared_table
from tools.errors import InputError
from tools.law.tables import Entry
from tools.text import check_text


def validate_question(
    question: str, max_chars: int, what: str = "question", setting: str = "JURIS_MAX_QUESTION_CHARS"
) -> str:
    """The stripped text; empty, over-long or control-character input (a question, or a fact description)
    is an InputError naming ``what`` and the limit or the character."""
    text = (question or "").strip()
    if not text:
        raise InputError(f"the {what} is empty")
    check_text(text, f"the {what}")
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


_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])|(?<=\.)(?=\s)")


@lru_cache(maxsize=4)
def _instruction_patterns(lang: str) -> tuple[re.Pattern[str], ...]:
    def compiled(entry: Entry) -> re.Pattern[str]:
        return re.compile(entry["pattern"])

    # Each entry's examples are checked to be found by its pattern when the table is read.
    return declared_table("instructions", lang).build(compiled, lambda pattern, text: bool(pattern.search(text)))


def set_aside_instructions(text: str, lang: str = "zh", what: str = "question") -> tuple[str, list[str]]:
    """(told, instructions): ``text`` without its sentences that address the system instead of telling facts or
    asking about the law (``prompts/<lang>/instructions.json``: overriding its instructions, posing as its prompt,
    giving it a role, demanding a citation or a verdict), and those sentences. A question or fact is data: what it
    demands is never followed, so nothing downstream (retrieval, the model, the keeper, the scorer) reads it.
    Text made of instructions alone is an InputError naming ``what``."""
    patterns = _instruction_patterns(lang)
    told: list[str] = []
    instructions: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        if sentence.strip() and any(p.search(sentence.strip()) for p in patterns):
            instructions.append(sentence.strip())
        else:
            told.append(sentence)
    if instructions and not "".join(told).strip():
        raise InputError(f"the {what} holds only instructions to the system, never followed: {instructions[0]}")
    return "".join(told).strip(), instructions
