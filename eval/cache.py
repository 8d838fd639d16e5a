"""A persistent LLM response cache, so an evaluation rerun only pays for what changed.

LangChain consults a model's ``cache`` before every call with two strings: the serialised
messages (the prompt) and ``llm_string`` (provider, model, parameters and bound kwargs such as
the structured-output ``response_format`` with its JSON schema). Keying on both means a changed
prompt template or output schema misses, and everything else is served from disk.

Why not LangChain's own ``SQLiteCache``: it lives in ``langchain-community`` (not a dependency),
stores by SQLAlchemy, and counts nothing. We need hit counters (overall and per evaluated case)
to show that a rerun made zero model calls.

Only successes are stored: LangChain calls ``update`` after the model returned, never after it
raised, so a provider error is retried on the next run. A *parse* failure of a successful reply
is a success to LangChain, so a reply the grader could not parse is cached like any other; reruns
reproduce the same verdict, which is what a cache is for.

    cache = SQLiteLLMCache("runs/llm-cache.sqlite")
    model = with_cache(make_chat_model(settings.llm), cache)
    with cache_usage() as used:
        engine.run(...)
    used.hits, cache.hits, cache.misses
"""

from __future__ import annotations

import copy
import hashlib
import json
import sqlite3
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from langchain_core._api.beta_decorator import LangChainBetaWarning
from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.language_models import BaseLanguageModel
from langchain_core.load import Serializable, dumps, loads
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, Generation, GenerationChunk

__all__ = ["CacheUsage", "SQLiteLLMCache", "cache_usage", "model_fingerprint", "with_cache"]

# What a cached value may revive into: generations and AI messages, nothing that runs code.
_ALLOWED: list[type[Serializable]] = [Generation, GenerationChunk, ChatGeneration, ChatGenerationChunk, AIMessage, AIMessageChunk]

# Fields that change how a call runs, not what it answers; left out of a model's fingerprint.
_OPERATIONAL = {
    "verbose", "timeout", "request_timeout", "max_retries", "n_threads", "streaming", "stream_chunk_timeout", "name",
}

M = TypeVar("M", bound=BaseLanguageModel[Any])

_primed = threading.Lock()
_is_primed = False


def _prime_loads() -> None:
    """``loads`` is ``@beta`` and warns on its first call in a process; take that warning here.

    Under ``-W error`` the first lookup would otherwise raise. ``catch_warnings`` is not thread
    safe, so it runs once, when a cache is constructed (before threads share it).
    """
    global _is_primed
    with _primed:
        if _is_primed:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LangChainBetaWarning)
            loads("[]", allowed_objects=_ALLOWED)
        _is_primed = True


