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
    │   ├── InvalidQuestion           empty, letterless or oversized question   (question_invalid, 400)
    │   ├── IngestError               unreadable or unsupported input file      (ingest_failed, 400)
    │   ├── DatasetError              invalid evaluation dataset or run dir     (dataset_invalid, 400)
    │   ├── VariantsError             invalid grader-variants or prompt file    (variants_invalid, 400)
    │   ├── ThreadNotFound            no conversation of that id                (thread_not_found, 404)
    │   ├── DocumentNotFound          no document or chunk of that id           (document_not_found, 404)
    │   ├── StoreLocked               the embedded store is in another process's use (store_locked, 400)
    │   ├── Unauthenticated           missing or unknown API key                (unauthenticated, 401)
    │   ├── Forbidden                 the key's scopes do not cover the request (forbidden, 403)
    │   ├── PayloadTooLarge           a request body over the size limit        (payload_too_large, 413)
    │   ├── GraphNotFound             no knowledge graph of that name           (graph_not_found, 404)
    │   ├── UnsupportedParameter      an OpenAI parameter the API cannot honour (unsupported_parameter, 400)
    │   └── GraphDataError            an invalid graph nodes/edges file or line (graph_data_invalid, 400)
    ├── RuntimeFailure                something outside the caller's control failed (runtime_failure, 503)
    │   ├── DependencyUnavailable     a server the run needs failed or is unreachable (dependency_unavailable, 503)
    │   │   ├── ProviderError         chat model / embeddings unavailable       (provider_unavailable, 503)
    │   │   ├── StoreError            the vector store, checkpoints or selfrag home failed (store_unavailable, 503)
    │   │   └── GraphUnavailable      the graph server is down or unreachable   (graph_unavailable, 503)
    │   ├── ModelIntegrityError       bundled weights fail their checksum       (model_integrity, 503)
    │   ├── GraderError               grader output invalid after retries       (grader_failed, 503)
    │   ├── Overloaded                every run slot and queue place is taken   (overloaded, 429)
    │   ├── ThreadBusy                a conversation's previous turn still runs (thread_busy, 409)
    │   ├── DeadlineExceeded          a run outlived its per-request deadline    (deadline_exceeded, 504)
    │   ├── ThreadConflict            another turn of the thread was stored first (thread_busy, 409)
    │   └── WriteConflict             a collection's write lock was lost mid-write (write_conflict, 409)

