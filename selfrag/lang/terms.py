"""Terms: the words a text is counted and matched by, in order, repeats kept.

Numbers keep their digits with thousands separators removed ("1,000" → "1000"), so a figure
written either way matches; words are normalised, stopped and reduced to their ``term`` form.
The lexical index stores these (``selfrag.retrieval.terms``) and the graders' overlap signals
compare them (``selfrag.text``), each with its own stop list.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from selfrag.lang.forms import term
from selfrag.lang.normalise import normalise

__all__ = ["terms"]

_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_WORD = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|[^\W\d_]+")


def terms(text: str, stop: Collection[str]) -> list[str]:
    """The terms of ``text`` in order, repeats kept, none in ``stop``."""
    # Numbers are read on the raw text: normalising first would split "1,200" into "1" and "200".
    out: list[str] = []
    for match in _WORD.finditer(text):
        token = match.group()
        if _NUMBER.fullmatch(token):
            out.append(token.replace(",", ""))
            continue
        for word in normalise(token).split():
            found = term(word) if word not in stop and len(word) > 1 else ""
            if found and found not in stop:  # "aren't" → "aren" → "be"
                out.append(found)
    return out
