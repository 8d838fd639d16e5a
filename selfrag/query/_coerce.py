"""Turning one LLM-written value into the declared attribute type, or refusing to.

Chroma compares metadata by type, so ``"2019"`` never equals the stored integer ``2019``; and it
rejects some values outright (NaN, infinities, integers beyond 64 bits, strings that are not
valid UTF-8). Every value therefore passes through here before it reaches a ``where`` clause.
``None`` means "cannot be made into this type": the caller drops the value and says so.
"""

from __future__ import annotations

import math
import re
from typing import Any

from selfrag.query.model import Comparator, Scalar
from selfrag.schema import AttributeType

__all__ = ["coerce_value"]

_I64 = 2**63
_NUMBER = re.compile(r"[-+]?(?:\d[\d,_]*)?(?:\.\d+)?(?:e[-+]?\d+)?", re.IGNORECASE)
_TRUE = {"true", "yes", "y", "t", "1", "on"}
_FALSE = {"false", "no", "n", "f", "0", "off"}


def _as_number(value: Any) -> float | int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
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
    return None


def _as_integer(value: Any, comparator: Comparator) -> int | None:
    number = _as_number(value)
    if number is None:
        return None
    if isinstance(number, float) and not number.is_integer():
        # A fractional bound on an integer attribute still means something: year > 1990.5 is year > 1990.
        if comparator in ("gt", "lte"):
            number = math.floor(number)
        elif comparator in ("gte", "lt"):
            number = math.ceil(number)
        else:
            return None
    result = int(number)
    return result if -_I64 <= result < _I64 else None


def _as_string(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return text or None


def _as_boolean(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().casefold()
        return True if text in _TRUE else False if text in _FALSE else None
    return None


def coerce_value(value: Any, type_: AttributeType, comparator: Comparator) -> Scalar | None:
    """``value`` as ``type_``, or None when it cannot be read as one.

    Integers that are floats or numeric strings are converted; a fractional bound on an integer
    attribute is rounded in the direction that keeps the comparison's meaning; floats accept
    integers (Chroma compares across int and float, but a float attribute stays float-typed).
    """
    if type_ == "integer":
        return _as_integer(value, comparator)
    if type_ == "float":
        number = _as_number(value)
        if number is None:
            return None
        result = float(number) if abs(number) < 1e300 else None
        return result if result is not None and math.isfinite(result) else None
    if type_ == "boolean":
        return _as_boolean(value)
    return _as_string(value)
