"""The store of saved KV states: how much of a prompt a context may give, which state a prompt starts from,
and what is dropped when memory is full."""

from __future__ import annotations

import ctypes

from tools.llm.prefix_states import ALIGN, PrefixStates, SavedState, reusable, shared_prefix

OPENING = list(range(100, 100 + 3 * ALIGN))
"""Instructions three ALIGN blocks long, shared by the prompts below."""


def _state(tokens: list[int], size: int = 100, prompt_length: int | None = None) -> SavedState:
    length = len(tokens) if prompt_length is None else prompt_length
    return SavedState(tokens=tuple(tokens), prompt_length=length, cells=(ctypes.c_uint8 * size)(), size=size)


def test_shared_prefix_counts_leading_tokens_in_common() -> None:
    assert shared_prefix([1, 2, 3], [1, 2, 4, 5]) == 2
    assert shared_prefix([1, 2], [1, 2, 3]) == 2
    assert shared_prefix([], [1]) == 0
    assert shared_prefix([9], [1]) == 0


def test_a_reused_prefix_is_aligned_and_stops_before_the_reply_and_the_last_prompt_token() -> None:
    assert reusable(shared=ALIGN * 2 + 5, prompt_length=500, evaluated_prompt=500) == ALIGN * 2
    assert reusable(shared=ALIGN - 1, prompt_length=500, evaluated_prompt=500) == 0
    # The earlier sequence's reply was decoded token by token: a prompt repeating it does not reuse it.
    assert reusable(shared=ALIGN * 4, prompt_length=500, evaluated_prompt=ALIGN * 2 + 3) == ALIGN * 2
    # The very same prompt again: its last token is decoded anew for its logits.
    assert reusable(shared=ALIGN * 3, prompt_length=ALIGN * 3, evaluated_prompt=ALIGN * 3) == ALIGN * 2


def test_the_state_giving_the_most_reusable_tokens_is_chosen() -> None:
    states = PrefixStates(capacity_bytes=1000)
    extraction = _state([*OPENING, 1, 2, 3])
    draft = _state([*OPENING[:ALIGN], 7, 8, *OPENING])
    states.add(extraction)
    states.add(draft)
    assert states.best([*OPENING, 9, 9]) == (extraction, 3 * ALIGN)
    assert states.best([*OPENING[:ALIGN], 7, 8, *OPENING, 9]) == (draft, 4 * ALIGN)
    assert states.best(OPENING[: ALIGN - 1] + [5] * 40) == (None, 0)  # less than one aligned block in common


def test_beyond_capacity_the_least_recently_used_state_goes_first() -> None:
    states = PrefixStates(capacity_bytes=250)
    a, b, c = (_state([n] * 2 * ALIGN) for n in (1, 2, 3))
    states.add(a)
    states.add(b)
    states.best([1] * 3 * ALIGN)  # a is used again, so b is now the oldest
    states.add(c)
    assert len(states) == 2 and states.size == 200
    assert states.best([2] * 3 * ALIGN)[0] is None
    assert states.best([1] * 3 * ALIGN)[0] is a and states.best([3] * 3 * ALIGN)[0] is c


def test_a_state_larger_than_the_whole_capacity_is_not_kept() -> None:
    states = PrefixStates(capacity_bytes=50)
    states.add(_state(OPENING, size=100))
    assert len(states) == 0


def test_saving_the_same_tokens_again_replaces_the_old_state() -> None:
    states = PrefixStates(capacity_bytes=1000)
    states.add(_state(OPENING))
    newer = _state(OPENING, size=40)
    states.add(newer)
    assert len(states) == 1 and states.best([*OPENING, 1])[0] is newer
