"""docs/map.md is what the code draws: each graph's nodes, their modules and what those read."""

from __future__ import annotations

from app.architecture import MAP, draw, node_reads


def test_the_committed_map_is_what_the_code_draws() -> None:
    assert MAP.read_text(encoding="utf-8") == draw(), "docs/map.md is stale: run python -m app.architecture --write"


def test_a_node_reads_its_tables_prompts_and_stores_through_what_it_imports() -> None:
    files, prompts, stores = node_reads("agents.basis")
    # Its own label() and load_table(), conditional.py's floor and crime words, and institutions.json two steps away.
    assert {"labels.json", "article_questions.json", "crime_words.json"} <= set(prompts)
    assert {"tools/retrieval/conditional_floor.json", "tools/law/institutions.json"} <= set(files)
    assert stores == ["statutes"]
    # Settings are not a store, and tools.services (which opens every store) is not followed.
    assert "settings" not in node_reads("agents.topic")[2]
