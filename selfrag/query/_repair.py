"""The filter-tree half of validation: walk an untrusted tree and rebuild a safe one.

The input may be a pydantic tree (possibly built with ``model_construct``, so anything goes) or
raw mappings; the output contains only declared attributes, comparators their type supports,
values of the declared type, ``and``/``or`` with two or more arguments and ``not`` with one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, get_args

from selfrag.lang import resolve_year_value
from selfrag.query._coerce import coerce_value
from selfrag.query._match import KnownValues
from selfrag.query.model import Change, Comparator, Comparison, FilterNode, Operation, Operator, Scalar
from selfrag.schema import AttributeInfo, CollectionSchema

__all__ = ["Repairer"]

_COMPARATORS: frozenset[str] = frozenset(get_args(Comparator))
_ALIASES = {
    "==": "eq", "=": "eq", "equals": "eq", "equal": "eq", "is": "eq",
    "!=": "ne", "<>": "ne", "neq": "ne", "not_equal": "ne", "is not": "ne",
    ">": "gt", ">=": "gte", "<": "lt", "<=": "lte", "not in": "nin", "not_in": "nin", "notin": "nin",
}  # fmt: skip
_ORDERING = frozenset({"gt", "gte", "lt", "lte"})
_MEMBERSHIP = frozenset({"contains", "not_contains"})
"""Tests of a list's elements: for ``string[]`` attributes, which take no other comparator."""
_YEAR_RANGE_MAX = 50


