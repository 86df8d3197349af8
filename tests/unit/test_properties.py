"""No input makes question validation, case-record parsing or citation parsing raise anything but the
project's own errors (property-based, hypothesis)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.common.question import validate_question
from tools.corpus.cail import load_cases
from tools.errors import CorpusError, InputError
from tools.law.articles import parse_citations

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
CASE_FIELDS = st.fixed_dictionaries(
    {},
    optional={key: JSON for key in ("id", "fact", "articles", "charges", "term_months", "life_imprisonment", "fine")},
)


@given(st.text(), st.integers(min_value=1, max_value=50))
def test_question_validation_raises_only_input_errors(text: str, limit: int) -> None:
    try:
        out = validate_question(text, limit)
    except InputError:
        return
    assert out == text.strip() and 0 < len(out) <= limit


@given(st.text())
def test_citation_parsing_never_raises(text: str) -> None:
    ids = parse_citations(text)
    assert all(isinstance(i, str) and ":" in i for i in ids) and len(ids) == len(set(ids))


# Each example writes and reads a file: on a loaded 2-core machine one took 222 ms, past the 200 ms default
# deadline, which this test is not about.
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=150, deadline=None)
@given(st.lists(CASE_FIELDS | JSON, min_size=1, max_size=3), st.binary(max_size=8))
def test_case_files_raise_only_corpus_errors(tmp_path: Path, rows: list[object], junk: bytes) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b"\n".join(json.dumps(r).encode() for r in rows) + b"\n" + junk)
    try:
        cases = load_cases(path)
    except CorpusError:
        return
    assert all(c.fact.strip() and c.articles for c in cases)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["model", "models", "top_k", "audit", "max_rounds", "profile", "x"]), JSON))
def test_an_api_context_is_taken_or_named_never_a_traceback(context: dict[str, object]) -> None:
    from app.server import context_problem

    for graph in ("consult", "judge", "global_search", "ingest"):
        problem = context_problem(graph, context)
        assert problem is None or (isinstance(problem, str) and problem)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(st.lists(st.fixed_dictionaries({}, optional={k: JSON for k in ("id", "question", "answer")}), min_size=1))
def test_a_consultation_file_loads_or_is_named_never_a_traceback(tmp_path: Path, rows: list[dict[str, object]]) -> None:
    from tools.corpus.consultations import load_consultations

    path = tmp_path / "consultations.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    try:
        load_consultations(path)
    except CorpusError as exc:
        assert "consultations.jsonl" in str(exc)
