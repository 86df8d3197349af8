"""``llama_cpp.Llama`` with the two savings this project needs on a CPU, cheap grammar checks and reuse of
every recent prompt's KV cache (not only the last one's), and replies that do not depend on what the
context held before the prompt."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import llama_cpp
from llama_cpp import _internals

from tools.llm.lazy_grammar import LazyGrammar
from tools.llm.prefix_states import PrefixStates, keep_reusable


class LlamaEngine(llama_cpp.Llama):  # type: ignore[misc]
    """Greedy grammar-constrained sampling through :class:`LazyGrammar` (any other sampling keeps
    llama-cpp-python's chain), and prompts started from the saved state sharing their longest prefix
    (:class:`PrefixStates`; ``prefix_cache_bytes=0`` turns that off). Whether a prefix comes from a saved
    state or from the call before, only its aligned part is reused
    (:func:`tools.llm.prefix_states.reusable`), so a reply is the same with or without either."""

    def __init__(self, *args: Any, prefix_cache_bytes: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.prefix_states = PrefixStates(prefix_cache_bytes) if prefix_cache_bytes > 0 else None
        self._prompt_length = 0
        """How many of the tokens the context holds were the last prompt (the rest are its reply)."""

    def generate(  # type: ignore[override]  # forwards the library's keyword arguments unchanged
        self, tokens: Sequence[int], *args: Any, **kwargs: Any
    ) -> Generator[int, Sequence[int] | None, None]:
        if kwargs.get("reset", True):
            if self.prefix_states is not None:
                self._prompt_length = self.prefix_states.before_prompt(self, tokens, self._prompt_length)
            keep_reusable(self, tokens, self._prompt_length)
            self._prompt_length = len(tokens)
        yield from super().generate(tokens, *args, **kwargs)

    def _init_sampler(self, *args: Any, **kwargs: Any) -> Any:
        grammar = kwargs.get("grammar")
        if grammar is None or args or kwargs.get("temp", 0.8) != 0.0 or kwargs.get("logits_processor"):
            return super()._init_sampler(*args, **kwargs)
        sampler = _internals.LlamaSampler()
        sampler.add_penalties(
            n_vocab=self._n_vocab,
            penalty_last_n=self.last_n_tokens_size,
            penalty_repeat=kwargs.get("repeat_penalty", 1.0),
            penalty_freq=kwargs.get("frequency_penalty", 0.0),
            penalty_present=kwargs.get("presence_penalty", 0.0),
        )
        lazy = LazyGrammar(self._model.vocab, grammar._grammar, grammar._root)
        sampler.add_custom(lazy.apply)
        sampler.lazy_grammar = lazy  # type: ignore[attr-defined]  # lives as long as the chain that calls it
        sampler.add_greedy()
        return sampler
