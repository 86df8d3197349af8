"""Answering commands: ``ask`` (the consult graph), ``judge`` (the judge graph) and ``threads``.

Graphs, agents and stores are imported inside the commands: compiling the graphs takes about a second,
which commands that never run one (``laws``, ``model path``) should not pay.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast

import typer
from rich.markup import escape
from rich.table import Table

from agents.context import AuditContext, ConsultContext, JudgeContext
from app.cli.console import console, err, shown
from app.output import to_json
from tools.errors import InputError
from tools.settings import load_settings, use_pack

if TYPE_CHECKING:
    from tools.services import Services

SettingsOption = Annotated[list[str] | None, typer.Option("--set", help="Context setting key=value (repeatable).")]
ModelOption = Annotated[str | None, typer.Option(help="Chat model (default JURIS_MODEL or 'local').")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the whole output state as JSON.")]
ReviewOption = Annotated[bool, typer.Option(help="Ask me to accept or override borderline audit verdicts.")]


ContextT = TypeVar("ContextT", bound=AuditContext)


def run_context(context: ContextT, settings: list[str] | None, model: str | None, review: bool) -> ContextT:
    """The run's Context: defaults, then ``--set`` pairs, then ``--model`` and ``--review``."""
    context = context.with_overrides(settings or [])
    if model:
        context.model = model
    context.human_review = context.human_review or review
    return context


def require_statutes(warm: bool = True) -> None:
    """An empty knowledge base is a clear error naming the fix, not an answer that finds no law; a KB with
    statutes starts loading its indexes when ``warm`` (a server's are loaded once, at its start)."""
    from tools.services import get_services

    services = get_services()
    if not any(services.statutes.counts().values()):
        pack = services.settings.pack
        command = "jurisgraph ingest" if pack == "china" else f"jurisgraph ingest --pack {pack}"
        raise InputError(
            f"the knowledge base in {services.settings.data_dir} holds no statutes yet: run `{command}` first"
        )
    warn_of_gaps(services)
    if warm:
        # The indexes load while the graph's first model call runs, not after it.
        services.warm_up()


def warn_of_gaps(services: Services) -> None:
    """A vector store that lost what the graph holds: statutes missing is an error (every answer would find
    no law), another collection a warning; both name the command that rebuilds it."""
    from tools.errors import StoreDamagedError
    from tools.pipelines.consistency import REPAIR, store_gaps
    from tools.retrieval.vectors import STATUTES

    for gap in store_gaps(services.graph, services.vectors):
        if gap.collection == STATUTES:
            raise StoreDamagedError(f"{gap.describe()} in {services.settings.data_dir}: run `{REPAIR}`")
        err.print(f"[yellow]warning:[/yellow] {gap.describe()}: run `{REPAIR}`")


def print_scope() -> None:
    """Which laws the answer could draw on, and how to add the rest, when the KB holds only some of them:
    a question about a law not ingested otherwise reads as if no law applied."""
    from tools.corpus.laws_db import list_laws
    from tools.services import get_services

    services = get_services()
    if services.settings.pack != "china":
        return
    held = sorted(law for law, n in services.statutes.counts().items() if n)
    total = len(list_laws())
    if len(held) < total:
        shown = "、".join(held[:8]) + ("…" if len(held) > 8 else "")
        err.print(
            f"[dim]Knowledge base: {escape(shown)} ({len(held)} of {total} laws); add others with `jurisgraph "
            "ingest --laws NAME` (`jurisgraph laws` lists them) or all with `jurisgraph ingest --all`.[/dim]"
        )


def print_json(out: object) -> None:
    try:
        print(to_json(out, indent=2), flush=True)
    except BrokenPipeError:
        console.on_broken_pipe()


def ask(
    question: Annotated[str, typer.Argument(help="The legal question.")],
    as_json: JsonOption = False,
    model: ModelOption = None,
    settings: SettingsOption = None,
    thread: Annotated[
        str | None, typer.Option(help="Continue (or start) this conversation thread; kept in the data dir.")
    ] = None,
    review: ReviewOption = False,
    lang: Annotated[
        str | None, typer.Option(help="Answer language; en uses the India pack's statutes and English prompts.")
    ] = None,
    remember: Annotated[
        bool,
        typer.Option(help="Keep this answer as an answered consultation: later similar questions find its articles."),
    ] = False,
    server: Annotated[
        bool,
        typer.Option(
            "--server/--no-server",
            help="Send the question to a `jurisgraph serve` running on the same data dir (warm models), if any.",
        ),
    ] = True,
) -> None:
    """Answer a legal question with a Legal Basis quoted verbatim from the knowledge base."""
    from agents.common.question import validate_question
    from app.cli.printing import print_answer
    from tools.packs import pack_for_language

    context = run_context(ConsultContext(), settings, model, review)
    if lang:
        # The knowledge base follows the language unless JURIS_PACK already names one.
        use_pack(pack_for_language(lang).name, unless_set=True)
        context.language = lang
    question = validate_question(question, context.max_question_chars)
    live = err.is_terminal and not as_json
    # The server answers with the product defaults: a question asking for other settings runs here. Asked there,
    # this process opens no store and compiles no graph.
    url = served_at() if server and not (settings or model or review or lang) else None
    if url is not None:
        out = ask_through(url, question, thread, live)
    else:
        from agents.state.consult import ConsultInput
        from app.cli.runner import run_graph
        from graphs.consult import build_graph

        out = run_graph(build_graph, ConsultInput(question=question), context, live, thread, require_statutes)
    if as_json:
        print_json(out)
    else:
        print_answer(out)
        if url is None:
            print_scope()
    if remember:
        remember_answer_of(question, out)


