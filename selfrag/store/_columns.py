"""A collection's metadata as numpy columns, and Chroma's ``where`` evaluated over them.

Chroma evaluates a filter in SQLite by grouping every metadata row of every record (~230 ms for a
``year`` range over 100,000 chunks, ~40 ms for any clause touching ~5,000 rows); over columns the
same filter costs a few milliseconds. The semantics are Chroma's (its SQLite metadata reader), which
``tests/store/test_store_columns.py`` checks against Chroma itself on random filters:

- a comparison is typed by its *value*: a ``str`` compares with stored strings, a ``bool`` with stored
  bools; numbers with stored numbers of either type (``2`` matches a stored ``2.0``), but Chroma
  does not compare a float with a fraction against a stored int as numbers, so such a filter is
  left to it;
- ``$eq``/``$gt``/``$gte``/``$lt``/``$lte``/``$in`` hold when the record's scalar value under the key
  satisfies them; ``$ne``/``$nin`` are their negations, so a record without the key matches them;
- ``$contains``/``$not_contains`` test the elements of an array value, strictly typed (``1`` is not
  found in ``[1.0]``; a scalar value is no array);
- ``$and``/``$or`` combine.

Anything else (a string range, an unknown operator) makes :meth:`Columns.matches` return None, and
the caller asks Chroma: never a guess.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Columns", "Row"]

Row = tuple[int, str, str | None, int | None, float | None, int | None]
"""One stored metadata value: (record position, key, string, int, float, bool) as Chroma's SQLite
tables hold it, exactly one of the four values set (an array has one row per element)."""

_ORDERED = {"$gt": np.greater, "$gte": np.greater_equal, "$lt": np.less, "$lte": np.less_equal}


@dataclass
class _Scalars:
    """The scalar values of one type under one key: where they are set, and what they are."""

    present: np.ndarray
    values: np.ndarray


@dataclass
class _Key:
    """Everything stored under one metadata key: scalar columns by type, array elements by value."""

    scalars: dict[type, _Scalars] = field(default_factory=dict)
    elements: dict[tuple[type, Any], np.ndarray] = field(default_factory=dict)
    """(type, element) → positions of the records whose array under this key holds it."""


class Columns:
    """The metadata of ``ids`` (positions in Chroma's own order), column by column."""

    def __init__(self, ids: Sequence[str], scalar_rows: Iterable[Row], array_rows: Iterable[Row]) -> None:
        self.ids: np.ndarray = np.array(ids, dtype=object) if len(ids) else np.empty(0, dtype=object)
        n = len(ids)
        self._vocabs: dict[str, dict[str, int]] = {}
        raw: dict[tuple[str, type], tuple[list[int], list[Any]]] = {}
        for pos, key, value in _typed(scalar_rows):
            rows, values = raw.setdefault((key, type(value)), ([], []))
            rows.append(pos)
            values.append(value)
        self._keys: dict[str, _Key] = {}
        for (key, kind), (rows, values) in raw.items():
            present = np.zeros(n, dtype=bool)
            present[rows] = True
            column = np.zeros(n, dtype=_DTYPES[kind]) if kind is not str else np.full(n, -1, dtype=np.int32)
            if kind is str:
                column[rows] = [_code(self._vocab(key), v) for v in values]
            else:
                column[rows] = values
            self._keys.setdefault(key, _Key()).scalars[kind] = _Scalars(present, column)
        elements: dict[tuple[str, type, Any], list[int]] = {}
        for pos, key, value in _typed(array_rows):
            elements.setdefault((key, type(value), value), []).append(pos)
        for (key, kind, value), rows in elements.items():
            self._keys.setdefault(key, _Key()).elements[(kind, value)] = np.unique(np.asarray(rows, dtype=np.int64))

    def _vocab(self, key: str) -> dict[str, int]:
        """String values under ``key`` → their codes (dictionary encoding: a string test is an int test)."""
        return self._vocabs.setdefault(key, {})

    def __len__(self) -> int:
        return len(self.ids)

    def ids_where(self, mask: np.ndarray) -> list[str]:
        """The ids of the records ``mask`` selects, in Chroma's order."""
        return [str(i) for i in self.ids[np.flatnonzero(mask)].tolist()]

    def edited(self, remove: np.ndarray, added: Columns, at: np.ndarray) -> Columns:
        """These columns after a write: the records at positions ``remove`` dropped, and ``added``'s
        records inserted at ``at`` (ascending indices into what remains, as ``np.insert`` takes them).

        Costs a copy of each column (milliseconds at a million records) plus the added records,
        never a re-read of the collection: how the column cache follows this process's writes.
        """
        n_old = len(self)
        keep = np.ones(n_old, dtype=bool)
        keep[remove] = False
        kept = np.flatnonzero(keep)
        m = len(kept) + len(added)
        inserted = np.asarray(at, dtype=np.int64) + np.arange(len(added), dtype=np.int64)
        new = np.zeros(m, dtype=bool)
        new[inserted] = True
        placed = np.flatnonzero(~new)  # where each kept record lands
        moved = np.full(n_old, -1, dtype=np.int64)
        moved[kept] = placed
        out = Columns([], (), ())
        out.ids = np.empty(m, dtype=object)
        out.ids[placed] = self.ids[kept]
        out.ids[inserted] = added.ids
        out._vocabs = {key: dict(vocab) for key, vocab in self._vocabs.items()}
        for key in self._keys.keys() | added._keys.keys():
            mine, theirs, merged = self._keys.get(key, _Key()), added._keys.get(key, _Key()), _Key()
            for kind in mine.scalars.keys() | theirs.scalars.keys():
                present = np.zeros(m, dtype=bool)
                values = np.full(m, -1, dtype=np.int32) if kind is str else np.zeros(m, dtype=_DTYPES[kind])
                if kind in mine.scalars:
                    present[placed] = mine.scalars[kind].present[kept]
                    values[placed] = mine.scalars[kind].values[kept]
                if kind in theirs.scalars:
                    present[inserted] = theirs.scalars[kind].present
                    incoming = theirs.scalars[kind].values
                    if kind is str:  # their codes → ours (the same string keeps one code)
                        vocab = out._vocab(key)
                        recode = np.array([_code(vocab, v) for v in added._vocabs.get(key, {})] + [-1], dtype=np.int32)
                        incoming = recode[incoming]  # -1 (absent) indexes the trailing -1
                    values[inserted] = incoming
                merged.scalars[kind] = _Scalars(present, values)
            for element, rows in mine.elements.items():
                rows = moved[rows]
                merged.elements[element] = rows[rows >= 0]
            for element, rows in theirs.elements.items():
                ours = merged.elements.get(element, np.empty(0, dtype=np.int64))
                merged.elements[element] = np.unique(np.concatenate([ours, inserted[rows]]))
            merged.elements = {e: rows for e, rows in merged.elements.items() if rows.size}
            out._keys[key] = merged
        return out

    def matches(self, where: Mapping[str, Any]) -> np.ndarray | None:
        """A boolean mask of the records ``where`` selects, or None when it is outside what is mirrored."""
        try:
            return self._where(where)
        except _Unsupported:
            return None

    # -- evaluation ---------------------------------------------------------------------------------
    def _where(self, where: Mapping[str, Any]) -> np.ndarray:
        masks: list[np.ndarray] = []
        for key, clause in where.items():
            if key in ("$and", "$or"):
                parts = [self._where(part) for part in clause]
                if not parts:
                    raise _Unsupported
                combine = np.logical_and if key == "$and" else np.logical_or
                masks.append(combine.reduce(parts))
            elif key.startswith("#"):
                raise _Unsupported  # Chroma's own keys (``#document``): not metadata
            elif isinstance(clause, Mapping):
                if len(clause) != 1:
                    raise _Unsupported
                [(op, value)] = clause.items()
                masks.append(self._compare(key, op, value))
            else:
                masks.append(self._compare(key, "$eq", clause))
        if not masks:
            raise _Unsupported
        return np.logical_and.reduce(masks) if len(masks) > 1 else masks[0]

    def _compare(self, key: str, op: str, value: Any) -> np.ndarray:
        if op in ("$ne", "$nin", "$not_contains"):
            positive = {"$ne": "$eq", "$nin": "$in", "$not_contains": "$contains"}[op]
            return ~self._compare(key, positive, value)
        stored = self._keys.get(key, _Key())
        if op == "$contains":
            kind = _kind(value)
            rows = stored.elements.get((kind, value))
            mask = np.zeros(len(self.ids), dtype=bool)
            if rows is not None:
                mask[rows] = True
            return mask
        if op == "$in":
            if not isinstance(value, list) or not value:
                raise _Unsupported
            return np.asarray(np.logical_or.reduce([self._compare(key, "$eq", v) for v in value]), dtype=bool)
        kind = _kind(value)
        compare = np.equal if op == "$eq" else _ORDERED.get(op)
        if compare is None or (op != "$eq" and kind not in (int, float)):
            raise _Unsupported  # string and bool ranges: Chroma rejects them; unknown operators
        none = np.zeros(len(self.ids), dtype=bool)
        if kind is str:
            column, code = stored.scalars.get(str), self._vocabs.get(key, {}).get(value)
            return column.values == code if column is not None and code is not None else none
        if kind is bool:
            column = stored.scalars.get(bool)
            return column.present & (column.values == value) if column is not None else none
        # Numbers compare across types: an int matches a stored 2.0, a float a stored 2. A float with a
        # fraction against stored ints is left to Chroma (it does not compare those as numbers).
        mask = none
        ints, floats = stored.scalars.get(int), stored.scalars.get(float)
        if ints is not None:
            if isinstance(value, float) and not value.is_integer():
                raise _Unsupported
            mask = mask | (ints.present & compare(ints.values, int(value)))
        if floats is not None:
            mask = mask | (floats.present & compare(floats.values, float(value)))
        return mask


class _Unsupported(Exception):
    """A filter the columns do not mirror exactly (the caller asks Chroma instead)."""


_DTYPES: dict[type, Any] = {int: np.int64, float: np.float64, bool: np.bool_}


def _kind(value: Any) -> type:
    """The column a filter value compares with (``bool`` before ``int``: True is an int in Python)."""
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    if isinstance(value, float):
        return float
    if isinstance(value, str):
        return str
    raise _Unsupported


def _typed(rows: Iterable[Row]) -> Iterable[tuple[int, str, Any]]:
    """(position, key, value) with the value in its Python type, from Chroma's four typed columns."""
    for pos, key, s, i, f, b in rows:
        if s is not None:
            yield pos, key, s
        elif i is not None:
            yield pos, key, int(i)
        elif f is not None:
            yield pos, key, float(f)
        elif b is not None:
            yield pos, key, bool(b)


def _code(vocab: dict[str, int], value: str) -> int:
    return vocab.setdefault(value, len(vocab))
