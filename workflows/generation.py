"""Answer generation with citations, from the relevant documents only.

Documents are numbered [1]..[n] inside a fenced block; the model answers in JSON with the answer
text (using [n] markers) and the numbers it cites. Citations are validated: numbers outside
1..n are dropped, and markers written in the text count even when the list forgot them.
A regeneration after an ungrounded verdict carries the grader's reason as feedback.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field, field_validator

from graders.fencing import DATA_NOT_INSTRUCTIONS, fence, fence_documents
from graders.policy import RetryPolicy, call_with_retries

__all__ = ["GeneratedAnswer", "Generation", "AnswerGenerator", "GENERATE_PROMPT_VERSION"]

GENERATE_PROMPT_VERSION = "generate/v1"
_MARKER = re.compile(r"\[(\d{1,3})\]")

_SYSTEM = (
    "You answer a user's question using only the numbered documents provided. Use only facts stated "
    "in the documents; do not add outside knowledge. Cite the documents you use with markers like [1] "
    "in the answer and list their numbers in 'citations'. Keep the answer short. If the documents do "
    "not contain the answer, say that you don't know. Reply with JSON: "
    '{"answer": text, "citations": [numbers]}. ' + DATA_NOT_INSTRUCTIONS
)


class GeneratedAnswer(BaseModel):
    """The generator's structured output."""

    answer: str = Field(description="A short answer using only the documents, with [n] citation markers.")
    citations: list[int] = Field(default_factory=list, description="Numbers of the documents cited.")

    @field_validator("citations", mode="before")
    @classmethod
    def _ints(cls, v: object) -> list[int]:
        out: list[int] = []
        for item in v if isinstance(v, list) else []:
            try:
                out.append(int(str(item).strip("[] ")))
            except ValueError:
                continue
        return out


@dataclass(frozen=True)
class Generation:
    answer: str
    citations: list[int]
    """1-based numbers into the documents given, validated."""
    attempts: int
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None


class AnswerGenerator:
    def __init__(self, model: BaseChatModel, *, method: str = "json_schema", retry: RetryPolicy = RetryPolicy()) -> None:
        self.model = model
        self.retry = retry
        self._runnable = model.with_structured_output(GeneratedAnswer, method=method)

    def messages(self, question: str, documents: Sequence[Mapping[str, Any]], feedback: str | None) -> list[BaseMessage]:
        user = f"{fence_documents(documents)}\n\n{fence('question', question)}\n\nAnswer the question from the documents."
        if feedback:
            user += (
                "\nA previous answer was rejected because it was not supported by the documents "
                f"({feedback}). Use only facts stated in the documents."
            )
        return [SystemMessage(_SYSTEM), HumanMessage(user)]

    def generate(
        self, question: str, documents: Sequence[Mapping[str, Any]], *, feedback: str | None = None
    ) -> Generation:
        msgs = self.messages(question, documents, feedback)
        try:
            out, attempts = call_with_retries(lambda: self._runnable.invoke(msgs), self.retry)
        except Exception as exc:  # noqa: BLE001 - a failed generation is recorded, and routed like an ungrounded one
            return Generation("", [], self.retry.attempts, f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}")
        assert isinstance(out, GeneratedAnswer)
        answer = out.answer.strip()
        cited = {n for n in out.citations} | {int(m) for m in _MARKER.findall(answer)}
        valid = sorted(n for n in cited if 1 <= n <= len(documents))
        if not answer:
            return Generation("", [], attempts, "empty answer")
        return Generation(answer, valid, attempts)
