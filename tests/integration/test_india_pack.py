"""The India pack end to end through the CLI: six codes and the IPC offence table into stores of their own,
then an English question answered with English prompts and a verbatim IPC Legal Basis."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from agents.common.guidance import where_to_ask
from agents.context import ConsultContext, Context
from agents.state.consult import ConsultInput
from agents.state.ingest import IngestInput
from graphs.consult import build_graph
from graphs.ingest import graph as ingest_graph
from prompts import label
from tests.conftest import SHARED_DATA, run_cli
from tools.llm.fake import FakeChatModel
from tools.services import build_services, set_services
from tools.settings import Settings

pytestmark = pytest.mark.integration

INDIA = SHARED_DATA / "en" / "india"
THEFT = "What is the punishment for theft?"


def _section(number: int) -> str:
    rows = json.loads((INDIA / "ipc.json").read_text(encoding="utf-8"))
    return str(next(r["section_desc"] for r in rows if r["Section"] == number)).strip()


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("india")
    first = run_cli("ingest", "--pack", "india", data_dir=path)
    assert first.returncode == 0, first.stderr
    assert "Ingested 6 law(s): 1983 articles added" in first.stdout
    assert "Offences: 443 offence-table rows linked" in first.stdout  # one table row names a missing section
    return path


def test_ingestion_is_idempotent_and_keeps_the_packs_apart(data_dir: Path) -> None:
    again = run_cli("ingest", "--pack", "india", data_dir=data_dir)
    assert again.returncode == 0, again.stderr
    assert "Nothing to do: all 1983 articles of 6 law(s)" in again.stdout
    china = run_cli("kg", "stats", "--json", data_dir=data_dir)  # the default pack's graph is untouched
    assert china.returncode == 0, china.stderr
    assert json.loads(china.stdout)["nodes"].get("Article", 0) == 0
    shown = run_cli("kg", "show", "IPC:379", data_dir=data_dir, JURIS_PACK="india")
    assert shown.returncode == 0, shown.stderr
    assert "Offence: Theft | punishment: 3 Years or Fine or Both | cognizable, non-bailable" in shown.stdout


def test_english_question_gets_a_verbatim_ipc_legal_basis(data_dir: Path) -> None:
    asked = run_cli("ask", "--lang", "en", "--json", THEFT, data_dir=data_dir)
    assert asked.returncode == 0, asked.stderr
    out = json.loads(asked.stdout)
    basis = {item["article_id"]: item for item in out["legal_basis"]}
    assert "IPC:379" in basis
    assert basis["IPC:379"]["text"] == _section(379)
    assert basis["IPC:379"]["law"] == "Indian Penal Code, 1860" and basis["IPC:379"]["number"] == "Section 379"


class PromptLog(FakeChatModel):
    """The fake model, drafting and finalising in the English answer format."""

    def _reply(self, messages: list[BaseMessage], **kwargs: Any) -> str:
        prompt = str(messages[-1].content)
        if not kwargs.get("response_format") and ("Candidate provisions:" in prompt or prompt.startswith("Turn the")):
            return "Answer: Theft is punished with up to three years [IPC:379].\nCitations: [IPC:379]"
        return super()._reply(messages, **kwargs)


def test_english_runs_use_english_prompts_end_to_end(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    model = PromptLog()
    monkeypatch.setattr("tools.llm.chat._load", lambda spec, settings: model)
    settings = Settings(data_dir=data_dir, pack="india", embeddings="hash", chroma_host="", neo4j_uri="")
    services = build_services(settings)
    set_services(services)
    try:
        ingest_graph.invoke(IngestInput(), context=Context())  # the pack's statutes are already there: a no-op
        out = build_graph().invoke(ConsultInput(question=THEFT), context=ConsultContext(model="fake", language="en"))
    finally:
        set_services(None)
        services.close()
    prompts = [str(call[-1].content) for call in model.calls]
    assert prompts and not any("候选法条" in p or "请" in p for p in prompts)  # no Chinese prompt was sent
    assert any(p.startswith("Extract the legal elements") for p in prompts)
    # The draft, its citation made readable, then where to take the matter and that this is no legal advice.
    tail = where_to_ask(["IPC:379"], "en") + label("notice", "en")
    support = out["evidence"][[e["article_id"] for e in out["evidence"]].index("IPC:379")]["support"]
    chosen = (
        " The legal basis was chosen on the retrieval evidence: Indian Penal Code, 1860, Section 379"
        f" (support {support:.2f})."
    )
    assert out["response"] == "Theft is punished with up to three years (Indian Penal Code, 1860, Section 379)." + tail
    assert out["audit_notes"] == [chosen.strip()]  # how the basis was chosen is the audit's, not the answer's
    assert [item["article_id"] for item in out["legal_basis"]] == ["IPC:379"]
    # Kept on the evidence, its reasons in English.
    assert out["verdicts"][0]["reason"].startswith("kept on the retrieval evidence (support 0.")
