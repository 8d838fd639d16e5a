"""Every error selfrag raises, in one place, with its stable code and HTTP status.

Two kinds are kept apart: the caller's mistakes (retrying the same call fails again) and
failures outside the caller's control (a retry later may succeed)::

    SelfRagError                      base; every error has a stable ``code``           (code, status)
    ├── UsageError                    the caller's mistake: fix the input or the config (usage_error, 400)
    │   ├── ConfigError               invalid settings or config file          (config_invalid, 500)
    │   ├── CollectionNotFound        no collection of that name                (collection_not_found, 404)
    │   ├── CollectionExists          creating a collection that exists         (collection_exists, 409)
    │   ├── SchemaError               invalid attribute schema file / schema    (schema_invalid, 400)
    │   ├── InvalidFilter             a caller's filter that the schema rejects (filter_invalid, 422)
    │   ├── InvalidQuestion           empty or oversized question               (question_invalid, 400)
    │   ├── IngestError               unreadable or unsupported input file      (ingest_failed, 400)
    │   ├── DatasetError              invalid evaluation dataset or run dir     (dataset_invalid, 400)
    │   ├── VariantsError             invalid grader-variants or prompt file    (variants_invalid, 400)
    │   ├── ThreadNotFound            no conversation of that id                (thread_not_found, 404)
    │   ├── DocumentNotFound          no document or chunk of that id           (document_not_found, 404)
    │   ├── StoreLocked               the embedded store is in another process's use (store_locked, 400)
    │   ├── Unauthenticated           missing or unknown API key                (unauthenticated, 401)
    │   ├── Forbidden                 the key's scopes do not cover the request (forbidden, 403)
    │   └── PayloadTooLarge           a request body over the size limit        (payload_too_large, 413)
    ├── RuntimeFailure                something outside the caller's control failed (runtime_failure, 503)
    │   ├── ProviderError             chat model / embeddings unavailable       (provider_unavailable, 503)
    │   ├── ModelIntegrityError       bundled weights fail their checksum       (model_integrity, 503)
    │   ├── StoreError                the vector store failed                   (store_unavailable, 503)
    │   ├── GraderError               grader output invalid after retries       (grader_failed, 503)
    │   ├── Overloaded                every run slot and queue place is taken   (overloaded, 429)
    │   ├── ThreadBusy                a conversation's previous turn still runs (thread_busy, 409)
    │   └── DeadlineExceeded          a run outlived its per-request deadline    (deadline_exceeded, 504)

A third kind found elsewhere, a control-flow exception ("rewrite the query"), does not exist here:
the graph's routing functions decide from the state alone (no node raises to steer), so loops are
visible in the state and bounded by its budgets.

The CLI prints ``error[code]: message`` on one line; the HTTP service returns
``{"error": {"code": ..., "message": ...}}`` with the class's ``status`` (a subclass inherits its
parent's). Codes and statuses are stable: clients match on them.

A message is always our own words: what failed and what to do. What a driver or a library said
(Chroma's "too many SQL variables", a model server's reply) goes in ``detail``, which the service
logs beside the request id and never sends; an exception's text is never a message. ``one_line``
and ``describe`` put a message, or a library's exception, on one line for the CLI and the logs.
"""

from __future__ import annotations

__all__ = [
    "CollectionExists",
    "CollectionNotFound",
    "ConfigError",
    "DatasetError",
    "DeadlineExceeded",
    "DocumentNotFound",
    "Forbidden",
    "GraderError",
    "IngestError",
    "InvalidFilter",
    "InvalidQuestion",
    "ModelIntegrityError",
    "Overloaded",
    "PayloadTooLarge",
    "ProviderError",
    "RuntimeFailure",
    "SchemaError",
    "SelfRagError",
    "StoreError",
    "StoreLocked",
    "ThreadBusy",
    "ThreadNotFound",
    "Unauthenticated",
    "UsageError",
    "VariantsError",
    "describe",
    "one_line",
]


def one_line(text: object, limit: int | None = None) -> str:
    """``text`` (a message, or an exception's own text) on one line, white space folded, at most
    ``limit`` characters: what a CLI line, a log line or a trace field can hold."""
    flat = " ".join(str(text).split())
    return flat if limit is None else flat[:limit]