@dataclass
class CacheUsage:
    """Hits and misses seen inside one ``cache_usage()`` block (e.g. one evaluated case)."""

    hits: int = 0
    misses: int = 0
    cached_tokens: int = 0
    """Tokens of the replies served from the cache (what LangChain's usage callbacks still count)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def _record(self, hit: bool, tokens: int) -> None:
        with self._lock:
            if hit:
                self.hits += 1
                self.cached_tokens += tokens
            else:
                self.misses += 1


# A context variable, not a thread-local: LangGraph and the graders run work in pool threads
# with a copy of the caller's context, so lookups made for one case land in that case's counter.
_CURRENT: ContextVar[CacheUsage | None] = ContextVar("selfrag_eval_cache_usage", default=None)


@contextmanager
def cache_usage() -> Iterator[CacheUsage]:
    """Count the cache lookups made in this context (and the threads it hands work to)."""
    usage = CacheUsage()
    token = _CURRENT.set(usage)
    try:
        yield usage
    finally:
        _CURRENT.reset(token)


def _tokens(generations: Sequence[Generation]) -> int:
    total = 0
    for gen in generations:
        usage = getattr(getattr(gen, "message", None), "usage_metadata", None)
        if usage:
            total += int(usage.get("total_tokens", 0))
    return total


class SQLiteLLMCache(BaseCache):
    """LLM replies in one SQLite file, keyed by sha256 of (scope, ``llm_string``, prompt).

    Thread-safe (one connection behind a lock). ``hits`` and ``misses`` count every lookup
    since construction; ``cache_usage()`` counts them per block. Close it when done (or use it
    as a context manager).
    """

    def __init__(self, path: str | Path, *, scope: str = "") -> None:
        _prime_loads()
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.scope = scope
        self._lock = threading.Lock()
        self._stats = CacheUsage()
        self._conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30.0)
        with self._lock, self._conn:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS llm_cache (key TEXT PRIMARY KEY, llm_string TEXT NOT NULL, "
                "value TEXT NOT NULL, created REAL NOT NULL)"
            )

    # -- counters ------------------------------------------------------------------------------
    @property
    def hits(self) -> int:
        return self._stats.hits

    @property
    def misses(self) -> int:
        return self._stats.misses

    def scoped(self, scope: str) -> SQLiteLLMCache:
        """A view on the same file and counters whose keys also include ``scope`` (a model fingerprint)."""
        view = copy.copy(self)  # shares the connection, its lock and the counters
        view.scope = scope
        return view

    # -- BaseCache -----------------------------------------------------------------------------
    def _key(self, prompt: str, llm_string: str) -> str:
        return hashlib.sha256("\x00".join((self.scope, llm_string, prompt)).encode("utf-8")).hexdigest()

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        key = self._key(prompt, llm_string)
        with self._lock:
            row = self._conn.execute("SELECT value FROM llm_cache WHERE key = ?", (key,)).fetchone()
        value: list[Generation] | None = None
        if row is not None:
            try:
                value = list(loads(row[0], allowed_objects=_ALLOWED))
            except (ValueError, TypeError, KeyError, json.JSONDecodeError):
                value = None  # written by an incompatible LangChain: recompute and overwrite
        tokens = _tokens(value) if value is not None else 0
        self._stats._record(value is not None, tokens)
        current = _CURRENT.get()
        if current is not None:
            current._record(value is not None, tokens)
        return value

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        key = self._key(prompt, llm_string)
        value = dumps(list(return_val))
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO llm_cache (key, llm_string, value, created) VALUES (?, ?, ?, ?)",
                (key, llm_string, value, time.time()),
            )

    def clear(self, **kwargs: Any) -> None:
        """Delete every stored reply (of every scope) and reset the counters."""
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM llm_cache")
        with self._stats._lock:
            self._stats.hits = self._stats.misses = self._stats.cached_tokens = 0

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def model_fingerprint(model: BaseLanguageModel[Any]) -> str:
    """The class and the scalar fields of a model (secrets and operational knobs left out).

    Why: ``llm_string`` is what the model chooses to report. The local llama.cpp model reports
    its file name, context and temperature but not ``max_tokens``, ``seed`` or the file's path,
    so two configurations could share replies. The fingerprint closes that gap.
    """
    # LangChain's own fields (callbacks, tags, rate limiter, the cache itself) say nothing of the replies.
    base = {n for cls in type(model).__mro__ if cls.__module__.startswith("langchain_core.") for n in getattr(cls, "model_fields", {})}
    fields: dict[str, Any] = {}
    for name in sorted(type(model).model_fields):
        if name in base or name in _OPERATIONAL or "key" in name or "secret" in name or "password" in name:
            continue
        value = getattr(model, name, None)
        if isinstance(value, (str, int, float, bool, Path)) or value is None:
            fields[name] = str(value) if isinstance(value, Path) else value
    return f"{type(model).__module__}.{type(model).__qualname__}:{json.dumps(fields, sort_keys=True)}"


def with_cache(model: M, cache: SQLiteLLMCache | None) -> M:
    """Attach ``cache`` to ``model`` (scoped by its fingerprint) and return the model.

    Every runnable derived from the model afterwards (``with_structured_output``, ``bind``)
    calls the same object, so graders, generator and planner all share the cache. ``None``
    leaves the model as it is.
    """
    if cache is not None:
        model.cache = cache.scoped(model_fingerprint(model))
    return model
