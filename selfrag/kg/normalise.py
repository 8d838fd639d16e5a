"""One text normaliser for entity names, aliases, questions and documents.

Unicode-compatibility folded (NFKC) and case-folded; every character that is not a letter or a
digit becomes a space, and runs of spaces collapse. Matching on this form makes "Neo4j, Inc."
equal "neo4j inc" and puts word boundaries where any script has them, which ASCII ``\\b`` does not.
"""

from __future__ import annotations

import unicodedata

__all__ = ["normalise", "normalise_with_offsets"]


def normalise_with_offsets(text: str) -> tuple[str, list[int]]:
    """The normal form of ``text`` and, for each of its characters, the index in ``text`` it came from."""
    out: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        folded = unicodedata.normalize("NFKC", ch).casefold()
        for f in folded:
            if f.isalnum():
                out.append(f)
                offsets.append(i)
            elif out and out[-1] != " ":
                out.append(" ")
                offsets.append(i)
    if out and out[-1] == " ":
        out.pop()
        offsets.pop()
    return "".join(out), offsets


def normalise(text: str) -> str:
    """The normal form of ``text`` (see the module docstring)."""
    return normalise_with_offsets(text)[0]
