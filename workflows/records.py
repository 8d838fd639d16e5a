"""What one node writes and another reads: one typed shape per record, declared once.

TypedDicts, not classes: the graph state is checkpointed (SQLite or Postgres) and must stay plain
JSON, and the trace hands these same records to the CLI, the HTTP service and the evaluation
harness unchanged. Every key is always present; readers index, they never ``.get`` a default.
A grading decision is ``graders.Verdict``.
"""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from graders.verdicts import Verdict

__all__ = [
    "CitedDocument",
    "Clarification",
    "ComputationRecord",
    "CondenseRecord",
    "Document",
    "EntityChoiceRecord",
    "ExtraFailure",
    "GeneratedAnswer",
    "GradedDocument",
    "GraphPlanRecord",
    "GraphTermRecord",
    "LatestRecord",
    "PlanRecord",
    "Relaxation",
    "RerankRecord",
    "ResourcePlan",
    "ResourceRetrieval",
    "RetrievalRecord",
    "ResumedChoice",
    "RewriteRecord",
    "RivalRecord",
    "SourceRankRecord",
    "SpeculationRecord",
    "SpeculativeWork",
    "Timing",
    "WhetherRecord",
]


class SourceRankRecord(TypedDict):
    """Where a retrieved document stood in one retriever's list (``dense``, ``lexical``, a user retriever)."""

    retriever: str
    rank: int
    """1-based."""
    score: float
    """That retriever's own score (cosine similarity, BM25, ...)."""


class Document(TypedDict):
    """A retrieved chunk (``retrieve`` writes, grading and generation read)."""

    id: str
    text: str
    metadata: dict[str, Any]
    score: float
    """Cosine similarity to the search text, rounded to 4 places (0.0 when only a non-dense
    retriever found it: the relevance signal reads this as a cosine)."""
    resource: str
    """The resource (collection or named retriever) it came from."""
    sources: list[SourceRankRecord]
    """Every retriever that ranked it, and where."""


class GradedDocument(TypedDict):
    """A retrieved document and its relevance verdict (``grade_documents`` writes; the trace keeps all)."""

    id: str
    metadata: dict[str, Any]
    score: float
    """The retrieval similarity (the verdict's own ``score`` is the grader's signal)."""
    query: str
    """The search text that retrieved it."""
    resource: NotRequired[str]
    """Its resource; always written now, absent only in traces stored before resources existed."""
    sources: NotRequired[list[SourceRankRecord]]
    """The retrievers that ranked it (absent in traces stored before hybrid retrieval)."""
    relevant: bool
    """``grade.passed``, kept at the top for the readers that only filter."""
    grade: Verdict


class CitedDocument(TypedDict):
    """One ``[n]`` marker of an answer and the document it points to."""

    number: int
    id: str
    text: str
    metadata: dict[str, Any]
    resource: NotRequired[str]
    """Always written now; absent only in traces stored before resources existed."""


class GeneratedAnswer(TypedDict):
    """One answer attempt (``generate`` writes; ``check`` fills ``grounded`` and ``useful``)."""

    number: int
    answer: str
    citations: list[CitedDocument]
    documents: list[str]
    """Ids of the documents it was generated from."""
    query: str
    attempts: int
    error: str | None
    grounded: bool | None
    """None until checked."""
    useful: bool | None
    """None until checked, and when the groundedness check failed first (sequential checks)."""
    strategy: str
    """``llm``, ``reader``, ``memory``, or a set answer (``workflows.set_answers``): ``graph`` (the
    entities a relation reaches), ``listing`` (the documents the question's whole filter selects)
    or ``graph_listing`` (both: the entities, then the documents about them)."""
    citation_source: str
    """``model``, ``attributed``, ``reader``, ``none``, or the set answer's strategy."""
    short_answer: str | None
    """The reader's short answer (a span, "Yes", "No"); None for a model's answer."""
    probability: float | None
    """The reader's calibrated probability that ``short_answer`` is right; None for a model's answer."""
    verified: bool | None
    """``check``: the reader's probability cleared its threshold, and no other document's answer
    that says otherwise came close (None: no reader probability)."""
    rival: NotRequired[RivalRecord | None]
    """The reader's best answer in another document that disagrees with this one (reader answers)."""


