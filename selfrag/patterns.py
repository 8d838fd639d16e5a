"""User-supplied regular expressions, run by a linear-time engine (RE2).

A schema's extractors are patterns written by whoever creates a collection, and they run over
every document ingested into it. Python's ``re`` backtracks: ``(a+)+$`` over 29 characters takes
half a minute, over 40,000 it never ends, and it holds the GIL all the while, so one such
document froze a whole server. RE2 (``google-re2``) matches in time linear in the text, releases
the GIL while it matches, and refuses at compile time what it cannot run that way, so a pattern
is checked once, when the schema is declared, and can then never hang an ingest.

RE2's syntax is Python's minus the features that need backtracking: no lookahead/lookbehind
(``(?=``, ``(?<=``), no backreferences (``\\1``), no possessive or atomic groups, no ``(?x)``;
``\\z`` ends the text (Python's ``\\Z``). ``\\w``, ``\\d``, ``\\s`` and ``\\b`` are ASCII; use
``\\p{L}``/``\\p{N}`` for letters and digits of any script. Without ``MULTILINE``, ``$`` matches
only at the very end of the text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, Protocol

import re2

__all__ = ["MAX_PATTERN_CHARS", "CompiledPattern", "PatternFlag", "PatternMatch", "compile_pattern"]

MAX_PATTERN_CHARS = 1000
"""Longest pattern accepted: extractors are short, and a cap keeps compilation cheap."""

PatternFlag = Literal["IGNORECASE", "MULTILINE", "DOTALL"]

_INLINE = {"IGNORECASE": "i", "MULTILINE": "m", "DOTALL": "s"}

# RE2's own messages name the construct; these say why it is refused and what to write instead.
_HINTS = (
    ("invalid perl operator: (?=", "lookahead '(?=' is not supported"),
    ("invalid perl operator: (?!", "negative lookahead '(?!' is not supported"),
    ("invalid perl operator: (?<=", "lookbehind '(?<=' is not supported"),
    ("invalid perl operator: (?<!", "negative lookbehind '(?<!' is not supported"),
    ("invalid perl operator: (?>", "atomic groups '(?>' are not supported"),
    ("invalid escape sequence: \\Z", "write the end of text as '\\z', not '\\Z'"),
    *((f"invalid escape sequence: \\{d}", "backreferences are not supported") for d in "123456789"),
    ("invalid repetition size", "repetition counts above 1000 are not supported"),
    ("pattern too large", "the pattern compiles to more than the engine's memory limit; simplify it"),
)


class PatternMatch(Protocol):
    def group(self, group: int | str = 0, /) -> str | None: ...


class CompiledPattern(Protocol):
    """What the extractors use of a compiled pattern (RE2's mirrors ``re.Pattern``)."""

    @property
    def groups(self) -> int: ...

    @property
    def groupindex(self) -> dict[str, int]: ...

    def search(self, text: str) -> PatternMatch | None: ...


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would print every rejected pattern to stderr
    return options


def compile_pattern(pattern: str, flags: Iterable[PatternFlag] = ()) -> CompiledPattern:
    """Compile ``pattern`` for RE2, with ``flags`` as inline modifiers.

    Raises:
        ValueError: the pattern is too long, or RE2 cannot compile it (the message says which
            construct and why, never just "bad pattern").
    """
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"the pattern is {len(pattern)} characters long; the limit is {MAX_PATTERN_CHARS}")
    modifiers = "".join(sorted({_INLINE[f] for f in flags}))
    source = f"(?{modifiers}){pattern}" if modifiers else pattern
    try:
        compiled: CompiledPattern = re2.compile(source, _options())
    except re2.error as exc:
        raise ValueError(_explain(exc)) from None
    return compiled


def _explain(exc: Exception) -> str:
    raw = exc.args[0] if exc.args else ""
    reason = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    reason = " ".join(reason.split()) or "it does not compile"
    for needle, hint in _HINTS:
        if needle in reason:
            return f"{hint} (extractors run on the linear-time regex engine RE2, which says: {reason})"
    return f"the pattern does not compile for the linear-time regex engine (RE2): {reason}"
