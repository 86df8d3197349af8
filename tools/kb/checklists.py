"""Diagnostic checklists in the graph: (:Article)-[:HAS_CHECK]->(:CheckItem {id, text, order}), with the model
and prompt version on the article, or the recorded failure to make one. What an item must be is
:mod:`tools.law.checklist_rules`; making one with the model, :mod:`tools.kb.checklist_generation`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tools.kb.port import GraphStore
from tools.kb.statutes import StatuteRepository


@dataclass(frozen=True)
class Checklist:
    """A stored checklist and how it was made."""

    article_id: str
    items: tuple[str, ...]
    model: str
    prompt_version: str


_GET = """
MATCH (a:Article {id: $id})
OPTIONAL MATCH (a)-[:HAS_CHECK]->(c:CheckItem)
RETURN a.checklist_model AS model, a.checklist_prompt AS prompt, c.text AS text, c.order AS ord
ORDER BY ord
"""

_GET_FAILURE = """
MATCH (a:Article {id: $id})
RETURN a.checklist_failure AS failure, a.checklist_failure_key AS key
"""

_MADE = """
MATCH (a:Article)-[:HAS_CHECK]->(:CheckItem) RETURN DISTINCT a.id AS id
UNION
MATCH (a:Article) WHERE a.checklist_failure IS NOT NULL RETURN a.id AS id
"""

_SET_FAILURE = """
MATCH (a:Article {id: $id})
SET a.checklist_failure = $failure, a.checklist_failure_key = $key
"""

_REPLACE = """
MATCH (a:Article {id: $id})
OPTIONAL MATCH (a)-[:HAS_CHECK]->(old:CheckItem)
DETACH DELETE old
WITH DISTINCT a
SET a.checklist_model = $model, a.checklist_prompt = $prompt, a.checklist_failure = null,
    a.checklist_failure_key = null
WITH a
UNWIND $items AS item
CREATE (a)-[:HAS_CHECK]->(:CheckItem {id: item.id, text: item.text, order: item.order})
"""


class ChecklistRepository:
    """Checklist reads and writes on any :class:`GraphStore`."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store

    def get(self, article_id: str) -> Checklist | None:
        rows = [r for r in self.store.read(_GET, {"id": article_id}) if r["text"] is not None]
        if not rows:
            return None
        return Checklist(article_id, tuple(r["text"] for r in rows), rows[0]["model"] or "", rows[0]["prompt"] or "")

    def failure(self, article_id: str, key: str) -> str | None:
        """Why making the article's checklist failed under ``key``
        (:func:`tools.kb.checklist_generation.failure_key`), if it did."""
        recorded = self.recorded_failure(article_id)
        return recorded[0] if recorded and recorded[1] == key else None

    def recorded_failure(self, article_id: str) -> tuple[str, str] | None:
        """The recorded failure to make the article's checklist and its key, whatever the key."""
        rows = self.store.read(_GET_FAILURE, {"id": article_id})
        return (rows[0]["failure"], rows[0]["key"]) if rows and rows[0]["failure"] is not None else None

    def record_failure(self, article_id: str, key: str, failure: str) -> None:
        self.store.query(_SET_FAILURE, {"id": article_id, "key": key, "failure": failure})

    def made(self) -> list[str]:
        """Ids of the articles that hold a checklist or a recorded failure to make one."""
        return sorted(r["id"] for r in self.store.read(_MADE, {}))

    def save(self, checklist: Checklist) -> None:
        items = [
            {"id": f"{checklist.article_id}#{i}", "text": text, "order": i} for i, text in enumerate(checklist.items, 1)
        ]
        self.store.query(
            _REPLACE,
            {"id": checklist.article_id, "model": checklist.model, "prompt": checklist.prompt_version, "items": items},
        )


def articles_of_laws(statutes: StatuteRepository, laws: Sequence[str]) -> list[str]:
    """Ids of every article of the given laws, in number order."""
    rows = statutes.store.read(
        "MATCH (a:Article) WHERE a.law IN $laws RETURN a.id AS id ORDER BY a.law, a.number, a.suffix",
        {"laws": list(laws)},
    )
    return [r["id"] for r in rows]
