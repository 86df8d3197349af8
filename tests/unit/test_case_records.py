"""Case files are validated line by line against a typed record before anything is stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tools.corpus.cail import load_cases
from tools.errors import CorpusError

GOOD = {
    "id": "c1",
    "fact": "被告人张某秘密窃取他人手机一部。",
    "articles": [264],
    "charges": ["盗窃"],
    "term_months": 6,
}


def _file(tmp_path: Path, *rows: dict[str, Any]) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"articles": "264"}, "articles"),  # used to become CITES edges to 刑法:2, 4 and 6
        ({"life_imprisonment": "false"}, "life_imprisonment"),  # used to be stored as true
        ({"fact": 12345}, "fact"),
        ({"fact": "   "}, "fact"),
        ({"articles": [99999]}, "articles.0"),
        ({"articles": []}, "articles"),
        ({"term_months": -3}, "term_months"),
        ({"charges": [""]}, "charges.0"),
    ],
)
def test_a_wrongly_typed_field_names_file_line_and_field(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    path = _file(tmp_path, GOOD, {**GOOD, "id": "c2", **change})
    with pytest.raises(CorpusError, match=rf"cases\.jsonl:2: malformed case: field {field}: "):
        load_cases(path)


def test_a_file_in_another_encoding_is_named_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "gbk.jsonl"
    lines = [json.dumps(GOOD, ensure_ascii=False), json.dumps({**GOOD, "id": "c2"}, ensure_ascii=False)]
    path.write_bytes("\n".join(lines).encode("gbk"))
    with pytest.raises(CorpusError, match=r"gbk\.jsonl:1: case file is not UTF-8 text .*save it as UTF-8"):
        load_cases(path)


def test_well_typed_cases_load_as_before(tmp_path: Path) -> None:
    (case,) = load_cases(_file(tmp_path, GOOD))
    assert case.articles == ("刑法:264",) and case.charges == ("盗窃",) and case.term_months == 6
    assert not case.life_imprisonment and case.fine == 0


def test_a_case_without_a_sentence_loads_with_none_not_zero_months(tmp_path: Path) -> None:
    # CMDL's lines carry no term: 0 would read as 免予刑事处罚, a sentence the court did not give.
    unsentenced = {k: v for k, v in GOOD.items() if k != "term_months"}
    exempt = {**GOOD, "id": "c2", "term_months": 0}
    (case, zero) = load_cases(_file(tmp_path, unsentenced, exempt))
    assert case.term_months is None and zero.term_months == 0
    assert case.content_hash != zero.content_hash


def test_a_control_character_in_a_fact_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    path = _file(tmp_path, GOOD, {**GOOD, "id": "c2", "fact": "被告人张某\u0000秘密窃取他人手机一部。"})
    with pytest.raises(CorpusError, match=r"cases\.jsonl:2: field fact holds a control character \(U\+0000 at"):
        load_cases(path)


def test_an_over_long_fact_is_refused_naming_its_line(tmp_path: Path) -> None:
    path = _file(tmp_path, GOOD, {**GOOD, "id": "c2", "fact": "盗" * 100_001})
    with pytest.raises(
        CorpusError, match=r"cases\.jsonl:2: malformed case: field fact: String should have at most"
    ) as raised:
        load_cases(path)
    assert len(str(raised.value)) < 300  # one readable line, not the fact echoed back


def test_a_stopped_command_ends_within_its_grace_even_if_a_call_never_returns() -> None:
    import threading

    from tools.stop import end_soon

    ended: list[int] = []
    done = threading.Event()
    end_soon(0.05, lambda code: (ended.append(code), done.set()))
    assert done.wait(2) and ended == [130]
