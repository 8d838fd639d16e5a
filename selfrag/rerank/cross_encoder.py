"""The ``cross_encoder`` reranker: a sentence-transformers ``CrossEncoder`` from a local directory.

The model is configured by path (a directory saved by ``CrossEncoder.save`` or a Hugging Face
snapshot of one, e.g. ms-marco-MiniLM-L-6-v2 or bge-reranker-base copied onto the machine) and
is loaded with ``local_files_only``: nothing is downloaded at run time. It loads on first use and is
shared by every reranker of the same path in the process.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from selfrag.errors import ConfigError, ProviderError, describe
from selfrag.rerank.base import Reranked

if TYPE_CHECKING:
    from sentence_transformers import CrossEncoder

__all__ = ["CrossEncoderReranker"]


class _Loaded(NamedTuple):
    model: CrossEncoder
    lock: threading.Lock
    """Held while predicting: a fast tokenizer shared across threads can fail with "Already borrowed"."""


_MODELS: dict[tuple[str, int | None], _Loaded] = {}
_LOCK = threading.Lock()


class CrossEncoderReranker:
    """Scores each (query, candidate) pair with a cross-encoder; higher is more relevant.

    Args:
        model_dir: The model's directory.
        batch_size: Pairs per forward pass.
        max_length: Tokens per pair (query + candidate, truncated); None: the model's own limit.
    """

    name = "cross_encoder"

    def __init__(self, model_dir: Path, *, batch_size: int = 16, max_length: int | None = 512) -> None:
        if batch_size < 1:
            raise ConfigError(f"cross_encoder reranker: batch_size must be at least 1, got {batch_size}")
        self.model_dir = Path(model_dir)
        self.batch_size = batch_size
        self.max_length = max_length

    def _model(self) -> _Loaded:
        key = (str(self.model_dir.resolve()), self.max_length)
        with _LOCK:
            loaded = _MODELS.get(key)
            if loaded is not None:
                return loaded
            if not (self.model_dir / "config.json").is_file():
                raise ConfigError(f"cross_encoder reranker: {self.model_dir} is not a model directory (no config.json)")
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                from sentence_transformers import CrossEncoder
                from transformers.utils import logging as hf_logging
            except ImportError as exc:
                raise ProviderError("sentence-transformers is not installed: pip install 'selfrag[local]'") from exc
            hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            try:
                model = CrossEncoder(str(self.model_dir), device="cpu", local_files_only=True, max_length=self.max_length)
            except (OSError, ValueError, RuntimeError, KeyError) as exc:
                raise ProviderError(
                    f"cannot load the cross-encoder model from {self.model_dir}", detail=describe(exc)
                ) from exc
            loaded = _MODELS[key] = _Loaded(model, threading.Lock())
            return loaded

    def rerank(self, query: str, documents: Sequence[str], top_n: int | None = None) -> list[Reranked]:
        if not documents:
            return []
        loaded = self._model()
        try:
            with loaded.lock:
                raw: Any = loaded.model.predict(
                    [(query, d) for d in documents], batch_size=self.batch_size, show_progress_bar=False
                )
        except (RuntimeError, ValueError) as exc:
            raise ProviderError("the cross-encoder failed to score the candidates", detail=describe(exc)) from exc
        scores = [float(s) for s in raw.reshape(len(documents), -1)[:, -1]]
        order = sorted(range(len(documents)), key=lambda i: (-scores[i], i))
        return [Reranked(i, scores[i]) for i in order[:top_n]]
