"""What a collection's declared schema says about each attribute, read once per plan.

Everything the rule-based constructor knows about a collection comes from here, and everything
here comes from the schema and the catalogue: attribute names and descriptions (their words,
lemmatised), types, allowed values, declared minimum and maximum, the unit a description names
("Total time, in minutes", "Price of one night in euros", "1 to 5 stars"), whether the values
look like proper names (a director, a company, a city), and the nouns the collection uses for its
items ("recipes", "films", "homes").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from selfrag.query._lexicon import DIMENSION_WORDS, ITEM_WORDS, PLACE_WORDS, UNITS, Unit
from selfrag.query._text import STOP, forms, lemma, normalize, tokenize
from selfrag.schema import AttributeInfo, CollectionSchema

__all__ = ["AttrProfile", "SchemaProfile"]

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# Words of attribute names that say nothing about what is measured.
_GENERIC = frozenset({"number", "count", "total", "num", "per", "average", "avg", "official", "value", "amount",
                      "level", "whether", "true", "false", "when", "if", "flag", "current", "currently", "one",
                      "is", "has", "can", "allowed", "allow", "free", "included", "include", "available"})  # fmt: skip
_NAME_HINTS = frozenset({"name", "author", "director", "writer", "artist", "creator", "company", "brand", "maker",
                         "manufacturer", "publisher", "employer", "agency", "chain", "studio", "label", "owner",
                         "vendor", "seller", "organisation", "organization", "team", "club", "person", "by"})  # fmt: skip
_YEAR_HINTS = frozenset({"year", "yr"})
_SCORE_HINTS = frozenset({"rating", "rated", "score", "review", "grade", "stars", "star"})


def _name_words(name: str) -> list[str]:
    return normalize(_CAMEL.sub(" ", name)).split()


_SHORT_UNITS = frozenset({"$", "€", "£", "¥", "%", "km", "kg", "ft", "usd", "eur", "gbp", "kcal", "sqm", "sqft", "hrs",
                          "lbs", "cad", "aud", "chf", "mi"})  # fmt: skip


def _unit_of(attr: AttributeInfo, text_tokens: list[str]) -> Unit | None:
    """The unit the attribute's name or description states ("square feet" before "feet"; money first,
    since "pay per hour in dollars" is money)."""
    joined = " ".join(text_tokens)
    found: list[Unit] = [UNITS[k] for k in UNITS if " " in k and re.search(rf"\b{re.escape(k)}\b", joined)]
    for tok in text_tokens:
        for f in (tok, lemma(tok)):
            unit = UNITS.get(f)
            if unit is not None and (len(f) > 3 or f in _SHORT_UNITS):
                found.append(unit)
                break
    money = [u for u in found if u.dimension == "money"]
    chosen = money or found
    return chosen[0] if chosen else None


@dataclass
class AttrProfile:
    """One attribute as the constructor sees it."""

    attr: AttributeInfo
    name_terms: frozenset[str]
    """Forms of the words of the attribute's name, minus generic ones ("has_pool" → pool)."""
    terms: frozenset[str]
    """Forms of the name's and the description's content words, minus words every attribute shares."""
    dimension: str | None = None
    """For numbers: year, money, time, length, area, weight, energy, stars, score, percent or None."""
    unit: Unit | None = None
    """The unit the stored numbers are in, when the schema states one."""
    name_like: bool = False
    """A string attribute whose values are proper names (people, companies, places)."""
    place_like: bool = False
    values: list[str] = field(default_factory=list)
    """Allowed values, else the catalogue's known values (strings only)."""

    @property
    def name(self) -> str:
        return self.attr.name

    @property
    def numeric(self) -> bool:
        return self.attr.type in ("integer", "float")

    @property
    def is_year(self) -> bool:
        return self.dimension == "year"

    def fits(self, value: float) -> bool:
        """Whether a stored value could equal ``value`` (declared bounds; whole numbers for integers)."""
        a = self.attr
        if a.type == "integer" and not float(value).is_integer():
            return False
        return (a.minimum is None or value >= a.minimum) and (a.maximum is None or value <= a.maximum)

    def in_range(self, value: float) -> bool:
        a = self.attr
        return (a.minimum is None or value >= a.minimum) and (a.maximum is None or value <= a.maximum)


