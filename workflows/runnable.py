"""The engine as a LangChain ``Runnable`` (``engine.as_runnable()``), for LCEL chains and tracing.

Input: a question, or a dict of options (``RunnableInput``)::

    {"question": "...", "collection": "movies", "thread_id": "t1", "options": {"max_rewrites": 1}}

(``collections``: a list naming the collections to ask; ``resources``: more resources, each a
collection or named retriever by name, a ``Resource``, or a LangChain ``BaseRetriever``). Output,
from ``invoke``/``ainvoke``/``batch``/``abatch`` (``RunnableOutput``)::

    {"question", "answer", "outcome", "context", "citations", "collection", "collections", "thread_id", ...extras}

``context`` holds the documents the answer was generated from, as LangChain ``Document``s
(metadata plus ``id``, ``score``, ``collection``) — the same ``Document``s an extra sees as
``FinalState.context``; ``citations`` the cited ones as dicts.
``stream``/``astream`` yield one ``{"node", "summary", "data"}`` chunk as each graph node
finishes and, when a chat model writes the answer, one ``{"answer_delta", "generation",
"attempt"}`` chunk per piece of text as it writes it (``workflows.tokens``: a delta of a new
generation or attempt withdraws the text before it), then that same output dict — whose
``answer`` is the one to show, whatever was streamed. The run is one LangChain run
(``on_chain_start``/``end`` under the config's callbacks, run name ``selfrag`` unless the config
names it) whose children are the graph and every model call, so tracers (LangSmith, a custom
handler) see the whole tree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Generator, Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast

from langchain_core.documents import Document as LCDocument
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import ensure_config, get_callback_manager_for_config
from typing_extensions import TypedDict

from selfrag.errors import UsageError
from workflows._aio import in_thread
from workflows.engine import NodeEvent
from workflows.extras import Extras, check_extras
from workflows.nodes import node_spec
from workflows.options import RunOptions
from workflows.outcomes import Result
from workflows.records import Document
from workflows.resources import Resource, ResourceLike
from workflows.retriever import to_langchain
from workflows.tokens import AnswerDelta

if TYPE_CHECKING:
    from workflows.engine import SelfRagEngine

__all__ = ["AnswerDeltaChunk", "EngineRunnable", "NodeChunk", "RunnableInput", "RunnableOutput"]

_OPTION_NAMES = frozenset(f.name for f in dataclasses.fields(RunOptions))


class RunnableInput(TypedDict, total=False):
    """The dict form of the Runnable's input; only ``question`` is required."""

    question: str
    collection: str
    collections: list[str]
    thread_id: str
    resources: list[ResourceLike]
    """More resources to answer from: a collection or one of the engine's named retrievers by name,
    a ``Resource`` (its own search settings), or a LangChain ``BaseRetriever`` as is."""
    options: dict[str, Any]
    """``RunOptions`` fields to override for this question (``max_rewrites``, ``top_k``…)."""


class RunnableOutput(TypedDict):
    """What ``invoke`` returns (and ``stream`` yields last); the extras' values sit beside these keys."""

    question: str
    answer: str
    """The answer to show (after every check), whatever ``answer_delta`` chunks streamed before."""
    outcome: str
    context: list[LCDocument]
    """The documents the answer was generated from."""
    citations: list[dict[str, Any]]
    collection: str
    collections: list[str]
    thread_id: str | None


class NodeChunk(TypedDict):
    """What ``stream`` yields as a graph node finishes."""

    node: str
    summary: str
    data: dict[str, Any]


class AnswerDeltaChunk(TypedDict):
    """What ``stream`` yields for a piece of the answer as a model writes it (``workflows.tokens``)."""

    answer_delta: str
    generation: int
    attempt: int


@dataclasses.dataclass(frozen=True)
class _Request:
    question: str
    collections: list[str]
    resources: list[ResourceLike]
    thread_id: str | None
    options: RunOptions


Chunk = NodeChunk | AnswerDeltaChunk | RunnableOutput


