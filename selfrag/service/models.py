"""Request and response bodies of the HTTP API: the service's boundary, so pydantic.

Request models forbid unknown fields (a misspelt ``max_rewrite`` must not be silently ignored)
and carry every length and pattern limit, so that the OpenAPI schema tells clients exactly what
the server accepts.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from selfrag.kg.data import EdgeRecord, NodeRecord
from selfrag.schema import CollectionSchema
from workflows import MAX_QUESTION_CHARS

__all__ = [
    "COLLECTION_PATTERN",
    "DOCUMENT_ID_PATTERN",
    "GRAPH_PATTERN",
    "THREAD_PATTERN",
    "AnswerRequest",
    "AnswerResponse",
    "CitationOut",
    "CollectionCreate",
    "CollectionDetail",
    "CollectionList",
    "CollectionSummary",
    "DocumentIn",
    "DocumentsDeleted",
    "DocumentsIn",
    "ErrorBody",
    "ErrorResponse",
    "GraphDetail",
    "GraphIn",
    "GraphList",
    "GraphLoaded",
    "IngestResult",
    "PlanOut",
    "PlanRequest",
    "SearchOptions",
    "ThreadOut",
    "TurnOut",
]

# The store's own rule (see selfrag.store.validate_collection_name), repeated as a pattern so the
# OpenAPI schema states it; the store still checks '..' and IP-address names.
COLLECTION_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{1,61}[A-Za-z0-9]$"
THREAD_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
DOCUMENT_ID_PATTERN = r"^[^\x00-\x1f]{1,512}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SearchOptions(_Strict):
    """One collection's search settings for this request (over its configured defaults)."""

    k: int | None = Field(None, ge=1, le=50, description="Documents retrieved from it.")
    min_score: float | None = Field(None, ge=-1.0, le=1.0, description="Minimum cosine similarity of its dense hits.")
    filter: dict[str, Any] | None = Field(
        None, description="A mandatory Chroma where clause for this collection, never relaxed (checked: 422)."
    )
    self_query: bool | None = Field(None, description="false: search with the question as is, no model filter.")


class AnswerRequest(_Strict):
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS, description="The question, 1 to 4,000 characters.")
    collection: str | None = Field(None, pattern=COLLECTION_PATTERN, description="The collection to answer from.")
    collections: list[Annotated[str, Field(pattern=COLLECTION_PATTERN)]] | None = Field(
        None, min_length=1, max_length=8,
        description="Several collections, searched concurrently and merged (after `collection` when both are given). "
        "One that fails (unknown, unreadable) is reported in the trace and the others answer; the key must be "
        "allowed to read every one (403 otherwise, nothing answered).",
    )
    search: dict[str, SearchOptions] | None = Field(
        None, description="Per-collection search settings, by collection name.",
        examples=[{"movies": {"k": 8, "self_query": False}}],
    )
    thread_id: str | None = Field(
        None, pattern=THREAD_PATTERN, description="Conversation id: follow-up questions see the thread's history."
    )
    filter: dict[str, Any] | None = Field(
        None,
        description="A Chroma where clause over the collection's declared attributes, ANDed with the "
        "self-queried filter and never relaxed. Checked against the schema before anything runs (422).",
        examples=[{"year": {"$gte": 2000}}],
    )
    max_rewrites: int | None = Field(None, ge=0, le=10, description="Query rewrites allowed (capped by the server).")
    max_generations: int | None = Field(None, ge=1, le=10, description="Generations allowed (capped by the server).")
    max_llm_calls: int | None = Field(
        None, ge=1, le=100_000, description="Model calls this run may make (retries included; never above the server's "
        "workflow.max_llm_calls). Past it the run ends budget_exhausted, its best answer flagged.")
    max_llm_tokens: int | None = Field(
        None, ge=1, description="Model tokens this run may use (never above the server's workflow.max_llm_tokens).")
    include_trace: bool = Field(False, description="Return the full trace: nodes, timings, grades, rewrites, LLM usage.")

    @model_validator(mode="after")
    def _resources(self) -> AnswerRequest:
        names = self.names()
        if not names:
            raise ValueError("give `collection` or `collections`")
        unknown = sorted(set(self.search or {}) - set(names))
        if unknown:
            raise ValueError(f"search names collections the request does not target: {', '.join(unknown)}")
        if self.filter is not None and len(names) > 1:
            raise ValueError("with several collections, give each its filter in search.<name>.filter")
        return self

    def names(self) -> list[str]:
        """Every targeted collection, in order, once."""
        return list(dict.fromkeys([*([self.collection] if self.collection else []), *(self.collections or [])]))


class CitationOut(BaseModel):
    number: int
    id: str
    text: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    resource: str | None = Field(None, description="The collection the cited document came from.")


class AnswerResponse(BaseModel):
    question: str
    standalone_question: str
    collection: str
    collections: list[str] = Field(default_factory=list, description="Every collection the question targeted.")
    thread_id: str | None = None
    answer: str
    outcome: str = Field(description="answered | unverified | abstained | ungrounded | budget_exhausted | no_progress | needs_clarification")
    short_answer: str | None = Field(
        None, description="The reader's short answer (a span, Yes, No) that `answer` leads with, or a set answer's (the entities, Yes, 'N matching documents'); absent when a model wrote the answer."
    )
    confidence: float | None = Field(
        None, description="The reader's calibrated probability that `short_answer` is right (`answered` needs it to clear a threshold); absent for a set answer, which the graph or the question's whole filter decided."
    )
    citations: list[CitationOut] = Field(default_factory=list)
    query: dict[str, Any] = Field(default_factory=dict, description="The structured query used: text, filter tree, limit.")
    filter: dict[str, Any] | None = Field(None, description="The final Chroma where clause.")
    budgets: dict[str, int] = Field(default_factory=dict, description="Budgets granted and used.")
    clarification: dict[str, Any] | None = Field(
        None, description="With needs_clarification: the ambiguous name, the candidates (id, name, label, what tells "
        "them apart) and the question put to the user; answer on the same thread with a name, an alias or 'the second one'.",
    )
    usage: dict[str, int] = Field(default_factory=dict, description="LLM calls and tokens of this run.")
    replayed: bool | None = Field(
        None, description="True when this is the stored turn of a retried Idempotency-Key on this thread: nothing ran.")
    trace: dict[str, Any] | None = None


