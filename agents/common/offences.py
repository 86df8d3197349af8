"""The offence descriptions of every charge-defining article, indexed once per knowledge-graph state: the
Researcher ranks articles by them, the charge scorer reads their scores as a signal."""

from __future__ import annotations

import threading

from tools.kb.charges import ChargeRepository
from tools.retrieval.offence import OffenceIndex
from tools.services import Services

_index_lock = threading.Lock()


_offence_indexes: dict[int, tuple[list[tuple[str, str]], OffenceIndex]] = {}


def offence_index(services: Services) -> OffenceIndex:
    """The offence descriptions of every charge-defining article, rebuilt when those articles or their texts
    changed (their ids and hashes are read per call; the texts only on a change)."""
    stamp = ChargeRepository(services.graph).defining_hashes()
    key = id(services.graph)
    with _index_lock:
        cached = _offence_indexes.get(key)
        if cached is None or cached[0] != stamp:
            articles = services.statutes.get_articles([article_id for article_id, _ in stamp])
            cached = _offence_indexes[key] = (stamp, OffenceIndex((a.id, a.text) for a in articles))
        return cached[1]
