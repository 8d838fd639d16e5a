"""The local embedding model in a child process: same vectors, failures as errors, restart, shutdown."""

from __future__ import annotations

import io
import os
import pickle
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from selfrag.errors import ModelIntegrityError, ProviderError
from selfrag.providers import MINILM_SHA256, LocalEmbeddings, default_minilm_dir, make_embeddings
from selfrag.providers import encoder_process as module
from selfrag.providers.encoder_process import EncoderProcess, encoder_process
from selfrag.settings import EmbeddingSettings

TEXTS = ["A cat is sleeping on the sofa.", "Quarterly revenue rose by 8 percent.", "", "ünïcödé — 収益"]


@pytest.fixture(scope="module")
def own_child() -> Iterator[EncoderProcess]:
    """A child of its own (not the shared one), for the tests that kill it."""
    process = EncoderProcess(default_minilm_dir(), MINILM_SHA256)
    yield process
    process.close()


def test_settings_run_the_local_model_in_a_child_process_by_default() -> None:
    default = make_embeddings(EmbeddingSettings())
    assert isinstance(default, LocalEmbeddings) and default.process
    in_process = make_embeddings(EmbeddingSettings(local_process=False))
    assert isinstance(in_process, LocalEmbeddings) and not in_process.process


def test_one_child_serves_every_instance_of_a_model(tmp_path: Path) -> None:
    assert encoder_process(tmp_path, "ab") is encoder_process(tmp_path / ".", "AB")
    assert encoder_process(tmp_path, "ab") is not encoder_process(tmp_path, "cd")


def test_a_tampered_model_is_refused_through_the_child(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"not the real weights")
    embeddings = LocalEmbeddings(tmp_path, process=True)
    for _ in range(2):  # every request gets the refusal; the child does not die of it
        with pytest.raises(ModelIntegrityError, match="refusing to load"):
            embeddings.embed_documents(["hello"])
    encoder_process(tmp_path, MINILM_SHA256).close()


def test_the_child_loop_replies_with_the_load_failure_and_ends_at_eof(tmp_path: Path) -> None:
    request = pickle.dumps((["hello"], 8))
    requests = io.BytesIO(module._LENGTH.pack(len(request)) + request)
    replies = io.BytesIO()
    module._serve(tmp_path, MINILM_SHA256, requests, replies)  # returns: the requests ended
    replies.seek(0)
    reply = module._receive(replies)
    assert reply[:1] == module._FAILED
    kind, message = pickle.loads(reply[1:])
    assert kind == "integrity" and "missing" in message


def test_empty_input_starts_no_child(tmp_path: Path) -> None:
    assert LocalEmbeddings(tmp_path, process=True).embed_documents([]) == []
    assert encoder_process(tmp_path, MINILM_SHA256)._child is None


@pytest.mark.integration
def test_the_child_gives_the_vectors_of_the_model_in_this_process() -> None:
    child = LocalEmbeddings(batch_size=2, process=True)
    here = LocalEmbeddings(batch_size=2)
    got, expected = np.array(child.embed_documents(TEXTS)), np.array(here.embed_documents(TEXTS))
    assert got.shape == (len(TEXTS), 384)
    assert np.allclose(got, expected, atol=1e-6)
    assert np.allclose(child.embed_query(TEXTS[1]), expected[1], atol=1e-6)


@pytest.mark.integration
def test_the_child_is_safe_to_share_across_threads() -> None:
    embeddings = LocalEmbeddings(process=True)
    texts = [f"document {i} about rivers and mountains" for i in range(12)]
    expected = np.array(embeddings.embed_documents(texts))
    with ThreadPoolExecutor(4) as pool:
        got = np.array(list(pool.map(embeddings.embed_query, texts)))
    assert np.allclose(got, expected, atol=1e-5)


@pytest.mark.integration
def test_a_child_that_dies_during_a_request_fails_it_and_is_replaced(own_child: EncoderProcess) -> None:
    first = own_child.encode(TEXTS, 4)
    child = own_child._child
    assert child is not None
    with ThreadPoolExecutor(1) as pool:
        long_request = pool.submit(own_child.encode, [f"text {i} " * 50 for i in range(4000)], 64)
        time.sleep(1.0)
        child.kill()
        with pytest.raises(ProviderError, match="stopped"):
            long_request.result(timeout=60)
    assert np.allclose(own_child.encode(TEXTS, 4), first, atol=1e-6)  # a new child
    assert own_child._child is not None and own_child._child.pid != child.pid


@pytest.mark.integration
def test_a_child_that_died_between_requests_is_replaced_silently(own_child: EncoderProcess) -> None:
    own_child.encode(["warm"], 1)
    child = own_child._child
    assert child is not None
    child.kill()
    child.wait()
    assert own_child.encode(["hello"], 1).shape == (1, 384)
    assert own_child._child is not None and own_child._child.pid != child.pid


@pytest.mark.integration
def test_the_child_ignores_ctrl_c_and_ends_when_closed(own_child: EncoderProcess) -> None:
    own_child.encode(["warm"], 1)
    child = own_child._child
    assert child is not None
    os.kill(child.pid, signal.SIGINT)  # what Ctrl-C sends the whole process group
    time.sleep(0.3)
    assert child.poll() is None
    assert own_child.encode(["still here"], 1).shape == (1, 384)
    closing = threading.Thread(target=own_child.close)
    closing.start()
    closing.join(timeout=15)
    assert child.poll() is not None and own_child._child is None
