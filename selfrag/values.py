"""Reading one loose value as a schema attribute type: the coercion ingest stores by and queries filter by.

Chroma compares metadata by type (``"2019"`` never equals the stored integer ``2019``) and refuses
some values outright (NaN, infinities, integers beyond 64 bits, strings that are not valid UTF-8).
Ingest coerces every declared attribute before storing it, and the self-query planner coerces
every value a model writes before it reaches a ``where`` clause. Both go through :func:`coerce`,
so a value a filter names is always the value a document with that metadata was stored with.

Agreed semantics (``tests/test_values.py``):

- **integer**: ints, integral floats and numeric strings (``"1,234"``, ``"2023.0"``); within
  Chroma's signed 64-bit range; never a bool.
- **float**: any finite number or numeric string; never a bool.
- **boolean**: bools, 0/1, and the words true/false, yes/no, y/n, t/f, on/off, 1/0 in any case.
- **string**: text with its white space collapsed (empty means no value); numbers and bools as
  Python writes them, except that an integral float is written as an int (``2019.0`` → ``"2019"``).
- **date**: an ISO date (``"2024-03-05"``, or a datetime whose date part is one), a ``date``, or
  the stored integer YYYYMMDD itself; stored as that integer so Chroma range-filters and orders it
  (``date_text`` renders it back). A bare year or any other number is no date.
- **string[]**: :func:`coerce_list`: a list of strings (each as **string**), duplicates and empty
  ones dropped; a lone string is a one-item list.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from typing import Any

from selfrag.schema import AttributeType

__all__ = ["coerce", "coerce_list", "date_number", "date_text", "read_number"]

_I64 = 2**63
_NUMBER = re.compile(r"[-+]?(?:\d[\d,_]*)?(?:\.\d+)?(?:e[-+]?\d+)?", re.IGNORECASE)
_TRUE = frozenset({"true", "yes", "y", "t", "1", "on"})
_FALSE = frozenset({"false", "no", "n", "f", "0", "off"})


def read_number(value: Any) -> int | float | None:
    """A finite number from an int, float or numeric string (``" 1,234 "``, ``"8.6"``, ``"1e3"``).

    None for anything else: bools, NaN and infinities, words (``"nan"``, ``"FY23"``), other types.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = value.strip().replace(",", "").replace("_", "")
    if not text or not _NUMBER.fullmatch(text) or not any(c.isdigit() for c in text):
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def coerce(value: Any, type_: AttributeType) -> str | int | float | bool | None:
    """``value`` as ``type_`` (semantics in the module docstring), or None when it cannot be one.
    For ``string[]`` this reads one item (see ``coerce_list`` for the whole value)."""
    if type_ == "date":
        return date_number(value)
    if type_ == "integer":
        return _integer(value)
    if type_ == "float":
        return _float(value)
    if type_ == "boolean":
        return _boolean(value)
    return _string(value)


def _integer(value: Any) -> int | None:
    number = read_number(value)
    if number is None or (isinstance(number, float) and not number.is_integer()):
        return None
    result = int(number)
    return result if -_I64 <= result < _I64 else None


def _float(value: Any) -> float | None:
    number = read_number(value)
    if number is None:
        return None
    try:
        result = float(number)
    except OverflowError:  # an int too large for a float
        return None
    return result if math.isfinite(result) else None


def _boolean(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().casefold()
        return True if text in _TRUE else False if text in _FALSE else None
    return None


def _string(value: Any) -> str | None:
    if isinstance(value, (bool, int)):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: Chroma refuses them
        return None
    return text or None


_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ][\d:.+\-Z]*)?")


def date_number(value: Any) -> int | None:
    """A date as the integer YYYYMMDD (see **date** above), or None."""
    if isinstance(value, datetime):
        value = value.date()
    if isinstance(value, date):
        return value.year * 10000 + value.month * 100 + value.day
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            date(value // 10000, value // 100 % 100, value % 100)
        except ValueError:
            return None
        return value if 10000101 <= value <= 99991231 else None
    if isinstance(value, str) and (m := _ISO.fullmatch(value.strip())):
        try:
            return date_number(date(int(m.group(1)), int(m.group(2)), int(m.group(3))))
        except ValueError:
            return None
    return None


def date_text(number: int) -> str:
    """The ISO text of a stored YYYYMMDD date."""
    return f"{number // 10000:04d}-{number // 100 % 100:02d}-{number % 100:02d}"


def coerce_list(value: Any) -> list[str] | None:
    """A ``string[]`` value: strings, deduplicated in order; None when not a list of strings."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        return None
    out: list[str] = []
    for item in items:
        text = _string(item) if isinstance(item, str) else None
        if text is None and isinstance(item, str):
            continue  # empty text is no value
        if text is None:
            return None
        if text not in out:
            out.append(text)
    return out
