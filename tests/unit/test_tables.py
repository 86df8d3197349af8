"""Every table of the law's words (tools/law/*.json, prompts/<lang>/*.json) read one way (tools/law/tables.py): each
declares its schema, every entry that cites the law quotes it as ../shared/data holds it, and a malformed entry
is refused naming its file and entry."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED_DATA, article_texts
from tools.law.charge_families import load_families
from tools.law.elements import load_elements
from tools.law.institutions import Institution
from tools.law.tables import TableError, read_table, read_table_data
from tools.law.thresholds import load_thresholds

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*(ROOT / "tools/law").glob("*.json"), *(ROOT / "prompts").glob("*/*.json")])
TABLES = [p for p in FILES if "schema" in json.loads(p.read_text(encoding="utf-8"))]
NOT_TABLES = {
    # Fitted weights, with their provenance (tools/fitted.py): numbers a fit wrote, not entries a person wrote.
    "charge_model.json", "circumstance_factors.json", "offence_floor.json",
    # Texts the code fills or chooses among, and word lists: no entry of them cites an article or has examples.
    "labels.json", "legal_words.json", "crime_words.json", "article_questions.json", "checklist_words.json",
    # Words a charge's name is read by (acts, generic words) and the charges judgments tell otherwise: held to every
    # labelled judgment by tests/unit/test_table_check.py, not by quotes.
    "named_objects.json",
}  # fmt: skip
INTERPRETATIONS = SHARED_DATA / "zh/interpretations/lawrefbook"


def test_every_table_of_entries_declares_its_schema() -> None:
    assert {p.name for p in FILES} - {p.name for p in TABLES} <= NOT_TABLES
    assert len(TABLES) >= 9


def _sources() -> list[tuple[str, dict[str, str]]]:
    return [(f"{path.name}: {name}", dict(source)) for path in TABLES for name, source in read_table(path).sources()]


SOURCES = _sources()


@pytest.fixture(scope="module")
def articles() -> dict[str, str]:
    return {k: re.sub(r"\s", "", v) for k, v in article_texts().items()}


def _parts(quote: str) -> list[str]:
    """A quote's parts (cut at ……), without the 「」 around it and the marks that end a clause."""
    return [p.strip("；。，：") for p in quote.strip("「」").split("……") if p.strip("；。，：")]


@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_every_entry_quotes_its_source_as_the_shared_data_holds_it(
    name: str, source: dict[str, str], articles: dict[str, str]
) -> None:
    if "interpretation" in source:
        # An interpretation (or standard) named with others (…；…) is checked where the shared data holds it.
        held = [INTERPRETATIONS / f"{s}.md" for s in source["interpretation"].split("；")]
        held = [path for path in held if path.exists()]
        if not held:
            pytest.skip(f"{source['interpretation']} is not among the shared interpretations")
        text = "".join(path.read_text(encoding="utf-8") for path in held)
        lines = [line for line in text.splitlines() if line.startswith(source["article"])]
        assert lines, f"{name}: {source['article']} is not in {source['interpretation']}"
        for part in _parts(source["quote"]):
            assert any(part in line for line in lines) or part in text, f"{name}: {part}"
        return
    cited = re.split("[、，]", source["article"])
    assert all(a in articles for a in cited), f"{name}: {source['article']} is not an article of the corpus"
    for part in _parts(source["quote"]):
        assert any(part in articles[a] for a in cited), f"{name}: 「{part}」 is not the words of {source['article']}"


def test_the_sources_checked_cover_every_table_that_cites_the_law() -> None:
    cited = {name.split(":")[0] for name, _ in SOURCES}
    assert {"elements.json", "thresholds.json", "charge_families.json", "institutions.json"} <= cited
    assert {"decisive_facts.json", "charge_relations.json"} <= cited


def _rewritten(path: Path, change: Any) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    return dict(data)


ELEMENTS = ROOT / "tools/law/elements.json"


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d["elements"][0].pop("article"), r"elements.json entry 1 \(交通肇事\): missing 'article'"),
        (lambda d: d["elements"][0].update(stated=["(死"]), r"\(交通肇事\): stated: a pattern does not compile"),
        (lambda d: d["elements"][0].update(article=133), r"entry 1 \(交通肇事\): article: is not of kind text"),
        (lambda d: d["elements"][0].update(seen=1), r"entry 1 \(交通肇事\): fields the schema does not declare"),
        (lambda d: d["schema"]["fields"].update(why="words"), "an unknown kind"),
        (lambda d: d.pop("schema"), "declares no schema"),
    ],
)
def test_a_malformed_entry_or_schema_is_refused_naming_it(change: Any, named: str) -> None:
    with pytest.raises(TableError, match=named):
        read_table_data(_rewritten(ELEMENTS, change), ELEMENTS.name)


def test_an_unknown_fragment_is_named() -> None:
    path = ROOT / "tools/law/charge_families.json"
    data = _rewritten(path, lambda d: d["families"][0]["members"][0].update(stated=["{NO_SUCH_FRAGMENT}"]))
    with pytest.raises(TableError, match=r"\(侵占财物\): members entry 1 \(贪污\).*unknown fragment"):
        read_table_data(data, path.name)


@pytest.mark.parametrize(
    ("name", "change", "load"),
    [
        ("thresholds.json", lambda d: d["thresholds"][0].update(example_below="盗窃现金5000元。"), load_thresholds),
        ("elements.json", lambda d: d["elements"][0].update(example_missing="驾车撞人致死。"), load_elements),
        ("charge_families.json", lambda d: d["families"][0]["members"][0].update(example="盗窃手机。"), load_families),
    ],
)
def test_an_example_that_does_not_come_out_as_written_names_its_entry(
    tmp_path: Path, name: str, change: Any, load: Any
) -> None:
    bad = tmp_path / name
    bad.write_text(json.dumps(_rewritten(ROOT / "tools/law" / name, change), ensure_ascii=False), encoding="utf-8")
    with pytest.raises(TableError, match=r"entry 1 \(.+\): its example\w* does not come out as written"):
        load(bad)


def test_an_example_is_tried_both_ways() -> None:
    # The institutions' check: a question that speaks of the institution holds, one that is silent fails.
    table = read_table(ROOT / "tools/law/institutions.json")

    def build(entry: Any) -> Institution:
        return Institution(**{k: entry[k] for k in ("name", "law", "first", "last", "words")}, why_article="", why="",
                           speaks="", silent="")  # fmt: skip

    assert table.build(build, Institution.spoken_of)
    with pytest.raises(TableError, match=r"institutions.json entry 1 \(担保物权\): its silent"):
        table.build(build, lambda institution, question: True)
