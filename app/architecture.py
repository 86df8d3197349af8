"""The house map, drawn from the code: for each graph ``langgraph.json`` serves (and each subgraph they embed), its
nodes in the order they were added, the module that holds each, and what that module reads: the tables and fitted
files beside the ``tools/`` modules it uses, the prompts and labels it fills, and the stores it opens.

    python -m app.architecture            # print the map
    python -m app.architecture --write    # write docs/map.md
    python -m app.architecture --check    # exit 1 when docs/map.md is not what the code draws

What a node reads is read from its module and from the ``agents/common`` and ``tools/`` modules it imports, and
theirs (two steps): a file name beside such a module (``thresholds.json``), a ``render_prompt``, ``load_table`` or
``label`` call's name, and each ``get_services()`` store. ``tests/unit/test_architecture_map.py`` fails when the
committed map is stale.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import re
import sys
from functools import cache
from pathlib import Path

from langgraph.pregel import Pregel

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "docs" / "map.md"
_DATA_FILE = re.compile(r"^[\w.-]+\.(?:json|npz)$")
_PROMPT_CALLS = {"render_prompt": "{}.md", "load_table": "{}.json", "declared_table": "{}.json", "label": "labels.json"}
"""Calls that read ``prompts/<language>/``: the file each reads, by its first argument."""


def _graphs() -> dict[str, Pregel]:
    """The graphs ``langgraph.json`` serves, by name."""
    served = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))["graphs"]
    graphs = {}
    for name, spec in served.items():
        path, attribute = spec["path"].split(":")
        module = Path(path).with_suffix("").as_posix().lstrip("./").replace("/", ".")
        graphs[name] = getattr(importlib.import_module(module), attribute)
    return graphs


@cache
def _tree(module: str) -> tuple[ast.Module, Path] | None:
    """The project module's syntax tree and file (None for another package's, or a name no module has)."""
    if module.split(".")[0] not in ("agents", "tools"):
        return None
    try:
        spec = importlib.util.find_spec(module)
    except ModuleNotFoundError:
        return None
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return None
    path = Path(spec.origin)
    return ast.parse(path.read_text(encoding="utf-8")), path


def _imports(module: str) -> list[str]:
    """The project modules ``module`` imports (``from x import y`` counts ``x.y`` when that is a module)."""
    found = _tree(module)
    if found is None:
        return []
    names: list[str] = []
    for node in ast.walk(found[0]):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
            names += [f"{node.module}.{a.name}" for a in node.names if _tree(f"{node.module}.{a.name}")]
    return sorted({n for n in names if _tree(n)})


def _is_services(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "get_services"


def _reads(module: str) -> tuple[set[str], set[str], set[str]]:
    """(data files, prompt files, stores) ``module``'s own code names."""
    found = _tree(module)
    if found is None:
        return set(), set(), set()
    tree, path = found
    files, prompts, stores = set(), set(), set()
    # services = get_services() and then services.vectors: the store is read through the name.
    services = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and _is_services(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _DATA_FILE.match(node.value):
            if (path.with_name(node.value)).is_file():
                files.add(path.with_name(node.value).relative_to(ROOT).as_posix())
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _PROMPT_CALLS:
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                prompts.add(_PROMPT_CALLS[node.func.id].format(first.value))
        elif isinstance(node, ast.Attribute) and (
            _is_services(node.value) or (isinstance(node.value, ast.Name) and node.value.id in services)
        ):
            stores.add(node.attr)
    # Settings are the environment's choices, not a store.
    return files, prompts, stores - {"settings"}


DEPTH = 2
"""Imports followed from a node's module: the modules it imports and theirs (keep_basis reads institutions.json
through tools.retrieval.conditional); deeper, every node would "read" what the shared helpers import."""


def node_reads(module: str) -> tuple[list[str], list[str], list[str]]:
    """What the node module ``module`` reads: its own names and those of the ``agents/common`` and ``tools/`` modules
    it imports, and theirs (:data:`DEPTH`; never through ``tools.services``, which opens every store)."""
    files: set[str] = set()
    prompts: set[str] = set()
    stores: set[str] = set()
    seen, layer = {module}, [module]
    for depth in range(DEPTH + 1):
        following = []
        for current in layer:
            more = _reads(current)
            files, prompts, stores = files | more[0], prompts | more[1], stores | more[2]
            for used in _imports(current) if depth < DEPTH else []:
                if used.startswith(("agents.common", "tools.")) and used != "tools.services" and used not in seen:
                    seen.add(used)
                    following.append(used)
        layer = following
    return sorted(files), sorted(prompts), sorted(stores)


def _section(name: str, graph: Pregel, subgraphs: dict[str, Pregel]) -> list[str]:
    """The graph's table: one row per module, its nodes in the order the graph adds them (a module's reads are read
    for the module, not per function)."""
    rows: dict[str, list[str]] = {}
    for node, spec in graph.builder.nodes.items():  # type: ignore[attr-defined]
        runnable = spec.runnable
        if isinstance(runnable, Pregel):
            subgraphs.setdefault(runnable.name, runnable)
            rows.setdefault(f"subgraph `{runnable.name}` (below)", []).append(node)
            continue
        function = getattr(runnable, "func", None) or getattr(runnable, "afunc", None)
        rows.setdefault(f"`{getattr(function, '__module__', '')}`", []).append(node)
    header = "| nodes | module | tables and fitted files | prompts (prompts/<language>/) | services (stores, models) |"
    lines = [f"## {name}", "", header, "|---|---|---|---|---|"]
    for module, nodes in rows.items():
        reads = node_reads(module.strip("`")) if module.startswith("`") else ([], [], [])
        cells = [", ".join(f"`{x}`" for x in items) for items in reads]
        lines.append(f"| {', '.join(nodes)} | {module} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def draw() -> str:
    """The map as docs/map.md holds it."""
    lines = [
        "# Map: graph → node → module → what it reads",
        "",
        "Drawn from the code by `python -m app.architecture --write` (`app/architecture.py` says how); do not edit by",
        "hand: `tests/unit/test_architecture_map.py` fails when this file is not what the code draws. Services are the",
        "`get_services()` attributes a module opens (`graph`: the knowledge graph's store; `statutes`, `vectors`, …:",
        "tools/services.py). What a module reads is read for the whole module: every node it holds shares its row.",
        "Layers and where each kind of file lives: docs/architecture.md.",
        "",
    ]
    subgraphs: dict[str, Pregel] = {}
    for name, graph in _graphs().items():
        lines += _section(name, graph, subgraphs)
    drawn: set[str] = set()
    while pending := [n for n in subgraphs if n not in drawn]:
        for name in pending:
            drawn.add(name)
            lines += _section(f"{name} (subgraph)", subgraphs[name], subgraphs)
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write docs/map.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when docs/map.md is stale")
    args = parser.parse_args()
    text = draw()
    if args.write:
        MAP.write_text(text, encoding="utf-8")
    elif args.check:
        if not MAP.is_file() or MAP.read_text(encoding="utf-8") != text:
            sys.exit(f"{MAP.relative_to(ROOT)} is stale: run python -m app.architecture --write")
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
