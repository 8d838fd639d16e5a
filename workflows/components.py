"""The injectable parts of the Self-RAG graph, built once and shared by every run.

Every external dependency enters here: the chat model (through the graders, generator,
rewriter, condenser and self-query planner) and the store. Tests pass scripted fakes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models.chat_models import BaseChatModel

from graders import GraderConfig, GroundednessGrader, RelevanceGrader, UsefulnessGrader
from selfrag.kg import GraphContexts
from selfrag.query import SelfQueryPlanner
from selfrag.reading import ReaderCritic
from selfrag.retry import RetryPolicy
from selfrag.store import CollectionSource
from workflows.condense import Condenser
from workflows.generation import AnswerGenerator
from workflows.retrieval import RetrievalStage
from workflows.rewrite import QueryRewriter

__all__ = ["Components"]


@dataclass
class Components:
    """Everything a run calls out to."""

    store: CollectionSource
    planner: SelfQueryPlanner
    relevance: RelevanceGrader
    groundedness: GroundednessGrader
    usefulness: UsefulnessGrader
    generator: AnswerGenerator
    rewriter: QueryRewriter
    condenser: Condenser
    parallel_checks: bool = True
    """Run groundedness and usefulness at once (saves latency; costs a usefulness call on ungrounded answers)."""
    extractive_fallback: bool = True
    """``hybrid``: the last allowed generation after only ungrounded ones is the reader's answer."""
    extractive_only: bool = False
    """``extractive``: the trained reader writes every answer; the chat model writes none."""
    speculate: bool = False
    """Search and grade the question as it stands while the self-query model call runs, and keep
    that work when the plan keeps the question (``workflows.speculation``; costs calls when dropped)."""
    model_label: str = ""
    graphs: GraphContexts | None = None
    """The knowledge-graph store and per-graph contexts, for collections linked to a graph; None:
    a collection with a graph link fails with ``graph_unavailable``."""
    judge: ReaderCritic | None = None
    """The trained reader-critic the graders and the reader use (named in every trace); None in
    tests whose graders combine with no signal."""
    retrieval: RetrievalStage = field(default_factory=RetrievalStage)
    """Hybrid search and the rerank stage; the default is dense only, no reranker (what fakes get)."""
    tracer: Any = None
    """An OpenTelemetry ``Tracer``: each node runs in a span (``workflows.tracing``); None: no spans."""

    def warm_up(self) -> None:
        """Load the models that load on first use (the local encoder; the embedded chat model when
        this profile calls it), so that the first questions do not pay for them.

        Raises:
            ProviderError: a model cannot be loaded.
        """
        warm = getattr(self.store, "warm_up", None)
        if callable(warm):
            warm()
        model = self.generator.model
        if not self.extractive_only and callable(load := getattr(model, "warm_up", None)):
            load()

    def close(self) -> None:
        """Release the connections these components opened themselves: the graph store (reopened
        on next use) and the rerank client. The store and the checkpointer are their opener's."""
        if self.graphs is not None:
            self.graphs.close()
        self.retrieval.close()

    @classmethod
    def from_model(
        cls,
        model: BaseChatModel,
        store: CollectionSource,
        *,
        method: str = "json_schema",
        retry: RetryPolicy = RetryPolicy(),
        self_query_mode: str = "auto",
        relevance: GraderConfig | None = None,
        groundedness: GraderConfig | None = None,
        usefulness: GraderConfig | None = None,
        parallel_checks: bool = True,
        speculate: bool = False,
        extractive_fallback: bool = True,
        extractive_only: bool = False,
        rules_only_text: bool = False,
        planner: SelfQueryPlanner | None = None,
        embeddings: Embeddings | None = None,
        retrieval: RetrievalStage | None = None,
        judge: ReaderCritic | None = None,
        read_across: bool = True,
    ) -> Components:
        """Default components around one chat model; pass a ``GraderConfig`` to tune a grader.

        ``judge`` (the trained reader-critic) reads answers and is the graders' signal; a grader
        whose config combines with a signal needs it.

        ``embeddings`` (the collections' embedding model) lets the planner link words to known
        values and lets the planner, rewriter and condenser check that their text stays on the question.
        ``rules_only_text``: the rewriter and condenser use their deterministic rules, no model.
        """
        base = GraderConfig(method=method, retry=retry)
        if planner is None:
            planner = SelfQueryPlanner(
                model, method=method, mode=self_query_mode, retries=max(0, retry.attempts - 1), embeddings=embeddings  # type: ignore[arg-type]
            )
        return cls(
            store=store,
            planner=planner,
            relevance=RelevanceGrader(model, relevance or base, critic=judge),
            groundedness=GroundednessGrader(model, groundedness or base, critic=judge),
            usefulness=UsefulnessGrader(model, usefulness or base, critic=judge),
            generator=AnswerGenerator(model, retry=RetryPolicy(attempts=min(2, retry.attempts), initial_wait_s=retry.initial_wait_s, max_wait_s=retry.max_wait_s),
                                      reader=judge, critic=judge, read_across=read_across),
            rewriter=QueryRewriter(None if rules_only_text else model, embeddings=embeddings),
            condenser=Condenser(None if rules_only_text else model, embeddings=embeddings),
            parallel_checks=parallel_checks,
            speculate=speculate,
            extractive_fallback=extractive_fallback,
            extractive_only=extractive_only,
            model_label=getattr(model, "model_name", "") or type(model).__name__,
            retrieval=retrieval or RetrievalStage(),
            judge=judge,
        )


