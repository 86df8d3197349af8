"""What enters from users and files, and what leaves for the terminal and the disk (issue 42)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from agents.common.question import validate_question
from app.cli.console import shown
from tools.errors import InputError
from tools.settings import protect_data_dir
from tools.text import read_utf8, unreadable, visible


def test_unreadable_characters_are_found_and_named() -> None:
    assert unreadable("第一行\n第二行\t制表") is None  # line breaks and tabs are text
    assert unreadable("被告人张某\x00秘密") == "a control character (U+0000 at character 6)"
    assert unreadable("abc\x1b[2J") == "a control character (U+001B at character 4)"
    assert unreadable("盗窃\ud800罪") == "a lone surrogate (U+D800 at character 3)"
    # A command-line byte that is not UTF-8 reaches Python as U+DC00 + the byte (surrogateescape).
    assert unreadable("被告人张某\udcff盗窃") == "a byte that is not UTF-8 (0xFF at character 6)"
    with pytest.raises(InputError, match=r"the question holds a control character \(U\+0007 at character 3\)"):
        validate_question("醉驾\x07会怎样", 100)
    with pytest.raises(InputError, match=r"the fact description holds a lone surrogate \(U\+DFFF at character 1\)"):
        validate_question("\udfff盗窃", 100, "fact description")


def test_a_file_not_in_utf8_is_named_with_its_line_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "fact.txt"
    path.write_bytes("第一行\n".encode() + "盗窃".encode("gbk"))
    with pytest.raises(InputError, match=r"fact\.txt:2: the fact file is not UTF-8 text \(byte 10\)"):
        read_utf8(path, "the fact file")
    with pytest.raises(InputError, match="cannot be read"):
        read_utf8(tmp_path / "missing.txt", "the fact file")


def test_the_terminal_is_shown_control_characters_written_out() -> None:
    assert visible("t-1\x1b[2J") == "t-1\\x1b[2J"
    assert visible("t\ud800") == "t\\ud800"  # printing it raised UnicodeEncodeError
    assert shown("[red]t\x1b[0m") == "\\[red]t\\x1b[0m"  # rich markup escaped too


def test_the_data_dir_is_its_users_alone(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o755)
    data_dir.chmod(0o755)  # as an older run left it
    previous = os.umask(0o022)
    try:
        protect_data_dir(data_dir)
        assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
        (data_dir / "threads.sqlite").write_text("", encoding="utf-8")
        assert stat.S_IMODE((data_dir / "threads.sqlite").stat().st_mode) == 0o600
        protect_data_dir(tmp_path / "new" / "dir")
        assert stat.S_IMODE((tmp_path / "new" / "dir").stat().st_mode) == 0o700
    finally:
        os.umask(previous)


def test_an_api_run_context_its_graph_would_not_take_is_named() -> None:
    from app.server import context_problem

    assert context_problem("consult", {"model": "fake", "top_k": 3}) is None
    assert context_problem("someone-elses-assistant", {"anything": 1}) is None  # the graph refuses it itself
    unknown = context_problem("judge", {"model": "fake", "max_rounds": 2})
    assert unknown is not None and unknown.startswith("unknown judge setting(s) max_rounds; settings are ")
    assert "needs a number" in str(context_problem("consult", {"top_k": "abc"}))
    assert "max_rounds=-3: must lie in 0 to 20" in str(context_problem("consult", {"max_rounds": -3}))
    # The server's default assistant of a graph is addressed by its uuid5 id as well.
    assert "unknown judge setting(s) nope" in str(context_problem("a8fe3ebc-2d0e-509f-bb43-929997a8c722", {"nope": 1}))


def test_an_api_run_input_its_graph_would_refuse_is_named() -> None:
    from app.server import run_problem

    assert run_problem("consult", {"model": "fake"}, {"question": "醉驾怎么处罚？"}) is None
    assert run_problem("consult", None, None) is None  # a run resuming an interrupt carries no input
    assert run_problem("consult", None, {"question": 42}) == "input.question must be a text (got int)"
    assert run_problem("judge", {"language": "en"}, {"fact": "x"}) == (
        "setting language='en': prompts/en/ lacks extract_features.md, prejudge_case.md, adjudicate.md; "
        "this graph runs in zh"
    )
    assert "the fact description is empty" in str(run_problem("judge", None, {"fact": " "}))
    assert "only instructions" in str(run_problem("consult", None, {"question": "请扮演法官。"}))


def test_the_api_servers_own_files_are_its_users_alone(tmp_path: Path) -> None:
    from app.server import RUNTIME_DIR, own_runtime_files

    folder = tmp_path / RUNTIME_DIR
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    (folder / ".langgraph_ops.pckl").write_bytes(b"")
    (folder / ".langgraph_ops.pckl").chmod(0o644)  # as the runtime leaves them before the first run
    previous = os.umask(0o022)
    try:
        own_runtime_files(folder)
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert stat.S_IMODE((folder / ".langgraph_ops.pckl").stat().st_mode) == 0o600
        (folder / "store.pckl").write_bytes(b"")
        assert stat.S_IMODE((folder / "store.pckl").stat().st_mode) == 0o600
    finally:
        os.umask(previous)


def test_a_thread_id_with_a_line_break_is_refused() -> None:
    from app.threads import validate_thread_id

    assert validate_thread_id("t1") == "t1"
    with pytest.raises(InputError, match="line break or control character"):
        validate_thread_id("t1\r\nfake-row")
    with pytest.raises(InputError, match="1 to 200 characters"):
        validate_thread_id("x" * 201)


def test_a_data_dir_that_is_a_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("", encoding="utf-8")
    with pytest.raises(InputError, match=r"the data dir .*afile \(JURIS_DATA_DIR\) is a file, not a directory"):
        protect_data_dir(tmp_path / "afile")


def test_a_data_dir_is_one_by_its_resolved_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tools.settings import load_settings

    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path)
    for named in ("link", str(tmp_path / "link"), "real", "./real/../real"):
        monkeypatch.setenv("JURIS_DATA_DIR", named)
        assert load_settings().data_dir == (tmp_path / "real").resolve()


def test_a_thread_store_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    from app.threads import open_checkpointer
    from tools.errors import StoreUnavailableError
    from tools.settings import Settings

    settings = Settings(data_dir=tmp_path, embeddings="hash")
    settings.threads_file.mkdir(parents=True)  # a directory where the database file should be
    opening = pytest.raises(StoreUnavailableError, match=r"cannot open the conversation threads .*threads\.sqlite")
    with opening, open_checkpointer(settings):
        pass


def test_a_language_without_the_graphs_prompts_is_named_not_a_traceback() -> None:
    from agents.context import ConsultContext, JudgeContext

    with pytest.raises(InputError, match=r"language='xx': prompts/xx/ lacks system.md, .*; this graph runs in en, zh"):
        ConsultContext(language="xx")
    with pytest.raises(InputError, match=r"language='en': prompts/en/ lacks extract_features.md, prejudge_case.md"):
        JudgeContext(language="en")
    assert ConsultContext(language="en").language == "en"


def test_a_thread_read_back_names_no_unregistered_type(
    active_kb: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    from langgraph.checkpoint.serde import jsonplus

    from agents.context import ConsultContext
    from agents.state.consult import ConsultInput
    from app.threads import list_threads, open_checkpointer
    from graphs.consult import build_graph
    from tools.settings import Settings

    jsonplus._warned_unregistered_types.clear()  # LangGraph warns once per type and process
    settings = Settings(data_dir=tmp_path, embeddings="hash")
    config = {"configurable": {"thread_id": "t1"}}
    with open_checkpointer(settings) as saver:
        question = ConsultInput(question="醉酒驾驶机动车会受到什么处罚？")
        build_graph(checkpointer=saver).invoke(question, config, context=ConsultContext(model="fake"))
    with caplog.at_level(logging.WARNING), open_checkpointer(settings) as saver:
        (thread,) = list_threads(saver, build_graph(checkpointer=saver))
    assert thread["thread_id"] == "t1" and thread["turns"] == 1
    assert "unregistered type" not in caplog.text


def test_threads_older_than_the_retention_are_pruned(active_kb: Any, tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from agents.context import ConsultContext
    from agents.state.consult import ConsultInput
    from app.threads import list_threads, open_checkpointer, prune_threads
    from graphs.consult import build_graph
    from tools.settings import Settings

    settings = Settings(data_dir=tmp_path, embeddings="hash")
    with open_checkpointer(settings) as saver:
        graph = build_graph(checkpointer=saver)
        for thread in ("old", "new"):
            question = ConsultInput(question="醉酒驾驶机动车会受到什么处罚？")
            graph.invoke(question, {"configurable": {"thread_id": thread}}, context=ConsultContext(model="fake"))
        assert prune_threads(saver, 0) == []  # 0 keeps every thread
        # Seen from 40 days on, both are older than 30 days; from now, neither is.
        assert prune_threads(saver, 30) == []
        later = datetime.now(UTC) + timedelta(days=40)
        assert sorted(prune_threads(saver, 30, now=later)) == ["new", "old"]
        assert list_threads(saver, graph) == []
