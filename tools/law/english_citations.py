"""Citations of the India pack's codes in English prose ("Section 379 of the Indian Penal Code")."""

from __future__ import annotations

import re

ALIASES = {
    "IPC": ("Indian Penal Code", "Penal Code", "IPC", "I.P.C."),
    "CrPC": ("Code of Criminal Procedure", "Criminal Procedure Code", "CrPC", "Cr.P.C.", "Cr.P.C"),
    "IEA": ("Indian Evidence Act", "Evidence Act", "IEA"),
    "CPC": ("Code of Civil Procedure", "Civil Procedure Code", "CPC", "C.P.C."),
    "IDA": ("Indian Divorce Act", "Divorce Act", "IDA"),
    "Constitution": ("Constitution of India", "Indian Constitution", "Constitution"),
}
"""How English prose names each code ("Section 379 of the Indian Penal Code", "IPC Section 379")."""
_ACT_NAMES = "|".join(sorted((re.escape(a) for names in ALIASES.values() for a in names), key=len, reverse=True))
_UNIT = r"(?:Sections?|Secs?\.|Ss?\.|Articles?|Arts?\.)"
_NUMBER = r"\d+[A-Z]{0,2}\b"
_NUMBERS = rf"({_NUMBER}(?:\s*(?:,|and|&|or)\s*{_NUMBER})*)"
_PROSE_RES = (
    # Section 379 of the Indian Penal Code / Sections 378 and 379, IPC / Section 379 IPC
    re.compile(rf"{_UNIT}\s*{_NUMBERS}\s*(?:,|of)?\s*(?:the\s+)?({_ACT_NAMES})", re.IGNORECASE),
    # IPC Section 379 / Indian Penal Code, Sections 378 and 379
    re.compile(rf"({_ACT_NAMES})\s*,?\s*{_UNIT}\s*{_NUMBERS}", re.IGNORECASE),
)
_LISTED_RE = re.compile(_NUMBER)
_BY_ALIAS = {a.lower(): short for short, names in ALIASES.items() for a in names}


def prose_citations(text: str) -> list[tuple[int, str]]:
    """(position, id) of every provision English prose names: "Section 379 of the IPC" -> IPC:379. The
    number-first form wins where the two overlap ("s. 41 CrPC, Article 21 of the Constitution")."""
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for first, pattern in enumerate(_PROSE_RES):
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            numbers, act = (m.group(1), m.group(2)) if first == 0 else (m.group(2), m.group(1))
            taken.append(m.span())
            for number in _LISTED_RE.findall(numbers):
                found.append((m.start(), f"{_BY_ALIAS[act.lower()]}:{number.upper()}"))
    return found
