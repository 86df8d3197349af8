"""The law's pattern tables (thresholds, elements, charge relations): the errors by which a malformed entry is named.

Each table is data loaded at import and checked entry by entry; an entry missing a key, or holding a pattern that
does not compile, fails with the table's own error naming the entry, not with a bare KeyError from deep inside.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def entry_errors(where: str, error: type[ValueError]) -> Iterator[None]:
    """Raise ``error`` naming ``where`` for a key the entry lacks or a pattern of it that does not compile."""
    try:
        yield
    except KeyError as exc:
        raise error(f"{where}: missing {exc}") from exc
    except re.error as exc:
        raise error(f"{where}: a pattern does not compile: {exc}") from exc