A ``DependencyUnavailable`` names the dependency (``dependency``: ``vector_store``,
``checkpoints``, ``graph``, ``model``, ``embeddings``, ``retriever``), never its address. A selfrag
home that cannot be read or written is a ``StoreError`` too (``selfrag.home``): it holds the store. A run in
which one failed for a transport reason ends with it: it is never turned into an answer, an
abstention or a stored turn (``selfrag.outages``).

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
    "DependencyUnavailable",
    "DocumentNotFound",
    "Forbidden",
    "GraderError",
    "GraphDataError",
    "GraphNotFound",
    "GraphUnavailable",
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
    "ThreadConflict",
    "ThreadNotFound",
    "Unauthenticated",
    "UnsupportedParameter",
    "UsageError",
    "VariantsError",
    "WriteConflict",
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
    """Base of every selfrag error. ``code`` is stable and machine-readable.

    A subclass declares its code and status in its header (``class X(UsageError, code="x",
    status=404)``); a status left out is inherited from the parent.
    """

    code: str = "error"
    status: int = 500
    """The HTTP status the service answers with (an error nobody classified is the server's fault)."""

    def __init_subclass__(cls, *, code: str | None = None, status: int | None = None, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if code is not None:
            cls.code = code
        if status is not None:
            cls.status = status

    def __init__(self, message: str, *, detail: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail
        """Internal diagnostics (a driver's or library's own text): for the server log only."""

    @classmethod
    def with_message(cls, message: str) -> SelfRagError:
        """An error of this class carrying ``message`` as it is: another process's error (a server's,
        by its code) whose message is already written. Classes that write theirs from a name
        (``CollectionNotFound("x")``) would otherwise wrap it in their own wording again."""
        error = cls.__new__(cls)
        SelfRagError.__init__(error, message)
        return error

    def one_line(self) -> str:
        """The message as a single line, for a CLI or a log."""
        return one_line(self.message)

    def for_http(self) -> str:
        """The message as an HTTP client should read it (no CLI commands to run)."""
        return self.one_line()


class UsageError(SelfRagError, code="usage_error", status=400):
    """The caller asked for something invalid; retrying the same call will fail again."""


class ConfigError(UsageError, code="config_invalid", status=500):
    """Invalid settings: in a running server they are its operator's, not the client's, to fix."""


class CollectionNotFound(UsageError, code="collection_not_found", status=404):
    name: str = ""
    """Empty in an error built ``with_message`` (a server's)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"collection {name!r} does not exist (ingest into it first: selfrag ingest ... --collection {name})")
        self.name = name

    def for_http(self) -> str:
        if not self.name:
            return self.one_line()
        return f"collection {self.name!r} does not exist (create it with POST /v1/collections)"


class CollectionExists(UsageError, code="collection_exists", status=409): ...


class SchemaError(UsageError, code="schema_invalid"): ...


class InvalidFilter(UsageError, code="filter_invalid", status=422): ...


class InvalidQuestion(UsageError, code="question_invalid"): ...


class IngestError(UsageError, code="ingest_failed"): ...


class DatasetError(UsageError, code="dataset_invalid"):
    """An evaluation dataset (or run directory) is missing, unreadable or has an invalid line."""


class VariantsError(UsageError, code="variants_invalid"):
    """A grader-variants or prompt file is missing, malformed, or describes an invalid variant."""


class ThreadNotFound(UsageError, code="thread_not_found", status=404): ...


class DocumentNotFound(UsageError, code="document_not_found", status=404): ...


class StoreLocked(UsageError, code="store_locked"):
    """Another process has the embedded Chroma store open (see ``selfrag.store.lock``): the message
    names it and the way out (its server's API, or a Chroma server via ``store.chroma_url``)."""


class Unauthenticated(UsageError, code="unauthenticated", status=401):
    """No ``Authorization: Bearer`` key, or one that matches no configured key."""


class Forbidden(UsageError, code="forbidden", status=403):
    """A valid key whose collection scopes do not cover the request."""


class PayloadTooLarge(UsageError, code="payload_too_large", status=413): ...


class RuntimeFailure(SelfRagError, code="runtime_failure", status=503):
    """Something outside the caller's control failed; a retry later may succeed."""


class DependencyUnavailable(RuntimeFailure, code="dependency_unavailable"):
    """A server the run depends on failed or cannot be reached. ``dependency`` says which one in
    a word a client may read; its address and the driver's text stay in ``detail``."""

    dependency: str = "dependency"
    """Which dependency: the class's default unless the raiser names it."""

    def __init__(self, message: str, *, detail: str | None = None, dependency: str | None = None) -> None:
        super().__init__(message, detail=detail)
        if dependency is not None:
            self.dependency = dependency


class ProviderError(DependencyUnavailable, code="provider_unavailable"):
    dependency = "model"


class ModelIntegrityError(RuntimeFailure, code="model_integrity"): ...


class StoreError(DependencyUnavailable, code="store_unavailable"):
    dependency = "vector_store"


class GraderError(RuntimeFailure, code="grader_failed"):
    """A grader's output stayed invalid (or its provider failed) after every retry."""


class Overloaded(RuntimeFailure, code="overloaded", status=429):
    """The server is running as many questions as it allows and its wait queue is full."""


class ThreadBusy(RuntimeFailure, code="thread_busy", status=409):
    """Turns of one conversation run one at a time; this one waited for the previous turn longer
    than the limit. Nothing was run or stored: send it again when that turn has finished."""


class DeadlineExceeded(RuntimeFailure, code="deadline_exceeded", status=504):
    """A run did not finish within the per-request deadline; it is stopped at the next node."""


class GraphNotFound(UsageError, code="graph_not_found", status=404):
    """No knowledge graph of that name on the graph server (``selfrag kg list`` shows the loaded ones)."""

    name: str = ""
    """Empty in an error built ``with_message`` (a server's)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"knowledge graph {name!r} does not exist (load it first: selfrag kg load {name} --nodes ... --edges ...)")
        self.name = name

    def for_http(self) -> str:
        if not self.name:
            return self.one_line()
        return f"knowledge graph {self.name!r} does not exist (load it with PUT /v1/graphs/{self.name})"


class UnsupportedParameter(UsageError, code="unsupported_parameter"):
    """A chat-completion parameter that would change what the answer means (``n`` > 1, a required
    tool call, a JSON schema) and that this API cannot honour; ``param`` names it (OpenAI's ``param``)."""

    param: str | None = None

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


class GraphDataError(UsageError, code="graph_data_invalid"):
    """A graph's nodes or edges file is unreadable, or one of its lines is invalid (the message names the line)."""


class GraphUnavailable(DependencyUnavailable, code="graph_unavailable"):
    """The graph server (embedded FalkorDB or ``redis://`` URL) cannot be started or reached.

    The message never carries the server's address, a socket path or the driver's text: those go
    in ``detail``. The rest of the engine stays usable; a retry later may succeed."""

    dependency = "graph"


class WriteConflict(RuntimeFailure, code="write_conflict", status=409):
    """A collection's write lock was lost while the write ran (the Postgres holding it restarted):
    the write stopped before saving the collection's catalogue, so no other writer's is overwritten.
    Send it again: documents are replaced by id."""


class ThreadConflict(RuntimeFailure, code="thread_busy", status=409):
    """Another turn of the thread was stored while this one ran (its lock was lost, e.g. when the
    Postgres holding it restarted): this turn's write is refused and nothing of it is stored."""
