"""Errors a user can act on. Each carries the process exit code the CLI uses for it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class JurisError(Exception):
    """Base class: a problem with input, configuration or an external component, not a bug."""

    exit_code = 1


class InputError(JurisError):
    """The user's input (question, law name, file) is unusable as given."""

    exit_code = 2


class StoreUnavailableError(JurisError):
    """The graph store or vector store cannot be reached or started."""

    exit_code = 3


class StoreDamagedError(StoreUnavailableError):
    """A store's own files are damaged: starting it again cannot help, repairing or rebuilding can."""


class ModelUnavailableError(JurisError):
    """The chat or embedding model cannot be loaded (missing file, missing package, bad spec)."""

    exit_code = 4


class CorpusError(JurisError):
    """A corpus file is missing or malformed."""

    exit_code = 5


class StructuredOutputError(JurisError):
    """The model kept returning output that does not validate against the requested schema."""

    exit_code = 6

    def __init__(self, message: str, usage: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.usage = dict(usage or {})
        """Tokens spent on the failed attempts, so the run's ledger stays complete."""


def listing(names: Sequence[str], limit: int = 10) -> str:
    """Names for a message: the first ``limit`` and how many there are, so a long list stays readable."""
    return ", ".join(names[:limit]) + (f" … ({len(names)} in all)" if len(names) > limit else "")
