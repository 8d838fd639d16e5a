"""Probe records: synthetic metadata that tells filters apart by what they select, in a real Chroma.

Two filters are the same filter when they select the same records of *every* collection. We
cannot try every collection, but we can build one that separates any two filters over the
constants they mention: for each attribute, every constant ``c`` of either filter and values
just below and above it (``c ± 1`` for integers, ``c ± 0.05`` and ``c ± 0.5`` for floats), the
declared bounds, the allowed and known values plus one unknown string, both booleans, and the
attribute being absent (Chroma's ``$ne``/``$nin`` select records that lack the attribute; the
ordering operators do not). The records are the cross product of those values over the
attributes the filters mention, sampled (seeded) when it grows too large.

Selection goes through a real Chroma collection (``get(where=...)``), so a filter Chroma rejects
is reported as such rather than evaluated by our own reading of its semantics.
"""

from __future__ import annotations

import itertools
import random
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from selfrag.schema import AttributeInfo, CollectionSchema

__all__ = ["MAX_PROBES", "ProbeChroma", "constants", "probe_records"]

MAX_PROBES = 3000
"""Above this many combinations, a seeded sample plus every one-attribute variation is used."""
_OTHER = "zz-probe-other"
_MISSING = object()
_FLOAT_STEPS = (0.05, 0.5)


def constants(where: Mapping[str, Any] | None) -> dict[str, list[Any]]:
    """Every (attribute → constants) mentioned in a Chroma ``where`` clause."""
    found: dict[str, list[Any]] = {}

    def walk(node: Any) -> None:
        if not isinstance(node, Mapping):
            return
        for key, value in node.items():
            if key in ("$and", "$or"):
                for part in value if isinstance(value, list) else []:
                    walk(part)
            elif isinstance(key, str) and not key.startswith("$"):
                ops = value if isinstance(value, Mapping) else {"$eq": value}
                for operand in ops.values():
                    items = operand if isinstance(operand, list) else [operand]
                    found.setdefault(key, []).extend(items)

    walk(where)
    return found


def _between(a: float, b: float) -> float:
    """A value strictly between ``a < b``: their midpoint, rounded to six places unless rounding
    lands on either end (``0 < x < 7e-274`` is satisfiable, and a probe must show it)."""
    mid = (a + b) / 2
    rounded = round(mid, 6)
    return rounded if a < rounded < b else mid


def _numeric_values(attr: AttributeInfo, consts: Iterable[Any]) -> list[Any]:
    numbers = sorted({float(c) for c in consts if isinstance(c, (int, float)) and not isinstance(c, bool)})
    bounds = [b for b in (attr.minimum, attr.maximum) if b is not None]
    out: set[float] = {_between(a, b) for a, b in itertools.pairwise(numbers)}
    for c in [*numbers, *bounds] or [0]:
        if attr.type == "integer":
            out.update({float(c) - 1, float(c), float(c) + 1, float(int(c))})
        else:
            out.add(float(c))
            for step in _FLOAT_STEPS:
                out.update({round(float(c) - step, 6), round(float(c) + step, 6)})
    if attr.type == "integer":
        return sorted({int(v) for v in out if float(v).is_integer()} | {int(v) for v in out})
    return sorted(out)


def attribute_values(
    attr: AttributeInfo, consts: Iterable[Any], known: Sequence[str] = (), *, respect_schema: bool = False
) -> list[Any]:
    """The probe values of one attribute (``_MISSING`` stands for "attribute absent").

    With ``respect_schema``, only values a collection with this schema can hold: within the
    declared bounds, whole numbers for integers, allowed values only.
    """
    consts = list(consts)
    values: list[Any]
    if attr.type == "boolean":
        values = [True, False]
    elif attr.type == "string":
        strings = [v for v in [*(attr.allowed_values or []), *known, *consts] if isinstance(v, str)]
        values = [*dict.fromkeys(strings), _OTHER]
    else:
        values = _numeric_values(attr, consts)
    if respect_schema:
        values = [v for v in values if _holdable(attr, v)]
    return [*values, _MISSING]


