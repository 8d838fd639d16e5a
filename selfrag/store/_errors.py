"""Translating Chroma's failures into selfrag's error tree, in one place.

Chroma raises its own ``ChromaError`` family, ``ValueError`` (e.g. "Could not connect to a
Chroma server"), httpx errors from a server, and whatever the Rust bindings raise. Callers of
the store should only ever see ``StoreError`` (or ``CollectionNotFound``), so every Chroma call
runs inside ``chroma_errors``. Only Chroma calls go inside it: our own bugs must stay visible.

The message says, in our words, what could not be done and the kind of failure; Chroma's own
text ("too many SQL variables", "Error finding id") is internal and goes to ``detail``, which the
service logs with the request id and never sends to a client.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx
from chromadb.errors import NotFoundError

from selfrag.errors import CollectionNotFound, SelfRagError, StoreError, describe

__all__ = ["chroma_errors"]


@contextmanager
def chroma_errors(action: str, *, collection: str | None = None) -> Iterator[None]:
    """Re-raise any failure inside the block as ``StoreError("<action>: <kind of failure>")``.

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
        raise StoreError(f"{action}: {_kind(exc)}", detail=_detail(exc)) from exc
    except Exception as exc:
        raise StoreError(f"{action}: {_kind(exc)}", detail=_detail(exc)) from exc


def _kind(exc: BaseException) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return "the Chroma server did not answer in time"
    if isinstance(exc, httpx.TransportError) or "could not connect" in str(exc).lower():
        return "the Chroma server cannot be reached"
    if isinstance(exc, NotFoundError):
        return "the vector store did not find it"
    return "the vector store failed"


def _detail(exc: BaseException) -> str:
    return describe(exc)
