"""Scripted embeddings for the self-query tests: the words of one group share most of a direction,
each word keeping a little of its own, so a model's "near in meaning" is set word by word."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence

import numpy as np
from langchain_core.embeddings import Embeddings


class WordVectors(Embeddings):
    """``groups``: words a model would place together. ``own``: how much of its own direction a
    grouped word keeps (0.5 unless named): the smaller, the nearer the group's words are."""

    def __init__(self, groups: Sequence[Sequence[str]], own: Mapping[str, float] | None = None) -> None:
        self.groups = [tuple(g) for g in groups]
        self.own = dict(own or {})

    def _vector(self, text: str) -> list[float]:
        vec = np.zeros(64)
        for word in text.lower().split():
            group = next((i for i, g in enumerate(self.groups) if word in g), None)
            own = 8 + zlib.crc32(word.encode()) % 56
            if group is not None:
                vec[group] += 1.0
                vec[own] += self.own.get(word, 0.5)  # close, not the same
            else:
                vec[own] += 1.0
        return list(vec / (np.linalg.norm(vec) or 1.0))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)
