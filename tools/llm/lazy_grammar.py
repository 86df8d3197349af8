"""Grammar-constrained greedy decoding that checks the grammar against one token, not the whole vocabulary.

llama-cpp-python puts llama.cpp's grammar sampler in its sampling chain, which tests every one of the
vocabulary's tokens against the grammar at every step: Qwen2.5 has 151,936, and inside a JSON string, where
nearly all are allowed, that took 20-55 ms per token here, about as long as the model's own forward pass.
llama.cpp's own command-line sampler avoids this by testing the unconstrained choice first and constraining
the whole vocabulary only when the grammar rejects it. With greedy decoding the result is the same token
either way (the best allowed token is the best token when the best token is allowed), so the output does
not change; only the time does.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import llama_cpp
import numpy as np

_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)


class LazyGrammar:
    """A llama.cpp grammar sampler consulted for the greedy choice first, the whole vocabulary on a miss.

    It sits in the chain between the penalties and the greedy sampler; it advances its grammar itself, with
    the token it leaves as the unique maximum, because the chain's custom samplers get no accept call."""

    def __init__(self, vocab: Any, grammar: str, root: str) -> None:
        self._grammar = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), root.encode("utf-8"))
        if not self._grammar:
            raise ValueError("llama.cpp could not parse the grammar of the requested JSON schema")
        self._one = (llama_cpp.llama_token_data * 1)()
        self._probe = llama_cpp.llama_token_data_array(data=self._one, size=1, selected=-1, sorted=False)
        self.misses = 0
        """Steps where the greedy token broke the grammar and the whole vocabulary was constrained."""

    def apply(self, cur_p: Any) -> None:
        array = cur_p.contents
        tokens = np.ctypeslib.as_array(
            (ctypes.c_byte * (array.size * _TOKEN_DATA.itemsize)).from_address(ctypes.addressof(array.data.contents))
        ).view(_TOKEN_DATA)
        best = int(np.argmax(tokens["logit"]))
        self._one[0] = llama_cpp.llama_token_data(int(tokens["id"][best]), 0.0, 0.0)
        self._probe.size, self._probe.selected = 1, -1
        llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(self._probe))
        if math.isinf(self._one[0].logit):
            self.misses += 1
            llama_cpp.llama_sampler_apply(self._grammar, cur_p)
            best = int(np.argmax(tokens["logit"]))
        # The greedy sampler after this one must pick exactly the token the grammar has now accepted.
        tokens["logit"][best] = np.inf
        llama_cpp.llama_sampler_accept(self._grammar, int(tokens["id"][best]))

    def __del__(self) -> None:
        if getattr(self, "_grammar", None):
            llama_cpp.llama_sampler_free(self._grammar)
            self._grammar = None