class SchemaProfile:
    """Per-attribute profiles plus the collection's own nouns for its items."""

    def __init__(self, schema: CollectionSchema, catalogue: Mapping[str, Sequence[str]]) -> None:
        self.schema = schema
        texts = {a.name: [*_name_words(a.name), *normalize(a.description).split()] for a in schema.attributes}
        # A word in most attributes' descriptions ("movie", "hotel") describes the collection, not one attribute.
        spread = Counter(lemma(w) for ws in texts.values() for w in set(ws))
        shared = {w for w, n in spread.items() if n >= max(2, len(schema.attributes) // 2)}
        self.item_nouns = self._item_nouns(schema, shared)
        self.attributes: list[AttrProfile] = []
        for a in schema.attributes:
            words = texts[a.name]
            name_terms = frozenset().union(*(forms(w) for w in _name_words(a.name) if w not in _GENERIC and w not in STOP))
            content = [w for w in words if w not in STOP and w not in _GENERIC and lemma(w) not in shared and len(w) > 1]
            terms = name_terms.union(*(forms(w) for w in content)) if content else name_terms
            values = [v for v in (a.allowed_values or catalogue.get(a.name, [])) if isinstance(v, str)]
            profile = AttrProfile(a, name_terms, frozenset(terms), values=values)
            lemmas = {lemma(w) for w in words}
            if a.type in ("integer", "float"):
                profile.dimension, profile.unit = self._dimension(a, words, lemmas)
            elif a.type == "string":
                profile.place_like = bool(lemmas & PLACE_WORDS)
                if not a.allowed_values:
                    capitalised = [v for v in values if v[:1].isupper() or v[:1].isdigit()]
                    by_values = len(values) >= 2 and len(capitalised) >= 0.7 * len(values)
                    profile.name_like = by_values or bool(lemmas & _NAME_HINTS) or profile.place_like
            self.attributes.append(profile)
        self.by_name = {p.name: p for p in self.attributes}

    @staticmethod
    def _item_nouns(schema: CollectionSchema, shared: set[str]) -> frozenset[str]:
        nouns: set[str] = set(ITEM_WORDS)
        for tok in tokenize(schema.description):
            # Plural nouns of the collection's description name its items ("Homes for sale", "recipes").
            if tok.norm.isalpha() and tok.lemma != tok.norm and tok.norm.endswith("s") and tok.norm not in STOP:
                nouns |= forms(tok.norm)
        for w in shared:
            if w.isalpha() and w not in STOP and len(w) > 2:
                nouns |= forms(w)
        return frozenset(nouns)

    @staticmethod
    def _dimension(a: AttributeInfo, words: list[str], lemmas: set[str]) -> tuple[str | None, Unit | None]:
        if a.type == "integer" and lemmas & _YEAR_HINTS:
            # "year_built", "Year the job was posted" hold calendar years; "years of experience" a duration.
            if "year" in words or "yr" in words:
                return "year", None
            return "time", UNITS["year"]
        unit = _unit_of(a, words)
        if unit is not None:
            return unit.dimension, unit
        if lemmas & {"price", "cost", "salary", "wage", "fee", "rent", "budget", "revenue", "income", "fare"}:
            return "money", UNITS["$"]
        if lemmas & _SCORE_HINTS:
            return "score", None
        name_lemmas = {lemma(w) for w in _name_words(a.name)}
        for dim, cue_words in DIMENSION_WORDS.items():
            if dim not in ("year", "stars", "score") and name_lemmas & cue_words:
                return dim, None
        return None, None

    def numeric(self) -> list[AttrProfile]:
        return [p for p in self.attributes if p.numeric]

    def strings(self) -> list[AttrProfile]:
        return [p for p in self.attributes if p.attr.type == "string"]

    def booleans(self) -> list[AttrProfile]:
        return [p for p in self.attributes if p.attr.type == "boolean"]

    def years(self) -> list[AttrProfile]:
        return [p for p in self.attributes if p.is_year]

