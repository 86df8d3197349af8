"""The store of saved KV states: which one a prompt starts from, and what is dropped when memory is full."""

from __future__ import annotations

import ctypes

from tools.llm.prefix_states import PrefixStates, SavedState, shared_prefix


def _state(tokens: list[int], size: int = 100) -> SavedState:
    return SavedState(tokens=tuple(tokens), cells=(ctypes.c_uint8 * size)(), size=size)


def test_shared_prefix_counts_leading_tokens_in_common() -> None:
    assert shared_prefix([1, 2, 3], [1, 2, 4, 5]) == 2
    assert shared_prefix([1, 2], [1, 2, 3]) == 2
    assert shared_prefix([], [1]) == 0
    assert shared_prefix([9], [1]) == 0


def test_the_state_sharing_the_longest_prefix_is_chosen() -> None:
    states = PrefixStates(capacity_bytes=1000)
    extraction, draft = _state([1, 2, 3, 4, 5, 6]), _state([1, 2, 7, 8])
    states.add(extraction)
    states.add(draft)
    assert states.best([1, 2, 3, 4, 9]) == (extraction, 4)
    assert states.best([1, 2, 7, 9]) == (draft, 3)
    assert states.best([5, 5]) == (None, 0)


def test_beyond_capacity_the_least_recently_used_state_goes_first() -> None:
    states = PrefixStates(capacity_bytes=250)
    a, b, c = _state([1, 1]), _state([2, 2]), _state([3, 3])
    states.add(a)
    states.add(b)
    states.best([1, 1, 5])  # a is used again, so b is now the oldest
    states.add(c)
    assert len(states) == 2 and states.size == 200
    assert states.best([2, 2])[0] is None
    assert states.best([1, 1])[0] is a and states.best([3, 3])[0] is c


def test_a_state_larger_than_the_whole_capacity_is_not_kept() -> None:
    states = PrefixStates(capacity_bytes=50)
    states.add(_state([1, 2, 3], size=100))
    assert len(states) == 0


def test_saving_the_same_tokens_again_replaces_the_old_state() -> None:
    states = PrefixStates(capacity_bytes=1000)
    states.add(_state([1, 2]))
    newer = _state([1, 2], size=40)
    states.add(newer)
    assert len(states) == 1 and states.best([1, 2])[0] is newer
