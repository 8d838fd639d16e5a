"""What a collection's declared schema says about each attribute, read once per plan.

Everything the rule-based constructor knows about a collection comes from here, and everything
here comes from the schema and the catalogue: attribute names and descriptions (their words,
lemmatised, to find which attribute a phrase is about), types, allowed values, declared minimum
and maximum, the declared ``kind`` and ``unit`` (``selfrag.kinds``: never re-guessed here), whether
an undeclared string's values look like proper names, and the nouns the collection uses for its
items ("recipes", "films", "homes").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from selfrag.kinds import measure_dimension
from selfrag.lang import QUERY_STOP, UNITS, Unit, forms, identifier_words, lemma, normalise, tokenize, word_set
from selfrag.query._lexicon import ITEM_WORDS
from selfrag.schema import AttributeInfo, CollectionSchema

__all__ = ["AttrProfile", "SchemaProfile", "affirmed"]

_GENERIC = word_set("generic_name_words")
"""Words of attribute names that say nothing about what is measured ("has_pool" is about a pool)."""


_DENIED = re.compile(r"\s*(?:[,;(]|\bbut\b)\s*(?:and\s+|but\s+)?(?:not|never|rather\s+than|as\s+opposed\s+to|unlike|excluding"
                     r"|missing|absent|empty|blank)\b.*$", re.IGNORECASE | re.DOTALL)


def affirmed(schema: CollectionSchema) -> CollectionSchema:
    """``schema`` with each description cut before a clause that says what the attribute is not,
    or when it is missing: "model year of the car (the year it was built), not the year it was
    sold" is read as the year built ("sold" is the sale date's word, not the model year's), and
    "date the policy is due for renewal; missing for cancelled policies" names no cancelling. The
    same object when no description has such a clause. (For the readers only: a model is shown
    the whole text.)"""
    cut = {a.name: _DENIED.sub("", a.description) for a in schema.attributes if a.description and _DENIED.search(a.description)}
    cut = {n: d for n, d in cut.items() if d.strip()}
    if not cut:
        return schema
    return schema.model_copy(update={"attributes": [a.model_copy(update={"description": cut[a.name]}) if a.name in cut else a
                                                    for a in schema.attributes]})


_ONE_PER = re.compile(r"\b(?:one|each|a)\s+(?:record|row|entry|line|document)\s+(?:per|for\s+(?:each|every|one)|is\s+(?:a|an|one))\s+"
                      r"(?:(?:used|new|single|individual|registered|recorded)\s+)?([a-z]+)\b(?!\s+(?:and|or)\b|\s*,)", re.IGNORECASE)
_CALLED = re.compile(r"\((?:a|an|one)\s+([a-z]+)\)", re.IGNORECASE)


def _dimension(attr: AttributeInfo) -> tuple[str | None, Unit | None]:
    """The declared kind and unit as the number readers compare them (a dimension of ``UNITS``)."""
    unit = UNITS[attr.unit] if attr.unit is not None else None
    if attr.kind == "year":
        return "year", None
    if attr.kind == "money":
        return "money", unit or UNITS["$"]
    if attr.kind == "score":
        return ("stars", unit) if unit is not None and unit.dimension == "stars" else ("score", None)
    if attr.kind == "temperature" and unit is not None:
        return unit.dimension, unit  # Celsius ("temperature") or Fahrenheit: never compared across
    return measure_dimension(attr.kind), unit


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

    def whole_name(self, word: str) -> bool:
        """Whether ``word`` alone is this attribute's whole name, but for units ("calories" of
        calories, "rating" of rating_stars), not one word of a longer one ("claims" of prior_claims)."""
        own = [w for w in re.split(r"[_\W]+", self.name.casefold()) if w and w not in UNITS]
        return len(own) == 1 and bool(forms(own[0]) & forms(word))

    def fits(self, value: float) -> bool:
        """Whether a stored value could equal ``value`` (declared bounds and allowed values; whole
        numbers for integers)."""
        a = self.attr
        if a.type == "integer" and not float(value).is_integer():
            return False
        allowed = self._allowed_numbers()
        return self.in_range(value) and (not allowed or value in allowed)

    def in_range(self, value: float) -> bool:
        """Whether ``value`` lies within the declared bounds, or between the least and greatest
        allowed value: a bound outside them is about something else ("fewer than 50 places" is no
        course level when levels are 100 to 400)."""
        a = self.attr
        allowed = self._allowed_numbers()
        lo = a.minimum if a.minimum is not None else min(allowed) if allowed else None
        hi = a.maximum if a.maximum is not None else max(allowed) if allowed else None
        return (lo is None or value >= lo) and (hi is None or value <= hi)

    def _allowed_numbers(self) -> list[float]:
        return [float(v) for v in self.attr.allowed_values or () if isinstance(v, (int, float)) and not isinstance(v, bool)]


class SchemaProfile:
    """Per-attribute profiles plus the collection's own nouns for its items."""

    def __init__(self, schema: CollectionSchema, catalogue: Mapping[str, Sequence[str]]) -> None:
        self.schema = schema
        texts = {a.name: [*identifier_words(a.name), *normalise(a.description).split()] for a in schema.attributes}
        # A word in most attributes' descriptions ("movie", "hotel") describes the collection, not one attribute.
        spread = Counter(lemma(w) for ws in texts.values() for w in set(ws))
        shared = {w for w, n in spread.items() if n >= max(2, len(schema.attributes) // 2)}
        self.item_nouns = self._item_nouns(schema, shared)
        self.attributes: list[AttrProfile] = []
        for a in schema.attributes:
            words = texts[a.name]
            named = [w for w in identifier_words(a.name) if w not in QUERY_STOP]
            # "noise_level" is about noise; an attribute named "level" alone is about its level.
            named = [w for w in named if w not in _GENERIC] or named
            name_terms = frozenset().union(*(forms(w) for w in named))
            content = [w for w in words if w not in QUERY_STOP and w not in _GENERIC and lemma(w) not in shared and len(w) > 1]
            terms = name_terms.union(*(forms(w) for w in content)) if content else name_terms
            values = [v for v in (a.allowed_values or catalogue.get(a.name, [])) if isinstance(v, str)]
            profile = AttrProfile(a, name_terms, frozenset(terms), values=values)
            if a.type in ("integer", "float"):
                profile.dimension, profile.unit = _dimension(a)
            elif a.type == "string":
                profile.place_like = a.kind == "place"
                if not a.allowed_values:
                    capitalised = [v for v in values if v[:1].isupper() or v[:1].isdigit()]
                    by_values = len(values) >= 2 and len(capitalised) >= 0.7 * len(values)
                    profile.name_like = a.kind in ("name", "place") or (a.kind in (None, "identifier") and by_values)
            self.attributes.append(profile)
        self.by_name = {p.name: p for p in self.attributes}

    @staticmethod
    def _item_nouns(schema: CollectionSchema, shared: set[str]) -> frozenset[str]:
        nouns: set[str] = set(ITEM_WORDS)
        tokens = tokenize(schema.description)
        for i, tok in enumerate(tokens):
            # Plural nouns of the collection's description name its items ("Homes for sale", "recipes").
            if tok.norm.isalpha() and tok.lemma != tok.norm and tok.norm.endswith("s") and tok.norm not in QUERY_STOP:
                nouns |= forms(tok.norm)
                lead = tokens[:i]
                if i >= 1 and all(t.norm.isalpha() and t.norm not in QUERY_STOP for t in lead) \
                        and all(schema.description[a.end : b.start] == " " for a, b in zip(lead, tokens[1 : i + 1], strict=True)):
                    # A description opening with nouns before its plural ("Job postings", "Laptop
                    # spec sheets") names the items by them too: "Which job pays most?". Of a longer
                    # opening ("Small business loan applications"), the noun right before the plural
                    # names them ("loans"), not what qualifies it.
                    for t in lead if i <= 2 else lead[-1:]:
                        nouns |= forms(t.norm)
        for w in shared:
            if w.isalpha() and w not in QUERY_STOP and len(w) > 2:
                nouns |= forms(w)
        return frozenset(nouns)

    @property
    def record_nouns(self) -> frozenset[str]:
        """The records' own word in each of its forms: the description's first plural noun ("bills"
        of "Monthly energy bills of … buildings", "inspections" of "Restaurant inspections"), not
        the words before it nor those the attributes share, which ``item_nouns`` holds too."""
        text = self.schema.description or ""
        plural = next((forms(t.norm) for t in tokenize(text)
                       if t.norm.isalpha() and t.lemma != t.norm and t.norm.endswith("s") and t.norm not in QUERY_STOP),
                      frozenset())
        if plural:
            return plural
        # "One record per used car sold by the dealership (a sale)": without a plural, the noun
        # each record is one of, and the one it is called in passing (not "one record per building
        # and billing month", a pair). (Beside a plural it would take "trip" of "field trip
        # requests, one record per trip" from trip_date, the records' own date.)
        named = [m.group(1) for m in _ONE_PER.finditer(text)] + [m.group(1) for m in _CALLED.finditer(text)]
        return frozenset().union(*(forms(w.casefold()) for w in named))

    def of_another_thing(self, year: AttrProfile) -> bool:
        """Whether ``year`` is the year of a thing another attribute names or the records are of,
        not of the records: "year the building was built" beside building, in "Monthly energy bills
        of … buildings" (the records being the description's first plural, "bills")."""
        # The noun before "was" (or a past form: "the film premiered") after an article, a word
        # between allowed ("the survey site was").
        subjects = re.findall(r"\b(?:the|a|an)\s+(?:[a-z]+\s+)?([a-z]+)\s+(?:was|were|is|are|[a-z]+ed)\b",
                              (year.attr.description or "").casefold())
        items = self.record_nouns
        # A thing another attribute is named after, or one the description and the attributes
        # speak of that is not the records ("year the ship was built" in "Port calls of ships").
        things = self.item_nouns - ITEM_WORDS - items
        return any(not forms(w) & items and (forms(w) & things or any(forms(w) & p.name_terms for p in self.attributes
                                                                       if p is not year))
                   for w in subjects)

    def numeric(self) -> list[AttrProfile]:
        return [p for p in self.attributes if p.numeric]

    def strings(self) -> list[AttrProfile]:
        return [p for p in self.attributes if p.attr.type == "string"]

    def booleans(self) -> list[AttrProfile]:
        return [p for p in self.attributes if p.attr.type == "boolean"]

    def years(self) -> list[AttrProfile]:
        return [p for p in self.attributes if p.is_year]

