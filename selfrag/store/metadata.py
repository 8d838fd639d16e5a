"""Turning loose metadata (from extractors, jsonl files, callers) into values Chroma accepts.

Chroma takes only ``str | int | float | bool`` (and homogeneous lists, which our filters never
use), rejects ``None`` and empty dicts, and compares by type: ``year == 2023`` does not match
``"2023"``. So every declared attribute is coerced to its schema type *before* it is stored;
otherwise a filter built from the schema would silently miss documents.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from selfrag.schema import AttributeInfo, AttributeType, CollectionSchema
from selfrag.store.types import MetadataValue
from selfrag.values import coerce, coerce_list

__all__ = ["clean_metadata", "coerce_attribute", "coerce_value"]


def coerce_value(value: Any, type_: AttributeType) -> MetadataValue:
    """Convert ``value`` to the schema type ``type_`` (the semantics of :func:`selfrag.values.coerce`).

    Lenient where the intent is clear (``"2023"`` → 2023, ``"8.6"`` → 8.6, ``"1,234"`` → 1234,
    ``"yes"`` → True) and strict where it is not (``True`` is not an integer, 7.5 is not one either).

    Raises:
        ValueError: the value cannot represent that type; the message names value and type.
    """
    coerced = coerce(value, type_)
    if coerced is None:
        raise ValueError(f"{value!r} is not a valid {type_}")
    return coerced


def coerce_attribute(value: Any, attr: AttributeInfo) -> MetadataValue:
    """``value`` as a value of the scalar attribute ``attr``: coerced to its type (``coerce_value``)
    and within its declared ``minimum``/``maximum``. The self-query drops a filter outside that
    range as matching nothing, so a stored value there could never be found by one.

    Raises:
        ValueError: the value cannot be that type, or lies outside the range; the message names
            the value and the bound.
    """
    coerced = coerce_value(value, attr.type)
    if isinstance(coerced, (int, float)) and not isinstance(coerced, bool):
        if attr.maximum is not None and coerced > attr.maximum:
            raise ValueError(f"{coerced!r} is above its declared maximum {attr.maximum:g}")
        if attr.minimum is not None and coerced < attr.minimum:
            raise ValueError(f"{coerced!r} is below its declared minimum {attr.minimum:g}")
    return allowed_value(coerced, attr)


def allowed_value(value: MetadataValue, attr: AttributeInfo) -> MetadataValue:
    """``value`` spelled as one of ``attr``'s declared ``allowed_values`` (the same text up to case
    and spacing, or the same number); ``value`` itself when none are declared.

    The self-query only ever filters on a declared value, spelled as declared, and Chroma's
    equality is exact: a stored "painting" beside the allowed "Painting", or a value never
    declared, could be reached by no filter.

    Raises:
        ValueError: the value is not one of the allowed values.
    """
    allowed = attr.allowed_values
    if not allowed or attr.type == "boolean" or isinstance(value, (bool, list)):
        return value
    if isinstance(value, str):
        key = _folded(value)
        for candidate in allowed:
            if isinstance(candidate, str) and _folded(candidate) == key:
                return candidate
    elif any(coerce(candidate, attr.type) == value for candidate in allowed):
        # A number declared as text ("2") is still that number, as the self-query reads it.
        return value
    raise ValueError(f"{value!r} is not one of its allowed values")


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def clean_metadata(metadata: Mapping[str, Any], schema: CollectionSchema) -> dict[str, MetadataValue]:
    """Return a copy of ``metadata`` that Chroma will store and schema filters will match.

    Declared attributes are coerced to their type (empty strings dropped); undeclared keys keep
    scalar values, and containers become JSON text so nothing is lost. ``None`` is always dropped.

    Raises:
        ValueError: a declared attribute's value cannot be coerced or lies outside the attribute's
            declared range (the message names the attribute), or
            a key is one Chroma reserves (empty, or starting with ``#`` or ``$``).
    """
    cleaned: dict[str, MetadataValue] = {}
    for raw_key, value in metadata.items():
        key = str(raw_key)
        if value is None or key.startswith("chroma:"):
            continue
        if not key or key[0] in "#$":
            # Chroma reserves these (operators, its own keys) and rejects the whole write.
            raise ValueError(f"metadata key {key!r} is not allowed: keys must be non-empty and not start with '#' or '$'")
        info = schema.attribute(key)
        if info is not None:
            if info.type == "string" and isinstance(value, str) and not value.split():
                continue  # empty text is no value
            if info.type == "string[]":
                items = coerce_list(value)
                if items is None:
                    raise ValueError(f"attribute {key!r}: {value!r} is not a list of strings")
                if items:  # Chroma refuses an empty list: no mention is no value
                    try:
                        cleaned[key] = [str(allowed_value(item, info)) for item in items]
                    except ValueError as exc:
                        raise ValueError(f"attribute {key!r}: {exc}") from None
                continue
            try:
                cleaned[key] = coerce_attribute(value, info)
            except ValueError as exc:
                raise ValueError(f"attribute {key!r}: {exc}") from None
        elif isinstance(value, (str, bool, int)):
            cleaned[key] = value
        elif isinstance(value, float):
            if math.isfinite(value):
                cleaned[key] = value
        else:
            cleaned[key] = json.dumps(value, sort_keys=True, default=str)
    return cleaned
