"""The stored cases a fact is itself: a case judged again, or an eval item the KB holds, is never its own
precedent (the Researcher's strategies skip them, the charge scorer does not count their judgment)."""

from __future__ import annotations

from tools.retrieval.vectors import CASES
from tools.services import Services


def own_copies(services: Services, fact: str) -> set[str]:
    """Ids of the stored cases whose fact is ``fact`` (CMDL stores one judgment once per defendant)."""
    return services.case_index.index().identical(fact) if services.vectors.count(CASES) else set()
