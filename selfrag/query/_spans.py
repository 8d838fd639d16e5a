"""Which parts of a question have been read already, so that no word is read twice.

The rule-based reader reads a question in passes (numbers and years, then named values, then a
result limit, and what is left is the search text). One ``Spans`` per reading, made by
``rules.read_question`` and handed to each pass: a pass skips what an earlier one claimed and
claims what it consumes, so "3" in "3 bedrooms" never also becomes a limit.
"""

from __future__ import annotations

__all__ = ["Span", "Spans"]

Span = tuple[int, int]
"""Character offsets ``(start, end)`` in the question."""


class Spans:
    """The spans claimed so far in one reading of one question."""

    def __init__(self) -> None:
        self._claimed: list[Span] = []

    def free(self, span: Span) -> bool:
        """Whether ``span`` overlaps nothing claimed (touching ends do not overlap)."""
        return not any(span[0] < end and start < span[1] for start, end in self._claimed)

    def claim(self, span: Span) -> None:
        self._claimed.append(span)

    def release(self, span: Span) -> None:
        """Give back a span claimed by a reading a later look at the whole question undid."""
        self._claimed.remove(span)

    def in_order(self) -> list[Span]:
        """Every claimed span, by position."""
        return sorted(self._claimed)
