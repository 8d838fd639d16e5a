"""Cosine similarity of short texts under the collection's own embedding model, cached.

Used twice: to link a word of the question to a known value the rules cannot reach by spelling
("veggie" → vegetarian, "flats" → apartment), and to check that a model's search text, a rewrite
or a condensed question stays close to the question it came from. Known values are embedded once
per process; a question's phrases once per question (one batched call).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

__all__ = ["Similarity"]

_MAX_CACHED = 50_000
_CACHES: weakref.WeakKeyDictionary[Embeddings, dict[str, np.ndarray]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


class Similarity:
    """Cosine similarities between texts, through one embedding model."""

    def __init__(self, embeddings: Embeddings) -> None:
        self.embeddings = embeddings
        with _LOCK:
            try:
                self._cache = _CACHES.setdefault(embeddings, {})
            except TypeError:  # an object that cannot be weakly referenced: a private cache
                self._cache = {}

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for ``texts`` (rows), embedding only the ones not seen before."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            raw = np.asarray(self.embeddings.embed_documents(missing), dtype=np.float32)
            norms = np.linalg.norm(raw, axis=1, keepdims=True)
            fresh = (raw / np.where(norms == 0, 1.0, norms)).astype(np.float32)
            with _LOCK:
                if len(self._cache) > _MAX_CACHED:
                    self._cache.clear()
                for text, vec in zip(missing, fresh, strict=True):
                    self._cache[text] = vec
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])

    def matrix(self, rows: Sequence[str], columns: Sequence[str]) -> np.ndarray:
        """``len(rows) × len(columns)`` cosine similarities."""
        if not rows or not columns:
            return np.zeros((len(rows), len(columns)), dtype=np.float32)
        vecs = self.vectors([*rows, *columns])
        product: np.ndarray = vecs[: len(rows)] @ vecs[len(rows) :].T
        return product

    def pair(self, a: str, b: str) -> float:
        return float(self.matrix([a], [b])[0, 0])
