"""The offence descriptions of every charge-defining article, indexed once per knowledge-graph state: the
Researcher ranks articles by them, the charge scorer reads their scores as a signal. A fact's character pairs
weigh by how rarely the KB's judged facts hold them (its boilerplate says nothing of the offence)."""

from __future__ import annotations

import threading

from tools.kb.charges import ChargeRepository
from tools.retrieval.offence import OffenceIndex, pair_informativeness
from tools.retrieval.vectors import CASES
from tools.services import Services

_index_lock = threading.Lock()


_offence_indexes: dict[int, tuple[tuple[list[tuple[str, str]], int], OffenceIndex]] = {}


def offence_index(services: Services) -> OffenceIndex:
    """The offence descriptions of every charge-defining article, rebuilt when those articles or their texts
    changed or cases were added or removed (ids and hashes are read per call, the texts only on a change)."""
    stamp = (ChargeRepository(services.graph).defining_hashes(), services.vectors.count(CASES))
    key = id(services.graph)
    with _index_lock:
        cached = _offence_indexes.get(key)
        if cached is None or cached[0] != stamp:
            articles = services.statutes.get_articles([article_id for article_id, _ in stamp[0]])
            facts = services.vectors.documents(CASES)[1] if stamp[1] else []
            index = OffenceIndex(((a.id, a.text) for a in articles), pair_informativeness(facts))
            cached = _offence_indexes[key] = (stamp, index)
        return cached[1]
