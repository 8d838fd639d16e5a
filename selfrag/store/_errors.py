"""Translating Chroma's failures into selfrag's error tree, in one place.

Chroma raises its own ``ChromaError`` family, ``ValueError`` (e.g. "Could not connect to a
Chroma server"), httpx errors from a server, and whatever the Rust bindings raise. Callers of
the store should only ever see ``StoreError`` (or ``CollectionNotFound``), so every Chroma call
runs inside ``chroma_errors``. Only Chroma calls go inside it: our own bugs must stay visible.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from chromadb.errors import NotFoundError

from selfrag.errors import CollectionNotFound, SelfRagError, StoreError

__all__ = ["chroma_errors"]


@contextmanager
def chroma_errors(action: str, *, collection: str | None = None) -> Iterator[None]:
    """Re-raise any failure inside the block as ``StoreError("<action>: <reason>")``.

    Args:
        action: What was being done, e.g. ``"cannot query collection 'movies'"``.
        collection: When set, Chroma's "not found" becomes ``CollectionNotFound(collection)``
            (the collection was deleted under us, e.g. by another process).
    """
    try:
        yield
    except SelfRagError:
        raise
    except NotFoundError as exc:
        if collection is not None:
            raise CollectionNotFound(collection) from exc
        raise StoreError(f"{action}: {_reason(exc)}") from exc
    except Exception as exc:
        raise StoreError(f"{action}: {_reason(exc)}") from exc


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
