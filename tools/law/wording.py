"""How much of one wording another text contains, by character pairs: the measure the checklist checks, the
penalty tiers and the audit's stated-item rule share."""

from __future__ import annotations

import re

_NOT_TEXT = re.compile(r"[\W_]|是否")
"""Punctuation and the question frame 是否, which no text states."""


def bigram_share(phrase: str, text: str) -> float:
    """Share of ``phrase``'s character bigrams (punctuation and 是否 aside) that occur in ``text``."""
    words = _NOT_TEXT.sub("", phrase)
    pairs = [words[i : i + 2] for i in range(len(words) - 1)]
    return sum(pair in text for pair in pairs) / len(pairs) if pairs else 0.0
