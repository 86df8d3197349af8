"""Knowledge-base upkeep: checklists, document vectors, case communities."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, cast

import typer
from rich.markup import escape
from rich.table import Table

from app.cli.console import console, err, progress_bars
from tools.errors import InputError, listing
from tools.settings import load_settings


def checklists(
    laws: Annotated[str, typer.Option(help="Comma-separated law short names.")] = "刑法",
    model: Annotated[str | None, typer.Option(help="Chat model (default JURIS_MODEL or 'local').")] = None,
    regenerate: Annotated[bool, typer.Option(help="Replace checklists that already exist.")] = False,
    limit: Annotated[int | None, typer.Option(help="Only the first N articles.")] = None,
    cited: Annotated[
        int | None,
        typer.Option(
            help="Instead of --laws, the N articles the KB's answered consultations cite most (what a consult "
            "audits most often; a citation counts as much as its answer uses the article), most cited first.",
            min=1,
        ),
    ] = None,
    export: Annotated[
        Path | None, typer.Option(help="Write every stored checklist and recorded failure to this JSONL file.")
    ] = None,
    import_file: Annotated[
        Path | None, typer.Option("--import", help="Read checklists from a file --export wrote (or edited).")
    ] = None,
) -> None:
    """Generate the diagnostic checklist of every article of the given laws, or of the articles consultations
    cite most (stored, reused, resumable); with --export or --import, move checklists between knowledge bases
    instead (no model calls)."""
    from tools.errors import StructuredOutputError
    from tools.kb.checklist_generation import DERIVED_MODEL, ensure_checklist
    from tools.kb.checklists import ChecklistRepository, articles_of_laws
    from tools.llm.chat import load_chat_model
    from tools.services import get_services

    services = get_services()
    if export is not None and import_file is not None:
        raise InputError("give --export or --import, not both")
    if export is not None:
        _export_checklists(services, export)
        return
    if import_file is not None:
        _import_checklists(services, import_file)
        return
    spec = model or load_settings().model
    chat = load_chat_model(spec, services.settings)
    if cited is not None:
        counts = services.consultations.citation_counts()
        ingested = {a.id for a in services.statutes.get_articles([i for i, _ in counts.most_common(cited)])}
        ids = [i for i, _ in counts.most_common(cited) if i in ingested][:limit]
        if not ids:
            raise InputError(
                "no answered consultation cites an ingested article: run `jurisgraph ingest --consultations FILE` first"
            )
    else:
        ids = articles_of_laws(services.statutes, [law.strip() for law in laws.split(",") if law.strip()])[:limit]
        if not ids:
            raise InputError(f"no ingested articles for {laws!r}: run `jurisgraph ingest --laws {laws}` first")
    repo = ChecklistRepository(services.graph)
    made = reused = derived = 0
    failed: list[str] = []
    with progress_bars() as progress:
        task = progress.add_task("checklists", total=len(ids))
        for article in services.statutes.get_articles(ids):
            existed = not regenerate and repo.get(article.id) is not None
            try:
                checklist, _ = ensure_checklist(article, repo, chat, spec, regenerate=regenerate)
                made, reused = made + (not existed), reused + existed
                derived += not existed and checklist.model == DERIVED_MODEL
            except StructuredOutputError as exc:
                failed.append(f"{article.id}: {exc}")
            progress.advance(task)
    services.graph.compact()
    console.print(
        f"Checklists: {made} generated ({derived} from the article text where the model failed), "
        f"{reused} already stored, {len(failed)} failed."
    )
    for line in failed:
        err.print(f"[yellow]failed[/yellow] {escape(line)}")


def _export_checklists(services: Any, path: Path) -> None:
    from tools.atomic import write_text_atomic
    from tools.kb.checklist_files import export_checklists
    from tools.kb.checklists import ChecklistRepository

    rows = export_checklists(ChecklistRepository(services.graph), services.statutes)
    write_text_atomic(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    failures = sum(1 for r in rows if "failure" in r)
    console.print(f"Exported {len(rows) - failures} checklists and {failures} recorded failures to {path}.")


def _import_checklists(services: Any, path: Path) -> None:
    from tools.kb.checklist_files import import_checklists, read_checklist_file
    from tools.kb.checklists import ChecklistRepository

    repo = ChecklistRepository(services.graph)
    report = import_checklists(read_checklist_file(path), repo, services.statutes)
    services.graph.compact()
    console.print(f"Imported {report.checklists} checklists and {report.failures} recorded failures.")
    for label, ids in (("not in this knowledge base", report.missing), ("text changed since", report.changed)):
        if ids:
            err.print(f"[yellow]skipped[/yellow] {len(ids)} ({label}): {escape(listing(ids))}")


def vectors(
    export: Annotated[
        Path | None, typer.Option(help="Write the vectors of every collection to this .npz file.")
    ] = None,
    import_file: Annotated[
        Path | None,
        typer.Option("--import", help="Put the vectors of a file --export wrote into this data dir's vector cache."),
    ] = None,
    precision: Annotated[
        str, typer.Option(help="How --export stores the numbers: float32, float16 (half the size) or int8 (a quarter).")
    ] = "float32",
    collection: Annotated[
        list[str] | None, typer.Option(help="Export only this collection (repeatable); default: every one.")
    ] = None,
    without_bundled: Annotated[
        bool,
        typer.Option(
            "--without-bundled",
            help="Leave out of --export the statute vectors the package ships (the laws'): a regulations artefact.",
        ),
    ] = False,
    reranker: Annotated[
        bool,
        typer.Option(
            help="The reranker's vectors instead (EmbeddingGemma): --export embeds every text of the collections "
            "(default: statutes) it has none of yet, about four a second, resumable."
        ),
    ] = False,
) -> None:
    """Move document vectors between knowledge bases: an ingestion whose texts are in the cache embeds
    nothing (a judge KB's 5,642 case facts take about 40 minutes to embed on 2 cores). No text is written."""
    from tools.corpus.laws_db import BUNDLED_VECTORS
    from tools.llm.embeddings import EmbeddingGemmaEmbeddings, embeddings_name, load_embeddings
    from tools.retrieval.vector_cache import (
        PRECISIONS,
        VectorCache,
        collect_vectors,
        import_vectors,
        read_vector_file,
        without,
        write_vector_file,
    )
    from tools.retrieval.vectors import STATUTES, ChromaVectors

    if (export is None) == (import_file is None):
        raise InputError("give --export FILE or --import FILE")
    if precision not in PRECISIONS:  # before the export's embedding, which may take hours
        raise InputError(f"--precision {precision}: one of {', '.join(PRECISIONS)}")
    settings = load_settings()
    if import_file is not None:
        # Importing names the model the vectors must come from; only the search model's name needs loading it.
        model = (
            EmbeddingGemmaEmbeddings.model_name if reranker else embeddings_name(load_embeddings(settings.embeddings))
        )
        data = read_vector_file(import_file)
        cache = VectorCache(settings.vector_cache_file)
        try:
            written = import_vectors(data, cache, model)
            console.print(f"Imported {written} {model} vectors ({cache.count(model)} cached in {cache.path}).")
        finally:
            cache.close()
        return
    if reranker:
        _export_reranker_vectors(cast(Path, export), collection or [STATUTES], precision)
        return
    embeddings = load_embeddings(settings.embeddings)
    model = embeddings_name(embeddings)
    store = ChromaVectors(settings, embeddings)
    names = _known_collections(collection or store.collections(), store.collections())
    data = collect_vectors(model, (pair for name in names for pair in store.embedded_documents(name)))
    if without_bundled:
        data = without(data, read_vector_file(BUNDLED_VECTORS).digests)
    write_vector_file(cast(Path, export), data, precision)
    console.print(f"Exported {len(data.digests)} {model} vectors to {export}.")


def _known_collections(names: list[str], held: list[str]) -> list[str]:
    """``names``, when the store holds every one of them (``held``); else an InputError naming those it lacks."""
    if unknown := sorted(set(names) - set(held)):
        raise InputError(f"no collection {', '.join(unknown)} here; there are {', '.join(held)}")
    return names


RERANK_BATCH = 64
"""Texts the reranker embeds between two writes to the vector cache: an interrupted export loses at most these."""


def _export_reranker_vectors(path: Path, names: list[str], precision: str) -> None:
    """Embed every text of the collections with the reranker (through the vector cache, so a second run goes
    on where the first stopped) and write them as a vector file."""
    from tools.errors import ModelUnavailableError
    from tools.llm.embeddings import embeddings_name
    from tools.retrieval.vector_cache import collect_vectors, write_vector_file
    from tools.services import get_services

    services = get_services()
    names = _known_collections(names, services.vectors.collections())
    found = services.reranker.get()
    if found is None:
        raise ModelUnavailableError(services.reranker.missing or "the reranker is off (JURIS_RERANKER=off)")
    # By length: a batch of similar lengths pads little, which is most of the speed of a CPU encoder.
    texts = sorted(dict.fromkeys(t for name in names for t in services.vectors.documents(name)[1]), key=len)
    rows: list[list[float]] = []
    with progress_bars() as progress:
        task = progress.add_task("reranker vectors", total=len(texts))
        for start in range(0, len(texts), RERANK_BATCH):
            batch = texts[start : start + RERANK_BATCH]
            rows.extend(found.embeddings.embed_documents(batch))
            progress.advance(task, len(batch))
    model = embeddings_name(found.embeddings)
    write_vector_file(path, collect_vectors(model, zip(texts, rows, strict=True)), precision)
    console.print(f"Exported {len(texts)} {model} vectors to {path}.")


def communities(
    level: Annotated[int, typer.Option(help="0 (coarse) or 1 (fine).")] = 0,
    summarise: Annotated[bool, typer.Option(help="Write missing summaries with the model (cached).")] = False,
    refresh: Annotated[bool, typer.Option(help="Rewrite summaries that exist.")] = False,
    model: Annotated[str | None, typer.Option(help="Chat model for summaries.")] = None,
    limit: Annotated[int, typer.Option(help="Largest N communities.")] = 20,
) -> None:
    """List the case communities of the Ontology graph, summarising them on demand."""
    from tools.kb.ontology import OntologyRepository
    from tools.llm.chat import load_chat_model
    from tools.services import get_services

    services = get_services()
    repo = OntologyRepository(services.graph)
    rows = repo.communities(level)[:limit]
    if not rows:
        raise InputError("no communities yet: run `jurisgraph ingest --cases FILE --ontology lexical`")
    spec = model or load_settings().model
    chat = load_chat_model(spec, services.settings) if summarise else None
    table = Table("community", "cases", "top features", "summary")
    with progress_bars() as progress:
        task = progress.add_task("summaries", total=len(rows) if summarise else 0)
        for row in rows:
            summary = str(row["summary"] or "")
            if chat is not None:
                summary, _ = repo.summarise(str(row["id"]), chat, spec, refresh=refresh)
                progress.advance(task)
            table.add_row(str(row["id"]), str(row["size"]), "、".join(row["top_features"] or []), summary)  # type: ignore[arg-type]
    if summarise:
        services.graph.compact()
    console.print(table)
