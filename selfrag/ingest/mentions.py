"""Filling a collection's graph mention attributes at ingest (``organizations: string[]``).

A document's own metadata wins: a jsonl record that lists its organizations keeps that list.
Otherwise the attribute holds the entities of its label the text names, found by the graph's
names and aliases (``selfrag.kg.MentionMatcher``: one pass whatever the number of names, whole
words only, ambiguous names left out).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from selfrag.kg.mentions import MentionMatcher
from selfrag.kg.records import Entity
from selfrag.kg.schema import GraphLink
from selfrag.kg.store import GraphStore

__all__ = ["MentionExtractor"]


class MentionExtractor:
    """The mention attributes a text fills, for one graph link and the graph's entities."""

    def __init__(self, link: GraphLink, entities: Iterable[Entity]) -> None:
        self.link = link
        self.matcher = MentionMatcher(entities)

    @classmethod
    def from_store(cls, store: GraphStore, link: GraphLink) -> MentionExtractor:
        """Over the entities of the linked graph in ``store``.

        Raises:
            GraphNotFound: the linked graph is not loaded. GraphUnavailable: the server is down.
        """
        return cls(link, store.entities(link.graph))

    def __call__(self, text: str, metadata: Mapping[str, Any]) -> dict[str, list[str]]:
        """The attributes ``metadata`` lacks, from ``text``; an attribute nothing fills is left out."""
        found: dict[str, list[str]] = {}
        for m in self.link.mentions:
            if metadata.get(m.attribute) is not None:
                continue
            names = self.matcher.extract(text, m.label)
            if names:
                found[m.attribute] = names
        return found