def _holdable(attr: AttributeInfo, value: Any) -> bool:
    if attr.allowed_values is not None and not any(value == a and type(value) is type(a) or
                                                   (isinstance(value, float) and not isinstance(a, (str, bool)) and value == a)
                                                   for a in attr.allowed_values):  # fmt: skip
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if attr.minimum is not None and value < attr.minimum:
            return False
        if attr.maximum is not None and value > attr.maximum:
            return False
    return True


def probe_records(
    schema: CollectionSchema,
    wheres: Iterable[Mapping[str, Any] | None],
    *,
    catalogue: Mapping[str, Sequence[str]] | None = None,
    seed: int = 0,
    max_probes: int = MAX_PROBES,
    respect_schema: bool = False,
) -> list[dict[str, Any]]:
    """Metadata records that separate ``wheres`` by selection (see the module docstring).

    Attributes the filters do not mention are left out; attributes they mention but the schema
    does not declare are probed as strings. Every record carries ``_probe`` (its index), so no
    record is empty.
    """
    mentioned: dict[str, list[Any]] = {}
    for where in wheres:
        for name, consts in constants(where).items():
            mentioned.setdefault(name, []).extend(consts)
    axes: list[tuple[str, list[Any]]] = []
    for name in sorted(mentioned):
        attr = schema.attribute(name) or AttributeInfo(name=name, type="string")
        known = (catalogue or {}).get(name, [])
        axes.append((name, attribute_values(attr, mentioned[name], known, respect_schema=respect_schema and schema.attribute(name) is not None)))
    combos: Iterable[tuple[Any, ...]]
    total = 1
    for _, values in axes:
        total *= len(values)
    if total <= max_probes:
        combos = itertools.product(*(values for _, values in axes))
    else:
        combos = _sample(axes, seed, max_probes)
    records = []
    for i, combo in enumerate(combos):
        record: dict[str, Any] = {"_probe": i}
        for (name, _), value in zip(axes, combo, strict=True):
            if value is not _MISSING:
                record[name] = value
        records.append(record)
    return records


def _sample(axes: list[tuple[str, list[Any]]], seed: int, size: int) -> Iterator[tuple[Any, ...]]:
    rng = random.Random(seed)
    seen: set[tuple[int, ...]] = set()
    base = tuple(0 for _ in axes)
    # Every single-attribute variation of one base record, then random combinations.
    for a, (_, values) in enumerate(axes):
        for v in range(len(values)):
            seen.add(base[:a] + (v,) + base[a + 1 :])
    while len(seen) < size:
        seen.add(tuple(rng.randrange(len(values)) for _, values in axes))
    for index in sorted(seen):
        yield tuple(values[i] for (_, values), i in zip(axes, index, strict=True))


class ProbeChroma:
    """A private embedded Chroma for selecting probe records (one collection at a time)."""

    def __init__(self) -> None:
        import chromadb
        from chromadb.config import Settings

        self._dir = tempfile.TemporaryDirectory(prefix="selfrag-probes-")
        self._client = chromadb.PersistentClient(path=self._dir.name, settings=Settings(anonymized_telemetry=False))
        self._n = 0

    def close(self) -> None:
        self._client.clear_system_cache()
        self._dir.cleanup()

    @contextmanager
    def loaded(self, records: Sequence[Mapping[str, Any]]) -> Iterator[Any]:
        """A collection holding ``records`` (ids are their ``_probe`` numbers), deleted afterwards."""
        self._n += 1
        name = f"probes-{self._n}"
        col = self._client.create_collection(name, embedding_function=None)
        try:
            for start in range(0, len(records), 2000):
                batch = records[start : start + 2000]
                col.add(
                    ids=[str(r["_probe"]) for r in batch],
                    embeddings=[[1.0, 0.0] for _ in batch],  # type: ignore[arg-type]
                    metadatas=[dict(r) for r in batch],
                )
            yield col
        finally:
            self._client.delete_collection(name)

    @staticmethod
    def select(collection: Any, where: Mapping[str, Any] | None) -> frozenset[str]:
        """Ids of the records ``where`` selects (all of them for no filter).

        Raises:
            ValueError: Chroma rejected the clause (its message says why).
        """
        result = collection.get(where=dict(where) if where else None, include=[])
        return frozenset(result["ids"])
