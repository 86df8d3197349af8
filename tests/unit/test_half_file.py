"""benchmarks/half_file.py: the half of a data file a measurement KB may hold."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tools.corpus.halves import half_of
from tools.errors import InputError

_SPEC = importlib.util.spec_from_file_location("half_file", Path(__file__).parents[2] / "benchmarks/half_file.py")
assert _SPEC is not None and _SPEC.loader is not None
half_file = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(half_file)


def test_each_line_goes_to_the_half_the_eval_measures_it_in(tmp_path: Path) -> None:
    data = tmp_path / "cases.jsonl"
    lines = [json.dumps({"id": f"cmdl-{n}", "fact": f"事实{n}"}, ensure_ascii=False) for n in range(40)]
    data.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    tune, report = half_file.half_lines(data, "tune"), half_file.half_lines(data, "report")
    assert tune and report and sorted(tune + report) == sorted(lines)
    assert {half_of(json.loads(line)["id"]) for line in tune} == {"tune"}


def test_a_line_without_an_id_is_named(tmp_path: Path) -> None:
    data = tmp_path / "cases.jsonl"
    data.write_text('{"id": "a"}\n{"fact": "无编号"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"cases\.jsonl:2"):
        half_file.half_lines(data, "tune")
