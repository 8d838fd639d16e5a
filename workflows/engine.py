"""The engine: runs the Self-RAG graph for one question and returns a typed ``Result``.

It owns the things around the graph: input validation, per-turn resets, thread memory through
a checkpointer, the recursion limit derived from the budgets, LLM usage accounting, streaming
node-by-node events, and turning the final state into a ``Result``. ``GraphRecursionError``
never escapes: it becomes a ``budget_exhausted`` result.

Turns of one thread run one at a time. A turn reads the thread (its last completed turn, and its
newest checkpoint: ``workflows.threads``) and writes the next checkpoints, the last with its turn
appended; two turns at once would both start from the same history and the later write would
drop the earlier turn. So a turn holds its thread's lock (``turn_locks``: in-process, and across
processes when the factory gives it a shared layer) from reading the history to the final
checkpoint, and a turn that cannot get it within ``RunOptions.turn_wait_s`` raises ``ThreadBusy``
without running. A turn that fails leaves the thread as it was: what it wrote before failing is
an unfinished turn, which no reader and no later turn sees.

A turn's answer says whether it was stored: its ``Result`` when the thread holds it, an error when
it does not. A checkpoint failure alone cannot say: LangGraph writes checkpoints beside the run and
reports a failed write only when the run ends (a write that lost its connection while the later
ones, on fresh connections, stored the whole turn), and a commit may land while its connection dies
before the reply. So after one the engine reads the thread afresh: when its last completed turn was
stored by this run (``workflows.threads.TURN_ID``), that stored turn is the answer; otherwise, or
when the thread cannot be read, the ``StoreError`` stands (a retry with the turn's request key is safe).

A run without a thread may be given its conversation instead (``history``: a stateless client,
such as an OpenAI-style chat, that sends the whole conversation each time); nothing is stored.
``extras`` (``workflows.extras``) add fields to the result; ``callbacks`` (LangChain handlers or
a parent run's manager) see the graph run and every model call, as children of the caller's run.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager, Callbacks
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import END

from selfrag.errors import InvalidQuestion, ProviderError, StoreError, ThreadBusy, UsageError
from selfrag.locking import KeyedLocks, Lease
from selfrag.outages import OutageWatch
from selfrag.storable import unstorable
from workflows._aio import in_thread
from workflows.checkpoints import checkpoint_errors
from workflows.components import Components
from workflows.extras import Extra, Extras, check_extras, final_state, run_extras
from workflows.graph import build_graph
from workflows.nodes import NODES, NodeSpec, recursion_limit_for
from workflows.options import RunOptions
from workflows.outcomes import Citation, Outcome, Result, Trace
from workflows.records import GeneratedAnswer
from workflows.resources import Resource, ResourceLike, resolve_resources
from workflows.routing import decide_outcome
from workflows.state import Turn, kept_values, per_turn_reset, shown
from workflows.threads import TURN_BASE, TURN_ID, ThreadHead, ThreadInfo, read_thread
from workflows.tokens import AnswerDelta
from workflows.trace import UsageCounter

if TYPE_CHECKING:
    from workflows.retriever import EngineRetriever
    from workflows.runnable import EngineRunnable

__all__ = ["MAX_QUESTION_CHARS", "NodeEvent", "SelfRagEngine"]

MAX_QUESTION_CHARS = 4000

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NodeEvent:
    """A node finished: its name and the fields it wrote (a summary fit for progress display)."""

    node: str
    update: dict[str, Any]


class SelfRagEngine:
    def __init__(
        self,
        components: Components,
        *,
        checkpointer: BaseCheckpointSaver[Any] | None = None,
        defaults: RunOptions = RunOptions(),
        today: Callable[[], date] = date.today,
        turn_locks: KeyedLocks | None = None,
        extras: Extras | None = None,
        retrievers: Mapping[str, BaseRetriever] | None = None,
        table: Sequence[NodeSpec] = NODES,
    ) -> None:
        self.components = components
        self.table = tuple(table)
        """The edge table its graph compiles from (``workflows.nodes.NODES``; a test may add a node)."""
        self.retrievers = dict(retrievers or {})
        """LangChain retrievers by name: a run naming one (``collection`` or ``resources``) searches it."""
        self.extras = check_extras(extras)
        """Extras every run computes (a run's own ``extras`` are added to them, and win on a name)."""
        self.defaults = defaults
        self.checkpointer = checkpointer
        self.today = today
        self.turn_locks = turn_locks if turn_locks is not None else KeyedLocks()
        """One turn per thread at a time; see the module docstring."""
        self._closing = frozenset(spec.name for spec in self.table if spec.then == (END,))
        """The nodes that complete a turn (they lead only to the end): its last boundary before it is stored."""
        self._graph = build_graph(components, today=today, table=self.table)
        self._thread_graph = (build_graph(components, checkpointer=checkpointer, today=today, table=self.table)
                              if checkpointer else None)

    # -- public API ------------------------------------------------------------------------------
    def close(self) -> None:
        """Release what the components hold (graph store, rerank client; ``Components.close``).
        The checkpointer is its opener's to close (``workflows.factory.close_checkpointer``)."""
        self.components.close()

    def run(
        self, question: str, *, collection: str | None = None, resources: Sequence[ResourceLike] | None = None,
        thread_id: str | None = None, options: RunOptions | None = None,
        history: Sequence[Turn] | None = None, extras: Extras | None = None, callbacks: Callbacks = None,
    ) -> Result:
        """Answer ``question`` from ``collection`` and/or ``resources`` (collection names, or
        ``Resource`` objects with their own search settings or a LangChain retriever)."""
        result: Result | None = None
        for event in self.stream(question, collection=collection, resources=resources, thread_id=thread_id,
                                 options=options, history=history, extras=extras, callbacks=callbacks):
            if isinstance(event, Result):
                result = event
        assert result is not None
        return result

    async def arun(
        self, question: str, *, collection: str | None = None, resources: Sequence[ResourceLike] | None = None,
        thread_id: str | None = None, options: RunOptions | None = None,
        history: Sequence[Turn] | None = None, extras: Extras | None = None, callbacks: Callbacks = None,
    ) -> Result:
        """``run`` for async code (the graph runs in a worker thread; the event loop stays free)."""
        result: Result | None = None
        async for event in self.astream(question, collection=collection, resources=resources, thread_id=thread_id,
                                        options=options, history=history, extras=extras, callbacks=callbacks):
            if isinstance(event, Result):
                result = event
        assert result is not None
        return result

    async def astream(
        self, question: str, *, collection: str | None = None, resources: Sequence[ResourceLike] | None = None,
        thread_id: str | None = None, options: RunOptions | None = None,
        history: Sequence[Turn] | None = None, extras: Extras | None = None, callbacks: Callbacks = None,
        tokens: bool = False,
    ) -> AsyncIterator[NodeEvent | AnswerDelta | Result]:
        """``stream`` for async code: the same events, each node run in a worker thread with the
        caller's context (callbacks, tracing) copied into it. Leaving the loop early stops the run
        at its next node, as closing ``stream`` does."""
        events = self.stream(question, collection=collection, resources=resources, thread_id=thread_id,
                             options=options, history=history, extras=extras, callbacks=callbacks, tokens=tokens)
        async for event in in_thread(events):
            yield event

    def stream(
        self, question: str, *, collection: str | None = None, resources: Sequence[ResourceLike] | None = None,
        thread_id: str | None = None, options: RunOptions | None = None,
        history: Sequence[Turn] | None = None, extras: Extras | None = None, callbacks: Callbacks = None,
        tokens: bool = False,
    ) -> Iterator[NodeEvent | AnswerDelta | Result]:
        """Yield a ``NodeEvent`` as each node finishes, then the ``Result``.

        Args:
            tokens: also yield an ``AnswerDelta`` for each piece of an answer a chat model writes,
                as it writes it, before it is checked (``workflows.tokens`` says how to show them).
            history: the conversation so far, for a run without ``thread_id`` (not stored).
            extras: fields to add to the result (``workflows.extras``), beside the engine's own.
            callbacks: LangChain callbacks, or a parent run's callback manager.

        Raises:
            InvalidQuestion, CollectionNotFound, UsageError: before any work (a thread id or
                request key no store can hold is a ``UsageError``).
            ThreadBusy: another turn of ``thread_id`` ran for longer than ``turn_wait_s``.
        """
        question = self.check_question(question)
        run_extras_ = {**self.extras, **check_extras(extras)}
        opts = options or self.defaults
        collection, targets = resolve_resources(*self._named(collection, resources), opts.search_defaults)
        if len(targets) == 1 and targets[0].retriever is None:
            self.components.store.get_collection(collection)  # unknown collection: a UsageError before any work
        # Several resources: one unknown or failing is recorded in the trace, the others answer.
        opts = replace(opts, resources=targets, stream_tokens=tokens)
        if thread_id is None:
            yield from self._stream(question, collection, None, opts, list(history or []), run_extras_, callbacks)
            return
        if history is not None:
            raise InvalidQuestion("give a thread_id (its stored history is used) or a history, not both")
        if self._thread_graph is None:
            raise InvalidQuestion("thread memory needs a checkpointer; this engine was built without one")
        for what, text in (("the thread id", thread_id), ("the request key", opts.request_key)):
            if text is not None and (bad := unstorable(text)) is not None:
                raise UsageError(f"{what} contains {bad}, which cannot be stored: remove it")
        with self._turn(thread_id, opts.turn_wait_s):
            yield from self._stream(question, collection, thread_id, opts, None, run_extras_, callbacks)

    def _named(
        self, collection: str | None, resources: Sequence[ResourceLike] | None,
    ) -> tuple[str | None, list[str | Resource]]:
        """The run's resources with the engine's named retrievers, and retrievers given as is, as ``Resource``s."""
        items: list[ResourceLike] = [*([collection] if collection else []), *(resources or ())]
        named: list[str | Resource] = []
        for item in items:
            if isinstance(item, BaseRetriever):
                named.append(Resource(item.get_name(), retriever=item))
            elif isinstance(item, str) and item in self.retrievers:
                named.append(Resource(item, retriever=self.retrievers[item]))
            else:
                named.append(item)
        return None, named

    def _turn(self, thread_id: str, wait_s: float) -> AbstractContextManager[Lease]:
        def busy() -> ThreadBusy:
            return ThreadBusy(
                f"another turn of this thread has been running for over {wait_s:g} s; "
                "send this one again when it has finished"
            )

        return self.turn_locks.hold(thread_id, wait_s, busy=busy)

    def _stream(
        self, question: str, collection: str, thread_id: str | None, opts: RunOptions, history: list[Turn] | None,
        extras: dict[str, Extra], callbacks: Callbacks,
    ) -> Iterator[NodeEvent | AnswerDelta | Result]:
        head = self._head(thread_id) if thread_id is not None else None
        if head is not None and opts.request_key is not None:
            # Inside the thread's turn lock: a retry waits for the turn it repeats, then finds it.
            stored = next((t for t in reversed(head.history) if t.get("request_key") == opts.request_key), None)
            if stored is not None:
                yield self._replay(stored, head.thread_id, collection, [r.name for r in opts.resources] or [collection])
                return
        graph = self._thread_graph if head is not None and self._thread_graph is not None else self._graph
        counter = UsageCounter(opts.max_llm_calls, opts.max_llm_tokens)
        outages = OutageWatch()
        config: RunnableConfig = {
            "recursion_limit": recursion_limit_for(opts.max_rewrites, opts.max_generations, self.table),
            "callbacks": _with_handler(_with_handler(callbacks, counter), outages),
        }
        collections = [r.name for r in opts.resources] or [collection]
        carried: dict[str, Any] = {}
        turn_id = uuid.uuid4().hex
        if head is not None:
            config["configurable"] = head.run_config()
            # In each of this run's checkpoints: see _stored_by, and workflows.fenced_saver for the base.
            config["metadata"] = {TURN_ID: turn_id, **({} if head.newest is None else {TURN_BASE: head.newest})}
            # The thread's last completed turn, never what a failed turn left after it.
            carried = kept_values(head.completed)
            if (known := head.info()) is not None:
                # The thread's history holds answers from every collection it ever drew on: its readers
                # must be allowed to read all of them, not only this turn's.
                collections = list(dict.fromkeys([*known.collections, *collections]))
        inputs: dict[str, Any] = {
            **per_turn_reset(),
            **carried,
            "question": question,
            "collection": collection,
            "collections": collections,
            "max_rewrites": opts.max_rewrites,
            "max_generations": opts.max_generations,
        }
        if history:
            inputs["history"] = history
        state: dict[str, Any] = dict(inputs)
        start = time.perf_counter()
        try:
            with checkpoint_errors("running the graph"):
                for mode, chunk in graph.stream(inputs, config, context=opts, stream_mode=["updates", "custom", "tasks"]):
                    if mode == "custom":
                        if isinstance(chunk, AnswerDelta):
                            yield chunk
                        continue
                    if mode == "tasks":
                        # A node that completes the turn is about to run (LangGraph reports a task
                        # before it runs it): a run whose model never answered ends here, unstored.
                        if isinstance(chunk, dict) and "input" in chunk and chunk["name"] in self._closing:
                            _raise_if_model_down(counter)
                        continue
                    # A call that failed for a transport reason ends the run here, before the next
                    # node: whatever the node fell back to, the turn is never finalised or stored.
                    outages.raise_if_any()
                    assert isinstance(chunk, dict)  # "updates": node name -> the fields it wrote
                    for node, update in chunk.items():
                        if not isinstance(update, dict):
                            continue
                        state.update(update)
                        yield NodeEvent(node, update)
                    if counter.refused is not None:
                        break  # the step that met the cap fell back without its calls: stop here
        except StoreError as failure:
            stored = self._stored_by(thread_id, turn_id) if head is not None and thread_id is not None else None
            if failure.dependency != "checkpoints" or stored is None:
                raise
            _log.warning("a checkpoint write failed but the thread holds this run's turn, which is its answer: %s",
                         failure.detail or failure.one_line())
            state.update(stored)
        except GraphRecursionError:
            # Unreachable while recursion_limit_for() bounds the budgets; kept so it never reaches a user.
            state["stop_reason"] = "recursion limit reached"
            outcome, best, stop = decide_outcome(state)  # type: ignore[arg-type]
            state.update(outcome=Outcome.BUDGET_EXHAUSTED.value if best else outcome,
                         answer=best["answer"] if best else "", citations=best["citations"] if best else [],
                         stop_reason=stop)
        if counter.refused is not None:
            # Whatever the checks decided after a refused call is not a verdict: never `answered`.
            state["stop_reason"] = f"budget_exhausted: {counter.refused}"
            best = _best_so_far(state)
            state.update(outcome=Outcome.BUDGET_EXHAUSTED.value, answer=best["answer"] if best else "",
                         citations=best["citations"] if best else [])
        _raise_if_model_down(counter)  # a run that ended before completing its turn
        total_ms = (time.perf_counter() - start) * 1000
        result = self._result(state, thread_id, counter, total_ms, [r.name for r in opts.resources] or [collection],
                              judge=self.judge_label)
        if extras:
            values, failures = run_extras(extras, final_state(result, state["relevant"], state["documents"]))
            result.extras = values
            result.trace.extras = failures
        yield result

    def history(self, thread_id: str) -> list[Turn]:
        """The turns of a thread so far (empty for an unknown thread)."""
        return [] if self._thread_graph is None else self._head(thread_id).history

    def thread(self, thread_id: str) -> ThreadInfo | None:
        """The stored conversation ``thread_id``, or None when no turn of it completed (a turn that
        failed is not stored, so a thread whose turns all failed does not exist)."""
        return None if self._thread_graph is None else self._head(thread_id).info()

    def _head(self, thread_id: str) -> ThreadHead:
        assert self._thread_graph is not None
        with checkpoint_errors("reading a thread"):
            return read_thread(self._thread_graph, thread_id)

    def _stored_by(self, thread_id: str, turn_id: str) -> dict[str, Any] | None:
        """The thread's last completed turn when run ``turn_id`` stored it, else None (also when the
        thread cannot be read: then nobody can tell). Read through the checkpointer's pool, which
        replaces a dead connection by a new one."""
        try:
            head = self._head(thread_id)
        except StoreError:
            return None
        return head.completed if head.completed_by == turn_id else None

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

    # -- LangChain faces -------------------------------------------------------------------------
    def as_runnable(self, *, collection: str | None = None, extras: Extras | None = None) -> EngineRunnable:
        """This engine as a LangChain ``Runnable`` (``workflows.runnable``): invoke it with a question
        (asked of ``collection``) or a dict of options; it returns ``{"question", "answer", "outcome",
        "context", "citations", ...extras}``."""
        from workflows.runnable import EngineRunnable

        return EngineRunnable(self, collection=collection, extras=extras)

    def as_retriever(self, *, collection: str, options: RunOptions | None = None) -> EngineRetriever:
        """The retrieval half (self-query, graph filter, retrieve) as a LangChain ``BaseRetriever``
        returning ``Document``s without generating an answer (``workflows.retriever``)."""
        from workflows.retriever import EngineRetriever

        return EngineRetriever.of(self, collection=collection, options=options)

    # -- internals -------------------------------------------------------------------------------
    @staticmethod
    def check_question(question: str, name: str = "the question") -> str:
        """The question with its white space folded: the one check every face (CLI, API) applies.

        Args:
            name: How a message names it (``question 2`` of a file).

        Raises:
            InvalidQuestion: it is empty, holds a character no store can hold (a NUL, a lone
                surrogate: ``selfrag.storable``), has no letter or digit in any script (nothing to
                search for: "???" would otherwise be answered from whatever ranks first), or is
                longer than ``MAX_QUESTION_CHARS``.
        """
        q = " ".join((question or "").split())
        if not q:
            raise InvalidQuestion(f"{name} is empty")
        if (bad := unstorable(q)) is not None:
            raise InvalidQuestion(f"{name} contains {bad}, which cannot be stored: remove it")
        if not any(c.isalnum() for c in q):
            raise InvalidQuestion(f"{name} has no letters or digits")
        if len(q) > MAX_QUESTION_CHARS:
            raise InvalidQuestion(f"{name} is {len(q)} characters long; the limit is {MAX_QUESTION_CHARS}")
        return q

    @property
    def judge_label(self) -> str | None:
        """``name@sha256[:12]`` of the reader-critic these runs use, for traces and run manifests."""
        judge = self.components.judge
        return None if judge is None else judge.version

    @staticmethod
    def _replay(turn: Turn, thread_id: str, collection: str, collections: list[str]) -> Result:
        """The stored ``turn`` as the result of its retried request (nothing ran)."""
        return Result(
            question=turn["question"], standalone_question=turn["standalone_question"], collection=collection,
            collections=collections, thread_id=thread_id, answer=turn["answer"], outcome=Outcome(turn["outcome"]),
            citations=[Citation(**c) for c in turn.get("citations", [])], replayed=True,
            short_answer=turn.get("short_answer"), confidence=turn.get("confidence"),
            trace=Trace(stop_reason="replayed: this request key's turn is already stored in the thread"),
        )

    @staticmethod
    def _result(
        state: dict[str, Any], thread_id: str | None, counter: UsageCounter, total_ms: float, collections: list[str],
        judge: str | None = None,
    ) -> Result:
        # ``state`` starts as the turn's full input (``per_turn_reset`` and the budgets): every key is
        # there. What the caller sees of it is declared on the state (``Shown``); here only what the
        # engine itself adds (path, budgets, usage, time) and the few fields it shapes.
        plan = state["plan"]
        trace = Trace(
            **shown(state, in_trace=True),
            path=[t["node"] for t in state["timings"]],
            budgets={
                "max_rewrites": state["max_rewrites"],
                "max_generations": state["max_generations"],
                "rewrites_used": state["rewrite_count"],
                "generations_used": state["generation_count"],
            },
            llm=counter.usage(),
            total_ms=round(total_ms, 2),
            judge=judge,
        )
        structured = dict(plan["structured_query"]) if "structured_query" in plan else {}  # memory answered
        if structured:
            structured["query"] = state["query"] or structured["query"]
        asked = state["outcome"] == Outcome.NEEDS_CLARIFICATION.value
        return Result(
            **shown(state, in_trace=False),
            standalone_question=state["standalone_question"] or state["question"],
            collections=collections,
            thread_id=thread_id,
            outcome=Outcome(state["outcome"] or Outcome.BUDGET_EXHAUSTED.value),
            query=structured,
            clarification=state.get("clarification") if asked else None,
            trace=trace,
        )


def _raise_if_model_down(counter: UsageCounter) -> None:
    """Every stage degrades gracefully when a call fails (rules, fail-closed grades, extractive
    answers), so a dead model would otherwise look like "nothing relevant": a run whose every model
    call failed is the model's outage. Checked before a node that completes the turn runs, so the
    turn is not stored (``workflows.threads``), and at the end of a run that completed none."""
    if counter.model_unavailable:
        raise ProviderError(f"the chat model failed on all {counter.calls} calls of this run", detail=counter.last_error)


def _best_so_far(state: dict[str, Any]) -> GeneratedAnswer | None:
    """The last grounded generation, else the last with text, else None (a capped run's answer)."""
    gens: list[GeneratedAnswer] = state["generations"]
    grounded = [g for g in gens if g["grounded"]]
    with_text = [g for g in gens if g["answer"]]
    chosen = grounded or with_text
    return chosen[-1] if chosen else None


def _with_handler(callbacks: Callbacks, handler: BaseCallbackHandler) -> Callbacks:
    """The caller's callbacks (a list, or a parent run's manager) plus ``handler``, without
    changing the caller's own list or manager."""
    if callbacks is None:
        return [handler]
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        manager.add_handler(handler, inherit=True)
        return manager
    return [*callbacks, handler]
