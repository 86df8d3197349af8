"""Looking into the knowledge graph: ``kg stats``, ``kg show`` and the ``laws`` available to ingest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from app.cli.console import console, print_panel


def kg_stats(as_json: Annotated[bool, typer.Option("--json", help="Print {nodes, edges} as JSON.")] = False) -> None:
    """Node counts per label and edge counts per type."""
    from tools.kb.inspect import graph_stats
    from tools.services import get_services

    stats = graph_stats(get_services().graph)
    if as_json:
        print(json.dumps(stats, ensure_ascii=False, indent=2))
        return
    for kind, counts in stats.items():
        table = Table(kind[:-1] if kind == "nodes" else "edge type", "count", title=kind)
        for name, n in counts.items():
            table.add_row(name, str(n))
        console.print(table)


def kg_show(article_id: Annotated[str, typer.Argument(help="Article id, e.g. 刑法:264.")]) -> None:
    """An article with its charges, interpretations, checklist, the number of cases citing it and the answered
    consultations citing it."""
    from tools.kb.inspect import article_card
    from tools.services import get_services

    card = article_card(get_services().graph, article_id)
    print_panel(str(card["text"]), f"{card['id']} 《{card['law']}》{card['label']}")
    console.print(f"Chapter: {escape(str(card['chapter'] or ''))}")
    console.print(f"Charges: {escape('、'.join(card['charges']) or '（无）')}")
    for offence in card["offences"]:
        console.print(
            f"Offence: {escape(offence['offence'])} | punishment: {escape(offence['punishment'] or '')} | "
            f"{'cognizable' if offence['cognizable'] else 'non-cognizable'}, "
            f"{'bailable' if offence['bailable'] else 'non-bailable'} | triable by {escape(offence['court'] or '')}"
        )
    console.print(f"Cases citing it: {card['cases']}")
    console.print(f"Interpretations ({len(card['interpretations'])}):")
    for title in card["interpretations"]:
        console.print(f"  - {escape(title)}")
    console.print(f"Consultations citing it ({len(card['consultations'])} shown):")
    for consultation in card["consultations"]:
        console.print(escape(f"  - [{consultation['id']}] {consultation['question']}"))
    model = f" (by {card['checklist_model']})" if card["checklist"] else ""
    console.print(f"Checklist{model}:")
    for i, item in enumerate(card["checklist"], 1):
        console.print(f"  {i}. {escape(item)}")
    if not card["checklist"]:
        console.print("  （尚未生成: jurisgraph checklists）")


def list_laws_cmd(
    db: Annotated[Path | None, typer.Option(help="Another laws.db file.")] = None,
) -> None:
    """List the laws available for ingestion."""
    from tools.corpus.laws_db import list_laws

    table = Table("short name", "full name", "department", "articles")
    for law in list_laws(db):
        table.add_row(law.short, law.full_name, law.department, str(law.article_count))
    console.print(table)


def kg_repair() -> None:
    """Cut a damaged append-only file of the embedded graph store after its last whole command, and rebuild
    what the vector store lost from the knowledge graph."""
    from tools.errors import StoreUnavailableError
    from tools.kb.embedded import repair_aofs
    from tools.settings import load_settings

    settings = load_settings()
    try:
        done = repair_aofs(settings.falkordb_dir)
    except StoreUnavailableError as exc:
        # A running server replays its files whole: nothing to cut; the vector store is checked all the same.
        console.print(f"Append-only files not checked: {escape(str(exc))}")
        done = None
    for line in done or []:
        console.print(f"Repaired {escape(line)}")
    if done == []:
        console.print(f"No damaged append-only file in {settings.falkordb_dir}.")
    restore_vectors()


def restore_vectors() -> None:
    """Rebuild the collections the vector store lost from what the knowledge graph (and laws.db) holds."""
    from tools.pipelines.consistency import restore_collections, store_gaps
    from tools.retrieval.vectors import INTERPRETATIONS
    from tools.services import get_services

    services = get_services()
    gaps = store_gaps(services.graph, services.vectors)
    if not gaps:
        console.print("The vector store holds everything the knowledge graph does.")
        return
    for gap in gaps:
        console.print(f"Found: {gap.describe()}")
    written = restore_collections(services.graph, services.vectors, services.settings.ingest_batch_size)
    for collection, count in written.items():
        console.print(f"Restored {count} {collection} from the knowledge graph.")
    if any(gap.collection == INTERPRETATIONS for gap in gaps):
        console.print(
            "Interpretation chunks are not kept in the graph: run `jurisgraph ingest --interpretations DIR` "
            "with the directory they came from to write them again."
        )
