"""Text at the boundary: what a user or a file may hand the graphs. One check, :func:`unreadable`, run wherever
text enters (the CLI's arguments and files, the page, the LangGraph API, ingested corpora): it refuses control
characters (NUL and the other C0 and C1 codes, tab and line breaks aside: a NUL cut a FalkorDB query in two and
left a case half-written), lone surrogates (``"\\ud800"`` in JSON: writing one out raised UnicodeEncodeError deep
inside a run) and bytes that are not UTF-8 (Python reads such a command-line byte as a surrogate too), each named
with its position."""

from __future__ import annotations

import re
from pathlib import Path

from tools.errors import InputError, JurisError

_UNREADABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_ESCAPED_BYTE = range(0xDC80, 0xDD00)
"""Where Python's ``surrogateescape`` puts a byte that is not UTF-8 (an argument, a file name): U+DC80 + byte."""


def unreadable(text: str) -> str | None:
    """What ``text``'s first unreadable character is and where, as a phrase (``a control character (U+0000 at
    character 6)``, ``a lone surrogate (U+D800 at character 3)``, ``a byte that is not UTF-8 (0xFF at character
    6)``), or None when every character is text."""
    match = _UNREADABLE.search(text)
    if match is None:
        return None
    code, at = ord(match.group()), f"at character {match.start() + 1}"
    if code in _ESCAPED_BYTE:
        return f"a byte that is not UTF-8 (0x{code - 0xDC00:02X} {at})"
    if 0xD800 <= code <= 0xDFFF:
        return f"a lone surrogate (U+{code:04X} {at})"
    return f"a control character (U+{code:04X} {at})"


def check_text(text: str, what: str, error: type[JurisError] = InputError) -> str:
    """``text`` as given, or ``error`` naming ``what`` (``the question``, ``cases.jsonl:7: field fact``) and its
    first unreadable character (:func:`unreadable`)."""
    if problem := unreadable(text):
        raise error(f"{what} holds {problem}: remove it")
    return text


def read_utf8(path: Path, what: str, error: type[JurisError] = InputError) -> str:
    """The text of the file at ``path``; a missing file or one not in UTF-8 is ``error`` naming ``what``, the
    file, and the line and byte of the first undecodable byte."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise error(f"{what} {path} cannot be read: {exc.strerror}") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise error(f"{path}:{line}: {what} is not UTF-8 text (byte {exc.start}); save it as UTF-8") from exc


def visible(text: str) -> str:
    """``text`` with each unreadable character written out (``\\x1b``, ``\\ud800``), for a terminal: a thread id
    holding ESC[2J must not clear the screen of whoever lists the threads, nor a lone surrogate stop the print."""
    return _UNREADABLE.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )
