"""Which stored chunks a ``where`` clause selects, decided by Chroma itself.

Filter accuracy compares two clauses by what they select, so the selection must follow the store's
own semantics (a missing attribute under ``$ne``, int against float, ...). Rather than a second
reading of those rules, the metadata is loaded into a scratch Chroma collection and the clause is
run there. Embeddings are irrelevant to a ``get`` and are one constant number per chunk.

The scratch client is a ``PersistentClient`` in a private temporary directory, not
``EphemeralClient()``: every ephemeral client of a process shares one system, which Chroma refuses
to open again with other settings, so the harness would depend on what its caller opened first.
"""

from __future__ import annotations

import tempfile
import threading
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, cast

import chromadb
import numpy as np
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection as ChromaCollection
from chromadb.errors import ChromaError

from selfrag.errors import one_line
from selfrag.store import chroma_settings

__all__ = ["InvalidWhere", "selected_ids"]

_KEEP = 4
"""Metadata sets kept loaded (a run compares many cases over few collections)."""


class InvalidWhere(ValueError):
    """Chroma refuses the clause; the message is Chroma's reason."""


class _Loaded:
    """In-memory collections by metadata set; each set is held, so its ``id`` stays its own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._client: ClientAPI | None = None
        self._directory: tempfile.TemporaryDirectory[str] | None = None  # removed when the process ends
        self._by_id: OrderedDict[int, tuple[Mapping[str, Mapping[str, Any]], ChromaCollection]] = OrderedDict()

    def collection(self, metadata: Mapping[str, Mapping[str, Any]]) -> ChromaCollection:
        with self._lock:
            found = self._by_id.get(id(metadata))
            if found is not None:
                self._by_id.move_to_end(id(metadata))
                return found[1]
            if self._client is None:
                self._directory = tempfile.TemporaryDirectory(prefix="selfrag-selection-")
                self._client = chromadb.PersistentClient(path=self._directory.name, settings=chroma_settings())
            chroma = self._client.create_collection(f"selection-{uuid.uuid4().hex}", embedding_function=None)
            ids = [str(i) for i in metadata]
            rows = [{k: v for k, v in metadata[i].items() if v is not None} or None for i in metadata]
            step = self._client.get_max_batch_size()
            for start in range(0, len(ids), step):
                part = ids[start : start + step]
                # None for a chunk without metadata: Chroma accepts it, though its stubs do not say so.
                metadatas = cast(Any, rows[start : start + step])
                chroma.add(ids=part, embeddings=np.ones((len(part), 1), dtype=np.float32), metadatas=metadatas)
            self._by_id[id(metadata)] = (metadata, chroma)
            while len(self._by_id) > _KEEP:
                _, (_, old) = self._by_id.popitem(last=False)
                self._client.delete_collection(old.name)
            return chroma


_LOADED = _Loaded()


def selected_ids(where: Mapping[str, Any] | None, metadata: Mapping[str, Mapping[str, Any]]) -> frozenset[str]:
    """Ids of ``metadata`` (id → metadata) that Chroma returns for ``where`` (all of them for no filter).

    Raises:
        InvalidWhere: Chroma refuses the clause (e.g. two operators in one condition).
    """
    if not where:
        return frozenset(str(i) for i in metadata)
    if not metadata:
        return frozenset()
    chroma = _LOADED.collection(metadata)
    try:
        found = chroma.get(where=dict(where), include=[])
    except (ValueError, ChromaError) as exc:  # the client's validation, or the engine's
        raise InvalidWhere(one_line(exc)) from None
    return frozenset(found["ids"])
