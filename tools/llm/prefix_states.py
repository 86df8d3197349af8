"""Saved KV-cache states of earlier prompts, so a call that opens like an earlier one skips that opening.

llama-cpp-python reuses only the prefix a prompt shares with the call just before it. A consult alternates
element extraction, the draft and the audit, each opening with its own fixed instructions, so every call
re-read instructions the model had read one question earlier. Keeping the KV cells of each recent prompt and
restoring the one sharing the longest prefix makes those instructions free after the first time.

llama-cpp-python's own ``LlamaRAMCache`` does the same lookup, but each of its states also copies the logits
of a whole batch (512 x 151,936 floats, 311 MB for Qwen2.5) and its capacity counts only the KV part; here a
state is the sequence's KV cells alone (about 27 KB a token for the 1.5B model; saving 600 tokens' took
50 ms, restoring them 5 ms).

A reused prefix is cut to a multiple of :data:`ALIGN` tokens, and never reaches into a reply. llama.cpp's CPU
kernels for repacked 4-bit weights multiply prompt rows four at a time and the rows left over one by one,
summing in another order, so a token's logits depend on where its batch began: with Qwen2.5's Q4_K_M, a
prompt continued after a cached prefix of 21, 31 or 43 tokens gave logits up to 0.46 away from the same
prompt read whole, after 4, 24, 28, 32, 36, 40, 44 or 48 tokens identical ones. Cut so, a reply is the one
the prompt gets in a fresh context, whatever was evaluated before it.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import llama_cpp

ALIGN = 16
"""Reused prefixes are a multiple of this many tokens: of the four rows the kernels group, with room for
kernels that group more."""

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


def reusable(shared: int, prompt_length: int, evaluated_prompt: int) -> int:
    """How many of a new prompt's ``prompt_length`` tokens to take from a context that shares ``shared``
    leading tokens with it and was itself prompted with ``evaluated_prompt`` tokens: not the reply's tokens
    (decoded one at a time), not the prompt's last token (its logits are needed), a multiple of ALIGN."""
    n = min(shared, evaluated_prompt, prompt_length - 1)
    return max(0, n - n % ALIGN)


@dataclass(frozen=True)
class SavedState:
    """The KV cells of one evaluated token sequence."""

    tokens: tuple[int, ...]
    """The tokens whose keys and values the cells hold, in order: a prompt, then its reply."""
    prompt_length: int
    """How many of ``tokens`` were the prompt, evaluated in batches (the rest were decoded one by one)."""
    cells: Any
    """The sequence's state as ``llama_state_seq_get_data`` wrote it (a ctypes byte array)."""
    size: int
    """Bytes of ``cells`` in use."""


class PrefixStates:
    """Recently evaluated sequences' KV states, least recently used dropped first beyond ``capacity_bytes``."""

    def __init__(self, capacity_bytes: int) -> None:
        self.capacity_bytes = capacity_bytes
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
        """The saved state with the most tokens reusable for the prompt ``tokens``, and how many."""
        found, most = None, 0
        for state in self._states.values():
            n = reusable(shared_prefix(state.tokens, tokens), len(tokens), state.prompt_length)
            if n > most:
                found, most = state, n
        if found is not None:
            self._states.move_to_end(found.tokens)
        return found, most

    def before_prompt(self, llama: llama_cpp.Llama, tokens: Sequence[int], prompt_length: int) -> int:
        """Called as ``llama``, whose context holds a sequence whose first ``prompt_length`` tokens were its
        prompt, starts on ``tokens``: save that sequence if the prompt is about to overwrite it, load a saved
        one if more of it is reusable. Returns the prompt length of the sequence the context now holds."""
        held = tuple(llama._input_ids.tolist())
        shared = shared_prefix(held, tokens)
        if shared < len(held):
            self.add(_save(llama, held, prompt_length))
        state, most = self.best(tokens)
        if state is not None and most > reusable(shared, len(tokens), prompt_length) and _load(llama, state):
            self.restored += 1
            return state.prompt_length
        return prompt_length


def _save(llama: llama_cpp.Llama, tokens: tuple[int, ...], prompt_length: int) -> SavedState:
    ctx = llama._ctx.ctx
    # Cells past the evaluated tokens (a reply's last sampled token is never decoded) must not travel along.
    llama._ctx.kv_cache_seq_rm(_SEQ, len(tokens), -1)
    size = llama_cpp.llama_state_seq_get_size(ctx, _SEQ)
    cells = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_seq_get_data(ctx, cells, size, _SEQ)
    return SavedState(tokens=tokens, prompt_length=min(prompt_length, len(tokens)), cells=cells, size=int(written))


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


def keep_reusable(llama: llama_cpp.Llama, tokens: Sequence[int], prompt_length: int) -> None:
    """Cut ``llama``'s context (whose sequence was prompted with ``prompt_length`` tokens) to the prefix the
    prompt ``tokens`` may reuse, so that llama-cpp-python's own prefix match reuses exactly that much."""
    keep = reusable(shared_prefix(llama._input_ids.tolist(), tokens), len(tokens), prompt_length)
    if keep < llama.n_tokens:
        llama._ctx.kv_cache_seq_rm(_SEQ, keep, -1)
        llama.n_tokens = keep
