"""Filling schema attributes from a document's text with the schema's regex extractors.

Filings rarely arrive with metadata, yet "Walmart's revenue in fiscal 2024" needs ``company``
and ``fiscal_year`` on every chunk. Extractors run once per source document; their values are
normalised (``map``) and coerced to the attribute's type so filters match them.
"""

from __future__ import annotations

import re

from selfrag.errors import SchemaError
from selfrag.schema import AttributeType, CollectionSchema, RegexExtractor
from selfrag.store import MetadataValue, coerce_value

__all__ = ["MetadataExtractor"]


class MetadataExtractor:
    """The compiled extractors of one schema; call it on a document's text.

    For each attribute the first extractor (in schema order) whose pattern matches wins. A
    captured value that cannot be coerced to the attribute's type (``"FY23"`` for an integer)
    is skipped rather than failing the ingest: extraction is best-effort by nature.
    """

    def __init__(self, schema: CollectionSchema) -> None:
        self._rules: list[tuple[RegexExtractor, re.Pattern[str], AttributeType, dict[str, str]]] = []
        for ex in schema.extractors:
            info = schema.attribute(ex.attribute)
            assert info is not None  # CollectionSchema validates extractor attributes
            pattern = ex.compiled()
            if isinstance(ex.group, int) and ex.group > pattern.groups:
                raise SchemaError(f"extractor for {ex.attribute!r}: pattern has no group {ex.group}")
            if isinstance(ex.group, str) and ex.group not in pattern.groupindex:
                raise SchemaError(f"extractor for {ex.attribute!r}: pattern has no group named {ex.group!r}")
            folded = {k.casefold(): v for k, v in ex.map.items()}
            self._rules.append((ex, pattern, info.type, folded))

    def __call__(self, text: str) -> dict[str, MetadataValue]:
        found: dict[str, MetadataValue] = {}
        for ex, pattern, type_, mapping in self._rules:
            if ex.attribute in found:
                continue
            match = pattern.search(text)
            if match is None or match.group(ex.group) is None:
                continue
            captured = " ".join(match.group(ex.group).split())
            value = mapping.get(captured.casefold(), captured)
            try:
                found[ex.attribute] = coerce_value(value, type_)
            except ValueError:
                continue
        return found
