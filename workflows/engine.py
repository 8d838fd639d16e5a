"""The engine: runs the Self-RAG graph for one question and returns a typed ``Result``.

It owns the things around the graph: input validation, per-turn resets, thread memory through
a checkpointer, the recursion limit derived from the budgets, LLM usage accounting, streaming
node-by-node events, and turning the final state into a ``Result``. ``GraphRecursionError``
never escapes: it becomes a ``budget_exhausted`` result.

Turns of one thread run one at a time. A turn reads the thread's last checkpoint and writes the
next one with its turn appended; two turns at once would both start from the same history and
the later write would drop the earlier turn. So a turn holds its thread's lock (``turn_locks``:
in-process, and across processes when the factory gives it a shared layer) from reading the
history to the final checkpoint, and a turn that cannot get it within ``RunOptions.turn_wait_s``
raises ``ThreadBusy`` without running.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.errors import GraphRecursionError

from selfrag.errors import InvalidQuestion, ProviderError, ThreadBusy
from selfrag.locking import KeyedLocks
from workflows.checkpoints import checkpoint_errors
from workflows.components import Components
from workflows.graph import build_graph
from workflows.nodes import recursion_limit_for
from workflows.options import RunOptions
from workflows.outcomes import Citation, Outcome, Result, Trace
from workflows.resources import Resource, resolve_resources
from workflows.routing import decide_outcome
from workflows.state import Turn, per_turn_reset
from workflows.trace import UsageCounter

__all__ = ["MAX_QUESTION_CHARS", "NodeEvent", "SelfRagEngine", "ThreadInfo"]

MAX_QUESTION_CHARS = 4000


@dataclass(frozen=True)
class NodeEvent:
    """A node finished: its name and the fields it wrote (a summary fit for progress display)."""

    node: str
    update: dict[str, Any]


@dataclass(frozen=True)
class ThreadInfo:
    """A stored conversation: the collection of its last turn and its turns, oldest first."""

    thread_id: str
    collection: str | None
    turns: list[Turn]


class SelfRagEngine:
    def __init__(
        self,
        components: Components,
        *,
        checkpointer: BaseCheckpointSaver[Any] | None = None,
        defaults: RunOptions = RunOptions(),
        today: Callable[[], date] = date.today,
        turn_locks: KeyedLocks | None = None,
    ) -> None:
        self.components = components
        self.defaults = defaults
        self.checkpointer = checkpointer
        self.turn_locks = turn_locks if turn_locks is not None else KeyedLocks()
        """One turn per thread at a time; see the module docstring."""
        self._graph = build_graph(components, today=today)
        self._thread_graph = build_graph(components, checkpointer=checkpointer, today=today) if checkpointer else None

    # -- public API ------------------------------------------------------------------------------
    def run(
        self, question: str, *, collection: str | None = None, resources: Sequence[str | Resource] | None = None,
        thread_id: str | None = None, options: RunOptions | None = None,
    ) -> Result:
        """Answer ``question`` from ``collection`` and/or ``resources`` (collection names, or
        ``Resource`` objects with their own search settings or a LangChain retriever)."""
        result: Result | None = None
        for event in self.stream(question, collection=collection, resources=resources, thread_id=thread_id,
                                 options=options):
            if isinstance(event, Result):
                result = event
        assert result is not None
        return result

    def stream(
        self, question: str, *, collection: str | None = None, resources: Sequence[str | Resource] | None = None,
        thread_id: str | None = None, options: RunOptions | None = None,
    ) -> Iterator[NodeEvent | Result]:
        """Yield a ``NodeEvent`` as each node finishes, then the ``Result``.

        Raises:
            InvalidQuestion, CollectionNotFound: before any work.
            ThreadBusy: another turn of ``thread_id`` ran for longer than ``turn_wait_s``.
        """
        question = self._check_question(question)
        opts = options or self.defaults
        collection, several = resolve_resources(collection, resources, opts.search_defaults)
        if not several:
            self.components.store.get_collection(collection)  # unknown collection: a UsageError before any work
        # Several resources: one unknown or failing is recorded in the trace, the others answer.
        opts = replace(opts, resources=several)
        if thread_id is None:
            yield from self._stream(question, collection, None, opts)
            return
        if self._thread_graph is None:
            raise InvalidQuestion("thread memory needs a checkpointer; this engine was built without one")
        with self._turn(thread_id, opts.turn_wait_s):
            yield from self._stream(question, collection, thread_id, opts)

    def _turn(self, thread_id: str, wait_s: float) -> AbstractContextManager[None]:
        def busy() -> ThreadBusy:
            return ThreadBusy(
                f"another turn of this thread has been running for over {wait_s:g} s; "
                "send this one again when it has finished"
            )

        return self.turn_locks.hold(thread_id, wait_s, busy=busy)

    def _stream(self, question: str, collection: str, thread_id: str | None, opts: RunOptions) -> Iterator[NodeEvent | Result]:
        graph = self._thread_graph if thread_id is not None and self._thread_graph is not None else self._graph
        counter = UsageCounter()
        config: RunnableConfig = {
            "recursion_limit": recursion_limit_for(opts.max_rewrites, opts.max_generations),
            "callbacks": [counter],
        }
        if thread_id is not None:
            config["configurable"] = {"thread_id": thread_id}
        inputs: dict[str, Any] = {
            **per_turn_reset(),
            "question": question,
            "collection": collection,
            "max_rewrites": opts.max_rewrites,
            "max_generations": opts.max_generations,
        }
        state: dict[str, Any] = dict(inputs)
        if thread_id is not None:
            state["history"] = self.history(thread_id)
        start = time.perf_counter()
        try:
            with checkpoint_errors("running the graph"):
                for chunk in graph.stream(inputs, config, context=opts, stream_mode="updates"):
                    for node, update in chunk.items():
                        if not isinstance(update, dict):
                            continue
                        state.update(update)
                        yield NodeEvent(node, update)
        except GraphRecursionError:
            # Unreachable while recursion_limit_for() bounds the budgets; kept so it never reaches a user.
            state["stop_reason"] = "recursion limit reached"
            outcome, best, stop = decide_outcome(state)  # type: ignore[arg-type]
            state.update(outcome=Outcome.BUDGET_EXHAUSTED.value if best else outcome,
                         answer=best["answer"] if best else "", citations=best["citations"] if best else [],
                         stop_reason=stop)
        if counter.model_unavailable:
            # Every stage degrades gracefully when a call fails (rules, fail-closed grades,
            # extractive answers), so a dead model would otherwise look like "nothing relevant".
            raise ProviderError(f"the chat model failed on all {counter.calls} calls of this run", detail=counter.last_error)
        total_ms = (time.perf_counter() - start) * 1000
        yield self._result(state, thread_id, counter, total_ms, [r.name for r in opts.resources] or [collection])

    def history(self, thread_id: str) -> list[Turn]:
        """The turns of a thread so far (empty for an unknown thread)."""
        if self._thread_graph is None:
            return []
        with checkpoint_errors("reading a thread"):
            snapshot = self._thread_graph.get_state({"configurable": {"thread_id": thread_id}})
        return list(snapshot.values.get("history") or [])

    def thread(self, thread_id: str) -> ThreadInfo | None:
        """The stored conversation ``thread_id``, or None when nothing is stored under it."""
        if self._thread_graph is None:
            return None
        with checkpoint_errors("reading a thread"):
            snapshot = self._thread_graph.get_state({"configurable": {"thread_id": thread_id}})
        values = snapshot.values or {}
        if not values:
            return None
        return ThreadInfo(thread_id, values.get("collection"), list(values.get("history") or []))

    def forget(self, thread_id: str) -> None:
        """Delete every checkpoint of a thread (after its running turn, if any: a turn finishing
        after the delete would otherwise bring the thread back).

        Raises:
            ThreadBusy: a turn of the thread ran for longer than ``defaults.turn_wait_s``.
        """
        if self.checkpointer is not None:
            with self._turn(thread_id, self.defaults.turn_wait_s), checkpoint_errors("deleting a thread"):
                self.checkpointer.delete_thread(thread_id)

    def with_options(self, **overrides: Any) -> RunOptions:
        return replace(self.defaults, **{k: v for k, v in overrides.items() if v is not None})

    # -- internals -------------------------------------------------------------------------------
    @staticmethod
    def _check_question(question: str) -> str:
        q = " ".join((question or "").split())
        if not q:
            raise InvalidQuestion("the question is empty")
        if len(q) > MAX_QUESTION_CHARS:
            raise InvalidQuestion(f"the question is {len(q)} characters long; the limit is {MAX_QUESTION_CHARS}")
        return q

    @staticmethod
    def _result(
        state: dict[str, Any], thread_id: str | None, counter: UsageCounter, total_ms: float, collections: list[str]
    ) -> Result:
        # ``state`` starts as the turn's full input (``per_turn_reset`` and the budgets): every key is there.
        plan = state["plan"]
        timings = state["timings"]
        trace = Trace(
            path=[t["node"] for t in timings],
            timings=timings,
            plan=plan,
            relaxations=state["relaxations"],
            resources=state["resource_plans"],
            retrievals=state["retrievals"],
            documents=state["graded"],
            rewrites=state["rewrites"],
            generations=state["generations"],
            verdicts=state["verdicts"],
            budgets={
                "max_rewrites": state["max_rewrites"],
                "max_generations": state["max_generations"],
                "rewrites_used": state["rewrite_count"],
                "generations_used": state["generation_count"],
            },
            stop_reason=state["stop_reason"],
            llm=counter.usage(),
            total_ms=round(total_ms, 2),
        )
        structured = dict(plan.get("structured_query") or {})  # absent when memory answered
        if structured:
            structured["query"] = state["query"] or structured["query"]
        return Result(
            question=state["question"],
            standalone_question=state["standalone_question"] or state["question"],
            collection=state["collection"],
            collections=collections,
            thread_id=thread_id,
            answer=state["answer"],
            outcome=Outcome(state["outcome"] or Outcome.BUDGET_EXHAUSTED.value),
            citations=[Citation(**c) for c in state["citations"]],
            query=structured,
            filter=state["where"],
            clarification=state.get("clarification") if state["outcome"] == Outcome.NEEDS_CLARIFICATION.value else None,
            trace=trace,
        )
