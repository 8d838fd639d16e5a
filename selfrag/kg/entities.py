"""Matching a name from a question against a graph's entities, and telling candidates apart.

The rule that decides unique vs ambiguous, in tiers; the first tier with any match decides:

1. **name**: entities whose normalised name equals the normalised text;
2. **alias**: entities with an alias equal to it;
3. **fuzzy**: names and aliases scoring at least ``FUZZY_MIN`` (rapidfuzz ``WRatio``, 0-100); every
   entity within ``FUZZY_TIE`` points of the best score stays a candidate.

When the caller knows the label (a relation's start label), entities of other labels are dropped
first. One candidate left: unique. Several: ambiguous, and the run asks which one, showing what
tells them apart (``Candidate.differences``). None: no match.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from rapidfuzz import fuzz, process

from selfrag.kg.records import Entity
from selfrag.lang import normalise

__all__ = ["FUZZY_MIN", "FUZZY_TIE", "Candidate", "EntityIndex", "EntityMatch", "MatchTier", "describe_differences"]

FUZZY_MIN = 88.0
"""Lowest fuzzy score that counts as a match (a one-letter slip in a 7-letter name scores ~92)."""
FUZZY_TIE = 4.0
"""Fuzzy candidates this close to the best stay plausible."""

MatchTier = Literal["name", "alias", "fuzzy"]


@dataclass(frozen=True)
class Candidate:
    """One entity a name may mean, how it matched, and what sets it apart from the others."""

    entity: Entity
    tier: MatchTier
    score: float
    differences: dict[str, str] = field(default_factory=dict)
    """Label and property values that differ between the candidates (e.g. industry, country)."""

    def describe(self) -> str:
        """``Mercury Motors (Organization; industry: automotive, country: Germany)``."""
        facts = ", ".join(f"{k}: {v}" for k, v in self.differences.items() if k != "label")
        label = self.entity.label + (f"; {facts}" if facts else "")
        return f"{self.entity.name} ({label})"


@dataclass(frozen=True)
class EntityMatch:
    """The outcome of matching one name: ``unique``, ``ambiguous`` or ``none``."""

    text: str
    candidates: tuple[Candidate, ...]

    @property
    def status(self) -> Literal["unique", "ambiguous", "none"]:
        n = len(self.candidates)
        return "none" if n == 0 else "unique" if n == 1 else "ambiguous"

    @property
    def entity(self) -> Entity | None:
        """The entity when the match is unique."""
        return self.candidates[0].entity if len(self.candidates) == 1 else None


def _fmt(value: object) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


def describe_differences(entities: Sequence[Entity]) -> list[dict[str, str]]:
    """For each entity, the label and properties whose values are not the same for all of them."""
    keys: list[str] = ["label"]
    for e in entities:
        keys.extend(k for k in e.properties if k not in keys)
    out: list[dict[str, str]] = [{} for _ in entities]
    for key in keys:
        values = [e.label if key == "label" else e.properties.get(key) for e in entities]
        if len({_fmt(v) for v in values}) > 1:
            for i, v in enumerate(values):
                if v is not None:
                    out[i][key] = _fmt(v)
    return out


class EntityIndex:
    """A graph's entities by normalised name and alias, for exact and fuzzy matching."""

    def __init__(self, entities: Iterable[Entity]) -> None:
        self.entities: tuple[Entity, ...] = tuple(entities)
        self._by_id = {e.id: e for e in self.entities}
        self._names: dict[str, list[Entity]] = {}
        self._aliases: dict[str, list[Entity]] = {}
        for e in self.entities:
            self._names.setdefault(normalise(e.name), []).append(e)
            for a in e.aliases:
                self._aliases.setdefault(normalise(a), []).append(e)
        self._keys = sorted(set(self._names) | set(self._aliases))

    def get(self, entity_id: str) -> Entity | None:
        return self._by_id.get(entity_id)

    def match(self, text: str, *, label: str | None = None, fuzzy: bool = True) -> EntityMatch:
        """Match ``text`` by the tiers of the module docstring, keeping only ``label`` if given."""
        key = normalise(text)

        def keep(es: Iterable[Entity]) -> list[Entity]:
            unique = {e.id: e for e in es if label is None or e.label == label}
            return list(unique.values())

        found: list[tuple[Entity, MatchTier, float]] = []
        if key:
            found = [(e, "name", 100.0) for e in keep(self._names.get(key, ()))]
            if not found:
                found = [(e, "alias", 100.0) for e in keep(self._aliases.get(key, ()))]
            if not found and fuzzy and len(key) >= 4:
                found = self._fuzzy(key, keep)
        entities = [f[0] for f in found]
        diffs = describe_differences(entities) if len(entities) > 1 else [{} for _ in entities]
        cands = tuple(Candidate(e, tier, score, d) for (e, tier, score), d in zip(found, diffs, strict=True))
        return EntityMatch(text, cands)

    def _fuzzy(self, key: str, keep: object) -> list[tuple[Entity, MatchTier, float]]:
        assert callable(keep)
        scored = process.extract(key, self._keys, scorer=fuzz.WRatio, score_cutoff=FUZZY_MIN, limit=20)
        if not scored:
            return []
        best: dict[str, tuple[Entity, float]] = {}
        for k, score, _ in scored:
            for e in keep([*self._names.get(k, ()), *self._aliases.get(k, ())]):
                if e.id not in best or best[e.id][1] < score:
                    best[e.id] = (e, float(score))
        if not best:
            return []
        top = max(s for _, s in best.values())
        kept = sorted((v for v in best.values() if v[1] >= top - FUZZY_TIE), key=lambda v: (-v[1], v[0].name))
        return [(e, "fuzzy", s) for e, s in kept]
