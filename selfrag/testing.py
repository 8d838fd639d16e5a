"""Scripted fakes for every external dependency, for tests and for users' own tests.

``ScriptedChatModel`` answers by asking a *script*: a function of the task and the messages. The
task is what the caller says it asked: the structured-output schema's name (``RelevanceGrade``),
else the task named in the call's run metadata (``generate``, ``rewrite``, ``condense``: see
``selfrag.providers.for_task``), else ``"text"``. Scripts keyed on content keep concurrent calls
deterministic, unlike a plain queue (document grading runs in parallel).

    model = ScriptedChatModel.from_rules({
        "RelevanceGrade": lambda msgs: verdict("relevant" if "toy" in msgs[-1].content else "irrelevant"),
        "generate": "Toys come alive [1].",
        "rewrite": ["toys that come alive"],          # a list is served in order, the last repeats
    })
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import date
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableConfig
from pydantic import ConfigDict, PrivateAttr

from selfrag.providers._structured import JsonSchemaStructuredOutput
from selfrag.providers._tasks import TASK_METADATA_KEY
from selfrag.reading import Reading
from selfrag.schema import CollectionSchema
from selfrag.store.types import Chunk, Hit

__all__ = [
    "Call",
    "FakeCollection",
    "FakeStore",
    "HashEmbeddings",
    "Reply",
    "Script",
    "ScriptedChatModel",
    "ScriptedJudge",
    "matches_where",
    "reading_of",
    "verdict",
]

Reply = str | AIMessage | BaseException
"""A scripted reply: text (JSON for structured tasks), a full message, or an exception to raise."""

Script = Callable[[str, list[BaseMessage]], Reply]


class Call:
    """One recorded call: the task name and the messages sent."""

    def __init__(self, task: str, messages: list[BaseMessage]) -> None:
        self.task = task
        self.messages = messages

    @property
    def prompt(self) -> str:
        return "\n".join(str(m.content) for m in self.messages)

    def __repr__(self) -> str:
        return f"Call(task={self.task!r})"


class ScriptedChatModel(JsonSchemaStructuredOutput, BaseChatModel):  # type: ignore[misc]
    """A chat model whose replies come from a script; every call is recorded in ``calls``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: Any
    model_name: str = "scripted"
    _calls: list[Call] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def from_rules(cls, rules: Mapping[str, Reply | Sequence[Reply] | Callable[[list[BaseMessage]], Reply]]) -> ScriptedChatModel:
        """Build from a mapping task → reply, list of replies (served in order, last repeats) or function.

        An unknown task raises ``KeyError`` so a test notices a call it did not script.
        """
        queues: dict[str, Iterator[Reply]] = {}
        lock = threading.Lock()

        def _serve(items: Sequence[Reply]) -> Iterator[Reply]:
            last: Reply | None = None
            for item in items:
                last = item
                yield item
            while True:
                assert last is not None, "empty reply list"
                yield last

        def script(task: str, messages: list[BaseMessage]) -> Reply:
            if task not in rules:
                raise KeyError(f"ScriptedChatModel: no script for task {task!r}")
            rule = rules[task]
            if callable(rule) and not isinstance(rule, (str, BaseException)):
                return rule(messages)
            if isinstance(rule, (str, AIMessage, BaseException)):
                return rule
            with lock:
                if task not in queues:
                    queues[task] = _serve(list(rule))
                return next(queues[task])

        return cls(script=script)

    @property
    def calls(self) -> list[Call]:
        return list(self._calls)

    def calls_for(self, task: str) -> list[Call]:
        return [c for c in self._calls if c.task == task]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        task = _task(kwargs.get("response_format"), run_manager)
        with self._lock:
            self._calls.append(Call(task, list(messages)))
        reply = self.script(task, list(messages))
        if isinstance(reply, BaseException):
            raise reply
        message = reply if isinstance(reply, AIMessage) else AIMessage(content=reply)
        if message.usage_metadata is None:
            prompt_tokens = sum(len(str(m.content).split()) for m in messages)
            out_tokens = len(str(message.content).split())
            message.usage_metadata = UsageMetadata(
                input_tokens=prompt_tokens, output_tokens=out_tokens, total_tokens=prompt_tokens + out_tokens
            )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def stream(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, *, stop: list[str] | None = None,
        **kwargs: Any,
    ) -> Iterator[AIMessageChunk]:
        """The scripted reply a word at a time (with the space after it), as a provider streams it.

        One recorded call, made as ``invoke`` makes it (the task comes from the call's metadata,
        which LangChain does not hand a model's own ``_stream``), then its text in pieces."""
        message = self.invoke(input, config, stop=stop, **kwargs)
        words = re.findall(r"\S+\s*|\s+", str(message.content)) or [""]
        for n, word in enumerate(words):
            last = n == len(words) - 1
            yield AIMessageChunk(content=word, id=message.id,
                                 usage_metadata=message.usage_metadata if last and isinstance(message, AIMessage) else None)


