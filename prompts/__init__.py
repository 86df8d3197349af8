"""Prompt templates, one Markdown file per prompt and language (``prompts/zh/NAME.md``).

Templates use ``$name`` placeholders (``string.Template``), so JSON braces in prompts need no escaping.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from tools.law.tables import Table, read_table


@lru_cache(maxsize=64)
def load_prompt(name: str, lang: str = "zh") -> Template:
    """The template ``prompts/<lang>/<name>.md``; a missing prompt is a FileNotFoundError naming it."""
    path = resources.files(__package__).joinpath(lang, f"{name}.md")
    if not path.is_file():
        raise FileNotFoundError(f"prompt {lang}/{name}.md not found")
    return Template(path.read_text(encoding="utf-8"))


def render_prompt(name: str, lang: str = "zh", **values: object) -> str:
    """Fill a template; every placeholder must be given (a KeyError names the missing one)."""
    return load_prompt(name, lang).substitute({k: str(v) for k, v in values.items()}).strip()


_HEADING = re.compile(r"^([^\n$：:，。,.]{1,40})[：:]", re.MULTILINE)


def without_echoed_headings(reply: str, name: str, lang: str = "zh") -> str:
    """``reply`` without the prompt ``name``'s own section headings (法律依据（条文原文）：, 答复：) it opens with, and
    cut where a later line opens with one: a small model asked for one section often copies the prompt's others."""
    headings = "|".join(re.escape(h) for h in _HEADING.findall(load_prompt(name, lang).template))
    if not headings:
        return reply.strip()
    reply = re.sub(rf"^(?:\s*(?:{headings})\s*[：:])+", "", reply.strip())
    return re.split(rf"^\s*(?:{headings})\s*[：:]", reply, maxsplit=1, flags=re.MULTILINE)[0].strip()


def label(name: str, lang: str = "zh", **values: object) -> str:
    """A short text the code puts into prompts or outputs (``prompts/<lang>/labels.json``), filled like a
    template: the strings that are not whole prompts but still have to be in the answer's language."""
    return Template(load_table("labels", lang)[name]).substitute({k: str(v) for k, v in values.items()})


def prompt_languages() -> list[str]:
    """The languages with a prompt folder (``prompts/<lang>/``)."""
    return sorted(p.name for p in resources.files(__package__).iterdir() if p.is_dir() and not p.name.startswith("_"))


def missing_prompts(lang: str, names: tuple[str, ...]) -> list[str]:
    """Which of the prompts ``names`` ``prompts/<lang>/`` lacks (all of them for a language without a folder)."""
    folder = resources.files(__package__).joinpath(lang)
    return [f"{name}.md" for name in names if not folder.joinpath(f"{name}.md").is_file()]


@lru_cache(maxsize=8)
def load_table(name: str, lang: str = "zh") -> dict[str, Any]:
    """The JSON table ``prompts/<lang>/<name>.json``: texts the code fills or chooses among, in the answer's
    language (``labels``, ``where_to_ask``)."""
    path = resources.files(__package__).joinpath(lang, f"{name}.json")
    if not path.is_file():
        raise FileNotFoundError(f"table {lang}/{name}.json not found")
    return dict(json.loads(path.read_text(encoding="utf-8")))


def declared_table(name: str, lang: str = "zh") -> Table:
    """The table of entries ``prompts/<lang>/<name>.json``, checked against the schema it declares
    (:mod:`tools.law.tables`): consultations' decisive facts, instructions and areas of law."""
    path = resources.files(__package__).joinpath(lang, f"{name}.json")
    if not path.is_file():
        raise FileNotFoundError(f"table {lang}/{name}.json not found")
    return read_table(Path(str(path)))
