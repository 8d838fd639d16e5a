"""The engine as a LangChain ``Runnable`` (``engine.as_runnable()``), for LCEL chains and tracing.

Input: a question, or a dict of options::

    {"question": "...", "collection": "movies", "thread_id": "t1", "options": {"max_rewrites": 1}}

(``collections``: a list naming the collections to ask; see ``_collection``). Output, from
``invoke``/``ainvoke``/``batch``/``abatch``::

    {"question", "answer", "outcome", "context", "citations", "collection", "collections", "thread_id", ...extras}

``context`` holds the documents the answer was generated from, as LangChain ``Document``s
(metadata plus ``id``, ``score``, ``collection``); ``citations`` the cited ones as dicts.
``stream``/``astream`` yield one ``{"node", "summary", "data"}`` chunk as each graph node
finishes, then that same output dict. The run is one LangChain run (``on_chain_start``/``end``
under the config's callbacks, run name ``selfrag`` unless the config names it) whose children are
the graph and every model call, so tracers (LangSmith, a custom handler) see the whole tree.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Generator, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import ensure_config, get_callback_manager_for_config, run_in_executor
from typing_extensions import TypedDict

from selfrag.errors import UsageError
from workflows.engine import NodeEvent
from workflows.extras import Extras, check_extras
from workflows.nodes import node_spec
from workflows.options import RunOptions
from workflows.outcomes import Result
from workflows.records import Document
from workflows.retriever import to_langchain

if TYPE_CHECKING:
    from workflows.engine import SelfRagEngine

__all__ = ["EngineRunnable", "RunnableInput"]

_OPTION_NAMES = frozenset(f.name for f in dataclasses.fields(RunOptions))


class RunnableInput(TypedDict, total=False):
    """The dict form of the Runnable's input; only ``question`` is required."""

    question: str
    collection: str
    collections: list[str]
    thread_id: str
    options: dict[str, Any]
    """``RunOptions`` fields to override for this question (``max_rewrites``, ``top_k``…)."""


@dataclasses.dataclass(frozen=True)
class _Request:
    question: str
    collections: list[str]
    thread_id: str | None
    options: RunOptions


class EngineRunnable(Runnable[str | RunnableInput, dict[str, Any]]):
    """See the module docstring. Build it with ``engine.as_runnable()``."""

    def __init__(self, engine: SelfRagEngine, *, collection: str | None = None, extras: Extras | None = None) -> None:
        self.engine = engine
        self.collection = collection
        """Asked when the input names no collection."""
        self.extras = check_extras(extras)
        self.name = "selfrag"

    # -- input ------------------------------------------------------------------------------------
    def _request(self, value: str | RunnableInput | Mapping[str, Any]) -> _Request:
        """Raises: UsageError: no question, no collection, an unknown option or input key."""
        if isinstance(value, str):
            value = {"question": value}
        if not isinstance(value, Mapping):
            raise UsageError(f"the input is a question or a dict with a 'question', not {type(value).__name__}")
        unknown = sorted(set(value) - set(RunnableInput.__annotations__))
        if unknown:
            raise UsageError(f"unknown input keys {unknown}; known: {sorted(RunnableInput.__annotations__)}")
        question = value.get("question")
        if not isinstance(question, str):
            raise UsageError("the input has no 'question' string")
        options = dict(value.get("options") or {})
        bad = sorted(set(options) - _OPTION_NAMES)
        if bad:
            raise UsageError(f"unknown options {bad}; known: {sorted(_OPTION_NAMES)}")
        return _Request(question, self._collection(value), value.get("thread_id"), self.engine.with_options(**options))

    def _collection(self, value: Mapping[str, Any]) -> list[str]:
        """The collections asked: ``collection`` then ``collections`` (each once), else the default."""
        several = value.get("collections")
        if several is not None and (isinstance(several, str) or not all(isinstance(n, str) for n in several)):
            raise UsageError("'collections' is a list of collection names")
        names = list(dict.fromkeys([*([value["collection"]] if value.get("collection") else []), *(several or [])]))
        if not names and self.collection:
            names = [self.collection]
        if not names:
            raise UsageError("no collection: give 'collection' in the input or to as_runnable(collection=...)")
        return [str(n) for n in names]

    # -- output -----------------------------------------------------------------------------------
    @staticmethod
    def _output(result: Result, context: list[Document]) -> dict[str, Any]:
        return {
            **result.extras,
            "question": result.question,
            "answer": result.answer,
            "outcome": result.outcome.value,
            "context": [to_langchain(d, d["resource"]) for d in context],
            "citations": [c.model_dump(mode="json") for c in result.citations],
            "collection": result.collection,
            "collections": result.collections,
            "thread_id": result.thread_id,
        }

    # -- Runnable ---------------------------------------------------------------------------------
    def invoke(self, input: str | RunnableInput, config: RunnableConfig | None = None, **kwargs: Any) -> dict[str, Any]:
        final: dict[str, Any] = {}
        for chunk in self.stream(input, config, **kwargs):
            final = chunk
        return final

    async def ainvoke(self, input: str | RunnableInput, config: RunnableConfig | None = None, **kwargs: Any) -> dict[str, Any]:
        final: dict[str, Any] = {}
        async for chunk in self.astream(input, config, **kwargs):
            final = chunk
        return final

    def stream(self, input: str | RunnableInput, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[dict[str, Any]]:
        yield from self._run(input, config)

    def _run(self, input: str | RunnableInput, config: RunnableConfig | None) -> Generator[dict[str, Any], None, None]:
        config = ensure_config(config)
        manager = get_callback_manager_for_config(config)
        run = manager.on_chain_start(
            None, {"input": input}, name=config.get("run_name") or self.get_name(), run_id=config.pop("run_id", None)
        )
        try:
            request = self._request(input)
            context: list[Document] = []
            output: dict[str, Any] = {}
            events = self.engine.stream(
                request.question, collection=request.collections[0], resources=request.collections[1:] or None,
                thread_id=request.thread_id,
                options=request.options, extras=self.extras, callbacks=run.get_child(),
            )
            for event in events:
                if isinstance(event, NodeEvent):
                    if "relevant" in event.update:
                        context = list(event.update["relevant"])
                    yield _node_chunk(event)
                else:
                    output = self._output(event, context)
        except BaseException as exc:
            run.on_chain_error(exc)
            raise
        run.on_chain_end(output)
        yield output

    async def astream(
        self, input: str | RunnableInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        # The engine is synchronous: its stream runs in a worker thread, one node at a time, with
        # this context (callbacks, tracing) copied into it.
        chunks = self._run(input, config)
        done = object()
        try:
            while True:
                chunk = await run_in_executor(config, next, chunks, done)
                if chunk is done:
                    return
                yield chunk  # type: ignore[misc]
        finally:
            await asyncio.shield(run_in_executor(config, chunks.close))


def _node_chunk(event: NodeEvent) -> dict[str, Any]:
    spec = node_spec(event.node)
    if spec is None:
        return {"node": event.node, "summary": "", "data": {}}
    summary = spec.summarize(event.update)  # type: ignore[arg-type]
    return {"node": event.node, "summary": summary.text, "data": summary.data}
