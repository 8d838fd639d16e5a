"""The one deterministic guard left beside the critic: a figure in an answer must be in its source.

A trained critic reads "$11.7 billion in revenue" against a passage stating revenue of $611
billion and net income of $11.7 billion as nearly supported; no model of this size reliably
tells 611 from 616 either. Arithmetic does: every figure a claim states (an amount, a count, a
percentage, a year) must be stated by a passage the claim cites, equal within the precision it
was written with (the rounding rules: "$611 billion" is supported by "$611.2 billion", never
the other way round; "2.1 million" by "2,100,000").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from selfrag.lang import MAGNITUDES, UNITS

__all__ = ["Figure", "codes", "figures", "unnamed_codes", "unnamed_phrases", "unsupported_figures"]

# A figure: optional currency, a number (thousands separators allowed), an optional scale or unit.
_FIGURE = re.compile(
    r"(?P<cur>[$€£¥])?\s?(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w.]\d)"
    r"(?:\s?(?P<unit>%|percent\b|per\s+cent\b|thousand\b|million\b|billion\b|trillion\b|bn\b|mn\b|tn\b))?",
    re.IGNORECASE,
)
_MARKER = re.compile(r"\[\d{1,3}\]")


@dataclass(frozen=True)
class Figure:
    """A number as written."""

    value: float
    """In base units: "$611 billion" is 6.11e11."""
    step: float
    """Half the last written digit's place, scaled: "611 billion" is exact to ±0.5e9."""
    percent: bool
    text: str

    def within(self, other: Figure) -> bool:
        """``other`` states this figure to this figure's own precision (and is the same kind)."""
        if self.percent != other.percent:
            return False
        return abs(self.value - other.value) <= self.step + 1e-9 * max(abs(self.value), 1.0)


def figures(text: str) -> list[Figure]:
    """The figures of ``text`` (citation markers are not figures)."""
    found = []
    for m in _FIGURE.finditer(_MARKER.sub(" ", text)):
        raw = m.group("num")
        number = float(raw.replace(",", ""))
        decimals = len(raw.split(".", 1)[1]) if "." in raw else 0
        unit = (m.group("unit") or "").lower().replace(" ", "")
        scale = MAGNITUDES.get(unit, 1.0)  # the pattern admits only scale words, never "k" or "m"
        percent = unit == "%" or unit.startswith("per")
        found.append(Figure(number * scale, 0.5 * 10 ** (-decimals) * scale, percent, m.group(0).strip()))
    return found


def unsupported_figures(claim: str, passages: list[str], *, held: Sequence[Figure] = ()) -> list[str]:
    """The figures of ``claim`` that none of ``passages`` states, as written in the claim.

    ``held``: figures a search filter holds (the bound of "acquired after 1990"): the documents it
    selected satisfy them without stating them, so a claim repeating one is not asked to.
    """
    stated = [f for p in passages for f in figures(p)]
    return [f.text for f in figures(claim) if not any(f.within(g) for g in [*stated, *held])]


# A code: capitals and a number written as one name ("CHEM 210", "SR-71", "MBIO330", "A320").
_CODE = re.compile(r"\b(?P<letters>[A-Z]{2,6})(?P<sep>[ -]?)(?P<num>\d{1,5})\b|\b(?P<one>[A-Z])(?P<num1>\d{2,5})\b")
_WRITTEN_CODE = re.compile(r"(?<![A-Za-z])(?P<letters>[A-Za-z]{1,8})[ -]?(?P<num>\d{1,5})(?!\d)")
_YEAR = re.compile(r"(?:19|20)\d\d")


def codes(question: str) -> list[str]:
    """The codes ``question`` names, as written: capitals and a number that name one thing (a
    course, a part, a model). Not a year after capitals ("FY 2023"), nor a unit's or a currency's
    letters ("USD 500", "20 KG")."""
    found = []
    for m in _CODE.finditer(question):
        letters, num = (m.group("letters"), m.group("num")) if m.group("letters") else (m.group("one"), m.group("num1"))
        if letters.casefold() in UNITS or (m.group("sep") == " " and _YEAR.fullmatch(num)):
            continue
        found.append(m.group(0))
    return found


def _key(letters: str, num: str) -> str:
    return letters.casefold() + num.lstrip("0")


def unnamed_codes(question: str, passages: Sequence[tuple[str, Mapping[str, object]]]) -> list[str]:
    """The codes of ``question`` that none of ``passages`` (text and metadata) names, however it
    spaces them ("ASTR 210", "astr-210", "ASTR210" are one code). A number alone is the figure
    guard's: here the letters and the number must stand together, so "ASTR 210" never vouches for
    "CHEM 210"."""
    named: set[str] = set()
    for text, metadata in passages:
        values = [text, *(str(v) for value in metadata.values()
                          for v in (value if isinstance(value, list) else [value]))]
        for value in values:
            named.update(_key(m.group("letters"), m.group("num")) for m in _WRITTEN_CODE.finditer(value))
    missing = []
    for code in codes(question):
        m = _WRITTEN_CODE.search(code)
        if m is not None and _key(m.group("letters"), m.group("num")) not in named:
            missing.append(code)
    return missing


def unnamed_phrases(phrases: Sequence[str], passages: Sequence[tuple[str, Mapping[str, object]]]) -> list[str]:
    """The ``phrases`` (names the question writes, "Aurora Sport") that none of ``passages`` (text and
    metadata values) writes, up to case and spacing."""
    def squeeze(text: str) -> str:
        return " ".join(re.findall(r"\w+", text.casefold()))

    written = [squeeze(text) for text, _ in passages] + [
        squeeze(str(v)) for _, metadata in passages for value in metadata.values()
        for v in (value if isinstance(value, list) else [value])]
    return [p for p in phrases if not any(f" {squeeze(p)} " in f" {w} " for w in written)]
