"""Saved KV-cache states of earlier prompts, so a call that opens like an earlier one skips that opening.

llama-cpp-python reuses only the prefix a prompt shares with the call just before it. A consult alternates
element extraction, the draft and the audit, each opening with its own fixed instructions, so every call
re-read instructions the model had read one question earlier. Keeping the KV cells of each recent prompt and
restoring the one sharing the longest prefix makes those instructions free after the first time.

llama-cpp-python's own ``LlamaRAMCache`` does the same lookup, but each of its states also copies the logits
of a whole batch (512 x 151,936 floats, 311 MB for Qwen2.5) and its capacity counts only the KV part; here a
state is the sequence's KV cells alone (about 28 KB a token for the 1.5B model).
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import llama_cpp

_SEQ = 0
"""llama-cpp-python decodes every prompt as sequence 0."""


def shared_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens ``a`` and ``b`` have in common."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@dataclass(frozen=True)
class SavedState:
    """The KV cells of one evaluated token sequence."""

    tokens: tuple[int, ...]
    """The tokens whose keys and values the cells hold, in order."""
    cells: Any
    """The sequence's state as ``llama_state_seq_get_data`` wrote it (a ctypes byte array)."""
    size: int
    """Bytes of ``cells`` in use."""


class PrefixStates:
    """Recently evaluated sequences' KV states, least recently used dropped first beyond ``capacity_bytes``."""

    def __init__(self, capacity_bytes: int, min_gain: int = 16) -> None:
        self.capacity_bytes = capacity_bytes
        self.min_gain = min_gain
        """Restoring costs a copy; below this many extra shared tokens, evaluating them is as cheap."""
        self._states: OrderedDict[tuple[int, ...], SavedState] = OrderedDict()
        self.restored = 0
        """How many prompts started from a saved state (for tests and benchmarks)."""

    def __len__(self) -> int:
        return len(self._states)

    @property
    def size(self) -> int:
        return sum(state.size for state in self._states.values())

    def add(self, state: SavedState) -> None:
        if state.size > self.capacity_bytes:
            return
        self._states.pop(state.tokens, None)
        self._states[state.tokens] = state
        while self.size > self.capacity_bytes:
            self._states.popitem(last=False)

    def best(self, tokens: Sequence[int]) -> tuple[SavedState | None, int]:
        """The saved state sharing the longest prefix with ``tokens``, and that prefix's length."""
        found, longest = None, 0
        for state in self._states.values():
            n = shared_prefix(state.tokens, tokens)
            if n > longest:
                found, longest = state, n
        if found is not None:
            self._states.move_to_end(found.tokens)
        return found, longest

    def before_prompt(self, llama: llama_cpp.Llama, tokens: Sequence[int]) -> None:
        """Called as ``llama`` starts on ``tokens``: save what its context holds if the prompt is about to
        overwrite it, and load a saved state if one shares a longer prefix with the prompt."""
        held = tuple(int(t) for t in llama._input_ids)
        kept = shared_prefix(held, tokens)
        if kept < len(held) and held:
            self.add(_save(llama, held))
        state, longest = self.best(tokens)
        if state is not None and longest >= kept + self.min_gain and _load(llama, state):
            self.restored += 1


def _save(llama: llama_cpp.Llama, tokens: tuple[int, ...]) -> SavedState:
    ctx = llama._ctx.ctx
    # Cells past the evaluated tokens (a reply's last sampled token is never decoded) must not travel along.
    llama._ctx.kv_cache_seq_rm(_SEQ, len(tokens), -1)
    size = llama_cpp.llama_state_seq_get_size(ctx, _SEQ)
    cells = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_seq_get_data(ctx, cells, size, _SEQ)
    return SavedState(tokens=tokens, cells=cells, size=int(written))


def _load(llama: llama_cpp.Llama, state: SavedState) -> bool:
    ctx = llama._ctx.ctx
    llama._ctx.kv_cache_seq_rm(_SEQ, 0, -1)
    if not llama_cpp.llama_state_seq_set_data(ctx, state.cells, state.size, _SEQ):
        llama.n_tokens = 0
        return False
    n = len(state.tokens)
    llama.input_ids[:n] = state.tokens
    llama.n_tokens = n
    # The logits in hand belong to another prompt: generate() must decode at least one token before sampling.
    llama._requires_eval = True
    return True
