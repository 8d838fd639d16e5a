"""Numbers written as words, and the scale words and suffixes written after numbers.

Compositions ("twenty five", "two hundred thousand") are parsed by text2num; this module only
says which words take part and what each one is worth alone.
"""

from __future__ import annotations

__all__ = ["MAGNITUDES", "NUMBER_PHRASES", "NUMBER_WORDS"]

NUMBER_WORDS: dict[str, int] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000, "million": 1000000,
    "billion": 1000000000, "dozen": 12, "couple": 2, "pair": 2,
}  # fmt: skip
"""Words that are (part of) a number, each with its value alone."""

NUMBER_PHRASES: dict[str, int] = {"a couple of": 2, "a couple": 2, "a pair of": 2, "a dozen": 12}
"""Phrases people use for small counts ("a couple of movies"), longest first."""

MAGNITUDES: dict[str, float] = {
    "k": 1e3, "thousand": 1e3, "grand": 1e3, "m": 1e6, "mm": 1e6, "mil": 1e6, "mio": 1e6, "mn": 1e6,
    "million": 1e6, "millions": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9, "trillion": 1e12, "tn": 1e12,
}  # fmt: skip
"""Scale words and suffixes after a number: "150k", "1.2 million", "100 grand", "$3 tn"."""
