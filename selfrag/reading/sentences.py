"""Sentences of a passage, with their character spans: pysbd's rule set, not a regex.

pysbd (Pragmatic Sentence Boundary Disambiguation) knows abbreviations and initials ("the Frank
P. Smith house", "Roe v. Wade", "M.A."), decimals and quoted titles, and splits sentences glued
without a space ("... album, "Purple Rain".Purple Rain is ..."), as HaluEval's passages are.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import NamedTuple

__all__ = ["Sentence", "sentence_spans", "split_sentences"]

_LOCAL = threading.local()


class Sentence(NamedTuple):
    start: int
    end: int
    """Character offsets into the text (``text[start:end]`` is the sentence, trailing space trimmed)."""
    text: str


def _segmenter() -> object:
    seg = getattr(_LOCAL, "segmenter", None)
    if seg is None:
        import pysbd

        seg = pysbd.Segmenter(language="en", clean=False, char_span=True)
        _LOCAL.segmenter = seg  # pysbd keeps per-call state on the instance: one per thread
    return seg


@lru_cache(maxsize=4096)
def sentence_spans(text: str) -> tuple[Sentence, ...]:
    """The sentences of ``text`` in order, each with its span; blank ones dropped."""
    out: list[Sentence] = []
    for part in _segmenter().segment(text):  # type: ignore[attr-defined]
        raw = str(part.sent)
        start = int(part.start)
        lead = len(raw) - len(raw.lstrip())
        body = raw.strip()
        if body:
            out.append(Sentence(start + lead, start + lead + len(body), body))
    return tuple(out)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, whitespace-trimmed."""
    return [s.text for s in sentence_spans(text)]
