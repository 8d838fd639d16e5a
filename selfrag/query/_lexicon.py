"""What English words mean for a filter, independent of any collection.

Nothing here names a domain: these are the words people use to compare ("under", "at least"),
to negate ("aren't", "except"), to scale numbers ("150k", "a grand"), and the units they write
after numbers ("two hours", "500 m", "3 stars", "$"). Which attribute a unit or cue belongs to
is decided elsewhere (``_profile``), from the collection's declared schema alone.
"""

from __future__ import annotations

from selfrag.query.model import Comparator

__all__ = [
    "CUES",
    "DIMENSION_WORDS",
    "FLIP",
    "ITEM_WORDS",
    "NEGATIONS",
    "PLACE_WORDS",
    "POSTFIX",
]

CUES: dict[str, Comparator] = {
    # above
    "more than": "gt", "greater than": "gt", "higher than": "gt", "larger than": "gt", "bigger than": "gt",
    "longer than": "gt", "better than": "gt", "over": "gt", "above": "gt", "exceeding": "gt", "beyond": "gt",
    "more expensive than": "gt", "pricier than": "gt", "further than": "gt", "farther than": "gt", "upwards of": "gt",
    "later than": "gt", "newer than": "gt", "after": "gt", "north of": "gt", "in excess of": "gt",
    "at least": "gte", "no less than": "gte", "not less than": "gte", "minimum": "gte", "min": "gte", "min.": "gte",
    "a minimum of": "gte", "starting at": "gte", "starting from": "gte", "from": "gte", "since": "gte",
    "not before": "gte", ">=": "gte", "≥": "gte", ">": "gt",
    # below
    "less than": "lt", "fewer than": "lt", "lower than": "lt", "smaller than": "lt", "shorter than": "lt",
    "cheaper than": "lt", "less expensive than": "lt", "worse than": "lt", "closer than": "lt", "nearer than": "lt",
    "under": "lt", "below": "lt", "beneath": "lt", "south of": "lt", "earlier than": "lt", "older than": "lt",
    "before": "lt", "prior to": "lt",
    "at most": "lte", "no more than": "lte", "not more than": "lte", "up to": "lte", "max": "lte", "max.": "lte",
    "maximum": "lte", "a maximum of": "lte", "within": "lte", "tops": "lte", "until": "lte", "till": "lte",
    "through": "lte", "not after": "lte", "no later than": "lte", "<=": "lte", "≤": "lte", "<": "lt",
    # equal
    "exactly": "eq", "precisely": "eq", "equal to": "eq", "=": "eq", "in": "eq", "of": "eq", "during": "eq",
    "for": "eq", "with": "eq", "has": "eq", "have": "eq", "having": "eq",
}  # fmt: skip
"""A word or phrase written before a number, and the comparison it asks for."""

YEAR_ONLY_CUES = frozenset({"in", "of", "during", "from", "since", "before", "after", "until", "till", "through"})
"""Cues that only make sense before a number when that number is a calendar year (or has a unit)."""

POSTFIX: dict[str, Comparator] = {
    "or more": "gte", "or higher": "gte", "or above": "gte", "or over": "gte", "or greater": "gte", "or better": "gte",
    "or later": "gte", "or newer": "gte", "or after": "gte", "and up": "gte", "and above": "gte", "and over": "gte",
    "and higher": "gte", "and later": "gte", "and newer": "gte", "onwards": "gte", "onward": "gte", "or longer": "gte",
    "or bigger": "gte", "or larger": "gte", "at least": "gte", "minimum": "gte", "min": "gte", "plus": "gte", "+": "gte",
    "or more than that": "gte", "and beyond": "gte",
    "or less": "lte", "or lower": "lte", "or below": "lte", "or under": "lte", "or fewer": "lte", "or cheaper": "lte",
    "or earlier": "lte", "or older": "lte", "or before": "lte", "and under": "lte", "and below": "lte",
    "and lower": "lte", "and less": "lte", "or shorter": "lte", "or smaller": "lte", "or closer": "lte",
    "at most": "lte", "max": "lte", "maximum": "lte", "tops": "lte", "or so": "eq",
}  # fmt: skip
"""A phrase written after a number (and its unit) that turns it into a bound."""

FLIP: dict[Comparator, Comparator] = {"gt": "lte", "gte": "lt", "lt": "gte", "lte": "gt", "eq": "ne", "ne": "eq"}
"""The comparison a negated cue asks for: "not over 800" is ``lte 800``."""

NEGATIONS = frozenset({
    "not", "no", "non", "never", "without", "except", "excluding", "exclude", "excludes", "isnt", "arent", "dont",
    "doesnt", "wasnt", "werent", "cant", "cannot", "wont", "aint", "nothing", "none", "neither", "nor", "besides",
    "didnt", "hasnt", "havent", "hadnt", "shouldnt", "wouldnt", "couldnt", "mustnt", "lacking", "lacks", "minus",
})  # fmt: skip
"""Single words that negate what follows them (apostrophes already removed by the tokenizer)."""
NEGATION_PHRASES = ("other than", "anything but", "but not", "apart from", "out of", "rather than", "instead of")

DIMENSION_WORDS: dict[str, frozenset[str]] = {
    "money": frozenset({"price", "priced", "cost", "costs", "costing", "pay", "paying", "pays", "paid", "wage", "wages", "fee", "budget", "cheap", "cheaper", "cheapest", "expensive", "afford",
                        "affordable", "dollar", "euro", "usd", "eur", "money", "spend", "earn", "earning", "income",
                        "compensation"}),
    "time": frozenset({"take", "takes", "taking", "took", "ready", "long", "quick", "time", "duration", "minute", "hour",
                       "runtime", "length", "last", "lasting", "wait"}),
    "length": frozenset({"distance", "far", "close", "near", "away", "from", "km", "mile",
                         "kilometre", "kilometer", "metre", "meter"}),
    "area": frozenset({"size", "big", "large", "small", "area", "space", "square", "sq", "footage"}),
    "stars": frozenset({"star", "rated", "rating", "rate", "stars"}),
    "score": frozenset({"rated", "rating", "rate", "score", "scored", "scoring", "review", "reviewed", "graded", "grade"}),
    "energy": frozenset({"calorie", "calories", "kcal", "energy", "cal", "cals"}),
    "percent": frozenset({"percent", "percentage", "rate", "share"}),
}  # fmt: skip
"""Words that point a number at an attribute of that kind ("paying over 150k" → a money attribute)."""

PLACE_WORDS = frozenset({
    "city", "town", "village", "country", "region", "state", "province", "county", "neighbourhood", "neighborhood",
    "district", "area", "location", "located", "place", "address", "based", "where", "suburb", "island", "continent",
})  # fmt: skip
"""Words in an attribute's name or description that make it a place: "in X" names its value."""

ITEM_WORDS = frozenset({
    "result", "item", "option", "example", "idea", "pick", "suggestion", "recommendation", "choice", "thing", "one",
    "entry", "listing", "record", "document", "hit", "match", "place", "spot", "offering", "alternative",
})  # fmt: skip
"""Generic nouns for "the things in the collection" ("show me 5 options"); the schema adds its own."""
