"""Answer generation with citations, from the relevant documents only.

Documents are numbered [1]..[n] inside a fenced block; the model answers in plain text with
[n] markers. Plain text rather than JSON: a small local model writing a long string inside a
grammar-constrained JSON object tends to run to its token limit and break the JSON, while plain
text stops on its own. Markers outside 1..n are dropped; an answer without markers gets its
citations by attribution (``workflows.extractive``), recorded as such.

A regeneration after an ungrounded verdict carries the grader's reason as feedback. With
``extractive_fallback``, the last allowed attempt after only ungrounded ones quotes the
documents instead of generating.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from selfrag.errors import describe
from selfrag.fencing import DATA_NOT_INSTRUCTIONS, fence, fence_documents
from selfrag.providers import for_task
from selfrag.reading import Critic, Reader, split_sentences
from selfrag.retry import Attempts, RetryPolicy, call_with_retries
from workflows.reading import Rival, attribute, read_answer

__all__ = ["GENERATE_PROMPT_VERSION", "GENERATE_SYSTEM", "AnswerGenerator", "Generation", "is_degenerate", "tidy"]

GENERATE_PROMPT_VERSION = "generate/v2"
_MARKER = re.compile(r"\[(\d{1,3})\]")
_ECHO = re.compile(r"</?\s*(documents?|question|answer)\b", re.IGNORECASE)
_PREFIX = re.compile(r"^\s*(?:answer|final answer)\s*:\s*", re.IGNORECASE)

GENERATE_SYSTEM = (
    "You answer a user's question using only the numbered documents provided. Use only facts stated "
    "in the documents; do not add outside knowledge. After each fact, cite its document with a marker "
    "like [1]. Answer in one to three sentences. If the documents do not contain the answer, say that "
    "you don't know. " + DATA_NOT_INSTRUCTIONS
)


def is_degenerate(text: str, *, n: int = 5, times: int = 3) -> bool:
    """True when some ``n``-word sequence occurs ``times`` times or more: a decoding loop, not an answer."""
    words = text.lower().split()
    counts: dict[tuple[str, ...], int] = {}
    for i in range(len(words) - n + 1):
        gram = tuple(words[i : i + n])
        counts[gram] = counts.get(gram, 0) + 1
        if counts[gram] >= times:
            return True
    return False


def tidy(text: str, *, max_sentences: int = 3) -> str:
    """Normalise a model's answer: no "Answer:" prefix, no markdown headings, at most a few sentences."""
    lines = [ln for ln in text.strip().splitlines() if not ln.lstrip().startswith("#")]
    flat = _PREFIX.sub("", " ".join(" ".join(lines).split()))
    sentences = split_sentences(flat)
    return " ".join(sentences[:max_sentences]) if len(sentences) > max_sentences else flat


@dataclass(frozen=True)
class Generation:
    answer: str
    citations: list[int]
    """1-based numbers into the documents given, validated."""
    attempts: int
    strategy: str = "llm"
    """``llm`` or ``reader``."""
    citation_source: str = "model"
    """``model`` (markers the model wrote), ``attributed`` (added by the critic), ``reader`` or ``none``."""
    error: str | None = None
    short_answer: str | None = None
    """The reader's short answer (a span, "Yes", "No"); None for a model's answer."""
    probability: float | None = None
    """The reader's calibrated probability that ``short_answer`` is right."""
    rival: Rival | None = None
    """Another document's answer that says otherwise (``workflows.reading.Rival``)."""

    @property
    def failed(self) -> bool:
        return self.error is not None


class AnswerGenerator:
    def __init__(
        self, model: BaseChatModel, *, retry: RetryPolicy = RetryPolicy(attempts=2), max_tokens: int = 256,
        reader: Reader | None = None, critic: Critic | None = None, read_across: bool = True,
    ) -> None:
        self.model = model
        self.retry = retry
        self.max_tokens = max_tokens
        self.reader = reader
        """Answers ``read``; None: no reader answers (a run that needs one fails)."""
        self.critic = critic
        """Cites an unmarked model answer's sentences; None: such an answer cites nothing."""
        self.read_across = read_across
        """The reader also reads across the best documents (``workflows.reading``); needs the critic."""

    def messages(self, question: str, documents: Sequence[Mapping[str, Any]], feedback: str | None) -> list[BaseMessage]:
        user = f"{fence_documents(documents)}\n\n{fence('question', question)}\n\nAnswer the question from the documents, citing them."
        if feedback:
            user += (
                "\nA previous answer was rejected because it was not supported by the documents "
                f"({feedback}). Use only facts stated in the documents."
            )
        return [SystemMessage(GENERATE_SYSTEM), HumanMessage(user)]

    def generate(
        self, question: str, documents: Sequence[Mapping[str, Any]], *, feedback: str | None = None,
        on_token: Callable[[str, int], None] | None = None,
    ) -> Generation:
        """The model's answer, checked for shape (retried when broken) and cited.

        Args:
            on_token: called with each piece of text as the model writes it, and the attempt
                (1-based) writing it; given, the model is streamed rather than invoked.
        """
        msgs = self.messages(question, documents, feedback)
        model = self.model
        calls = 0

        def write() -> str:
            nonlocal calls
            calls += 1
            if on_token is None:
                return str(model.invoke(msgs, for_task("generate"), max_tokens=self.max_tokens).content)
            pieces: list[str] = []
            for chunk in model.stream(msgs, for_task("generate"), max_tokens=self.max_tokens):
                if chunk.text:
                    pieces.append(chunk.text)
                    on_token(chunk.text, calls)
            return "".join(pieces)

        def call() -> str:
            text = tidy(write())
            if not text:
                raise OutputParserException("empty answer")
            if is_degenerate(text):
                raise OutputParserException("the answer repeats itself")
            if _ECHO.search(text):
                # Small models sometimes copy the prompt back; that is not an answer.
                raise OutputParserException("the answer echoes the prompt's document tags")
            return text

        made = Attempts()
        try:
            answer, attempts = call_with_retries(call, self.retry, attempts=made)
        except Exception as exc:  # noqa: BLE001 - a failed generation is recorded, and routed like an ungrounded one
            return Generation("", [], made.made, error=describe(exc, 200))
        marked = sorted({int(m) for m in _MARKER.findall(answer)})
        valid = [n for n in marked if 1 <= n <= len(documents)]
        if valid:
            return Generation(answer, valid, attempts)
        answer = _MARKER.sub("", answer).strip()  # markers pointing nowhere are noise
        attributed = attribute(self.critic, answer, documents) if self.critic is not None else []
        return Generation(answer, attributed, attempts, citation_source="attributed" if attributed else "none")

    def read(self, question: str, documents: Sequence[Mapping[str, Any]]) -> Generation:
        """The trained reader's answer: short answer, supporting quote, citation, probability."""
        if self.reader is None:
            return Generation("", [], 0, strategy="reader", error="no reader is configured")
        out = read_answer(self.reader, question, documents, self.critic if self.read_across else None)
        if not out.answer:
            return Generation("", [], 0, strategy="reader", error="the reader found no answer in the documents",
                              probability=out.probability)
        return Generation(out.answer, out.citations, 0, strategy="reader", citation_source="reader",
                          short_answer=out.short_answer, probability=out.probability, rival=out.rival)
