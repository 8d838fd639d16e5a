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

__all__ = ["CallRefused", "UsageCounter"]


class CallRefused(RuntimeError):
    """Raised into a model call the run's cap does not allow; the call is never made."""


class UsageCounter(BaseCallbackHandler):
    """Counts chat model calls and tokens (from ``usage_metadata``), and refuses the calls past the
    run's caps before they are made.

    A refused call fails inside whichever stage made it, and that stage falls back as it does on
    any failure (rules, a failed grade); the engine sees ``refused`` at the next node boundary and
    ends the run ``budget_exhausted``: what the checks decided without their calls is no verdict.
    Counting and refusing are one handler so that a refused call is never counted as made,
    whatever order LangChain calls its handlers in.
    """

    raise_error = True  # only ``on_chat_model_start`` raises, and only to refuse a call

    def __init__(self, max_calls: int | None = None, max_tokens: int | None = None) -> None:
        self._lock = threading.Lock()
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.calls = 0
        self.succeeded = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.last_error: str | None = None
        self.refused: str | None = None
        """Why the first call was refused (None: none was)."""

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
            if self.max_calls is not None and self.calls >= self.max_calls:
                why = f"the run's cap of {self.max_calls} model calls was reached"
            elif self.max_tokens is not None and self.input_tokens + self.output_tokens >= self.max_tokens:
                why = f"the run's cap of {self.max_tokens} model tokens was reached"
            else:
                self.calls += 1
                return
            self.refused = self.refused or why
        raise CallRefused(why)

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