class RivalRecord(TypedDict):
    """Another document's answer that says otherwise (``workflows.reading.Rival``)."""

    answer: str
    document: int
    """1-based number of the document it was read in, as ``[n]`` in the answer."""
    probability: float


RewriteRecord = TypedDict(
    "RewriteRecord", {"from": str, "to": str, "reason": str, "source": str, "error": str | None}
)
"""One query rewrite (``rewrite`` writes): from which query to which, why, and by whom (llm/rules)."""


class Relaxation(TypedDict):
    """One loosening of the filter after an empty search (``retrieve`` writes)."""

    detail: str
    where: dict[str, Any] | None
    hits: int


class Clarification(TypedDict):
    """A question the run could not answer until the user says which entity a name means
    (``graph_resolve`` writes; kept on the thread so the next turn can answer it)."""

    question: str
    """The standalone question to resume once the entity is known."""
    value: str
    """The name as the question wrote it ("Mercury")."""
    relation: str | None
    """The relation it was the value of, None for a plain mention."""
    candidates: list[dict[str, Any]]
    """``EntityChoice`` dumps: id, name, label and what tells each apart."""
    prompt: str
    """The question put to the user, listing the candidates."""


class Timing(TypedDict):
    """One node's wall time (every node, through the timed wrapper)."""

    node: str
    ms: float


class ExtraFailure(TypedDict):
    """An extra (``workflows.extras``) that raised: the answer stands, its field is missing."""

    name: str
    error: str
    """The exception's type name."""
    message: str
    """Its text on one line, cut short."""


class ResourceRetrieval(TypedDict):
    """One resource's part of a retrieval (``retrieve`` writes)."""

    resource: str
    query: str
    """The search text sent to it."""
    where: dict[str, Any] | None
    k: int
    hits: int
    error: str | None
    """Why it returned nothing (unknown collection, store error, ...); the others still answer."""
    error_code: str | None
    ms: float


class RerankRecord(TypedDict):
    """The reranking stage of one retrieval."""

    backend: str
    candidates: int
    kept: list[str]
    """Ids kept, best first."""
    error: str | None
    """Why the reranker failed; the fused order was kept."""
    ms: float


class RetrievalRecord(TypedDict):
    """One retrieval: each resource searched, how the lists were fused, the rerank (``retrieve`` writes)."""

    query: str
    resources: list[ResourceRetrieval]
    fusion: str
    """``dense`` (one list), the hybrid fusion, or ``<method> across resources``."""
    rerank: RerankRecord | None


