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
    UNVERIFIED = "unverified"
    """An answer that passed the critic's checks but that the reader was not confident enough in
    (its calibrated probability is below the threshold chosen on dev for at most 5 % wrong among
    answered): shown, flagged, not to be relied upon."""
    BUDGET_EXHAUSTED = "budget_exhausted"
    """The rewrite or generation budget ran out before a useful answer; best so far, flagged."""
    NO_PROGRESS = "no_progress"
    """The run stopped early because the next step would repeat one already tried (a rewrite to
    a query already searched, a search returning the same documents); best so far, flagged."""
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
    judge: str | None = None
    """The trained reader-critic's artifact (``name@sha256-prefix``) behind the reader's answer and
    the critic's verdicts; None when none was used."""


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
    short_answer: str | None = None
    """The reader's short answer (a span, "Yes", "No") that ``answer`` leads with, or a set answer's
    (the entities, "Yes", "3 matching documents"); None when a model wrote the answer or none was found."""
    confidence: float | None = None
    """The reader's calibrated probability that ``short_answer`` is right (``answered`` needs it
    to clear the threshold chosen on dev); None for a set answer, which no model judged: the
    graph's entity set, or documents the question's whole filter selected (``workflows.set_answers``)."""
    citations: list[Citation] = Field(default_factory=list)
    query: dict[str, Any] = Field(default_factory=dict)
    """The structured query used last: semantic text, filter tree, limit."""
    filter: dict[str, Any] | None = None
    """The final Chroma where clause (mandatory filter included, after relaxations)."""
    clarification: Clarification | None = None
    """With ``needs_clarification``: the name, the candidates and what tells them apart."""
    trace: Trace = Field(default_factory=Trace)
    extras: dict[str, Any] = Field(default_factory=dict)
    replayed: bool = False
    """True when this is a stored turn returned again for a retried ``request_key``: nothing ran."""
    """The values of the extras asked for (Python API), by name; one that raised is absent."""
