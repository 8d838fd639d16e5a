"""Extras: named callables that add fields to a result, from the Python API.

An extra receives a read-only view of the run's final state (``FinalState``) and returns any
value; the value lands in ``Result.extras`` under the extra's name (and in the Runnable's output
dict beside ``answer``). An extra is the caller's code, so it never decides the answer's fate: one
that raises is recorded in the trace (``Trace.extras``: its name, the exception's type and a
one-line message) and the answer is returned as if it had not been asked for.

    engine.run("Which film has dinosaurs?", collection="movies",
               extras={"count_docs": lambda s: len(s.documents)})
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.documents import Document as LCDocument

from selfrag.errors import UsageError, one_line
from workflows.outcomes import Result, Trace
from workflows.records import Document, ExtraFailure

__all__ = ["RESERVED_NAMES", "Extra", "ExtraFailure", "Extras", "FinalState", "check_extras", "final_state", "run_extras"]

RESERVED_NAMES = frozenset({"question", "answer", "outcome", "context", "citations", "collection", "thread_id"})
"""Keys of the Runnable's output: an extra may not shadow them."""
MESSAGE_CHARS = 300
"""An extra's error message is cut to this many characters (it lands in a trace, on one line)."""


@dataclass(frozen=True)
class FinalState:
    """What an extra sees of a finished run: copies, so an extra cannot change the result."""

    question: str
    """The question as asked."""
    answer: str
    outcome: str
    """``answered``, ``unverified``, ``abstained``, ``ungrounded``, ``budget_exhausted``, ``no_progress`` or ``needs_clarification``."""
    documents: tuple[Document, ...]
    """The documents the answer was generated from (the last retrieval's relevant ones), as records."""
    context: tuple[LCDocument, ...]
    """The same documents as LangChain ``Document``s: exactly what the Runnable's ``context`` holds."""
    retrieved: tuple[Document, ...]
    """Every document the last retrieval returned, relevant or not."""
    trace: Trace
    """The run's full trace (a copy)."""


Extra = Callable[[FinalState], Any]
Extras = Mapping[str, Extra]


def check_extras(extras: Extras | None) -> dict[str, Extra]:
    """The extras as a plain dict, checked before any work.

    Raises:
        UsageError: a name shadows an output key, or a value is not callable.
    """
    checked = dict(extras or {})
    for name, fn in checked.items():
        if name in RESERVED_NAMES:
            raise UsageError(f"extra {name!r} would shadow the result field of that name; rename it")
        if not callable(fn):
            raise UsageError(f"extra {name!r} is not callable: give a function of the final state")
    return checked


def final_state(result: Result, documents: list[Document], retrieved: list[Document]) -> FinalState:
    from workflows.retriever import to_langchain  # the retriever module builds graphs: import it late

    return FinalState(
        question=result.question,
        answer=result.answer,
        outcome=result.outcome.value,
        documents=tuple(copy.deepcopy(documents)),
        context=tuple(to_langchain(d, d["resource"]) for d in documents),
        retrieved=tuple(copy.deepcopy(retrieved)),
        trace=result.trace.model_copy(deep=True),
    )


def run_extras(extras: Mapping[str, Extra], view: FinalState) -> tuple[dict[str, Any], list[ExtraFailure]]:
    """Each extra's value by name, and the extras that raised (left out of the values)."""
    values: dict[str, Any] = {}
    failures: list[ExtraFailure] = []
    for name, fn in extras.items():
        try:
            values[name] = fn(view)
        except Exception as exc:  # the caller's code: whatever it raises must not cost the answer
            failures.append(ExtraFailure(name=name, error=type(exc).__name__, message=one_line(exc, MESSAGE_CHARS)))
    return values, failures
