"""Fixtures for the provider tests: the real bundled models, a fake llama, and a llama.cpp server.

The real models load once per session (SmolLM2 ~0.3 s, MiniLM ~3 s with the torch import); the
server fixture always kills its subprocess, even when a test fails.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from selfrag.providers import LocalEmbeddings, default_model_path, local_chat
from tests.servers import ServerProcess, free_port


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    return default_model_path()


@pytest.fixture(scope="session")
def minilm() -> LocalEmbeddings:
    return LocalEmbeddings(batch_size=32)


class FakeLlama:
    """Stands in for ``llama_cpp.Llama``: one token per word, records every call, replies from a queue."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.replies: list[str] = ['{"verdict": "yes", "reason": "fake"}']
        self.finish_reason = "stop"

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return list(range(len(text.decode("utf-8").split())))

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        content = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        prompt = sum(len(m["content"].split()) for m in kwargs["messages"])
        return {
            "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": self.finish_reason}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": 7, "total_tokens": prompt + 7},
        }


@pytest.fixture
def fake_llama(tmp_path: Path) -> Iterator[tuple[Path, FakeLlama]]:
    """A GGUF path whose registry entry is a ``FakeLlama`` (for n_ctx 4096 and 256)."""
    path = tmp_path / "fake.gguf"
    path.write_bytes(b"GGUF")
    fake = FakeLlama()
    keys = [(str(path.resolve()), n) for n in (4096, 256)]
    for key in keys:
        local_chat._REGISTRY[key] = local_chat._Loaded(fake, threading.Lock())  # type: ignore[arg-type]
    yield path, fake
    for key in keys:
        local_chat._REGISTRY.pop(key, None)


@pytest.fixture(scope="module")
def llama_server(smollm2_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server on a free loopback port; yields its ``/v1`` URL."""
    pytest.importorskip("fastapi", reason="needs llama-cpp-python[server]")
    port = free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    cmd = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--verbose", "False",
    ]  # fmt: skip
    proc = ServerProcess.start("llama.cpp server", cmd, log, f"http://127.0.0.1:{port}")
    try:
        proc.wait_until_up("/v1/models", timeout_s=60)
        yield f"{proc.url}/v1"
    finally:
        proc.stop()
