"""The names of a text: what a follow-up's pronoun can stand for, or put in another's place.

A *name* is a run of capitalised words (joined by a hyphen, the particles of a name, "of", and
ended by a version number: "Ayo Okonkwo-Reyes", "Portrait of Clara Vinter", "Harborlight 3.2"),
or a known value of the collection written with a capital, however the text writes it. An
ordinary English word that opens a sentence starts no name when it stands alone, nor ever when it
opens a question ("Describe Iron Bloom"). A name right after a wh-determiner ("what Java
version", "how much RAM") says what is asked: it is no question's subject.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from selfrag.lang import QUERY_STOP, Token, is_word, tokenize, word_set
from selfrag.lang.questions import AUXILIARIES, REQUEST_VERBS, WH_WORDS

__all__ = ["CLOSED", "Name", "names", "subjects"]

CLOSED = QUERY_STOP | WH_WORDS | frozenset(AUXILIARIES) | REQUEST_VERBS
"""English's closed classes and request verbs: never a name, nor a noun a determiner stands before."""
# A name's own lower-case words ("Jan van Berg"); "of" joins titles and institutions ("Bank of
# Sweden"), "and" never does here: "Iron Bloom and Signal Tower" are two.
_PARTICLES = (word_set("name_particles") | {"of"}) - {"and"}
_VERSION = re.compile(r" (?!\d{4}\b)\d+(?:\.\d+)*\b")  # "Harborlight 3.2", not "Costco 2024": a year qualifies
_WH_DETERMINERS = frozenset(["what", "which", "whose"])


@dataclass(frozen=True)
class Name:
    """A name and where it stands in its text (``end`` excludes a possessive "'s")."""

    text: str
    start: int
    end: int


def _capital(tok: Token) -> bool:
    return tok.text[:1].isupper() and tok.norm not in CLOSED


def _sentence_start(text: str, at: int) -> bool:
    return not text[:at].strip() or text[:at].rstrip()[-1] in ".?!:"


def _joins(text: str, toks: Sequence[Token], j: int) -> bool:
    """Whether token ``j`` continues the name that token ``j - 1`` is part of."""
    prev, tok = toks[j - 1], toks[j]
    gap = text[prev.end : tok.start]
    if prev.text.lower().endswith(("'s", "’s")):
        return False  # a possessive ends its name: "Walmart's revenue"
    if gap in (" ", "-") and _capital(tok):
        return True
    if gap in (". ", ".") and len(prev.text) == 1 and _capital(tok):
        return True  # an initial: "J. R. Moss"
    return (gap == " " and tok.norm in _PARTICLES and j + 1 < len(toks)
            and text[tok.end : toks[j + 1].start] == " " and _capital(toks[j + 1]))


def names(text: str, catalogue: Mapping[str, Sequence[str]], *, question: bool = False) -> list[Name]:
    """The names of ``text``, in order. A ``question`` opens with a
    wh-word, an auxiliary or an imperative's verb ("Describe Iron Bloom"), so an English word that
    opens it starts no name."""
    toks = tokenize(text)
    out: list[Name] = []
    k = 1 if question and toks and is_word(toks[0].norm) else 0
    while k < len(toks):
        if not _capital(toks[k]):
            k += 1
            continue
        j = k + 1
        while j < len(toks) and _joins(text, toks, j):
            j += 1
        start, end = toks[k].start, toks[j - 1].end
        if (version := _VERSION.match(text, end)) is not None:
            end = version.end()
        alone = j == k + 1 and version is None and text[end:].strip()[:1] not in ("", ".", "?", "!")
        if _sentence_start(text, start) and alone and is_word(toks[k].norm):
            k = j  # "Describe the vase", "Bug fixes:": an ordinary word that opens a sentence
            continue
        written = text[start:end]
        if written.lower().endswith(("'s", "’s")):
            written, end = written[:-2], end - 2
        out.append(Name(written, start, end))
        k = j
    for values in catalogue.values():
        for value in values:
            if len(value) > 2 and value[:1].isupper():
                for m in re.finditer(r"\b" + re.escape(value) + r"\b", text, re.IGNORECASE):
                    if not any(n.start < m.end() and m.start() < n.end for n in out):
                        out.append(Name(value, m.start(), m.end()))
    return sorted(out, key=lambda n: n.start)


def _asked(text: str, name: Name) -> bool:
    """Whether ``name`` stands right after a wh-determiner: it says what is asked ("what Java
    version", "how much RAM"), and no pronoun points at it."""
    before = re.findall(r"[A-Za-z]+", text[: name.start])[-2:]
    low = [w.lower() for w in before]
    return bool(low) and (low[-1] in _WH_DETERMINERS or low == ["how", "much"] or low == ["how", "many"])


def subjects(text: str, catalogue: Mapping[str, Sequence[str]]) -> list[Name]:
    """The names of ``text`` a pronoun may point at: all but those that say what is asked."""
    return [n for n in names(text, catalogue, question=True) if not _asked(text, n)]