class ResourcePlan(TypedDict):
    """One resource's plan (``self_query`` writes, ``graph_resolve`` adds its entity sets, ``latest``
    and ``retrieve`` read it, and write back the filter they relaxed). One collection is a list of one."""

    resource: str
    query: str
    """Its semantic search text (the question when self-query is off or for a LangChain retriever)."""
    fixed: dict[str, Any] | None
    """Its mandatory filter (the call's or the config's), never relaxed."""
    filter: dict[str, Any] | None
    """The self-queried ``FilterNode`` dump, relaxed when it finds nothing."""
    k: int
    source: str
    """``llm``/``rules`` (the planner), ``off`` (self-query disabled) or ``retriever``."""
    error: str | None
    """Why this resource cannot answer (unknown collection, store error, ...); the others still do."""
    error_code: str | None
    resolutions: list[dict[str, Any]]
    """Its graph conditions resolved in the knowledge graph (the relation, the entity, the entity
    set; ``graph_resolve`` writes them); their where clause is ANDed into ``fixed``. Empty without."""
    latest: NotRequired[bool]
    """Filters but no topic: the first search takes the newest matches instead of a vector search.
    Always written now; absent only in traces stored before one collection was a list of one."""
    graph_terms: NotRequired[list[GraphTermRecord]]
    """Its conditions through the knowledge graph, for ``graph_resolve`` (absent in older traces)."""
    asks: NotRequired[str | None]
    """Its filters hold all the question asks, which wants back ``entities`` (the graph's answer),
    ``documents`` (the matches themselves), both (``entities_and_documents``) or ``membership``
    (yes or no, from the graph); None: a fact the reader finds. Absent in older traces."""
    computed: NotRequired[ComputationRecord | None]
    """A superlative or an aggregate over one numeric attribute (``selfrag.query.Computation``):
    computed from the matches, it is the answer when ``whole``; a passage alone never is. Absent
    in older traces."""
    whether: NotRequired[WhetherRecord | None]
    """A yes/no question about the one item its filter names (``selfrag.query.Whether``): counted."""
    unknown_names: NotRequired[list[str]]
    """Names the question writes that are a known name and more ("Aurora Sport"): no known item. An
    answer whose cited documents never write them is about another item, and is not signed."""
    uncounted: NotRequired[list[str]]
    """The matches its negated condition can neither select nor exclude, as the planner's
    ``unrecorded_values`` details ("guaranteed: 3 more records … not counted: LN-1, LN-2, LN-3"):
    a listing or count of the others says them (``selfrag.query.unrecorded``). Absent in older traces."""
    guessed: NotRequired[bool]
    """A value of its filter was linked by meaning, not spelling ("purple" read as Blue): the filter
    searches, but the one record it selects has no value to give as the answer."""
    partial: NotRequired[bool]
    """Its filter does not hold every condition the question states (``Plan.holds_question``: "the
    removal cost of TR-2051 in 2019", the year unread): the one record it selects has no value to
    give as the answer either. Absent in older traces."""
    matched: NotRequired[int]
    """0 when its filter holds all the question asks (``asks`` is ``documents``) and the store
    counted no document matching it, unrelaxed: that none match is the answer ("Were there any
    records from Ostby in 2021?" "No"), and no looser search is run. Absent otherwise."""


class WhetherRecord(TypedDict):
    """``selfrag.query.Whether`` as plain JSON: the filters of the named item's documents and of
    what the question asks of them."""

    subject: dict[str, Any]
    predicate: dict[str, Any]
    any: bool


class ComputationRecord(TypedDict):
    """``selfrag.query.Computation`` as plain JSON."""

    op: str
    """``rank``, ``average``, ``total``, ``distinct`` or ``count_by``."""
    attribute: str
    """"" when the measure fits several attributes (``candidates``)."""
    highest: bool
    n: int
    phrase: str
    whole: bool
    candidates: NotRequired[list[str]]
    compared: NotRequired[str]
    """A comparative's alternatives: the attribute whose values the filter selects (each must
    select one document for the ranking to answer)."""
    subject: NotRequired[str]
    """A yes/no comparison's alternative asked about ("Did Ostby get more rain than Kelbridge?"):
    yes when its value wins."""
    of: NotRequired[str]
    """A ``count_by``'s attribute whose distinct values each value holds are counted ("the most
    stations" of yearly records); "" or absent: the records."""


class SpeculationRecord(TypedDict):
    """What ran while the self-query model call ran, and whether it was used (``self_query``
    writes it as ``plan["speculation"]``; see ``workflows.speculation``)."""

    kept: bool
    """The plan kept the question, so the search and its verdicts were used."""
    reason: str
    """Why it was kept or dropped (an added filter, another search text, a failed search, ...)."""
    documents: int
    """Documents the speculative search returned."""
    graded: int
    """Relevance calls that finished before the plan came back or were awaited for a kept plan."""
    discarded_calls: int
    """Relevance calls started and then thrown away (their cost is the waste of speculating)."""
    ms_saved: float
    """Time taken off the critical path: the speculative work that overlapped the self-query."""


