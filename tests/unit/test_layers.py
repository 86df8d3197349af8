"""The import direction: app -> graphs -> agents -> tools, read from every module's imports with ``ast``.

Every import counts, also those inside functions and under TYPE_CHECKING. Stricter than
../shared/tools/layers.py: inside tools/, subpackages are layered too; graphs/ import agents only (wiring);
the modules nodes share (agents.state, agents.context, agents.common) import no node module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOP = {"tools": 0, "prompts": 0, "agents": 1, "graphs": 2, "app": 3}
TOOLS = {
    **dict.fromkeys(("errors", "atomic", "caches", "stop", "packs", "settings", "fitted", "text"), 0),
    "law": 1,
    "llm": 2,
    "corpus": 3,
    "kb": 4,
    "retrieval": 5,
    "pipelines": 6,
    "services": 7,
}
"""tools/ from the bottom up: base modules, legal ids and names, models, corpus readers, the knowledge graph,
vector and lexical retrieval, the pipelines that feed both, and the registry that opens them all."""
SHARED_BY_NODES = ("agents.state", "agents.context", "agents.common")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for top in TOP for p in sorted((REPO / top).rglob("*.py"))}


MODULES = project_modules()


def imports_of(path: Path) -> set[str]:
    """Project modules ``path`` imports (``from a import b`` counts as ``a.b`` when that is a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name in MODULES}


EDGES = {name: imports_of(path) for name, path in MODULES.items()}


def edges() -> Iterator[tuple[str, str]]:
    for source, targets in EDGES.items():
        for target in targets:
            yield source, target


def within(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def tools_rank(name: str) -> int:
    return TOOLS[name.split(".")[1]] if name.count(".") else -1


def test_every_tools_module_has_a_layer() -> None:
    assert {n.split(".")[1] for n in MODULES if n.startswith("tools.")} <= set(TOOLS)


def test_no_module_imports_a_layer_above_it() -> None:
    upward = [f"{s} -> {t}" for s, t in edges() if TOP[t.split(".")[0]] > TOP[s.split(".")[0]]]
    assert upward == []


def test_tools_subpackages_import_only_downward() -> None:
    upward = [
        f"{s} -> {t}"
        for s, t in edges()
        if s.startswith("tools.") and t.startswith("tools.") and tools_rank(t) > tools_rank(s)
    ]
    assert upward == []


def test_graphs_only_wire_agents() -> None:
    assert [f"{s} -> {t}" for s, t in edges() if s.startswith("graphs.") and not within(t, "agents", "graphs")] == []


def test_no_agent_imports_another_agent() -> None:
    def node_module(name: str) -> bool:
        return name.startswith("agents.") and not within(name, *SHARED_BY_NODES)

    borrowed = [f"{s} -> {t}" for s, t in edges() if node_module(t) and within(s, "agents") and s != t]
    assert borrowed == []


def test_there_are_no_import_cycles() -> None:
    def cycle_from(start: str) -> list[str] | None:
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in EDGES[node]:
                if nxt == start:
                    return [*path, start]
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
        return None

    assert [cycle for name in MODULES if (cycle := cycle_from(name))] == []


@pytest.mark.parametrize("source", ["agents/auditor.py", "tools/kb/statutes.py"])
def test_the_rule_sees_a_planted_upward_import(source: str, tmp_path: Path) -> None:
    # The checks above are only as good as imports_of: it must see a lazy import inside a function.
    planted = tmp_path / "planted.py"
    planted.write_text((REPO / source).read_text(encoding="utf-8") + "\n\ndef f():\n    from app.cli import main\n")
    assert "app.cli.main" in imports_of(planted)
