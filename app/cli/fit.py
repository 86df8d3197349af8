"""``jurisgraph fit …``: refit a parameter the package ships as data, from recorded runs or cases. Each
prints its measures on both dev halves; ``--write`` replaces the shipped file, with its provenance."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

WriteOption = Annotated[bool, typer.Option(help="Replace the shipped file with the fitted values.")]


def fit_sources_cmd(
    runs: Annotated[list[str], typer.Argument(help="RUN_DIR:DATA.jsonl of `eval --task retrieval` runs.")],
    write: WriteOption = False,
) -> None:
    """LawSearch's source weights (tools/retrieval/source_weights.json), by coordinate ascent on tuning halves."""
    from app.fit.sources import fit_sources

    fit_sources(runs, write)


def fit_keeper_cmd(
    runs: Annotated[list[str], typer.Argument(help="RUN_DIR:DATA.jsonl of `eval --task retrieval` runs.")],
    write: WriteOption = False,
) -> None:
    """The basis keeper (tools/retrieval/basis_keeper.json): which evidence articles become the Legal Basis."""
    from app.fit.keeper import fit_keeper

    fit_keeper(runs, write)


def fit_adapter_cmd(
    runs: Annotated[list[str], typer.Argument(help="RUN_DIR:DATA.jsonl of `eval --task retrieval` runs.")],
    rank: Annotated[int, typer.Option(help="Rank of the correction U V.")] = 16,
    l2: Annotated[float, typer.Option(help="L2 penalty on U V.")] = 0.01,
    salt: Annotated[
        list[str] | None,
        typer.Option(help="Salt of a cross-fitting split of the tuning items (repeatable; default: fold, a, b, c)."),
    ] = None,
    cache: Annotated[
        Path | None, typer.Option(help="Question vectors file (default: adapter_questions.npz in the data dir).")
    ] = None,
    write: WriteOption = False,
) -> None:
    """The reranker's question adapter (tools/retrieval/query_adapter.json) and the fusion refitted beside it."""
    from app.fit.adapter import SALTS, fit_adapter
    from tools.services import get_services

    questions = cache or get_services().settings.data_dir / "adapter_questions.npz"
    fit_adapter(runs, rank, l2, salt or SALTS, questions, write)


def fit_charges_cmd(
    files: Annotated[list[Path], typer.Argument(help="signals.jsonl files of benchmarks/charge_signals.py.")],
    data: Annotated[list[Path], typer.Option(help="The dev files the signals were recorded on.")],
    c: Annotated[float, typer.Option(help="Inverse L2 penalty.")] = 1.0,
    most: Annotated[int, typer.Option(help="Most charges a judgment convicts of.")] = 3,
    per_charge: Annotated[
        int, typer.Option(min=0, help="Fit on at most this many tuning items per gold charge set (0: all).")
    ] = 0,
    write: WriteOption = False,
) -> None:
    """The charge scorer's policy (tools/law/charge_model.json): logistic weights and thresholds."""
    from app.fit.charges import fit_charges

    fit_charges(files, data, c, most, write, per_charge)


def fit_research_cmd(
    results: Annotated[Path, typer.Argument(help="results.jsonl of an `eval --task retrieval` run on ljp items.")],
    data: Annotated[Path, typer.Option(help="The task file the run was made on.")],
    offset: Annotated[int, typer.Option(help="Rank offset of the fitted fusion.")] = 60,
    strategies: Annotated[str, typer.Option(help="Comma-separated strategies to weigh.")] = "",
    c: Annotated[float, typer.Option(help="Inverse L2 penalty.")] = 1.0,
    write: WriteOption = False,
) -> None:
    """The Researcher's strategy weights (tools/retrieval/research_weights.json), by logistic regression."""
    from app.fit.research import STRATEGIES, fit_research

    chosen = [s.strip() for s in strategies.split(",") if s.strip()] or list(STRATEGIES)
    fit_research(results, data, offset, chosen, c, write)


def fit_priors_cmd(
    cases: Annotated[list[Path], typer.Option(help="Case files (CAIL JSONL) to count on (repeatable).")],
    rankings: Annotated[Path, typer.Option(help="Each case's ranking is appended here; a rerun resumes.")],
    exclude: Annotated[list[Path] | None, typer.Option(help="Dev files whose facts are left out.")] = None,
    limit: Annotated[int, typer.Option(help="Cases counted, chosen by the hash of their ids.")] = 1000,
    out: Annotated[Path | None, typer.Option(help="Where to write the priors; default: the shipped file.")] = None,
) -> None:
    """The Researcher's article priors (tools/retrieval/article_priors.json): each article's magnet rate."""
    from app.fit.priors import fit_priors
    from tools.retrieval.article_priors import BUNDLED_PRIORS

    fit_priors(cases, exclude or [], rankings, limit, out or BUNDLED_PRIORS)


def fit_circumstances_cmd(
    cases: Annotated[list[Path], typer.Option(help="Case files (CAIL JSONL) with terms (repeatable).")],
    check: Annotated[Path, typer.Option(help="An ljp dev file, measured on both halves.")],
    exclude: Annotated[list[Path] | None, typer.Option(help="Dev files whose facts are left out.")] = None,
    write: WriteOption = False,
) -> None:
    """How far each sentencing circumstance moves a term (tools/law/circumstance_factors.json), by ridge
    regression on judged cases."""
    from app.fit.circumstances import fit_circumstances

    fit_circumstances(cases, exclude or [], check, write)