def _get(raw: object, key: str) -> Any:
    if isinstance(raw, Mapping):
        return raw.get(key)
    return getattr(raw, key, None)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Repairer:
    """Rebuilds one filter tree, appending a :class:`Change` for every repair to ``changes``."""

    def __init__(
        self, schema: CollectionSchema, catalogue: Mapping[str, Sequence[str]], today: date, changes: list[Change]
    ) -> None:
        self._schema = schema
        self._catalogue = catalogue
        self._today = today
        self._changes = changes
        self._indexes: dict[str, KnownValues] = {}

    def _note(self, kind: str, detail: str) -> None:
        self._changes.append(Change.model_validate({"kind": kind, "detail": detail}))

    def node(self, raw: object) -> FilterNode | None:
        """The repaired node, or None when nothing of it can be kept."""
        if isinstance(raw, Comparison) or (isinstance(raw, Mapping) and "attribute" in raw):
            return self._comparison(_get(raw, "attribute"), _get(raw, "comparator"), _get(raw, "value"))
        if isinstance(raw, Operation) or (isinstance(raw, Mapping) and "operator" in raw):
            return self._operation(_get(raw, "operator"), _get(raw, "arguments"))
        self._note("dropped_clause", f"not a condition: {_short(raw)}")
        return None

    def _operation(self, raw_op: object, raw_args: object) -> FilterNode | None:
        name = raw_op.strip().lstrip("$").casefold() if isinstance(raw_op, str) else None
        if name not in ("and", "or", "not"):
            self._note("dropped_clause", f"unknown operator {_short(raw_op)}")
            return None
        op: Operator = "and" if name == "and" else "or" if name == "or" else "not"
        args = list(raw_args) if isinstance(raw_args, (list, tuple)) else [] if raw_args is None else [raw_args]
        children = [c for c in (self.node(a) for a in args) if c is not None]
        if op == "not":
            return self._not(children)
        flat: list[FilterNode] = []
        for child in children:
            same = isinstance(child, Operation) and child.operator == op
            flat.extend(child.arguments if isinstance(child, Operation) and same else [child])
        if not flat:
            self._note("dropped_clause", f"'{op}' without any usable condition")
            return None
        if len(flat) == 1:
            self._note("unwrapped", f"'{op}' with a single condition replaced by that condition")
            return flat[0]
        return Operation(operator=op, arguments=flat)

    def _not(self, children: list[FilterNode]) -> FilterNode | None:
        if not children:
            self._note("dropped_clause", "'not' without any usable condition")
            return None
        child = children[0]
        if len(children) > 1:
            # "not (a, b)" most plausibly means "neither a nor b".
            self._note("rewrote_not", f"'not' over {len(children)} conditions read as 'none of them'")
            child = Operation(operator="or", arguments=children)
        if isinstance(child, Operation) and child.operator == "not":
            self._note("rewrote_not", "double negation removed")
            return child.arguments[0]
        return Operation(operator="not", arguments=[child])

    def _attribute(self, raw: object) -> AttributeInfo | None:
        if not isinstance(raw, str):
            self._note("dropped_attribute", f"attribute name {_short(raw)} is not a string")
            return None
        found = self._schema.attribute(raw)
        if found is None:
            wanted = raw.rsplit(".", 1)[-1].strip().casefold()
            found = next((a for a in self._schema.attributes if a.name.casefold() == wanted), None)
            if found is not None:
                self._note("coerced_value", f"attribute {raw!r} read as {found.name!r}")
        if found is None:
            self._note("dropped_attribute", f"unknown attribute {_short(raw)} (declared: {', '.join(self._schema.names)})")
        return found

    def _comparator(self, raw: object) -> Comparator | None:
        if not isinstance(raw, str):
            return None
        key = raw.strip().lstrip("$").casefold()
        key = _ALIASES.get(key, key)
        if key not in _COMPARATORS:
            return None
        if key != raw:
            self._note("coerced_value", f"comparator {raw!r} read as {key!r}")
        return key  # type: ignore[return-value]

    def _comparison(self, raw_attr: object, raw_comp: object, value: object) -> FilterNode | None:
        attr = self._attribute(raw_attr)
        if attr is None:
            return None
        comp = self._comparator(raw_comp)
        if comp is None:
            self._note("dropped_clause", f"{attr.name}: unknown comparator {_short(raw_comp)}")
            return None
        if (comp in _MEMBERSHIP) != (attr.type == "string[]"):
            self._note("dropped_clause", f"{attr.name}: '{comp}' does not apply to a {attr.type}")
            return None
        if attr.type in ("string", "boolean") and comp in _ORDERING:
            self._note("dropped_clause", f"{attr.name}: '{comp}' needs a number but {attr.name} is a {attr.type}")
            return None
        if comp in ("in", "nin"):
            if not isinstance(value, (list, tuple)):
                self._note("coerced_value", f"{attr.name}: single value for '{comp}' wrapped in a list")
                value = [value]
            return self._many(attr, comp, list(value))
        if isinstance(value, (list, tuple)):
            if comp in ("eq", "ne"):
                wide: Comparator = "in" if comp == "eq" else "nin"
                self._note("coerced_value", f"{attr.name}: list value, '{comp}' read as '{wide}'")
                return self._many(attr, wide, list(value))
            if len(value) != 1:
                self._note("dropped_clause", f"{attr.name}: '{comp}' takes one value, got {_short(value)}")
                return None
            value = value[0]
        if isinstance(value, str) and attr.kind == "year":
            span = resolve_year_value(value, self._today)
            if span is not None:
                return self._year_span(attr, comp, value, span)
        single = self._value(attr, comp, value)
        return None if single is None else Comparison(attribute=attr.name, comparator=comp, value=single)

    def _year_span(self, attr: AttributeInfo, comp: Comparator, text: str, span: tuple[int, int]) -> FilterNode | None:
        lo, hi = span
        self._note("resolved_date", f"{attr.name}: {text!r} resolved to {lo}" + (f"–{hi}" if hi != lo else ""))
        name = attr.name
        if lo == hi or comp in _ORDERING:
            bound = {"gt": hi, "lte": hi, "gte": lo, "lt": lo}.get(comp, lo)
            return self._comparison(name, comp, bound)
        parts = [{"attribute": name, "comparator": "gte", "value": lo}, {"attribute": name, "comparator": "lte", "value": hi}]
        if comp == "eq":
            return self.node({"operator": "and", "arguments": parts})
        return self.node({"operator": "not", "arguments": [{"operator": "and", "arguments": parts}]})

    def _many(self, attr: AttributeInfo, comp: Comparator, values: list[object]) -> FilterNode | None:
        kept: list[Scalar] = []
        for raw in values:
            span = resolve_year_value(raw, self._today) if isinstance(raw, str) and attr.kind == "year" else None
            if span is not None and span[1] - span[0] <= _YEAR_RANGE_MAX:
                self._note("resolved_date", f"{attr.name}: {raw!r} resolved to {span[0]}–{span[1]}")
                expanded: list[object] = list(range(span[0], span[1] + 1))
            else:
                expanded = [raw]
            for item in expanded:
                value = self._value(attr, comp, item)
                if value is not None and not any(type(value) is type(k) and value == k for k in kept):
                    kept.append(value)
        if not kept:
            self._note("dropped_clause", f"{attr.name}: no usable value left for '{comp}'")
            return None
        return Comparison(attribute=attr.name, comparator=comp, value=kept)

    def _index(self, attr: AttributeInfo) -> KnownValues:
        if attr.name not in self._indexes:
            source = attr.allowed_values if attr.allowed_values else self._catalogue.get(attr.name, [])
            self._indexes[attr.name] = KnownValues(v for v in source if isinstance(v, str))
        return self._indexes[attr.name]

    def _value(self, attr: AttributeInfo, comp: Comparator, raw: object) -> Scalar | None:
        value = coerce_value(raw, attr.type, comp)
        if value is None:
            self._note("dropped_clause", f"{attr.name}: {_short(raw)} is not a valid {attr.type}")
            return None
        if type(value) is not type(raw) and not (isinstance(raw, int) and isinstance(value, float)):
            self._note("coerced_value", f"{attr.name}: {_short(raw)} read as {value!r}")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if (attr.minimum is not None and value < attr.minimum) or (attr.maximum is not None and value > attr.maximum):
                self._note("dropped_clause", f"{attr.name}: {value} is outside {attr.minimum}..{attr.maximum}")
                return None
            allowed = [a for a in attr.allowed_values or [] if isinstance(a, (int, float)) and not isinstance(a, bool)]
            if allowed and comp not in _ORDERING and value not in allowed:
                self._note("dropped_clause", f"{attr.name}: {value} is not an allowed value")
                return None
        if isinstance(value, str):
            return self._known(attr, value)
        return value

    def _known(self, attr: AttributeInfo, value: str) -> str | None:
        index = self._index(attr)
        if not len(index):
            return value
        found = index.match(value)
        if found is not None:
            if found.value != value:
                self._note("matched_value", f"{attr.name}: {value!r} matched known value {found.value!r} ({found.how})")
            return found.value
        if attr.allowed_values:
            self._note("dropped_clause", f"{attr.name}: {value!r} is not one of the allowed values")
            return None
        self._note("kept_unknown_value", f"{attr.name}: {value!r} is not a known value; kept as written")
        return value
