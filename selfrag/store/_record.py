"""What selfrag keeps in a Chroma collection's own metadata, and how it is encoded.

Chroma collection metadata is flat (``str | int | float | bool`` values), but it is the one
place that travels with a collection to a Chroma server and survives restarts. So the schema
and the catalogue are stored there as JSON text under ``selfrag:*`` keys, beside the embedding
dimension. Keys we do not own (another tool's) are carried through unchanged on every write,
because Chroma's ``modify`` replaces the whole metadata mapping.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from selfrag.errors import SchemaError, one_line
from selfrag.schema import CollectionSchema
from selfrag.store.catalogue import Catalogue
from selfrag.store.changes import CHANGES_KEY, ChangeLog
from selfrag.store.types import MetadataValue

__all__ = ["CATALOGUE_KEY", "DIMENSION_KEY", "FORMAT_KEY", "SCHEMA_KEY", "CollectionRecord"]

SCHEMA_KEY = "selfrag:schema"
CATALOGUE_KEY = "selfrag:catalogue"
DIMENSION_KEY = "selfrag:dimension"
FORMAT_KEY = "selfrag:format"
_FORMAT = 1
_OURS = {SCHEMA_KEY, CATALOGUE_KEY, DIMENSION_KEY, FORMAT_KEY, CHANGES_KEY}


@dataclass
class CollectionRecord:
    """The decoded ``selfrag:*`` entries of one collection's metadata."""

    schema: CollectionSchema
    catalogue: Catalogue = field(default_factory=Catalogue)
    dimension: int | None = None
    """Length of the stored embeddings, recorded at the first write, to catch a changed model."""
    extra: dict[str, MetadataValue] = field(default_factory=dict)
    """Metadata keys that are not ours, preserved as found."""
    changes: ChangeLog = field(default_factory=ChangeLog)
    """The collection's recent writes (``selfrag.store.changes``), for readers that catch up."""

    @classmethod
    def decode(cls, name: str, metadata: Mapping[str, Any] | None) -> CollectionRecord:
        """Read a record; a collection not created by selfrag gets an empty schema.

        Raises:
            SchemaError: the stored schema is present but invalid.
        """
        meta = metadata or {}
        raw_schema = meta.get(SCHEMA_KEY)
        if raw_schema is None:
            schema = CollectionSchema()
        else:
            try:
                schema = CollectionSchema.from_json(str(raw_schema), stored=True)
            except ValueError as exc:
                raise SchemaError(f"collection {name!r} has an unreadable stored schema: {one_line(exc, 200)}") from None
        dim = meta.get(DIMENSION_KEY)
        return cls(
            schema=schema,
            catalogue=Catalogue.from_json_obj(_loads(meta.get(CATALOGUE_KEY))),
            dimension=dim if isinstance(dim, int) and not isinstance(dim, bool) else None,
            changes=ChangeLog.of(meta),
            extra={
                k: v
                for k, v in meta.items()
                if k not in _OURS and not k.startswith("hnsw:") and isinstance(v, (str, int, float, bool))
            },
        )

    def encode(self) -> dict[str, MetadataValue]:
        """The full metadata mapping to hand to Chroma (``create_collection`` or ``modify``)."""
        meta: dict[str, MetadataValue] = dict(self.extra)
        meta[SCHEMA_KEY] = self.schema.to_json()
        meta[CATALOGUE_KEY] = json.dumps(self.catalogue.to_json_obj(), separators=(",", ":"))
        meta[FORMAT_KEY] = _FORMAT
        if self.dimension is not None:
            meta[DIMENSION_KEY] = self.dimension
        if self.changes.entries:
            meta[CHANGES_KEY] = self.changes.encode()
        return meta


def _loads(raw: Any) -> object:
    if not isinstance(raw, str):
        return None
    try:
        parsed: object = json.loads(raw)
    except json.JSONDecodeError:
        return None
    return parsed
