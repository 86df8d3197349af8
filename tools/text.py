"""Text at the boundary: what a user or a file may hand the graphs. Control characters (NUL and the other C0
and C1 codes, tab and line breaks aside) are refused where text enters, with its position: a NUL cut a
FalkorDB query in two and left a case half-written."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def control_character(text: str) -> str | None:
    """Where ``text``'s first control character is and which it is (``U+0000 at character 6``), or None."""
    match = _CONTROL.search(text)
    return None if match is None else f"U+{ord(match.group()):04X} at character {match.start() + 1}"


def visible(text: str) -> str:
    """``text`` with each control character written out (``\\x1b``), for a terminal: a thread id holding
    ESC[2J must not clear the screen of whoever lists the threads."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)