def _task(response_format: Any, run_manager: CallbackManagerForLLMRun | None) -> str:
    if isinstance(response_format, dict) and "json_schema" in response_format:
        return str(response_format["json_schema"].get("name", "text"))
    named = run_manager.metadata.get(TASK_METADATA_KEY) if run_manager is not None else None
    return str(named) if named else "text"


def verdict(verdict: str, reason: str = "scripted") -> str:
    """A grader's reply as a script writes it: ``{"verdict": ..., "reason": ...}``."""
    return json.dumps({"verdict": verdict, "reason": reason})


class HashEmbeddings(Embeddings):
    """Deterministic bag-of-words embeddings: texts sharing words are close. No model, no network.

    Good enough for retrieval tests to be meaningful (a query about "toys" finds the toy story).
    """

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def _embed(self, text: str) -> list[float]:
        import hashlib
        import math
        import re

        vec = [0.0] * self.dim
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
            vec[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        if norm == 1.0 and not any(vec):
            vec[0] = 1.0
        return [v / norm for v in vec]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed(text)


def matches_where(metadata: Mapping[str, Any], where: Mapping[str, Any] | None) -> bool:
    """Evaluate a Chroma ``where`` clause against one metadata mapping (for fakes and tests)."""
    if not where:
        return True
    if "$and" in where:
        return all(matches_where(metadata, w) for w in where["$and"])
    if "$or" in where:
        return any(matches_where(metadata, w) for w in where["$or"])
    for attr, cond in where.items():
        ops = cond if isinstance(cond, Mapping) else {"$eq": cond}
        present = attr in metadata
        value = metadata.get(attr)
        for op, target in ops.items():
            if op == "$eq" and not (present and value == target):
                return False
            if op == "$ne" and present and value == target:
                return False
            if op == "$in" and not (present and value in target):
                return False
            if op == "$nin" and present and value in target:
                return False
            if op == "$contains" and not (isinstance(value, list) and target in value):
                return False
            if op == "$not_contains" and isinstance(value, list) and target in value:
                return False
            if op in ("$gt", "$gte", "$lt", "$lte"):
                if not present or isinstance(value, (str, bool)) or value is None:
                    return False
                if op == "$gt" and not value > target:
                    return False
                if op == "$gte" and not value >= target:
                    return False
                if op == "$lt" and not value < target:
                    return False
                if op == "$lte" and not value <= target:
                    return False
    return True


class FakeCollection:
    """An in-memory collection: ``where`` evaluated like Chroma, ranked by HashEmbeddings cosine.

    Pass ``search_fn`` to script exactly what each search returns (e.g. the same set twice).
    Every search is recorded in ``searches`` as ``(query, where, k)``.
    """

    def __init__(
        self,
        name: str,
        schema: CollectionSchema,
        docs: Sequence[Mapping[str, Any]] = (),
        *,
        search_fn: Callable[[str, Mapping[str, Any] | None, int], list[Hit]] | None = None,
    ) -> None:
        self._name = name
        self._schema = schema
        self.docs = [dict(d) for d in docs]
        self.search_fn = search_fn
        self.searches: list[tuple[str, Any, int]] = []
        self._emb = HashEmbeddings()

    @property
    def name(self) -> str:
        return self._name

    @property
    def schema(self) -> CollectionSchema:
        return self._schema

    def catalogue(self) -> dict[str, list[str]]:
        out: dict[str, set[str]] = {}
        for attr in self._schema.attributes:
            if attr.type == "string":
                out[attr.name] = {str(d["metadata"][attr.name]) for d in self.docs if attr.name in d.get("metadata", {})}
            elif attr.type == "string[]":  # a list's elements are its values
                out[attr.name] = {str(v) for d in self.docs for v in d.get("metadata", {}).get(attr.name) or []}
        return {k: sorted(v) for k, v in out.items()}

    def search(
        self, query: str, *, where: dict[str, Any] | None = None, k: int = 4, min_score: float | None = None
    ) -> list[Hit]:
        self.searches.append((query, where, k))
        if self.search_fn is not None:
            return self.search_fn(query, where, k)
        q = self._emb.embed_query(query)
        hits = []
        for d in self.docs:
            if not matches_where(d.get("metadata", {}), where):
                continue
            v = self._emb.embed_query(d["text"])
            score = sum(a * b for a, b in zip(q, v, strict=False))
            if min_score is None or score >= min_score:
                hits.append(Hit(id=d["id"], text=d["text"], metadata=dict(d.get("metadata", {})), score=score))
        hits.sort(key=lambda h: -h.score)
        return hits[:k]

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        by_id = {d["id"]: Chunk(d["id"], d["text"], dict(d.get("metadata", {}))) for d in self.docs}
        return [by_id[i] for i in dict.fromkeys(ids) if i in by_id]

    def newest(self, *, attribute: str, where: dict[str, Any] | None = None, k: int = 4, today: date | None = None) -> list[Hit]:
        """The ``k`` matching documents with the latest ``attribute`` (ISO text sorts as dates)."""
        self.searches.append(("<newest>", where, k))
        matching = [d for d in self.docs if matches_where(d.get("metadata", {}), where) and attribute in d.get("metadata", {})]
        matching.sort(key=lambda d: str(d["metadata"][attribute]), reverse=True)
        return [Hit(d["id"], d["text"], dict(d["metadata"]), 1.0) for d in matching[:k]]

    def count(self) -> int:
        return len(self.docs)

    def count_documents(self, where: dict[str, Any] | None, *, cap: int = 10_000) -> int | None:
        matching = [d for d in self.docs if matches_where(d.get("metadata", {}), where)]
        if len(matching) > cap:
            return None
        return len({str(d.get("metadata", {}).get("doc_id") or d["id"]) for d in matching})

    def matching(self, where: dict[str, Any] | None, *, cap: int = 1_000) -> list[Chunk] | None:
        found = [Chunk(d["id"], d["text"], dict(d.get("metadata", {})))
                 for d in self.docs if matches_where(d.get("metadata", {}), where)]
        return None if len(found) > cap else found

    def lexical_source(self) -> None:
        """None: a fake collection is searched dense only."""
        return None


class FakeStore:
    """Holds ``FakeCollection`` objects by name; unknown names raise ``CollectionNotFound``."""

    def __init__(self, *collections: FakeCollection) -> None:
        self.collections = {c.name: c for c in collections}

    def get_collection(self, name: str) -> FakeCollection:
        from selfrag.errors import CollectionNotFound

        if name not in self.collections:
            raise CollectionNotFound(name)
        return self.collections[name]


JudgeScore = Callable[[str, str, str], float]
"""``(task, first, second) -> probability``: a scripted critic judgement."""
JudgeRead = Callable[[str, list[str]], Reading]
"""``(question, passages) -> Reading``: a scripted reader."""


def _no_read(question: str, passages: list[str]) -> Reading:
    return Reading("none", "", -1)


class ScriptedJudge:
    """A reader-critic whose scores and readings come from functions; every call is recorded.

    The default critic scores 1.0 (everything relevant, supported, useful) and the default reader
    finds nothing; tests script what a path needs (``reading_of`` makes a span reading).
    """

    def __init__(self, score: JudgeScore | None = None, read: JudgeRead | None = None, *,
                 thresholds: Mapping[str, float] | None = None, name: str = "scripted-judge",
                 candidates: Callable[..., list[Reading]] | None = None) -> None:
        self._score = score or (lambda task, first, second: 1.0)
        self._read = read or _no_read
        self._candidates = candidates
        """``(question, passages, n[, yes_no=])`` -> the best answers, as ``Judge.candidates``; None:
        this judge offers only ``read`` (as a reader without candidates does)."""
        self.thresholds = dict(thresholds or {})
        self._name = name
        self.calls: list[tuple[str, str, str]] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def version(self) -> str:
        return self._name

    def score(self, task: str, firsts: list[str], seconds: list[str]) -> list[float]:
        self.calls += [(task, f, s) for f, s in zip(firsts, seconds, strict=True)]
        return [self._score(task, f, s) for f, s in zip(firsts, seconds, strict=True)]

    def read(self, question: str, passages: list[str]) -> Reading:
        self.calls.append(("read", question, str(len(passages))))
        return self._read(question, list(passages))

    def __getattr__(self, attr: str) -> Any:
        # ``candidates`` exists only when scripted: code asks ``getattr(reader, "candidates", None)``.
        if attr == "candidates" and self.__dict__.get("_candidates") is not None:
            script = self.__dict__["_candidates"]

            def candidates(question: str, passages: list[str], n: int = 5, **kwargs: Any) -> list[Reading]:
                self.calls.append(("candidates", question, str(len(passages))))
                return list(script(question, list(passages), n, **kwargs))

            return candidates
        raise AttributeError(attr)

    def threshold(self, key: str, default: float = 0.5) -> float:
        return self.thresholds.get(key, default)


def reading_of(answer: str, passages: list[str], *, probability: float = 0.9, kind: str = "span") -> Reading:
    """A reading of ``answer`` where it first occurs in ``passages``, its sentence as support
    (``kind`` yes/no: the first passage's first sentence); a none reading if it occurs nowhere."""
    from selfrag.reading import sentence_spans

    if kind in ("yes", "no"):
        first = sentence_spans(passages[0])[0]
        return Reading(kind, "Yes" if kind == "yes" else "No", 0, -1, -1, ((first.start, first.end),), 0.0, probability)  # type: ignore[arg-type]
    for n, text in enumerate(passages):
        at = text.find(answer)
        if at >= 0:
            sentence = next(s for s in sentence_spans(text) if s.start <= at < s.end)
            return Reading("span", answer, n, at, at + len(answer), ((sentence.start, sentence.end),), 0.0, probability)
    return Reading("none", "", -1)
