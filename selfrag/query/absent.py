"""Codes a question names that no record has: "What did INC-2099 cost?" of incidents INC-2001 to INC-2041.

Without this, such a question searches without its code and reads another record's figure: the
cost of INC-2038, shown (flagged) as the answer about INC-2099. The useful answer is that no record
has that identifier.

Which words are codes of an attribute is learnt from its known values, not from a
pattern written here: a value's *shape* is its letters as written, each run of digits as one class
and its separators ("INC-2014" → ``INC-#``, "CS 202" → ``CS #``, "EQ-2023-0412" → ``EQ-#-#``). A
word of the question with a shape that several known values share, that is not itself a known
value of any attribute, names a record the catalogue does not know. Only a shape with letters is
taken: a bare number is a count, a year or a price as often as a code.

The catalogue is the planner's only knowledge; whether the code is truly absent (the catalogue
may be incomplete, a passage may write the code without a record having it) is for the store to
say (``workflows.plan_nodes``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from selfrag.schema import CollectionSchema

__all__ = ["Absent", "absent_identifiers", "code_key", "written_in"]

_RUN = re.compile(r"[A-Za-z]+|\d+|[ \-/._]")
_WORD = re.compile(r"[A-Za-z0-9]+(?:[ \-/._][A-Za-z0-9]+)*")
_SHARED = 2
"""Known values a shape needs: one value's spelling is no pattern ("FY 2023" is no course code)."""


@dataclass(frozen=True)
class Absent:
    """A code of ``attribute``'s shape, written in the question, that no known value is."""

    attribute: str
    written: str
    """The code as the question writes it ("inc-2099")."""


def code_key(text: str) -> str:
    """``text`` as a code is compared: letters case-folded, leading zeros and separators dropped
    ("INC-0099", "inc 99" and "INC99" are one code)."""
    return "".join(run.casefold() if run.isalpha() else run.lstrip("0") or "0"
                   for run in re.findall(r"[A-Za-z]+|\d+", text))


def _shape(value: str) -> tuple[str, ...] | None:
    """``value``'s letters, digit runs (``#``) and separators (one "-" for a space or a dash); None
    when it is not a code: no digit, no letter, or characters beyond letters, digits and separators."""
    runs = _RUN.findall(value)
    if "".join(runs) != value or not any(r.isdigit() for r in runs) or not any(r.isalpha() for r in runs):
        return None
    return tuple("#" if r.isdigit() else r.upper() if r.isalpha() else "-" if r in " -" else r for r in runs)


def _pattern(shape: tuple[str, ...]) -> re.Pattern[str]:
    """What writes ``shape``: its letters in any case (a lone letter as known), any digits, and a
    space, a dash or nothing where the known values have either ("INC 2099", "inc-2099", "INC2099")."""
    parts = []
    for run in shape:
        if run == "#":
            parts.append(r"\d+")
        elif run == "-":
            parts.append(r"[ \-]?")
        elif len(run) == 1 and run.isalpha():
            parts.append(f"(?-i:{run})")  # "D-14": a lone letter in its own case ("vitamin d 3" is no district)
        else:
            parts.append(re.escape(run))
    return re.compile(r"(?<![\w.\-/])" + "".join(parts) + r"(?![\w\-/]|\.\w)", re.IGNORECASE)


def absent_identifiers(question: str, schema: CollectionSchema, catalogue: Mapping[str, Sequence[str]]) -> list[Absent]:
    """The codes ``question`` writes in the shape of a string attribute's known values (an
    identifier's, or any other's that are codes) that are no known value of any attribute, in the
    order written."""
    known = {code_key(str(v)) for values in catalogue.values() for v in values}
    known |= {code_key(str(v)) for a in schema.attributes for v in (a.allowed_values or [])}
    found: dict[tuple[int, int], Absent] = {}
    for attr in schema.attributes:
        # Any attribute whose values are codes, whatever kind was declared: districts named
        # "D-14" by a "name" attribute, severities "SEV1" to "SEV3".
        if attr.type not in ("string", "string[]"):
            continue
        shapes = Counter(s for v in catalogue.get(attr.name, []) if (s := _shape(str(v))) is not None)
        for shape, count in shapes.items():
            if count < _SHARED:
                continue
            for m in _pattern(shape).finditer(question):
                if code_key(m.group()) not in known and not any(a < m.end() and m.start() < b for a, b in found):
                    found[m.span()] = Absent(attr.name, m.group())
    return [found[span] for span in sorted(found)]


def written_in(texts: Sequence[str], code: str) -> bool:
    """Whether any of ``texts`` writes ``code``, however it cases, spaces or pads it ("INC-0099" for
    "inc 99"): a passage may name a code no record has as its identifier ("a repeat of INC-1999")."""
    runs = re.findall(r"[A-Za-z]+|\d+", code)
    if not runs:
        return False
    body = r"[ \-]?".join(re.escape(r) if r.isalpha() else "0*" + (r.lstrip("0") or "0") for r in runs)
    pattern = re.compile(r"(?<![A-Za-z0-9])" + body + r"(?![A-Za-z0-9])", re.IGNORECASE)
    return any(pattern.search(text) for text in texts)