class SpeculativeWork(TypedDict):
    """The kept speculative work (``self_query`` writes; the first ``retrieve`` and
    ``grade_documents`` reuse it). Identical to what they would fetch and decide themselves."""

    text: str
    where: dict[str, Any] | None
    k: int
    min_score: float | None
    documents: list[Document]
    graded: list[GradedDocument]
    retrieval: RetrievalRecord
    """The search's trace record (its rerank, its sources), as ``retrieve`` would have written it."""


class EntityChoiceRecord(TypedDict):
    """``selfrag.query.graph_terms.EntityChoice`` as plain JSON: one entity a name may mean."""

    id: str
    name: str
    label: str
    differences: dict[str, str]
    """What tells it apart from the other candidates."""


class ResumedChoice(EntityChoiceRecord):
    """The entity a reply chose for a pending clarification (``condense`` writes, ``self_query`` reads)."""

    value: str
    """The name the clarification asked about: terms with this value now mean this entity."""


class GraphTermRecord(TypedDict):
    """``selfrag.query.graph_terms.GraphTerm`` as plain JSON (``self_query`` writes, ``graph_resolve`` reads)."""

    kind: str
    """``relation`` or ``mention``."""
    relation: str | None
    attribute: str
    value: str
    entity: EntityChoiceRecord | None
    candidates: list[EntityChoiceRecord]
    either: NotRequired[int | None]
    """Terms with the same number are alternatives ("in Japan or Korea"): united, not intersected.
    Absent in older traces (then None)."""
    excluded: NotRequired[bool]
    """The question sets it aside ("not based in Japan", "besides X"): its entities are taken out of
    the other relations' sets. Absent in older traces (then False)."""


class CondenseRecord(TypedDict):
    """How the standalone question was made (``condense`` writes)."""

    source: str
    """``llm``/``rules`` (the condenser), ``memory`` or ``clarification`` (a reply resumed a question)."""
    error: str | None


class GraphPlanRecord(TypedDict, total=False):
    """The knowledge-graph part of a plan: ``self_query`` writes the terms, ``graph_resolve`` the rest."""

    terms: list[GraphTermRecord]
    latest: bool
    clarification: Clarification
    """A name that means several entities (the run then asks which)."""
    resolutions: list[dict[str, Any]]
    """Each term resolved in the graph: the relation, the entity, the entity set."""
    where: dict[str, Any] | None
    """The resolved entity sets as a where clause (None when one came back empty)."""


class LatestRecord(TypedDict):
    """The newest-first search (``latest`` writes)."""

    attribute: str
    """The schema's date attribute it sorted on."""
    where: dict[str, Any] | None
    k: int
    documents: list[str]


class PlanRecord(TypedDict, total=False):
    """What the turn planned, for the trace (``Trace.plan``): how the question was condensed, then
    its first resource's self-query (every resource's plan is ``Trace.resources``), the graph
    resolution and the newest-first search. Each node adds its part, so a key is present once the
    node that writes it has run (``condense`` always runs; a question answered from memory has
    nothing else). Readers test ``in``; they never guess a default."""

    condense: CondenseRecord
    structured_query: dict[str, Any]
    """The validated ``StructuredQuery`` dump: semantic text, filter tree, limit."""
    where: dict[str, Any] | None
    """The self-queried where clause, before relaxation."""
    source: str
    """``llm``/``rules`` (the planner), ``off`` or ``retriever``: the first resource's."""
    changes: list[dict[str, Any]]
    """What validation changed and why (``selfrag.query.Change`` dumps)."""
    llm_error: str | None
    kept_question: bool
    """The plan searches the question as asked (the model's rewording would only lose words)."""
    graph: GraphPlanRecord
    latest: LatestRecord
    speculation: SpeculationRecord
    resources: list[ResourcePlan]
    """Only in traces stored before one collection was a list of one (several resources then
    wrote ``source: "resources"`` and their plans here); each plan is now ``Trace.resources``."""
