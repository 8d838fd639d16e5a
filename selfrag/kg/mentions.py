"""Finding a graph's entity names and aliases in a text: at ingest and in questions.

An Aho-Corasick automaton (``pyahocorasick``) over the normalised names finds every occurrence of
every name in one pass, in time linear in the text whatever the number of names, and reports
overlapping hits so the longest can win ("Mercury Records" over "Mercury"). We chose it over an
RE2 alternation (``selfrag.patterns``): an alternation of tens of thousands of names outgrows RE2's
program-memory limit, RE2 keeps only one of overlapping alternatives, and its ``\\b`` is ASCII-only
(it sees no boundary before "Škoda"). Boundaries are checked here on the normalised text, where
anything not a letter or digit is a space, so they hold in every script.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import ahocorasick

from selfrag.kg.records import Entity
from selfrag.lang import normalise, normalise_with_offsets

__all__ = ["MIN_KEY_CHARS", "MentionHit", "MentionMatcher"]

MIN_KEY_CHARS = 2
"""Shorter names and aliases are not searched for: a single letter matches everywhere."""


@dataclass(frozen=True)
class MentionHit:
    """One name found in a text: where, as written, and every entity it may mean."""

    start: int
    end: int
    text: str
    key: str
    """The normalised name or alias that matched."""
    entities: tuple[Entity, ...]

    @property
    def ambiguous(self) -> bool:
        return len(self.entities) > 1


class MentionMatcher:
    """All names and aliases of some entities, compiled once; ``find`` any number of texts."""

    def __init__(self, entities: Iterable[Entity]) -> None:
        by_key: dict[str, dict[str, Entity]] = {}
        for entity in entities:
            for name in (entity.name, *entity.aliases):
                key = normalise(name)
                if len(key) >= MIN_KEY_CHARS:
                    by_key.setdefault(key, {})[entity.id] = entity
        self._by_key = {k: tuple(v.values()) for k, v in by_key.items()}
        self._automaton = ahocorasick.Automaton()
        for key in self._by_key:
            self._automaton.add_word(key, key)
        self._empty = not self._by_key
        if not self._empty:
            self._automaton.make_automaton()

    def find(self, text: str) -> list[MentionHit]:
        """Every mention in ``text``, longest first where hits overlap, in reading order."""
        if self._empty:
            return []
        norm, offsets = normalise_with_offsets(text)
        spans: list[tuple[int, int, str]] = []
        for end, key in self._automaton.iter(norm):
            start = end - len(key) + 1
            # Whole words only: the normal form has a space (or an edge) at every word boundary.
            if (start == 0 or norm[start - 1] == " ") and (end + 1 == len(norm) or norm[end + 1] == " "):
                spans.append((start, end + 1, key))
        # Longest first, then leftmost: "Mercury Records" wins over the "Mercury" inside it.
        spans.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
        taken: list[tuple[int, int]] = []
        hits: list[MentionHit] = []
        for start, end, key in spans:
            if any(t_start < end and start < t_end for t_start, t_end in taken):
                continue
            taken.append((start, end))
            o_start, o_end = offsets[start], offsets[end - 1] + 1
            hits.append(MentionHit(o_start, o_end, text[o_start:o_end], key, self._by_key[key]))
        hits.sort(key=lambda h: h.start)
        return hits

    def extract(self, text: str, label: str) -> list[str]:
        """Names of the ``label`` entities ``text`` mentions unambiguously, in first-mention order.

        A name that means several entities of the label ("Mercury") is left out: a document's
        mention attribute should hold only what it surely mentions.
        """
        names: list[str] = []
        for hit in self.find(text):
            of_label = [e for e in hit.entities if e.label == label]
            if len(of_label) == 1 and of_label[0].name not in names:
                names.append(of_label[0].name)
        return names
