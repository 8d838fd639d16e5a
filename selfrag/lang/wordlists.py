"""The hand-written word lists, read from ``words.toml``: one data file, each list with the phrase
that justifies every entry (``tests/lang/test_words.py`` reads it and checks each one).

A list is named by its table in the file, dotted for a nested one ("dimension_words.money").
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["word_lists", "word_map", "word_set"]


@cache
def word_lists() -> dict[str, Any]:
    """The whole file, parsed (lists with their ``about``, ``check`` and ``words``)."""
    text = resources.files("selfrag.lang").joinpath("words.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _words(name: str) -> Any:
    table: Any = word_lists()
    for part in name.split("."):
        table = table[part]
    return table["words"]


def word_set(name: str) -> frozenset[str]:
    """The entries of a list of words."""
    words = _words(name)
    if not isinstance(words, list):
        raise TypeError(f"word list {name!r} is a table, not a list")
    return frozenset(str(w) for w in words)


def word_map(name: str) -> dict[str, str]:
    """The entries of a table of words, in the file's order, with their values."""
    words = _words(name)
    if not isinstance(words, dict):
        raise TypeError(f"word list {name!r} is a list, not a table")
    return {str(k): str(v) for k, v in words.items()}
