"""BM25 over jieba tokens: the lexical half of hybrid statute retrieval.

Tokenising a large collection with jieba takes a while (about 30 s for all 24k articles on this machine),
so token lists are cached on disk under a fingerprint of the collection's ids and content hashes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from rank_bm25 import BM25Okapi

from tools.atomic import write_text_atomic
from tools.caches import discard_damaged

_WORD_RE = re.compile(r"[\w\u4e00-\u9fff]")
_LATIN_RE = re.compile(r"^[a-z]+$")
TOKENIZER_VERSION = 3
"""Part of the token cache's name: cached tokens of an older tokenizer are never reused."""


# English function words: in a question ("What is the punishment for theft under Indian law?") they outweighed
# the one word that matters, and a long section full of "the" and "for" ranked above Section 379.
_ENGLISH_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers him his how i if in into is it its itself just me more most my no nor not now of off on
    once only or other our out over own same she should so some such than that the their them then there
    these they this those through to too under until up very was we were what when where which while who whom
    why will with would you your""".split()  # noqa: SIM905 (a word list reads better as prose)
)


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


def tokenize(text: str) -> list[str]:
    """jieba search-mode tokens without whitespace and punctuation; English words lower-cased, stemmed
    (``punished`` and ``punishment`` both become ``punish``) and stripped of function words, so the India
    pack's codes match questions."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokens = [t.lower() for t in jieba.lcut_for_search(text) if _WORD_RE.search(t)]
    return [
        _stemmer().stemWord(t) if _LATIN_RE.match(t) else t
        for t in tokens
        if not (_LATIN_RE.match(t) and t in _ENGLISH_STOPWORDS)
    ]


class LexicalIndex:
    """An immutable BM25 index over (id, text) pairs."""

    def __init__(self, ids: Sequence[str], tokens: Sequence[list[str]]) -> None:
        self.ids = list(ids)
        self._bm25 = BM25Okapi([t or ["∅"] for t in tokens]) if ids else None
        self._digests = [_digest(t) for t in tokens]

    @classmethod
    def build(
        cls, ids: Sequence[str], texts: Sequence[str], fingerprint: str, cache_dir: Path | None, name: str = "statutes"
    ) -> LexicalIndex:
        """Tokenise ``texts`` (or reuse the cached tokens for the same fingerprint) and index them; ``name``
        keeps the token caches of different collections apart."""
        cache = cache_dir / f"bm25-{name}-{fingerprint}-v{TOKENIZER_VERSION}.json" if cache_dir else None
        if cache and cache.is_file():
            try:
                data = json.loads(cache.read_text(encoding="utf-8"))
                tokens = data["tokens"] if data.get("ids") == list(ids) else None
                if tokens is not None and len(tokens) == len(ids) and all(isinstance(t, list) for t in tokens):
                    return cls(ids, tokens)
            except (OSError, UnicodeDecodeError, ValueError, KeyError, AttributeError, TypeError) as exc:
                discard_damaged(cache, "BM25 token", exc)
        tokens = [tokenize(t) for t in texts]
        if cache:
            for stale in cache.parent.glob(f"bm25-{name}-*.json"):
                stale.unlink(missing_ok=True)
            write_text_atomic(cache, json.dumps({"ids": list(ids), "tokens": tokens}, ensure_ascii=False))
        return cls(ids, tokens)

    def search(self, query: str, k: int, skip_identical: bool = False) -> list[tuple[str, float]]:
        """Top ``k`` (id, score) pairs with a positive BM25 score; with ``skip_identical``, documents whose
        tokens equal the query's are left out (a case is never its own precedent)."""
        if self._bm25 is None:
            return []
        tokens = tokenize(query)
        scores = self._bm25.get_scores(tokens)
        same = _digest(tokens) if skip_identical else None
        order = [i for i in sorted(range(len(self.ids)), key=lambda i: -scores[i]) if self._digests[i] != same]
        return [(self.ids[i], float(scores[i])) for i in order[:k] if scores[i] > 0]


def _digest(tokens: Sequence[str]) -> str:
    return hashlib.sha256("\x1f".join(tokens).encode("utf-8")).hexdigest()


def fingerprint(ids: Sequence[str], hashes: Sequence[str]) -> str:
    """Identifies one exact state of a collection."""
    digest = hashlib.sha256()
    for i, h in zip(ids, hashes, strict=True):
        digest.update(f"{i}\x1f{h}\x1e".encode())
    return digest.hexdigest()[:16]
