"""Filling schema attributes from a document's text with the schema's regex extractors.

Filings rarely arrive with metadata, yet "Walmart's revenue in fiscal 2024" needs ``company``
and ``fiscal_year`` on every chunk. Extractors run once per source document; their values are
normalised (``map``) and coerced to the attribute's type so filters match them. Patterns run on
RE2 (``selfrag.patterns``): time linear in the text, whatever the pattern, so no document can
hang an ingest.
"""

from __future__ import annotations

from selfrag.errors import SchemaError
from selfrag.patterns import CompiledPattern
from selfrag.schema import AttributeInfo, CollectionSchema, RegexExtractor
from selfrag.store import MetadataValue, coerce_attribute

__all__ = ["MetadataExtractor"]


class MetadataExtractor:
    """The compiled extractors of one schema; call it on a document's text.

    For each attribute the first extractor (in schema order) whose pattern matches wins. A
    captured value that cannot be coerced to the attribute's type (``"FY23"`` for an integer), or
    lies outside its declared range, is skipped rather than failing the ingest: extraction is
    best-effort by nature.
    """

    def __init__(self, schema: CollectionSchema) -> None:
        """Raises:
            SchemaError: a pattern RE2 cannot run, or a group it lacks (a schema stored before
                patterns were checked when declared).
        """
        self._rules: list[tuple[RegexExtractor, CompiledPattern, AttributeInfo, dict[str, str]]] = []
        for ex in schema.extractors:
            info = schema.attribute(ex.attribute)
            assert info is not None  # CollectionSchema validates extractor attributes
            try:
                pattern = ex.compiled()
            except ValueError as exc:
                raise SchemaError(f"{exc}; re-create the collection with a pattern RE2 supports") from None
            folded = {k.casefold(): v for k, v in ex.map.items()}
            self._rules.append((ex, pattern, info, folded))

    def __call__(self, text: str) -> dict[str, MetadataValue]:
        found: dict[str, MetadataValue] = {}
        for ex, pattern, info, mapping in self._rules:
            if ex.attribute in found:
                continue
            match = pattern.search(text)
            group = None if match is None else match.group(ex.group)
            if group is None:
                continue
            captured = " ".join(group.split())
            value = mapping.get(captured.casefold(), captured)
            try:
                found[ex.attribute] = coerce_attribute(value, info)
            except ValueError:
                continue
        return found
