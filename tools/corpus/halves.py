"""The two halves of every dev file, fixed by item id: choices are made on ``tune``, ``report`` is only measured."""

from __future__ import annotations

import hashlib
from typing import Literal

Half = Literal["tune", "report"]
HALVES: tuple[Half, Half] = ("tune", "report")
"""The two halves of every dev file: prompts, rules and weights are chosen on ``tune``; ``report`` is only
measured, so a gain that holds there was not fitted to it."""


def half_of(item_id: str) -> Half:
    """The half an item belongs to, fixed by its id's SHA-256 (even last byte: ``tune``): the split needs no
    file, never changes, and an item keeps its half when others are added."""
    return HALVES[hashlib.sha256(item_id.encode("utf-8")).digest()[-1] % 2]
