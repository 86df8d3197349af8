"""Knowledge graph: the port, its adapters, and the factory that picks one from Settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.kb.port import GraphStore, Record

if TYPE_CHECKING:
    from tools.settings import Settings

__all__ = ["GraphStore", "Record", "open_graph_store"]


def open_graph_store(settings: Settings) -> GraphStore:
    """Neo4j when NEO4J_URI is set; otherwise FalkorDB (external host, or the embedded server)."""
    store: GraphStore
    if settings.neo4j_uri:
        from tools.kb.neo4j_store import Neo4jStore

        store = Neo4jStore(
            settings.neo4j_uri, settings.neo4j_username, settings.neo4j_password, settings.neo4j_database
        )
    elif settings.falkordb_host:
        from tools.kb.falkordb_store import FalkorDBStore

        where = (settings.falkordb_host, settings.falkordb_port or 6379, settings.falkordb_password)
        store = FalkorDBStore(lambda: where, settings.graph_name)
    else:
        from tools.kb.embedded import ensure_server
        from tools.kb.falkordb_store import FalkorDBStore

        def locate() -> tuple[str, int, str]:
            server = ensure_server(settings.falkordb_dir, settings.falkordb_port, settings.falkordb_idle_s)
            return "127.0.0.1", server.port, server.password

        store = FalkorDBStore(locate, settings.graph_name)
    store.ensure_schema()
    return store
