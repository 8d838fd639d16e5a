"""The catalogue: the values each string attribute (and each string list's elements) actually takes in a collection.

The self-query step needs it to map "films by Nolan" to the stored ``"Christopher Nolan"`` and
to know that ``genre`` has ``"science fiction"`` but no ``"sci-fi"``. Asking Chroma for distinct
values would mean scanning every record, so the values are collected as chunks are added and
kept in the collection's own metadata (it then travels with the collection to a Chroma server).

It is bounded, because collection metadata is sent with every collection lookup: once an
attribute has ``MAX_VALUES`` values, further ones are not recorded and the attribute is marked
incomplete, so callers know an unknown value may still exist.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from selfrag.schema import CollectionSchema
from selfrag.store.types import MetadataValue

__all__ = ["CATALOGUED_TYPES", "MAX_VALUES", "MAX_VALUE_LENGTH", "Catalogue"]

MAX_VALUES = 500
"""Most values recorded per attribute."""
MAX_VALUE_LENGTH = 200
"""Longer values (free text, not categories) are not recorded."""
CATALOGUED_TYPES = frozenset({"string", "string[]"})
"""The attribute types whose values are recorded: strings, and the elements of string lists."""


@dataclass
class Catalogue:
    """Known values per string attribute, sorted and de-duplicated case-insensitively."""

    values: dict[str, list[str]] = field(default_factory=dict)
    incomplete: set[str] = field(default_factory=set)
    """Attributes that hit ``MAX_VALUES``: values outside the catalogue may exist."""

    def merge(self, metadatas: Iterable[Mapping[str, MetadataValue]], schema: CollectionSchema) -> bool:
        """Record the string attributes' values found in ``metadatas`` (a ``string[]`` attribute's
        elements are its values); return whether anything changed.

        A value differing only in case from a known one is not added: the first spelling stays.
        """
        strings = [a.name for a in schema.attributes if a.type in CATALOGUED_TYPES]
        found: dict[str, set[str]] = {name: set() for name in strings}
        for metadata in metadatas:
            for name in strings:
                value = metadata.get(name)
                for v in value if isinstance(value, list) else [value]:
                    if isinstance(v, str) and v and len(v) <= MAX_VALUE_LENGTH:
                        found[name].add(v)
        changed = False
        for name in strings:
            known = self.values.get(name, [])
            seen = {v.casefold() for v in known}
            fresh = sorted((v for v in found[name] if v.casefold() not in seen), key=_order)
            added: list[str] = []
            for value in fresh:
                if value.casefold() in seen:
                    continue  # two new spellings of one value in the same batch
                if len(known) + len(added) >= MAX_VALUES:
                    if name not in self.incomplete:
                        self.incomplete.add(name)
                        changed = True
                    break
                seen.add(value.casefold())
                added.append(value)
            if added:
                self.values[name] = sorted(known + added, key=_order)
                changed = True
        return changed

    def forget(self, gone: Iterable[tuple[str, str]], held: Callable[[str, str], bool]) -> bool:
        """Drop values no chunk holds any more; return whether anything changed.

        ``gone``: (attribute, value) pairs that chunks just deleted or replaced held. A value stays
        while ``held(attribute, spelling)`` finds a chunk with the deleted spelling or the catalogued
        one (``held`` may try the usual case variants of each too): one small lookup per value, not a
        scan of the collection. A spelling neither tried nor catalogued, differing only in case, may
        leave the catalogue with it; it comes back with the next write of it.
        """
        changed = False
        for name, value in sorted(set(gone)):
            known = self.values.get(name)
            if not known or not isinstance(value, str):
                continue
            folded = value.casefold()
            catalogued = [v for v in known if v.casefold() == folded]
            if not catalogued or any(held(name, v) for v in dict.fromkeys([value, *catalogued])):
                continue
            self.values[name] = [v for v in known if v.casefold() != folded]
            changed = True
        return changed

    def to_json_obj(self) -> dict[str, object]:
        return {"values": self.values, "incomplete": sorted(self.incomplete)}

    @classmethod
    def from_json_obj(cls, obj: object) -> Catalogue:
        """Parse what ``to_json_obj`` wrote; anything malformed yields an empty catalogue."""
        if not isinstance(obj, dict):
            return cls()
        raw_values = obj.get("values", {})
        raw_incomplete = obj.get("incomplete", [])
        values: dict[str, list[str]] = {}
        if isinstance(raw_values, dict):
            for name, items in raw_values.items():
                if isinstance(name, str) and isinstance(items, list):
                    values[name] = [v for v in items if isinstance(v, str)]
        incomplete = {n for n in raw_incomplete if isinstance(n, str)} if isinstance(raw_incomplete, list) else set()
        return cls(values=values, incomplete=incomplete)


def _order(value: str) -> tuple[str, str]:
    return (value.casefold(), value)
