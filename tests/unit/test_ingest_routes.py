"""The ingest graph's routing: each optional stage runs exactly when asked for."""

from __future__ import annotations

import pytest

from agents.state.ingest import IngestState
from graphs.ingest import (
    route_after_cases,
    route_after_charges,
    route_after_consultations,
    route_after_interpretations,
    route_after_statutes,
    route_start,
)


@pytest.mark.parametrize(
    ("request_", "after_statutes"),
    [
        ({}, "__end__"),
        ({"interpretations": "dir"}, "link_charges"),
        ({"cases": ["a.jsonl"], "ontology": "lexical"}, "load_cases"),
        ({"ontology": "lexical"}, "build_ontology"),  # over the cases already stored
        ({"consultations": ["q.jsonl"], "ontology": "lexical"}, "load_consultations"),
    ],
)
def test_stages_after_statutes(request_: dict[str, object], after_statutes: str) -> None:
    assert route_after_statutes(IngestState(**request_)) == after_statutes  # type: ignore[arg-type]


def test_later_routes() -> None:
    assert route_start(IngestState(reset=True)) == "reset_stores"
    assert route_after_interpretations(IngestState(cases=["a"])) == "load_cases"
    assert route_after_interpretations(IngestState(ontology="llm")) == "build_ontology"
    assert route_after_cases(IngestState()) == "__end__"
    assert route_after_cases(IngestState(consultations=["q.jsonl"])) == "load_consultations"
    assert route_after_consultations(IngestState(consultations=["q.jsonl"])) == "__end__"
    assert route_after_consultations(IngestState(ontology="lexical")) == "build_ontology"


def test_charges_only_skips_the_interpretation_chunks() -> None:
    assert route_after_charges(IngestState(interpretations="dir")) == "load_interpretations"
    assert route_after_charges(IngestState(interpretations="dir", charges_only=True)) == "__end__"
    only_charges = IngestState(interpretations="dir", charges_only=True, cases=["a.jsonl"])
    assert route_after_charges(only_charges) == "load_cases"