def served_at() -> str | None:
    """The URL of a `jurisgraph serve` on this data dir that answers now, or None."""
    from app.web.presence import running_server

    return running_server(load_settings())


def ask_through(url: str, question: str, thread: str | None, live: bool) -> dict[str, Any]:
    """The answer of the server at ``url``, its progress on the status line as the in-process run shows it."""
    from app.threads import validate_thread_id
    from app.web.client import ask_server

    if thread is not None:
        validate_thread_id(thread)
    if not live:
        out = ask_server(url, question, thread, lambda _line: None)
    else:
        with err.status(f"asking the server at {escape(url)}…", spinner="dots") as status:
            out = ask_server(url, question, thread, lambda line: status.update(escape(line)))
    err.print(f"[dim]answered by the server at {escape(url)} (--no-server runs here)[/dim]")
    return out


def remember_answer_of(question: str, out: dict[str, object]) -> None:
    """``ask --remember``: the answer and its Legal Basis join the answered consultations."""
    from tools.kb.consultations import ConsultationRepository
    from tools.pipelines.ingestion import REMEMBERED_SOURCE, remember_answer
    from tools.services import get_services

    services = get_services()
    basis = cast(list[dict[str, str]], out.get("legal_basis") or [])
    kept = remember_answer(
        question,
        str(out.get("response") or ""),
        [item["article_id"] for item in basis],
        services.vectors,
        ConsultationRepository(services.graph),
    )
    err.print(
        f"Remembered as consultation {escape(kept.id)} citing {escape('、'.join(kept.articles))} "
        f"(`jurisgraph remove --source {REMEMBERED_SOURCE}` forgets every remembered answer)."
    )


def judge_cmd(
    fact: Annotated[str | None, typer.Option(help="The criminal fact description.")] = None,
    file: Annotated[Path | None, typer.Option(help="A UTF-8 text file holding the fact description.")] = None,
    as_json: JsonOption = False,
    model: ModelOption = None,
    settings: SettingsOption = None,
    review: ReviewOption = False,
) -> None:
    """Judge a criminal fact: charges, applicable articles and sentence, each traceable to numbered evidence."""
    from agents.common.question import validate_question
    from agents.state.judge import JudgeInput
    from app.cli.printing import print_judgment
    from app.cli.runner import run_graph
    from graphs.judge import build_graph
    from tools.text import read_utf8

    if (fact is None) == (file is None):
        raise InputError("give exactly one of --fact TEXT or --file FILE")
    if file is not None:
        if not file.is_file():
            raise InputError(f"fact file not found: {file}")
        fact = read_utf8(file, "the fact file")
    context = run_context(JudgeContext(), settings, model, review)
    # Checked here, at the edge, as `ask` checks its question: an unreadable character never reaches the run.
    validate_question(fact or "", context.max_fact_chars, "fact description", "--set max_fact_chars=N")
    live = err.is_terminal and not as_json
    out = run_graph(build_graph, JudgeInput(fact=fact or ""), context, live, check=require_statutes)
    print_json(out) if as_json else print_judgment(out)


def threads(
    as_json: Annotated[bool, typer.Option("--json", help="Print the threads as JSON.")] = False,
    prune: Annotated[
        bool, typer.Option("--prune", help="Delete the threads older than the retention (JURIS_THREAD_RETENTION_DAYS).")
    ] = False,
    older_than: Annotated[int | None, typer.Option(help="With --prune: days instead of the retention.", min=1)] = None,
) -> None:
    """List the conversation threads `ask --thread` and the page keep, most recent first; or prune the old ones."""
    from app.threads import list_threads, open_checkpointer, prune_threads
    from graphs.consult import build_graph

    settings = load_settings()
    with open_checkpointer(settings) as saver:
        if prune:
            days = older_than or settings.thread_retention_days
            pruned = prune_threads(saver, days)
            err.print(f"pruned {len(pruned)} thread(s) older than {days} days" if days else "retention 0: kept all")
            return
        found = list_threads(saver, build_graph(checkpointer=saver))
    if as_json:
        print_json(found)
        return
    table = Table("thread", "updated", "turns", "last question")
    for t in found:
        table.add_row(shown(t["thread_id"]), t["updated"], str(t["turns"]), shown(t["last_question"]))
    console.print(table)
