"""BM25 over jieba tokens: the lexical half of hybrid statute retrieval.

Tokenising a large collection with jieba takes a while (about 30 s for all 24k articles on this machine),
so the weighted index is cached on disk under a fingerprint of the collection's ids and content hashes.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import zipfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from tools.atomic import being_written, write_bytes_atomic
from tools.caches import discard_damaged

_WORD_RE = re.compile(r"[\w\u4e00-\u9fff]")
_LATIN_RE = re.compile(r"^[a-z]+$")
TOKENIZER_VERSION = 4
"""Part of the cache's name: an index of an older tokenizer or format is never reused (4: weights, not tokens)."""
_K1, _B, _IDF_FLOOR = 1.5, 0.75, 0.25
"""rank_bm25's BM25Okapi defaults, which the retrieval figures were measured with."""


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
    """An immutable Okapi BM25 index over (id, text) pairs, scored as rank_bm25's BM25Okapi scores (k1 1.5,
    b 0.75, a negative idf raised to a quarter of the mean idf, query words counted as often as they occur).

    Every document's term weights are computed once into a sparse matrix, so a query is one sparse product:
    milliseconds over 24k articles, where BM25Okapi's document-by-document scoring took about a second per
    query and the 5,070 precedents' facts several. The matrix is what the disk cache holds, so a new process
    loads it instead of tokenising or weighting anything.
    """

    def __init__(self, ids: Sequence[str], weights: Any, vocabulary: dict[str, int], digests: Sequence[str]) -> None:
        self.ids = list(ids)
        self._weights = weights
        self._vocabulary = vocabulary
        self._digests = list(digests)
        # Read per document only to learn statute words (term expansion): built on first use, not per load.
        self._by_document: Any = None
        self._words: list[str] = []
        self._row_of: dict[str, int] | None = None

    @classmethod
    def from_tokens(cls, ids: Sequence[str], tokens: Sequence[list[str]]) -> LexicalIndex:
        """Weigh tokenised documents (an empty one counts as one unmatched token, as BM25Okapi saw it)."""
        import numpy as np
        from scipy.sparse import csr_matrix

        docs = [t or ["∅"] for t in tokens]
        vocabulary: dict[str, int] = {}
        rows, cols, freqs = [], [], []
        for number, doc in enumerate(docs):
            for token, count in Counter(doc).items():
                rows.append(number)
                cols.append(vocabulary.setdefault(token, len(vocabulary)))
                freqs.append(count)
        tf = np.asarray(freqs, dtype=np.float64)
        col = np.asarray(cols, dtype=np.int64)
        n_docs = len(docs)
        df = np.bincount(col, minlength=len(vocabulary)).astype(np.float64)
        idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
        if n_docs:
            idf[idf < 0] = _IDF_FLOOR * idf.mean()
        lengths = np.asarray([len(d) for d in docs], dtype=np.float64)
        norm = _K1 * (1 - _B + _B * lengths / (lengths.mean() if n_docs else 1.0))
        row = np.asarray(rows, dtype=np.int64)
        values = idf[col] * tf * (_K1 + 1) / (tf + norm[row])
        weights = csr_matrix((values, (row, col)), shape=(n_docs, len(vocabulary)))
        return cls(ids, weights.tocsc(), vocabulary, [_digest(t) for t in tokens])

    @classmethod
    def build(
        cls,
        ids: Sequence[str],
        texts: Callable[[], Sequence[str]],
        fingerprint: str,
        cache_dir: Path | None,
        name: str = "statutes",
    ) -> LexicalIndex:
        """The weights cached for the same fingerprint and ids, or ``texts()`` (in ``ids`` order) tokenised and
        weighed, and cached; ``name`` keeps the caches of different collections apart. The texts are read only
        on a miss: fetching 24k articles' texts from Chroma takes about 0.6 s."""
        cache = cache_dir / f"bm25-{name}-{fingerprint}-v{TOKENIZER_VERSION}.npz" if cache_dir else None
        if cache and cache.is_file():
            try:
                loaded = cls._load(cache)
                if loaded.ids == list(ids):
                    return loaded
            except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
                discard_damaged(cache, "BM25 index", exc)
        index = cls.from_tokens(ids, [tokenize(t) for t in texts()])
        if cache:
            _remove_stale(cache.parent, name)
            index._save(cache)
        return index

    def _save(self, path: Path) -> None:
        import numpy as np

        buffer = io.BytesIO()
        words = sorted(self._vocabulary, key=self._vocabulary.__getitem__)
        matrix = self._weights
        np.savez(
            buffer,
            ids=np.asarray(self.ids, dtype=str),
            words=np.asarray(words, dtype=str),
            digests=np.asarray(self._digests, dtype=str),
            data=matrix.data,
            indices=matrix.indices,
            indptr=matrix.indptr,
            shape=np.asarray(matrix.shape),
        )
        write_bytes_atomic(path, buffer.getvalue())

    @classmethod
    def _load(cls, path: Path) -> LexicalIndex:
        import numpy as np
        from scipy.sparse import csc_matrix

        with np.load(path, allow_pickle=False) as data:
            shape = tuple(int(n) for n in data["shape"])
            weights = csc_matrix((data["data"], data["indices"], data["indptr"]), shape=shape)
            words = data["words"].tolist()
            ids, digests = data["ids"].tolist(), data["digests"].tolist()
        if shape != (len(ids), len(words)) or len(digests) != len(ids):
            raise ValueError(f"a {shape} matrix for {len(ids)} documents and {len(words)} words")
        return cls(ids, weights, {w: i for i, w in enumerate(words)}, digests)

    def words(self, doc_id: str) -> list[str]:
        """The distinct indexed words of one document (none for an unknown id)."""
        return list(self.weights_of(doc_id))

    def weights_of(self, doc_id: str) -> dict[str, float]:
        """Each indexed word of one document with its BM25 weight there (none for an unknown id): how much the
        word tells this document apart (a rare word, often in it, weighs most)."""
        row = self._rows().get(doc_id)
        if row is None:
            return {}
        if self._by_document is None:
            # Words first: a thread that sees the matrix must see the words it indexes.
            self._words = sorted(self._vocabulary, key=self._vocabulary.__getitem__)
            self._by_document = self._weights.tocsr()
        start, end = self._by_document.indptr[row], self._by_document.indptr[row + 1]
        columns, values = self._by_document.indices[start:end], self._by_document.data[start:end]
        return {self._words[c]: float(v) for c, v in zip(columns, values, strict=True)}

    def _rows(self) -> dict[str, int]:
        if self._row_of is None:
            self._row_of = {doc_id: row for row, doc_id in enumerate(self.ids)}
        return self._row_of

    def identical(self, query: str) -> set[str]:
        """Ids of the documents whose tokens equal the query's: a fact's own copies in the KB."""
        same = _digest(tokenize(query))
        return {i for i, digest in zip(self.ids, self._digests, strict=True) if digest == same}

    def search(
        self,
        query: str,
        k: int,
        skip_identical: bool = False,
        keep: Callable[[str], bool] | None = None,
        distinct: bool = False,
    ) -> list[tuple[str, float]]:
        """Top ``k`` (id, score) pairs with a positive BM25 score; with ``skip_identical``, documents whose
        tokens equal the query's are left out (a case is never its own precedent); with ``keep``, only ids it
        accepts count; with ``distinct``, a document whose tokens equal one already found is left out (CMDL
        stores one judgment once per defendant: nine copies of one fact would fill a vote of ten)."""
        tokens = tokenize(query)
        same = _digest(tokens) if skip_identical else None
        return self._top(Counter(tokens), k, keep, distinct, same)

    def search_words(self, words: Mapping[str, float], k: int) -> list[tuple[str, float]]:
        """``search`` for a query given as weighted words (a word weighing 2 counts as two occurrences), so an
        expanded query can weigh its added words below the question's own."""
        return self._top(words, k)

    def _top(
        self,
        words: Mapping[str, float],
        k: int,
        keep: Callable[[str], bool] | None = None,
        distinct: bool = False,
        same: str | None = None,
    ) -> list[tuple[str, float]]:
        import numpy as np

        counts = {self._vocabulary[w]: float(n) for w, n in words.items() if w in self._vocabulary and n > 0}
        if not self.ids or not counts:
            return []
        columns = list(counts)
        scores = np.asarray(self._weights[:, columns] @ np.asarray([counts[c] for c in columns], dtype=np.float64))
        # Stable order: equal scores keep the documents' own (id) order, as the sort over all of them did.
        order = np.argsort(-scores, kind="stable")
        found: list[tuple[str, float]] = []
        seen: set[str] = set()
        for i in order:
            if scores[i] <= 0 or len(found) == k:
                break
            if self._digests[i] != same and self._digests[i] not in seen and (keep is None or keep(self.ids[i])):
                found.append((self.ids[i], float(scores[i])))
                if distinct:
                    seen.add(self._digests[i])
        return found


def _digest(tokens: Sequence[str]) -> str:
    return hashlib.sha256("\x1f".join(tokens).encode("utf-8")).hexdigest()


def fingerprint(ids: Sequence[str], hashes: Sequence[str]) -> str:
    """Identifies one exact state of a collection."""
    digest = hashlib.sha256()
    for i, h in zip(ids, hashes, strict=True):
        digest.update(f"{i}\x1f{h}\x1e".encode())
    return digest.hexdigest()[:16]


def _remove_stale(cache_dir: Path, name: str) -> None:
    """Remove the caches of ``name`` built for other contents, and temporary files their killed writers left,
    but not another process's cache being written now (an ingestion beside askers builds a new cache while
    they build theirs)."""
    for path in cache_dir.glob(f"bm25-{name}-*"):
        if not being_written(path):
            path.unlink(missing_ok=True)
