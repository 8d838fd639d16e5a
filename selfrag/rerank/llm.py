"""The ``llm`` reranker: a chat model judges each candidate, like LangChain's ``LLMChainFilter``.

Pointwise rather than listwise: each (question, passage) pair is one small structured call
(``RerankJudgement``: a 0–3 relevance score), so a small local model only ever reads one passage,
the calls run concurrently, and one bad reply costs one candidate's judgment, not the ranking.
Candidates are ordered by score, ties kept in their retrieval order; ``drop_below`` turns it into a
filter (what ``LLMChainFilter`` does). Its cost is one model call per candidate: with ``k × factor``
candidates it is the most expensive stage after generation (see ``bench/retrieval_quality.py``).

A judgment that stays invalid after its retries scores ``UNJUDGED`` (between "same topic" and "part
of the answer"): the stage reorders, the relevance grader still decides, so a failed call must
neither promote a passage above judged answers nor bury one that may answer. Only when every call
fails is it a ``ProviderError`` (the caller may keep the fused order).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field

from selfrag.errors import ProviderError, describe
from selfrag.rerank.base import Reranked

__all__ = ["PROMPT_VERSION", "UNJUDGED", "LLMReranker", "RerankJudgement"]

PROMPT_VERSION = "rerank-pointwise-1"
UNJUDGED = 1.5

_SYSTEM = (
    "You rate how useful a passage is for answering a question. Reply with JSON only: "
    '{"score": N} where N is 3 if the passage answers the question, 2 if it gives part of the answer '
    "or a fact needed for it, 1 if it is on the same topic but does not help answer, 0 if it is unrelated."
)
_USER = "Question: {question}\n\nPassage:\n{passage}"


class RerankJudgement(BaseModel):
    """One passage's relevance to the question (the structured output of one call)."""

    model_config = ConfigDict(extra="ignore")

    score: int = Field(ge=0, le=3, description="3 answers, 2 part of the answer, 1 same topic, 0 unrelated")


class LLMReranker:
    """Scores each candidate with one structured chat-model call.

    Args:
        model: Any LangChain chat model (``selfrag.providers.make_chat_model``; tests: ``ScriptedChatModel``).
        max_concurrency: Calls in flight at once.
        attempts: Tries per candidate (a reply that does not parse is tried again).
        drop_below: Candidates judged below this score are dropped (a filter); None keeps all.
        max_chars: A passage is cut to this many characters (a small model's context is small).
        method: The structured-output method passed to ``with_structured_output``.
    """

    name = "llm"

    def __init__(
        self,
        model: BaseChatModel,
        *,
        max_concurrency: int = 4,
        attempts: int = 2,
        drop_below: int | None = None,
        max_chars: int = 2000,
        method: str = "json_schema",
    ) -> None:
        if max_concurrency < 1 or attempts < 1 or max_chars < 1:
            raise ValueError("max_concurrency, attempts and max_chars must be at least 1")
        self.model = model
        self.max_concurrency = max_concurrency
        self.attempts = attempts
        self.drop_below = drop_below
        self.max_chars = max_chars
        self._runnable = model.with_structured_output(RerankJudgement, method=method)

    def messages(self, query: str, passage: str) -> list[BaseMessage]:
        return [SystemMessage(_SYSTEM), HumanMessage(_USER.format(question=query, passage=passage[: self.max_chars]))]

    def rerank(self, query: str, documents: Sequence[str], top_n: int | None = None) -> list[Reranked]:
        if not documents:
            return []
        scores: list[float | None] = [None] * len(documents)
        errors: list[str] = []
        pending = list(range(len(documents)))
        for _ in range(self.attempts):
            if not pending:
                break
            replies: list[Any] = self._runnable.batch(
                [self.messages(query, documents[i]) for i in pending],
                config={"max_concurrency": self.max_concurrency},
                return_exceptions=True,
            )
            retry = []
            for i, reply in zip(pending, replies, strict=True):
                if isinstance(reply, RerankJudgement):
                    scores[i] = float(reply.score)
                else:
                    retry.append(i)
                    if isinstance(reply, BaseException):
                        errors.append(describe(reply, 200))
            pending = retry
        if all(s is None for s in scores):
            raise ProviderError(
                f"the llm reranker got no valid judgment for any of {len(documents)} candidates",
                detail="; ".join(errors[-3:]),
            )
        ranked = [Reranked(i, UNJUDGED if s is None else s) for i, s in enumerate(scores)]
        if self.drop_below is not None:
            ranked = [r for r in ranked if r.score >= self.drop_below]
        ranked.sort(key=lambda r: (-r.score, r.index))
        return ranked[:top_n]
