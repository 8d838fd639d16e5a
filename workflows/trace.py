"""LLM call and token accounting for one run, through LangChain callbacks.

Callbacks reach every model call made inside the graph, including those in worker threads
(the graders use ``ContextThreadPoolExecutor``), so the counts include retries.
"""

from __future__ import annotations

import threading
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

from selfrag.errors import describe
from workflows.outcomes import LLMUsage

__all__ = ["UsageCounter"]


class UsageCounter(BaseCallbackHandler):
    """Counts chat model calls and tokens (from ``usage_metadata``)."""

    raise_error = False

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = 0
        self.succeeded = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.last_error: str | None = None

    @property
    def model_unavailable(self) -> bool:
        """Every call of the run failed in the model itself (none returned): it is down, not wrong."""
        with self._lock:
            return self.calls > 0 and self.succeeded == 0 and self.last_error is not None

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        with self._lock:
            self.last_error = describe(error, 300)

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[Any]], **kwargs: Any) -> None:
        with self._lock:
            self.calls += 1

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        with self._lock:
            self.succeeded += 1
        for gens in response.generations:
            for gen in gens:
                usage = getattr(getattr(gen, "message", None), "usage_metadata", None)
                if usage:
                    with self._lock:
                        self.input_tokens += int(usage.get("input_tokens", 0))
                        self.output_tokens += int(usage.get("output_tokens", 0))

    def usage(self) -> LLMUsage:
        with self._lock:
            return LLMUsage(
                calls=self.calls,
                input_tokens=self.input_tokens,
                output_tokens=self.output_tokens,
                total_tokens=self.input_tokens + self.output_tokens,
            )
