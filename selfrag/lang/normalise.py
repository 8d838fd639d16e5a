"""The one text normaliser: how any two spellings of a word or name are compared.

Compatibility-folded (NFKC), case-folded, accents stripped, a possessive "'s" dropped, and every
character that is not a letter or a digit turned into a single space. So "Société Générale" equals
"societe generale", "McDonald's" equals "mcdonald" (the entity, the catalogue value and the
question's word agree), "Neo4j, Inc." equals "neo4j inc", and "Sci-Fi!" is "sci fi".

Two choices are deliberate:

- **Accents fold.** People type names without them ("Societe Generale", "Pokemon"); a match
  that needs the accent loses more than it keeps apart (two names differing only by an accent
  are rare).
- **A possessive "'s" goes.** "McDonald's menu" names McDonald's; keeping the "s" as a word
  ("mcdonald s") makes the name fail to match its own possessive form. Other apostrophes join
  their word ("aren't" → "aren t" here, "arent" as one token, see ``tokens``).
"""

from __future__ import annotations

import re
import unicodedata

import simplemma

__all__ = ["identifier_words", "is_word", "normalise", "normalise_with_offsets", "words"]

_POSSESSIVE = re.compile(r"['’]s\b", re.IGNORECASE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _fold(ch: str) -> str:
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", ch).casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def normalise_with_offsets(text: str) -> tuple[str, list[int]]:
    """The normal form of ``text`` and, for each of its characters, the index in ``text`` it came from."""
    dropped = {i for m in _POSSESSIVE.finditer(text) for i in range(m.start(), m.end())}
    out: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        if i in dropped:
            continue
        for f in _fold(ch):
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
    """The normal form of ``text`` (see the module docstring): ``"Sci-Fi!"`` → ``"sci fi"``."""
    return normalise_with_offsets(text)[0]


def words(text: str) -> list[str]:
    """The normalised words of ``text``."""
    return normalise(text).split()


def identifier_words(name: str) -> list[str]:
    """The words of an identifier, snake or camel case: ``"yearBuilt"``, ``"year_built"`` → ``["year", "built"]``."""
    return words(_CAMEL.sub(" ", name))


def is_word(word: str) -> bool:
    """Whether ``word`` is an English word (in simplemma's English data), not a coined name ("Fairphone")."""
    return bool(simplemma.is_known(word, lang="en"))
