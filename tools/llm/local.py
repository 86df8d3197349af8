"""The embedded chat model: a GGUF file run in-process by llama.cpp (llama-cpp-python).

Structured calls pass ``response_format={"type": "json_object", "schema": ...}``, which llama.cpp turns
into a grammar, so the reply is valid JSON for the schema by construction (checked token by token the cheap
way: tools/llm/lazy_grammar.py). Every recent prompt's KV cache is kept, so a call re-reads no instructions
an earlier call has read (tools/llm/prefix_states.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, PrivateAttr
from typing_extensions import override

from tools.errors import ModelUnavailableError

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


def _to_chat(messages: list[BaseMessage]) -> list[dict[str, str]]:
    return [{"role": _ROLES.get(m.type, "user"), "content": str(m.content)} for m in messages]


class LocalLlamaChat(BaseChatModel):
    """A llama.cpp model as a LangChain chat model (greedy decoding, deterministic for a given file)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    accepts_json_schema: ClassVar[bool] = True

    model_path: str
    n_threads: int = 2
    n_ctx: int = 8192
    max_tokens: int = 768
    temperature: float = 0.0
    repeat_penalty: float = 1.1
    """llama.cpp's command-line default. create_chat_completion defaults to 1.0, and with greedy decoding the
    1.5B model then looped on one phrase (网络安全等级保护制度 a hundred times) in a global-search answer."""
    _llama: Any = PrivateAttr(default=None)
    # llama.cpp contexts are not thread-safe and LangGraph runs parallel branches in threads.
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def from_path(cls, path: Path, n_threads: int, n_ctx: int, prefix_cache_mb: int = 0) -> LocalLlamaChat:
        if not path.is_file():
            raise ModelUnavailableError(
                f"model file {path} not found: run `jurisgraph model install` (or set JURIS_MODEL_PATH, "
                "or choose another provider with JURIS_MODEL)"
            )
        try:
            from tools.llm.engine import LlamaEngine
        except ImportError as exc:
            raise ModelUnavailableError(
                "the local model needs llama-cpp-python: pip install '.[local]' (or `make install`)"
            ) from exc
        chat = cls(model_path=str(path), n_threads=n_threads, n_ctx=n_ctx)
        try:
            chat._llama = LlamaEngine(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                verbose=False,
                seed=0,
                prefix_cache_bytes=prefix_cache_mb << 20,
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelUnavailableError(f"llama.cpp cannot load {path}: {exc}") from exc
        return chat

    @property
    def _llm_type(self) -> str:
        return "llama-cpp-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "temperature": self.temperature, "repeat_penalty": self.repeat_penalty}

    def _request(self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any) -> dict[str, Any]:
        request: dict[str, Any] = {
            "messages": _to_chat(messages),
            "temperature": self.temperature,
            "repeat_penalty": self.repeat_penalty,
            "max_tokens": kwargs.get("max_tokens", self.max_tokens),
            "stop": stop,
        }
        if kwargs.get("response_format"):
            request["response_format"] = kwargs["response_format"]
        return request

    @override
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            self._reset_counters()
            out = self._llama.create_chat_completion(**self._request(messages, stop, **kwargs))
            evaluated = self._evaluated_prompt_tokens()
        text = out["choices"][0]["message"].get("content") or ""
        usage = out.get("usage") or {}
        prompt = int(usage.get("prompt_tokens", 0))
        message = AIMessage(
            content=text,
            usage_metadata={
                "input_tokens": prompt,
                "output_tokens": int(usage.get("completion_tokens", 0)),
                "total_tokens": int(usage.get("total_tokens", 0)),
                "input_token_details": {"cache_read": max(0, prompt - evaluated)},
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _reset_counters(self) -> None:
        import llama_cpp

        llama_cpp.llama_perf_context_reset(self._llama.ctx)

    def _evaluated_prompt_tokens(self) -> int:
        """Prompt tokens llama.cpp actually evaluated in the last call: the rest was a prefix still in its KV
        cache from the call before (llama-cpp-python keeps the longest common prefix)."""
        import llama_cpp

        return int(llama_cpp.llama_perf_context(self._llama.ctx).n_p_eval)

    @override
    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        with self._lock:
            self._reset_counters()
            text, finish = "", None
            for part in self._llama.create_chat_completion(**self._request(messages, stop, **kwargs), stream=True):
                choice = part["choices"][0]
                finish = choice.get("finish_reason") or finish
                delta = choice.get("delta", {}).get("content") or ""
                if not delta:
                    continue
                text += delta
                chunk = ChatGenerationChunk(message=AIMessageChunk(content=delta))
                if run_manager:
                    run_manager.on_llm_new_token(delta, chunk=chunk)
                yield chunk
            # llama.cpp reports no usage when streaming, and parts are not tokens (a Chinese character split
            # over tokens comes as one part). Every generated token but a length-cut last one has been
            # evaluated, so the context holds prompt + reply; the reply's count is its re-tokenised length.
            total = self._llama.n_tokens + (1 if finish == "length" else 0)
            completion = len(self._llama.tokenize(text.encode(), add_bos=False, special=False)) if text else 0
            prompt = total - completion
            usage = {
                "input_tokens": prompt,
                "output_tokens": completion,
                "total_tokens": total,
                "input_token_details": {"cache_read": max(0, prompt - self._evaluated_prompt_tokens())},
            }
            yield ChatGenerationChunk(message=AIMessageChunk(content="", usage_metadata=usage))  # type: ignore[arg-type]