def describe(exc: BaseException, limit: int | None = None) -> str:
    """``ExceptionType: its text`` on one line (``limit`` cuts the text), for what a library raised:
    a ``detail``, a log or a trace, never a message (the text may name hosts or paths)."""
    text = one_line(exc, limit)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class SelfRagError(Exception):
    """Base of every selfrag error. ``code`` is stable and machine-readable."""

    code: str = "error"
    status: int = 500
    """The HTTP status the service answers with (an error nobody classified is the server's fault)."""

    def __init__(self, message: str, *, detail: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail
        """Internal diagnostics (a driver's or library's own text): for the server log only."""

    def one_line(self) -> str:
        """The message as a single line, for a CLI or a log."""
        return one_line(self.message)

    def for_http(self) -> str:
        """The message as an HTTP client should read it (no CLI commands to run)."""
        return self.one_line()


class UsageError(SelfRagError):
    """The caller asked for something invalid; retrying the same call will fail again."""

    code = "usage_error"
    status = 400


class ConfigError(UsageError):
    """Invalid settings: in a running server they are its operator's, not the client's, to fix."""

    code = "config_invalid"
    status = 500


class CollectionNotFound(UsageError):
    code = "collection_not_found"
    status = 404

    def __init__(self, name: str) -> None:
        super().__init__(f"collection {name!r} does not exist (ingest into it first: selfrag ingest ... --collection {name})")
        self.name = name

    def for_http(self) -> str:
        return f"collection {self.name!r} does not exist (create it with POST /v1/collections)"


class CollectionExists(UsageError):
    code = "collection_exists"
    status = 409


class SchemaError(UsageError):
    code = "schema_invalid"


class InvalidFilter(UsageError):
    code = "filter_invalid"
    status = 422


class InvalidQuestion(UsageError):
    code = "question_invalid"


class IngestError(UsageError):
    code = "ingest_failed"


class DatasetError(UsageError):
    """An evaluation dataset (or run directory) is missing, unreadable or has an invalid line."""

    code = "dataset_invalid"


class VariantsError(UsageError):
    """A grader-variants or prompt file is missing, malformed, or describes an invalid variant."""

    code = "variants_invalid"


class ThreadNotFound(UsageError):
    code = "thread_not_found"
    status = 404


class DocumentNotFound(UsageError):
    code = "document_not_found"
    status = 404


class StoreLocked(UsageError):
    """Another process has the embedded Chroma store open (see ``selfrag.store.lock``): the message
    names it and the way out (its server's API, or a Chroma server via ``store.chroma_url``)."""

    code = "store_locked"


class Unauthenticated(UsageError):
    """No ``Authorization: Bearer`` key, or one that matches no configured key."""

    code = "unauthenticated"
    status = 401


class Forbidden(UsageError):
    """A valid key whose collection scopes do not cover the request."""

    code = "forbidden"
    status = 403


class PayloadTooLarge(UsageError):
    code = "payload_too_large"
    status = 413


class RuntimeFailure(SelfRagError):
    """Something outside the caller's control failed; a retry later may succeed."""

    code = "runtime_failure"
    status = 503


class ProviderError(RuntimeFailure):
    code = "provider_unavailable"


class ModelIntegrityError(RuntimeFailure):
    code = "model_integrity"


class StoreError(RuntimeFailure):
    code = "store_unavailable"


class GraderError(RuntimeFailure):
    """A grader's output stayed invalid (or its provider failed) after every retry."""

    code = "grader_failed"


class Overloaded(RuntimeFailure):
    """The server is running as many questions as it allows and its wait queue is full."""

    code = "overloaded"
    status = 429


class ThreadBusy(RuntimeFailure):
    """Turns of one conversation run one at a time; this one waited for the previous turn longer
    than the limit. Nothing was run or stored: send it again when that turn has finished."""

    code = "thread_busy"
    status = 409


class DeadlineExceeded(RuntimeFailure):
    """A run did not finish within the per-request deadline; it is stopped at the next node."""

    code = "deadline_exceeded"
    status = 504
