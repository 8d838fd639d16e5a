"""The typed result of one question: answer, outcome, citations and the full trace.

Pydantic, because this is the boundary: the CLI prints it as JSON, the HTTP service returns it,
the evaluation harness stores it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from graders.verdicts import Verdict
from workflows.records import (
    Clarification,
    ExtraFailure,
    GeneratedAnswer,
    GradedDocument,
    Relaxation,
    ResourcePlan,
    RetrievalRecord,
    RewriteRecord,
    Timing,
)

__all__ = ["Citation", "LLMUsage", "Outcome", "Result", "Trace"]


class Outcome(StrEnum):
    ANSWERED = "answered"
    """Grounded in the documents and useful for the question."""
    ABSTAINED = "abstained"
    """No relevant document was found; the answer says so and invents nothing."""
    UNGROUNDED = "ungrounded"
    """The best answer could not be verified against the documents; flagged as unsupported."""
    BUDGET_EXHAUSTED = "budget_exhausted"
    """Loop budgets (or lack of progress) ended the run before a useful answer; best so far, flagged."""
    NEEDS_CLARIFICATION = "needs_clarification"
    """A name in the question means several entities; the answer asks which (``Result.clarification``),
    and the next turn on the thread may reply with a name, an alias or an ordinal."""


class Citation(BaseModel):
    number: int
    """The [n] marker used in the answer."""
    id: str
    text: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    resource: str = ""
    """The resource (collection or retriever) the cited document came from."""


class LLMUsage(BaseModel):
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0


class Trace(BaseModel):
    """Everything the run did, in order; enough to explain any outcome."""

    path: list[str] = Field(default_factory=list)
    """Nodes in the order they ran."""
    timings: list[Timing] = Field(default_factory=list)
    plan: dict[str, Any] = Field(default_factory=dict)
    relaxations: list[Relaxation] = Field(default_factory=list)
    resources: list[ResourcePlan] = Field(default_factory=list)
    """Several resources: each one's self-query (or why it failed)."""
    retrievals: list[RetrievalRecord] = Field(default_factory=list)
    """Each retrieval: resources searched, fusion, rerank."""
    documents: list[GradedDocument] = Field(default_factory=list)
    """Every graded document and its relevance verdict (all retrievals of the turn)."""
    rewrites: list[RewriteRecord] = Field(default_factory=list)
    generations: list[GeneratedAnswer] = Field(default_factory=list)
    verdicts: list[Verdict] = Field(default_factory=list)
    budgets: dict[str, int] = Field(default_factory=dict)
    stop_reason: str | None = None
    llm: LLMUsage = Field(default_factory=LLMUsage)
    total_ms: float = 0.0
    extras: list[ExtraFailure] = Field(default_factory=list)
    """Extras (Python API) that raised: name, error type, one-line message; the answer stands."""


class Result(BaseModel):
    question: str
    standalone_question: str
    collection: str
    """The first (or only) resource."""
    collections: list[str] = Field(default_factory=list)
    """Every resource the question targeted, in order."""
    thread_id: str | None = None
    answer: str
    outcome: Outcome
    citations: list[Citation] = Field(default_factory=list)
    query: dict[str, Any] = Field(default_factory=dict)
    """The structured query used last: semantic text, filter tree, limit."""
    filter: dict[str, Any] | None = None
    """The final Chroma where clause (mandatory filter included, after relaxations)."""
    clarification: Clarification | None = None
    """With ``needs_clarification``: the name, the candidates and what tells them apart."""
    trace: Trace = Field(default_factory=Trace)
    extras: dict[str, Any] = Field(default_factory=dict)
    """The values of the extras asked for (Python API), by name; one that raised is absent."""
