"""Turning one LLM-written value into the declared attribute type, or refusing to.

The reading itself is :func:`selfrag.values.coerce`, the one ingest stores metadata by, so a value
the planner writes into a ``where`` clause is the value a matching document was stored with.
What is the planner's own: a fractional bound on an integer attribute keeps its meaning.
``None`` means "cannot be made into this type": the caller drops the value and says so.
"""

from __future__ import annotations

import math
from typing import Any

from selfrag.query.model import Comparator, Scalar
from selfrag.schema import AttributeType
from selfrag.values import coerce, read_number

__all__ = ["coerce_value"]


def coerce_value(value: Any, type_: AttributeType, comparator: Comparator) -> Scalar | None:
    """``value`` as ``type_``, or None when it cannot be read as one.

    Integers that are floats or numeric strings are converted; a fractional bound on an integer
    attribute is rounded in the direction that keeps the comparison's meaning (``year > 1990.5``
    is ``year > 1990``); floats accept integers (a float attribute stays float-typed).
    """
    if type_ == "integer" and comparator in ("gt", "gte", "lt", "lte"):
        number = read_number(value)
        if isinstance(number, float) and not number.is_integer():
            value = math.floor(number) if comparator in ("gt", "lte") else math.ceil(number)
    return coerce(value, type_)
