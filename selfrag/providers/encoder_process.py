"""The local embedding model in a child process, so that its work never waits on this one's GIL.

Why: Chroma's embedded client holds the GIL for the whole of an insert (its bindings release it
for reads only). In one process, every write of an ingest therefore stops the encoder, which
needs the GIL between its torch operations: the writes run *after* the encoding instead of
beside it, and ingest reached only ~0.91 of the encoder's throughput (``bench/ingest_speed.py``).
With the model in a child process, the parent's writer thread and the encoder overlap on the
cores; an HTTP service likewise keeps answering while an ingest encodes.

The child is ``python -m selfrag.providers.encoder_process MODEL_DIR SHA256``: it loads and
verifies the model as ``LocalEmbeddings`` does in-process, then answers requests on its stdin
and stdout until its stdin closes (so it ends with the parent, however the parent ends). One
child per model serves every ``LocalEmbeddings`` of the process; requests are serialised, as the
in-process model's lock serialises them. A child that dies is replaced on the next request; the
request it was handling fails with a ``ProviderError``.

Wire format (both directions): an 8-byte little-endian length, then that many bytes. A request
is a pickled ``(texts, batch_size)``; a reply is one status byte, then either float32 vectors
(``<QQ`` rows and columns, then the rows) or, on failure, a pickled ``(kind, message)``. Pickle
is safe here: both ends are this package, talking over a private pipe.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import numpy as np

from selfrag.errors import ModelIntegrityError, ProviderError

__all__ = ["EncoderProcess", "encoder_process"]

_LENGTH = struct.Struct("<Q")
_SHAPE = struct.Struct("<QQ")
_OK, _FAILED = b"\x00", b"\x01"
_ERRORS: dict[str, type[Exception]] = {"integrity": ModelIntegrityError, "provider": ProviderError}


class EncoderProcess:
    """A child process holding one local sentence-transformers model.

    Thread-safe; ``encode`` starts the child on first use (loading takes a few seconds, as it
    would in-process), ``start`` begins that early without waiting for it.
    """

    def __init__(self, model_dir: Path, expected_sha256: str) -> None:
        self.model_dir = model_dir
        self.expected_sha256 = expected_sha256
        self._lock = threading.Lock()
        self._child: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the child if it is not running (returns at once; loading goes on in the child)."""
        with self._lock:
            self._running()

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """L2-normalised float32 vectors of ``texts``, one row each, as ``SentenceTransformer.encode`` gives.

        Raises:
            ModelIntegrityError: the model file is missing or not the pinned one.
            ProviderError: the model cannot be loaded or the child stopped.
        """
        request = pickle.dumps((list(texts), batch_size), protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            child = self._running()
            try:
                _send(_stdin(child), request)
                reply = _receive(_stdout(child))
            except (OSError, EOFError, ValueError):
                self._stop(child)
                code = child.returncode
                raise ProviderError(
                    "the local embedding model's process stopped"
                    + (f" (exit status {code})" if code is not None else "")
                    + "; it is restarted on the next request"
                ) from None
        if reply[:1] == _FAILED:
            kind, message = pickle.loads(reply[1:])
            raise _ERRORS.get(kind, ProviderError)(message)
        rows, cols = _SHAPE.unpack_from(reply, 1)
        return np.frombuffer(reply, dtype=np.float32, count=rows * cols, offset=1 + _SHAPE.size).reshape(rows, cols)

    def close(self) -> None:
        """End the child (it finishes the request under way, if any, first)."""
        with self._lock:
            if self._child is not None:
                self._stop(self._child)

    def _running(self) -> subprocess.Popen[bytes]:
        if self._child is not None:
            if self._child.poll() is None:
                return self._child
            self._stop(self._child)  # died between requests: replaced without a failure
        # The child imports this package from where this process found it, whatever its cwd is now.
        root = str(Path(__file__).resolve().parents[2])
        path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
        env = {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        self._child = subprocess.Popen(
            [sys.executable, "-m", __name__, str(self.model_dir), self.expected_sha256],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            # Its failures come back as replies; library chatter (torch, transformers) is not ours to print.
            stderr=subprocess.DEVNULL,
            env=env,
        )
        return self._child

    def _stop(self, child: subprocess.Popen[bytes]) -> None:
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):  # a pipe to a child already gone
                    stream.close()
        try:
            child.wait(timeout=10)  # stdin closed: the child leaves its loop
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        if self._child is child:
            self._child = None


_PROCESSES: dict[tuple[str, str], EncoderProcess] = {}
_PROCESSES_LOCK = threading.Lock()


def encoder_process(model_dir: Path, expected_sha256: str) -> EncoderProcess:
    """The process-wide child for this model (created, not started, on first request)."""
    key = (str(model_dir.resolve()), expected_sha256.lower())
    with _PROCESSES_LOCK:
        process = _PROCESSES.get(key)
        if process is None:
            process = _PROCESSES[key] = EncoderProcess(model_dir, expected_sha256)
        return process


@atexit.register
def _close_all() -> None:
    for process in list(_PROCESSES.values()):
        process.close()


def _stdin(child: subprocess.Popen[bytes]) -> IO[bytes]:
    assert child.stdin is not None  # opened with PIPE
    return child.stdin


def _stdout(child: subprocess.Popen[bytes]) -> IO[bytes]:
    assert child.stdout is not None  # opened with PIPE
    return child.stdout


def _send(stream: IO[bytes], payload: bytes) -> None:
    stream.write(_LENGTH.pack(len(payload)))
    stream.write(payload)
    stream.flush()


def _receive(stream: IO[bytes]) -> bytes:
    """One framed message; ``EOFError`` if the stream ends first."""
    header = _read_exactly(stream, _LENGTH.size)
    (length,) = _LENGTH.unpack(header)
    return _read_exactly(stream, length)


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    data = stream.read(size)
    if data is None or len(data) < size:
        raise EOFError
    return data


def _serve(model_dir: Path, expected_sha256: str, requests: IO[bytes], replies: IO[bytes]) -> None:
    """The child's loop: load the model (or remember why it cannot be), then answer until EOF."""
    from selfrag.providers.embeddings import _load

    model: Any = None
    failure: tuple[str, str] | None = None
    try:
        model = _load(model_dir, expected_sha256).model
    except ModelIntegrityError as exc:
        failure = ("integrity", str(exc))
    except ProviderError as exc:
        failure = ("provider", str(exc))
    while True:
        try:
            texts, batch_size = pickle.loads(_receive(requests))
        except EOFError:
            return
        if failure is None:
            try:
                vectors = model.encode(texts, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False)
            except (RuntimeError, ValueError) as exc:
                reply = _FAILED + pickle.dumps(("provider", f"the local embedding model failed: {exc}"))
            else:
                matrix = np.ascontiguousarray(vectors, dtype=np.float32)
                reply = _OK + _SHAPE.pack(*matrix.shape) + matrix.tobytes()
        else:
            reply = _FAILED + pickle.dumps(failure)
        _send(replies, reply)


def _main(argv: list[str]) -> None:
    # Ctrl-C reaches the whole process group: the parent decides what it means; the child ends
    # when the parent closes its stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The protocol owns the real stdout; anything a library prints goes to stderr instead.
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    _serve(Path(argv[0]), argv[1], sys.stdin.buffer, replies)


if __name__ == "__main__":
    _main(sys.argv[1:])
