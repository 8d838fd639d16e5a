"""Tokens of a question: words and the symbols filters care about, with their place and folded forms."""

from __future__ import annotations

import re
from dataclasses import dataclass

from selfrag.lang.forms import lemma
from selfrag.lang.normalise import normalise

__all__ = ["Token", "tokenize"]

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?|[<>]=|[$€£¥%+<>=≤≥]")


@dataclass(frozen=True)
class Token:
    """One word or symbol of a question, with its place and its folded forms."""

    text: str
    start: int
    end: int
    norm: str
    """Normalised (``selfrag.lang.normalise``) and joined: "aren't" → "arent", "McDonald's" → "mcdonald"."""
    lemma: str
    """Dictionary form of ``norm`` ("comedies" → "comedy"); ``norm`` for symbols and numbers."""


def tokenize(text: str) -> list[Token]:
    """Words (letters and digits; an inner apostrophe kept) and the symbols filters care about."""
    out = []
    for m in _TOKEN.finditer(text):
        norm = normalise(m.group()).replace(" ", "") or m.group()
        out.append(Token(m.group(), m.start(), m.end(), norm, lemma(norm)))
    return out
