"""Few-shot examples for the self-query prompt, written from the collection's own schema and catalogue.

An API model follows examples better than rules, and examples over the collection's real
attributes and values show it the exact spellings and types to use. Each example is built by
construction (the question is phrased from the filter, never the other way round), and every
kind of condition the schema allows appears once: an equality on a known value, a numeric bound
in the attribute's own unit, a boolean, a negation, an ``in`` list, a year range, a limit, and a
question with no condition at all (so the model learns that ``null`` is an answer).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from selfrag.query._profile import AttrProfile, SchemaProfile
from selfrag.query.model import Comparison, FilterNode, Operation, StructuredQuery
from selfrag.schema import CollectionSchema

__all__ = ["schema_examples"]

_TOPIC = "history"


def _item(profile: SchemaProfile) -> str:
    nouns = sorted(n for n in profile.item_nouns if n.endswith("s") and n.isalpha() and len(n) > 3)
    return nouns[0] if nouns else "documents"


def _and(parts: list[FilterNode]) -> FilterNode | None:
    return None if not parts else parts[0] if len(parts) == 1 else Operation(operator="and", arguments=parts)


def _round(value: float) -> float:
    if value >= 1000:
        return float(round(value, -3))
    if value >= 100:
        return float(round(value, -1))
    return float(round(value, 1)) if value < 10 else float(round(value))


def _bound(p: AttrProfile) -> tuple[str, Comparison] | None:
    """A phrase with an upper or lower bound written the way people write this attribute's numbers."""
    a = p.attr
    lo = a.minimum if a.minimum is not None else 0.0
    hi = a.maximum if a.maximum is not None else (lo + 100 if p.dimension not in ("money",) else lo + 1000)
    value = _round(lo + (hi - lo) * 0.6)
    if a.type == "integer":
        value = float(int(value))
    shown = f"{int(value)}" if value.is_integer() else f"{value}"
    words = " ".join(p.name.replace("_", " ").split())
    if p.dimension == "money":
        phrase, comp = f"under ${shown}", "lt"
    elif p.dimension == "stars":
        phrase, comp = f"with at least {shown} stars", "gte"
    elif p.dimension == "score":
        phrase, comp = f"rated above {shown}", "gt"
    elif p.dimension == "time" and p.unit is not None:
        phrase, comp = f"that take at most {shown} {'minutes' if p.unit.factor == 1 else words}", "lte"
    else:
        phrase, comp = f"with {words} over {shown}", "gt"
    number: float | int = int(value) if a.type == "integer" else value
    return phrase, Comparison(attribute=a.name, comparator=comp, value=number)


def schema_examples(
    schema: CollectionSchema, catalogue: Mapping[str, Sequence[str]], today: date
) -> list[tuple[str, StructuredQuery]]:
    """Up to four (question, structured query) pairs over ``schema``'s attributes and known values."""
    profile = SchemaProfile(schema, catalogue)
    items = _item(profile)
    examples: list[tuple[str, StructuredQuery]] = [(f"Which {items} are about {_TOPIC}?", StructuredQuery(query=_TOPIC))]
    categorical = [p for p in profile.strings() if len(p.values) >= 2]
    numeric = [p for p in profile.numeric() if not p.is_year]
    booleans = profile.booleans()
    years = profile.years()
    # 1. a value and a bound
    parts: list[FilterNode] = []
    words: list[str] = []
    if categorical:
        p = categorical[0]
        words.append(p.values[0])
        parts.append(Comparison(attribute=p.name, comparator="eq", value=p.values[0]))
    words.append(items)
    if numeric and (bound := _bound(numeric[0])) is not None:
        words.append(bound[0])
        parts.append(bound[1])
    if booleans:
        b = booleans[0]
        words.append(f"that are {' '.join(b.name.replace('_', ' ').split())}")
        parts.append(Comparison(attribute=b.name, comparator="eq", value=True))
    if parts:
        examples.append((f"{' '.join(words)} about {_TOPIC}", StructuredQuery(query=_TOPIC, filter=_and(parts))))
    # 2. an "or" list, a name, and a limit
    if categorical and len(categorical[0].values) >= 3:
        p = categorical[0]
        first, second = p.values[1], p.values[2]
        parts = [Comparison(attribute=p.name, comparator="in", value=[first, second])]
        text = f"show me 3 {first} or {second} {items}"
        names = [q for q in categorical[1:] if q.name_like]
        if names:
            parts.append(Comparison(attribute=names[0].name, comparator="eq", value=names[0].values[0]))
            text += f" by {names[0].values[0]}"
        examples.append((text, StructuredQuery(query=items, filter=_and(parts), limit=3)))
    # 3. a negation and a relative year range
    parts = []
    text = f"{items}"
    if years:
        parts.append(Comparison(attribute=years[0].name, comparator="gte", value=today.year - 2))
        text += " from the last 2 years"
    if categorical:
        p = categorical[-1]
        parts.append(Comparison(attribute=p.name, comparator="ne", value=p.values[-1]))
        text += f" that are not {p.values[-1]}"
    if booleans and len(booleans) > 1:
        b = booleans[1]
        parts.append(Comparison(attribute=b.name, comparator="eq", value=False))
        text += f" and not {' '.join(b.name.replace('_', ' ').split())}"
    if parts:
        examples.append((f"{text}, about {_TOPIC}", StructuredQuery(query=_TOPIC, filter=_and(parts))))
    return examples
