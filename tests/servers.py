"""Real servers on loopback for the scale-out tests: Debian's PostgreSQL and a Chroma server (`chroma run`)."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def postgres_bin() -> Path | None:
    """The directory of Debian's PostgreSQL server programs (initdb, pg_ctl), if installed."""
    on_path = shutil.which("pg_ctl")
    if on_path and Path(on_path).resolve().with_name("initdb").is_file():
        return Path(on_path).resolve().parent
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on a free loopback port; yields its URI (trust auth, no password)."""
    bindir = postgres_bin()
    if bindir is None:
        raise RuntimeError("PostgreSQL server programs not found: apt-get install postgresql")
    # initdb refuses to run as root; as root, run the server as Debian's postgres user.
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    root = Path(tempfile.mkdtemp(prefix="juris-pg-"))
    if as_user:
        shutil.chown(root, "postgres")
    port = free_port()
    data = root / "data"
    try:
        subprocess.run(
            [*as_user, str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
            check=True,
            capture_output=True,
        )
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1"
        subprocess.run(
            [*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-o", options, "-w", "start"],
            check=True,
            capture_output=True,
        )
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"
    finally:
        if data.is_dir():
            subprocess.run(
                [*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], capture_output=True
            )
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def chroma_server(path: Path, port: int = 0) -> Iterator[int]:
    """`chroma run` on loopback (``port``, or a free one) over ``path``; yields the port once the heartbeat
    answers."""
    exe = Path(sys.executable).with_name("chroma")
    port = port or free_port()
    log = (path.parent / "chroma.log").open("wb")
    proc = subprocess.Popen(
        [str(exe), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"chroma run did not start: see {log.name}") from None
                time.sleep(0.3)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def wait_for(url: str, proc: subprocess.Popen[bytes], log: Path, seconds: float = 120) -> None:
    """Return once ``url`` answers; fail naming the server's log when ``proc`` ends or time runs out first."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer:\n" + log.read_text()[-3000:]) from None
            time.sleep(0.3)


def stop_served(proc: subprocess.Popen[bytes], data_dir: Path) -> None:
    """Stop a server started in its own session, and the embedded FalkorDB it started on ``data_dir`` (which
    outlives a killed server by design: the next process reuses it), so nothing is left behind."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
    pid_file = data_dir / "falkordb" / "pid"
    if pid_file.exists():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid_file.read_text()), signal.SIGTERM)
