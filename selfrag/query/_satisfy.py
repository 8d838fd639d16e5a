"""Filters that can select something: contradictions, empty ranges and impossible values, found
before the store sees them.

``year == 2019 AND year == 2021`` selects nothing by construction; so do ``price > 500 AND price <
100``, ``stars > 5`` on a 1–5 attribute, or ``genre == "x"`` where ``x`` is not an allowed value.
A small model writes such filters, and so does a careless reading of "2019 or 2021". Each one is
repaired, never passed on, and every repair is recorded:

- a comparison no stored value can satisfy (outside the declared minimum/maximum, a fraction
  for an integer, a disallowed value) is dropped;
- conditions on one attribute that cannot hold together are merged into ``in`` when they are
  equalities the question joined with "or", and dropped otherwise;
- a filter that still cannot select anything is dropped whole.

Satisfiability is decided exactly, by trying every value that matters: the constants the filter
mentions, values just beside them and between them, the declared bounds and allowed values, one
value nobody mentioned, and the attribute being absent (Chroma's ``$ne``/``$nin``/``$not_contains`` select records
without the attribute; ``$eq`` and the ordering operators do not). Validation first writes a
negation of a number or a flag so that it needs the attribute (``_present``), so absence is judged
on the operators the store will be asked.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence

from selfrag.query.model import Change, Comparison, FilterNode, Operation, Scalar
from selfrag.query.translate import push_not
from selfrag.schema import AttributeInfo, CollectionSchema

__all__ = ["make_satisfiable", "satisfiable"]

_ABSENT = object()
_OTHER = "\u0000other"
_MAX_COMBOS = 20_000


def _clauses(node: FilterNode) -> Iterator[Comparison]:
    if isinstance(node, Comparison):
        yield node
    else:
        for a in node.arguments:
            yield from _clauses(a)


def _domain(attr: AttributeInfo | None, consts: Sequence[Scalar]) -> list[object]:
    """Every value of one attribute worth trying (plus absence)."""
    if attr is None or attr.type == "string":
        allowed = [v for v in (attr.allowed_values or []) if isinstance(v, str)] if attr else []
        strings = [c for c in consts if isinstance(c, str)]
        values: list[object] = list(dict.fromkeys([*allowed, *(s for s in strings if not allowed or s in allowed)]))
        if not allowed:
            values.append(_OTHER)
        return [*values, _ABSENT]
    if attr.type == "boolean":
        return [True, False, _ABSENT]
    if attr.type == "string[]":
        # Lists holding each set of the mentioned strings (with another one: never empty), and none at all.
        strings = list(dict.fromkeys(c for c in consts if isinstance(c, str)))[:8]
        subsets = itertools.chain.from_iterable(itertools.combinations(strings, k) for k in range(len(strings) + 1))
        return [*([*subset, _OTHER] for subset in subsets), _ABSENT]
    numbers = sorted({float(c) for c in consts if isinstance(c, (int, float)) and not isinstance(c, bool)})
    lo, hi = attr.minimum, attr.maximum
    points = set(numbers)
    for a, b in itertools.pairwise(numbers):
        points.add((a + b) / 2)
    for c in numbers:
        points.update({c - 1, c + 1, c - 1e-3, c + 1e-3})
    points.update(b for b in (lo, hi) if b is not None)
    if not points:
        points.add(lo if lo is not None else hi if hi is not None else 0.0)
    if attr.type == "integer":
        ints = {float(int(p)) for p in points} | {float(int(p)) + 1 for p in points}
        points = ints
    if attr.allowed_values:
        points = {float(v) for v in attr.allowed_values if isinstance(v, (int, float)) and not isinstance(v, bool)}
    kept = [p for p in points if (lo is None or p >= lo) and (hi is None or p <= hi)]
    return [*sorted(kept), _ABSENT]


def _holds(c: Comparison, value: object) -> bool:
    op, target = c.comparator, c.value
    if value is _ABSENT:
        return op in ("ne", "nin", "not_contains")
    if op in ("contains", "not_contains"):
        hit = isinstance(value, list) and target in value
        return hit if op == "contains" else not hit
    if op in ("in", "nin"):
        items = target if isinstance(target, list) else [target]
        hit = any(_same(value, t) for t in items)
        return hit if op == "in" else not hit
    if op == "eq":
        return _same(value, target)
    if op == "ne":
        return not _same(value, target)
    if isinstance(value, (str, bool)) or isinstance(target, (str, bool, list)) or value is _OTHER:
        return False
    v, t = float(value), float(target)  # type: ignore[arg-type]
    return {"gt": v > t, "gte": v >= t, "lt": v < t, "lte": v <= t}[op]


def _same(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


def _evaluate(node: FilterNode, record: dict[str, object]) -> bool:
    if isinstance(node, Comparison):
        return _holds(node, record.get(node.attribute, _ABSENT))
    if node.operator == "and":
        return all(_evaluate(a, record) for a in node.arguments)
    if node.operator == "or":
        return any(_evaluate(a, record) for a in node.arguments)
    return not any(_evaluate(a, record) for a in node.arguments)


def satisfiable(node: FilterNode | None, schema: CollectionSchema) -> bool:
    """Whether some record that respects ``schema`` satisfies ``node`` under Chroma's semantics.

    ``not`` is judged as the store will see it: pushed onto the comparisons (``not year > 1900``
    is ``year <= 1900``, which a record without a year does not satisfy).
    """
    if node is None:
        return True
    node = push_not(node, False)
    consts: dict[str, list[Scalar]] = {}
    for c in _clauses(node):
        consts.setdefault(c.attribute, []).extend(c.value if isinstance(c.value, list) else [c.value])
    names = sorted(consts)
    domains = [_domain(schema.attribute(n), consts[n]) for n in names]
    total = 1
    for d in domains:
        total *= len(d)
    if total > _MAX_COMBOS:
        return True  # too large to enumerate: assume it can (every single clause was checked already)
    return any(_evaluate(node, dict(zip(names, combo, strict=True))) for combo in itertools.product(*domains))


def _describe(node: FilterNode) -> str:
    if isinstance(node, Comparison):
        return f"{node.attribute} {node.comparator} {node.value!r}"
    return "(" + f" {node.operator} ".join(_describe(a) for a in node.arguments) + ")"


def _and(parts: list[FilterNode]) -> FilterNode | None:
    return None if not parts else parts[0] if len(parts) == 1 else Operation(operator="and", arguments=parts)


def _said_or(question: str | None, values: list[Scalar]) -> bool:
    """Whether the question joined these values with "or" (or a comma list ending in "or")."""
    if not question:
        return False
    text = question.casefold()
    spots = []
    for v in values:
        m = re.search(rf"(?<!\w){re.escape(str(v).casefold())}(?!\w)", text)
        if m is None:
            return bool(re.search(r"\bor\b|\beither\b", text))
        spots.append(m)
    spots.sort(key=lambda m: m.start())
    between = text[spots[0].end() : spots[-1].start()]
    return bool(re.search(r"\bor\b|\beither\b|/", between))


def make_satisfiable(
    node: FilterNode | None, schema: CollectionSchema, changes: list[Change], *, question: str | None = None
) -> FilterNode | None:
    """``node`` repaired so that it can select something (see the module docstring); None if nothing is left."""
    if node is None:
        return None
    node = _drop_impossible(node, schema, changes)
    if node is None:
        return None
    conjuncts = list(node.arguments) if isinstance(node, Operation) and node.operator == "and" else [node]
    by_attr: dict[str, list[int]] = {}
    for i, part in enumerate(conjuncts):
        attrs = {c.attribute for c in _clauses(part)}
        if len(attrs) == 1:
            by_attr.setdefault(attrs.pop(), []).append(i)
    drop: set[int] = set()
    replace: dict[int, FilterNode] = {}
    for name, idx in by_attr.items():
        group = [conjuncts[i] for i in idx]
        if len(group) < 2 or satisfiable(_and(group), schema):
            continue
        equalities = [g for g in group if isinstance(g, Comparison) and g.comparator in ("eq", "in")]
        if len(equalities) == len(group):
            values: list[Scalar] = []
            for g in equalities:
                for v in g.value if isinstance(g.value, list) else [g.value]:
                    if not any(_same(v, k) for k in values):
                        values.append(v)
            if _said_or(question, values):
                replace[idx[0]] = Comparison(attribute=name, comparator="in", value=values)
                drop.update(idx[1:])
                changes.append(Change(kind="contradiction", detail=(
                    f"{' and '.join(_describe(g) for g in group)} cannot all hold; the question joins them with "
                    f"'or', so read as {name} in {values!r}")))
                continue
        drop.update(idx)
        changes.append(Change(kind="contradiction", detail=(
            f"{' and '.join(_describe(g) for g in group)} cannot all hold (nothing could match); dropped")))
    kept = [replace.get(i, part) for i, part in enumerate(conjuncts) if i not in drop or i in replace]
    result = _and(kept)
    if result is not None and not satisfiable(result, schema):
        changes.append(Change(kind="unsatisfiable", detail=f"{_describe(result)} can select nothing; searching without a filter"))
        return None
    return result


def _drop_impossible(node: FilterNode, schema: CollectionSchema, changes: list[Change]) -> FilterNode | None:
    """Drop comparisons that no value of their attribute can satisfy, anywhere in the tree."""
    if isinstance(node, Comparison):
        attr = schema.attribute(node.attribute)
        domain = [v for v in _domain(attr, node.value if isinstance(node.value, list) else [node.value]) if v is not _ABSENT]
        if not any(_holds(node, v) for v in domain) and node.comparator not in ("ne", "nin"):
            bounds = ""
            if attr is not None and (attr.minimum is not None or attr.maximum is not None):
                bounds = f" (declared range {attr.minimum if attr.minimum is not None else '…'}..{attr.maximum if attr.maximum is not None else '…'})"
            changes.append(Change(kind="dropped_clause", detail=f"{_describe(node)} can match no stored value{bounds}"))
            return None
        return node
    kids = [k for k in (_drop_impossible(a, schema, changes) for a in node.arguments) if k is not None]
    if not kids:
        return None
    if node.operator == "not":
        return Operation(operator="not", arguments=kids)
    if len(kids) == 1:
        return kids[0]
    return Operation(operator=node.operator, arguments=kids)
