"""The embedded FalkorDB's life: shared by every process on a data dir, retired by its watchdog when idle,
and found again by a store whose server was restarted."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tools.kb import open_graph_store
from tools.kb.embedded import EmbeddedServer, _alive, watch
from tools.settings import Settings

# A process that opens the knowledge graph of DATA_DIR, says READY, and closes it when told (or is killed).
USER = """
import sys
from pathlib import Path
from tools.kb import open_graph_store
from tools.settings import Settings
store = open_graph_store(Settings(data_dir=Path(sys.argv[1]), embeddings="hash", graph_name="g"))
store.query("MERGE (:Probe {id: 1})")
print("READY", flush=True)
sys.stdin.readline()
store.close()
"""


def _settings(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir, embeddings="hash", graph_name="g", falkordb_host="", falkordb_port=0)


def _start_user(data_dir: Path, **env: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", USER, str(data_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "READY"
    return proc


def _server(data_dir: Path) -> EmbeddedServer:
    root = data_dir / "falkordb"
    return EmbeddedServer(int((root / "port").read_text()), int((root / "pid").read_text()), root)


def test_the_server_outlives_the_process_that_started_it(tmp_path: Path) -> None:
    starter = _start_user(tmp_path)
    server = _server(tmp_path)
    store = open_graph_store(_settings(tmp_path))  # a second user of the same server
    try:
        starter.communicate("\n", timeout=30)  # the process that started the server ends normally
        assert starter.returncode == 0
        # It used to stop the server on exit: this user lost its connection mid-work.
        assert _alive(server.pid)
        assert store.read("MATCH (p:Probe) RETURN count(p) AS n")[0]["n"] == 1
        assert _server(tmp_path).pid == server.pid
    finally:
        store.close()
        server.stop()


def test_an_idle_server_is_retired_after_its_users_are_killed(tmp_path: Path) -> None:
    user = _start_user(tmp_path, JURIS_FALKORDB_IDLE_S="1")
    server = _server(tmp_path)
    user.send_signal(signal.SIGKILL)
    user.wait()
    deadline = time.monotonic() + 20
    recorded = tmp_path / "falkordb" / "pid"
    while (_alive(server.pid) or recorded.exists()) and time.monotonic() < deadline:
        time.sleep(0.2)
    try:
        assert not _alive(server.pid), "the orphaned server was never stopped"
        assert not (tmp_path / "falkordb" / "pid").exists()
    finally:
        server.stop()


def test_a_server_whose_data_dir_was_removed_is_retired_when_idle(tmp_path: Path) -> None:
    data_dir = tmp_path / "kb"
    user = _start_user(data_dir, JURIS_FALKORDB_IDLE_S="1")
    server = _server(data_dir)
    user.send_signal(signal.SIGKILL)
    user.wait()
    # As pytest removes old temporary dirs: the watchdog used to wait for the pid file to name its server
    # again, and kept the server (and itself) running for good.
    shutil.rmtree(data_dir)
    deadline = time.monotonic() + 20
    while _alive(server.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    try:
        assert not _alive(server.pid), "the server of a removed data dir was never stopped"
        assert not data_dir.exists(), "the watchdog recreated the removed data dir"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server.pid, signal.SIGKILL)


def test_a_watchdog_started_after_its_data_dir_was_removed_still_retires_the_server(tmp_path: Path) -> None:
    data_dir = tmp_path / "kb"
    user = _start_user(data_dir, JURIS_FALKORDB_IDLE_S="3600")  # its own watchdog stays out of the way
    root = data_dir / "falkordb"
    server = _server(data_dir)
    password = (root / "password").read_text().strip()
    user.communicate("\n", timeout=30)
    shutil.rmtree(data_dir)
    # A watchdog that started this late (a loaded machine) read no password from the removed dir, could not
    # authenticate, and took the server for one still loading its data: ten minutes, not one second.
    watchdog = threading.Thread(target=watch, args=(root, server.port, server.pid, 1.0, password, 0.1), daemon=True)
    watchdog.start()
    watchdog.join(timeout=20)
    try:
        assert not watchdog.is_alive() and not _alive(server.pid), "the server of a removed data dir was never stopped"
        assert not data_dir.exists(), "the watchdog recreated the removed data dir"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server.pid, signal.SIGKILL)


def test_a_store_reconnects_after_its_server_restarts(tmp_path: Path) -> None:
    store = open_graph_store(_settings(tmp_path))
    try:
        store.query("MERGE (:Probe {id: 1})")
        before = _server(tmp_path)
        os.kill(before.pid, signal.SIGKILL)
        while _alive(before.pid):
            time.sleep(0.05)
        # Used to fail with StoreUnavailableError until the process was restarted (langgraph dev).
        assert store.read("MATCH (p:Probe) RETURN count(p) AS n")[0]["n"] == 1
        assert _server(tmp_path).pid != before.pid
    finally:
        store.close()
        _server(tmp_path).stop()


def test_a_store_that_stays_down_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tools.errors import StoreUnavailableError
    from tools.kb import falkordb_store

    monkeypatch.setattr(falkordb_store, "RETRY_DELAYS_S", (0.01, 0.01))
    store = open_graph_store(_settings(tmp_path))
    try:
        # The server can neither be reached nor started again: every attempt fails, then one clear error.
        monkeypatch.setattr(store, "_locate", lambda: ("127.0.0.1", 1, ""))
        os.kill(_server(tmp_path).pid, signal.SIGKILL)
        with pytest.raises(StoreUnavailableError, match=r"127\.0\.0\.1:1 is not reachable \(3 attempts\)"):
            store.read("MATCH (p:Probe) RETURN count(p) AS n")
    finally:
        root = tmp_path / "falkordb"
        if (root / "pid").exists():
            _server(tmp_path).stop()


def _write_probes(data_dir: Path, n: int, compact: bool = False) -> None:
    store = open_graph_store(_settings(data_dir))
    for i in range(n):
        store.query("MERGE (:Probe {id: $i})", {"i": i})
    if compact:
        store.compact()
    store.close()
    _server(data_dir).stop()


def test_a_damaged_append_only_file_is_refused_then_repaired(tmp_path: Path) -> None:
    from tools.errors import StoreDamagedError
    from tools.kb.embedded import repair_aofs

    _write_probes(tmp_path, 50)
    (aof,) = (tmp_path / "falkordb" / "appendonlydir").glob("*.incr.aof")
    aof.write_bytes(aof.read_bytes()[:-10])  # the last command cut short, as by a full disk or a crash
    # It used to load the first half silently (and cut the file there): half a graph passed for a whole one.
    with pytest.raises(StoreDamagedError, match=r"append-only file .*incr\.aof is damaged .*`jurisgraph kg repair`"):
        open_graph_store(_settings(tmp_path))
    assert not (tmp_path / "falkordb" / "pid").exists()
    (done,) = repair_aofs(tmp_path / "falkordb")
    assert "cut after the last whole command" in done
    store = open_graph_store(_settings(tmp_path))
    try:
        assert 0 < store.read("MATCH (p:Probe) RETURN count(p) AS n")[0]["n"] < 50
    finally:
        store.close()
        _server(tmp_path).stop()


def test_a_truncated_snapshot_is_one_line_not_a_crash_report(tmp_path: Path) -> None:
    from tools.errors import StoreDamagedError

    _write_probes(tmp_path, 50, compact=True)
    (base,) = (tmp_path / "falkordb" / "appendonlydir").glob("*.base.rdb")
    base.write_bytes(base.read_bytes()[: base.stat().st_size // 2])
    with pytest.raises(StoreDamagedError) as caught:
        open_graph_store(_settings(tmp_path))
    message = str(caught.value)
    assert "\n" not in message and "could not load its data" in message and "ingest again" in message


def test_the_server_asks_every_client_for_the_data_dirs_password(tmp_path: Path) -> None:
    import redis

    store = open_graph_store(_settings(tmp_path))
    server = _server(tmp_path)
    try:
        secret = tmp_path / "falkordb" / "password"
        assert secret.stat().st_mode & 0o777 == 0o600 and len(secret.read_text()) == 32
        # Any local user reaches loopback; without the password (readable by the data dir's owner) nothing.
        with pytest.raises(redis.exceptions.AuthenticationError), redis.Redis(port=server.port) as stranger:
            stranger.ping()
        assert secret.read_text() not in Path(f"/proc/{server.pid}/cmdline").read_text()
        assert store.read("RETURN 1 AS one") == [{"one": 1}]
    finally:
        store.close()
        server.stop()


def test_garbage_records_find_the_running_server_and_a_lost_password_is_named(tmp_path: Path) -> None:
    from tools.errors import StoreUnavailableError

    starter = _start_user(tmp_path)
    server = _server(tmp_path)
    try:
        starter.communicate("\n", timeout=30)
        (tmp_path / "falkordb" / "port").write_text("garbage")  # the records no longer name the server
        store = open_graph_store(_settings(tmp_path))
        try:
            assert store.read("MATCH (p:Probe) RETURN count(p) AS n")[0]["n"] == 1  # the same server and data
        finally:
            store.close()
        assert _server(tmp_path).pid == server.pid  # no second server on the same files; records written again
        (tmp_path / "falkordb" / "password").unlink()
        with pytest.raises(StoreUnavailableError, match=r"has lost its password file .*password: stop it"):
            open_graph_store(_settings(tmp_path))
    finally:
        server.stop()


def test_a_data_dir_named_through_a_symlink_finds_the_running_server(tmp_path: Path) -> None:
    # Issue 64: with JURIS_DATA_DIR a symlink and garbage records, a second server started on the same files; when
    # it retired it took the first one's password with it.
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    starter = _start_user(real)
    server = _server(real)
    try:
        starter.communicate("\n", timeout=30)
        for name in ("port", "pid"):
            (real / "falkordb" / name).write_text("garbage")
        store = open_graph_store(_settings(tmp_path / "link"))
        try:
            assert store.read("MATCH (p:Probe) RETURN count(p) AS n")[0]["n"] == 1
        finally:
            store.close()
        assert _server(real).pid == server.pid
    finally:
        server.stop()


def test_a_server_stuck_loading_is_killed_and_started_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from tools.kb import embedded

    # A "redis-server" that listens and never answers, using no CPU: FalkorDB deadlocked loading its snapshot so
    # (its main thread waiting for its graph registry's write lock), and every caller waited 600 s.
    data_dir = tmp_path / "falkordb"
    data_dir.mkdir()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    script = (
        "import socket, sys, time; s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(); "
        "time.sleep(300)"
    )
    stuck = subprocess.Popen([sys.executable, "-c", script, str(port), "redis-server"], cwd=data_dir)
    try:
        time.sleep(1.0)
        with pytest.raises(embedded.StuckLoading, match="no answer and no CPU"):
            embedded._wait_ready(port, stuck.pid, data_dir / "server.log", stuck_s=1.0)
        # Recorded as the data dir's server, it is found, taken for stuck, killed, and a real one started instead.
        for name, value in (("port", port), ("pid", stuck.pid), ("password", "x")):
            (data_dir / name).write_text(str(value))
        monkeypatch.setattr(embedded, "STUCK_S", 1.0)
        monkeypatch.setattr(embedded._wait_ready, "__defaults__", (1.0,))
        started = time.monotonic()
        server = embedded.ensure_server(data_dir, idle_s=5)
        try:
            # Ended (the kill's waiting reaps it, so its status reads 0 here) and replaced.
            stuck.wait(timeout=10)
            assert server.pid != stuck.pid
            assert embedded._answers_ping(server.port) and time.monotonic() - started < 30
        finally:
            server.stop()
    finally:
        with contextlib.suppress(ProcessLookupError):
            stuck.kill()