class EngineRunnable(Runnable[str | RunnableInput, RunnableOutput]):
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
        resources = value.get("resources") or []
        if isinstance(resources, str) or not all(isinstance(r, str | Resource | BaseRetriever) for r in resources):
            raise UsageError("'resources' is a list of names, Resource objects or LangChain retrievers")
        return _Request(question, self._collection(value, bool(resources)), list(resources), value.get("thread_id"),
                        self.engine.with_options(**options))

    def _collection(self, value: Mapping[str, Any], resources: bool) -> list[str]:
        """The collections asked: ``collection`` then ``collections`` (each once), else the default
        (none when the input names ``resources``)."""
        several = value.get("collections")
        if several is not None and (isinstance(several, str) or not all(isinstance(n, str) for n in several)):
            raise UsageError("'collections' is a list of collection names")
        names = list(dict.fromkeys([*([value["collection"]] if value.get("collection") else []), *(several or [])]))
        if not names and self.collection and not resources:
            names = [self.collection]
        if not names and not resources:
            raise UsageError("no collection: give 'collection' in the input or to as_runnable(collection=...)")
        return [str(n) for n in names]

    # -- output -----------------------------------------------------------------------------------
    @staticmethod
    def _output(result: Result, context: list[Document]) -> RunnableOutput:
        output: dict[str, Any] = {
            **result.extras,  # beside the declared keys (an extra may not shadow one: ``check_extras``)
            "question": result.question,
            "answer": result.answer,
            "outcome": result.outcome.value,
            "context": [to_langchain(d, d["resource"]) for d in context],
            "citations": [c.model_dump(mode="json") for c in result.citations],
            "collection": result.collection,
            "collections": result.collections,
            "thread_id": result.thread_id,
        }
        return cast(RunnableOutput, output)

    # -- Runnable ---------------------------------------------------------------------------------
    def invoke(self, input: str | RunnableInput, config: RunnableConfig | None = None, **kwargs: Any) -> RunnableOutput:
        final: Chunk | None = None
        for chunk in self._run(input, config, tokens=False):
            final = chunk
        return cast(RunnableOutput, final)

    async def ainvoke(self, input: str | RunnableInput, config: RunnableConfig | None = None, **kwargs: Any) -> RunnableOutput:
        final: Chunk | None = None
        async for chunk in in_thread(self._run(input, config, tokens=False)):
            final = chunk
        return cast(RunnableOutput, final)

    def stream(self, input: str | RunnableInput, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Any]:
        yield from self._run(input, config, tokens=True)

    async def astream(self, input: str | RunnableInput, config: RunnableConfig | None = None, **kwargs: Any) -> AsyncIterator[Any]:
        # The engine is synchronous: its stream runs in a worker thread, one node at a time, with
        # this context (callbacks, tracing) copied into it.
        async for chunk in in_thread(self._run(input, config, tokens=True)):
            yield chunk

    def _run(self, input: str | RunnableInput, config: RunnableConfig | None, *, tokens: bool) -> Generator[Chunk, None, None]:
        config = ensure_config(config)
        manager = get_callback_manager_for_config(config)
        run = manager.on_chain_start(
            None, {"input": input}, name=config.get("run_name") or self.get_name(), run_id=config.pop("run_id", None)
        )
        try:
            request = self._request(input)
            context: list[Document] = []
            output: RunnableOutput | None = None
            events = self.engine.stream(
                request.question, collection=request.collections[0] if request.collections else None,
                resources=[*request.collections[1:], *request.resources] or None, thread_id=request.thread_id,
                options=request.options, extras=self.extras, callbacks=run.get_child(), tokens=tokens,
            )
            for event in events:
                if isinstance(event, NodeEvent):
                    if "relevant" in event.update:
                        context = list(event.update["relevant"])
                    yield _node_chunk(event)
                elif isinstance(event, AnswerDelta):
                    yield AnswerDeltaChunk(answer_delta=event.text, generation=event.generation, attempt=event.attempt)
                else:
                    output = self._output(event, context)
        except BaseException as exc:
            run.on_chain_error(exc)
            raise
        assert output is not None
        run.on_chain_end(output)
        yield output


def _node_chunk(event: NodeEvent) -> NodeChunk:
    spec = node_spec(event.node)
    if spec is None:
        return {"node": event.node, "summary": "", "data": {}}
    summary = spec.summarize(event.update)  # type: ignore[arg-type]
    return {"node": event.node, "summary": summary.text, "data": summary.data}
