"""Text every store can hold: the one check for strings a run writes to a thread's checkpoints.

Postgres refuses a NUL character in text and JSON (``UntranslatableCharacter``), and a lone UTF-16
surrogate (what a byte that is not UTF-8 becomes in a command-line argument) has no UTF-8 at all,
so neither Postgres, SQLite nor Chroma can take it. Such a character in a question or a thread
id is bad input, refused before anything runs: found only when the checkpoint was written, it was
a 503 ``store_unavailable``, an outage that invites retries forever (and, without a thread, a
200, since nothing was stored).
"""

from __future__ import annotations

import re

__all__ = ["unstorable"]

_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


def unstorable(text: str) -> str | None:
    """The first character of ``text`` no store can hold, described for a message (``a NUL
    character``, ``an unpaired surrogate (U+D800)``); None when there is none."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    char = found.group()
    return "a NUL character" if char == "\x00" else f"an unpaired surrogate (U+{ord(char):04X})"