class TurnOut(BaseModel):
    question: str
    standalone_question: str
    answer: str
    outcome: str


class ThreadOut(BaseModel):
    thread_id: str
    collection: str | None
    collections: list[str] = Field(default_factory=list, description="Every collection its last turn targeted.")
    turns: list[TurnOut]


class CollectionCreate(_Strict):
    name: str = Field(pattern=COLLECTION_PATTERN)
    attributes_schema: CollectionSchema = Field(
        default_factory=CollectionSchema,
        alias="schema",
        description="Filterable attributes (name, type, description, allowed values) and regex extractors.",
    )

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class PlanRequest(_Strict):
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS, description="The question, 1 to 4,000 characters.")
    explain: bool = Field(False, description="Add which constructor planned it (source), every repair and "
                          "fallback (changes), and why the model's plan was not used (llm_error).")


class PlanOut(BaseModel):
    """The self-query step alone: what the search would be, with no retrieval (``selfrag plan``)."""

    query: str = Field(description="The search text: the question less what the filter holds.")
    filter: dict[str, Any] | None = Field(description="The Chroma where clause, or null for none.")
    limit: int | None = Field(description="How many results the question asks for, or null.")
    graph: list[dict[str, Any]] | None = Field(None, description="Conditions through the linked knowledge graph.")
    latest: bool | None = Field(None, description="Filters but no topic: the newest matches are returned.")
    source: str | None = Field(None, description="With explain: 'rules' or 'llm'.")
    changes: list[dict[str, Any]] | None = Field(None, description="With explain: every repair, fallback and merge.")
    llm_error: str | None = Field(None, description="With explain: why the model's plan was not usable.")


class CollectionSummary(BaseModel):
    name: str
    count: int


class CollectionList(BaseModel):
    collections: list[CollectionSummary]


class CollectionDetail(BaseModel):
    name: str
    count: int
    attributes_schema: dict[str, Any] = Field(serialization_alias="schema")
    known_values: dict[str, list[str]] = Field(
        description="Values seen per string attribute (what the self-query may filter on)."
    )
    incomplete: list[str] = Field(description="Attributes with more distinct values than the catalogue keeps.")


class DocumentIn(_Strict):
    id: str | None = Field(
        None, pattern=DOCUMENT_ID_PATTERN,
        description="Document id: sending it again replaces the document; chunks are named id, id:1, id:2… "
        "Omitted: derived from the text.",
    )
    text: str = Field(min_length=1, description="The document's text; split into chunks by the server.")
    metadata: dict[str, str | int | float | bool | list[str] | None] = Field(
        default_factory=dict,
        description="Attribute values (coerced to the schema's types: ISO text for a date, a list of strings for "
        "a string[]) and any other scalars; the reserved keys doc_id, doc_hash, source and chunk_index are refused.",
    )


class DocumentsIn(_Strict):
    documents: list[DocumentIn] = Field(min_length=1, max_length=10_000)
    chunk_size: int | None = Field(None, ge=50, le=20_000)
    chunk_overlap: int | None = Field(None, ge=0, le=10_000)


class IngestResult(BaseModel):
    collection: str
    documents: list[str] = Field(description="Ids of the documents read (delete one with DELETE …/documents/{id}).")
    chunks: int = Field(description="Chunks of the documents read.")
    added: int = Field(description="Documents that were not stored before.")
    replaced: int = Field(description="Documents stored before with other content: their old chunks are gone.")
    unchanged: int = Field(description="Documents stored before exactly as sent: nothing was embedded for them.")
    removed: int = Field(description="Documents no longer in a file uploaded again (an edited or deleted jsonl line).")
    embedded: int = Field(description="Chunks embedded and written.")


class DocumentsDeleted(BaseModel):
    collection: str
    id: str
    deleted: int = Field(description="Chunks removed.")


class ErrorBody(BaseModel):
    code: str = Field(description="Stable and machine-readable, e.g. filter_invalid, overloaded.")
    message: str
    request_id: str = Field(description="The X-Request-ID the server's log lines about this failure name.")
    dependency: str | None = Field(
        default=None, description="For a 503 of a dependency: which one (model, embeddings, vector_store, "
        "checkpoints, graph, retriever).")


class ErrorResponse(BaseModel):
    error: ErrorBody


GRAPH_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,62}$"


class GraphIn(_Strict):
    """A knowledge graph's nodes and edges, as in ``nodes.jsonl`` / ``edges.jsonl``."""

    nodes: list[NodeRecord] = Field(default_factory=list, max_length=200_000)
    edges: list[EdgeRecord] = Field(default_factory=list, max_length=1_000_000)


class GraphLoaded(BaseModel):
    graph: str
    nodes: int
    edges: int
    nodes_created: int
    edges_created: int


class GraphList(BaseModel):
    graphs: list[str]


class GraphDetail(BaseModel):
    graph: str
    labels: dict[str, int] = Field(description="Nodes per label.")
    types: dict[str, int] = Field(description="Edges per relationship type.")
