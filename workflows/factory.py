"""Build a ready engine from ``Settings``: the one place that wires real providers together.

The CLI, the HTTP service and the evaluation harness all call ``build_engine``; tests build
``Components`` from fakes instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever

from graders import GRADERS, Combine, FailurePolicy, GraderConfig
from selfrag.errors import ConfigError
from selfrag.kg import GraphContexts, open_graph_store
from selfrag.profiles import profile_for
from selfrag.providers import make_chat_model, make_embeddings
from selfrag.query.profiles import build_planner
from selfrag.rerank import CrossEncoderReranker, HttpReranker, LLMReranker, Reranker
from selfrag.retrieval import HybridConfig, LexicalIndexes
from selfrag.retry import RetryPolicy
from selfrag.settings import Settings
from selfrag.store import CollectionSource, Store, StoreUse, open_backend
from workflows.checkpoints import close_checkpointer, open_checkpointer, turn_locks
from workflows.components import Components
from workflows.engine import SelfRagEngine
from workflows.options import RunOptions
from workflows.resources import ResourceSearch
from workflows.retrieval import RetrievalStage
from workflows.tracing import otel_tracer, quiet_langsmith

__all__ = [
    "build_components",
    "build_engine",
    "build_reranker",
    "build_retrieval",
    "close_checkpointer",
    "forget_lexical",
    "lexical_indexes",
    "open_checkpointer",
    "open_store",
    "refresh_lexical",
    "run_options",
    "speculate",
]


def open_store(settings: Settings, use: StoreUse | None = None) -> Store:
    """The configured store (embedded Chroma under the data directory, or a Chroma server); the
    embedded one is locked for ``use`` (default: a writer) until the store is closed."""
    return Store.from_settings(settings, make_embeddings(settings.embeddings), use=use)


def answer_strategy(settings: Settings) -> str:
    """How answers are written: the setting, else the provider profile's (bench/results/answer-strategy)."""
    chosen = settings.workflow.answer_strategy
    return profile_for(settings).answer_strategy if chosen == "profile" else chosen


def speculate(settings: Settings) -> bool:
    """Whether runs speculate: the setting, else the provider profile's (bench/results/speculation)."""
    chosen = settings.workflow.speculate
    return profile_for(settings).speculate if chosen is None else chosen


def _grader_configs(settings: Settings, method: str, retry: RetryPolicy) -> dict[str, GraderConfig]:
    """Each registered grader's config: its settings, else the provider profile's defaults for it
    (``ProviderProfile.grader_default``; a kind the profile does not name: the grader's own)."""
    unknown = sorted(set(settings.graders.kinds()) - set(GRADERS))
    if unknown:
        raise ConfigError(f"graders: no grader is registered as {', '.join(map(repr, unknown))} (known: {', '.join(GRADERS)})")
    profile = profile_for(settings)
    configs = {}
    for kind, grader in GRADERS.items():
        g = settings.graders.for_kind(kind)
        default = profile.grader_default(kind, grader.profiles)
        configs[kind] = GraderConfig(
            method=method,
            retry=retry,
            policy=FailurePolicy(g.policy),
            combine=Combine(g.combine or default.combine),
            threshold=g.threshold if g.threshold is not None else default.threshold,
        )
    return configs


def build_components(
    settings: Settings, *, store: CollectionSource | None = None, llm: BaseChatModel | None = None,
    embeddings: Embeddings | None = None, model: BaseChatModel | None = None,
) -> Components:
    """The components the settings describe, around ``llm`` and ``embeddings`` when given (any
    LangChain chat model and embeddings; ``model`` is the older name of ``llm``)."""
    profile = profile_for(settings)
    given = llm if llm is not None else model
    model = given if given is not None else make_chat_model(settings.llm)  # the profile's chat_model
    method = settings.llm.structured_output_method
    retry = RetryPolicy(attempts=settings.workflow.grader_retries)
    configs = _grader_configs(settings, method, retry)
    # The collections' own embedding model (a local one is loaded once per process and shared).
    if embeddings is None:
        embeddings = make_embeddings(settings.embeddings)
    components = Components.from_model(
        model,
        store if store is not None else open_backend(settings, embeddings),
        method=method,
        retry=retry,
        planner=build_planner(settings, model=model, embeddings=embeddings),
        embeddings=embeddings,
        parallel_checks=profile.parallel_checks,
        speculate=speculate(settings),
        extractive_fallback=answer_strategy(settings) == "hybrid",
        extractive_only=answer_strategy(settings) == "extractive",
        # Extractive means no model writes text: rewrites and condensed follow-ups come from the
        # rules too (the embedded model's were kept only where they matched the rules anyway, or
        # came back as "<question>": 3-9 s a call for nothing).
        rules_only_text=answer_strategy(settings) == "extractive",
        relevance=configs["relevance"],
        groundedness=configs["groundedness"],
        usefulness=configs["usefulness"],
        retrieval=build_retrieval(settings, model=model),
        judge=_with_precision(profile.judge(settings.judge.path), settings.judge.precision),
        read_across=settings.judge.read_across,
    )
    components.tracer = otel_tracer() if settings.tracing.otel else None
    # Opened on first use only: a collection without a graph never starts a graph server.
    components.graphs = GraphContexts(lambda: open_graph_store(settings.home, settings.graph.url))
    return components


def _with_precision(judge: Any, precision: str) -> Any:
    """``judge`` computing in ``precision`` when it can (a ``selfrag.reading.judge.Judge``); a
    judge of another kind (a test's fake) as it is."""
    change = getattr(judge, "with_precision", None)
    return change(precision) if callable(change) else judge


def build_reranker(settings: Settings, *, model: Any = None) -> Reranker | None:
    """The configured rerank backend (``retrieval.rerank``); None for ``none``."""
    r = settings.retrieval.rerank
    if r.backend == "cross_encoder":
        assert r.path is not None  # the settings require it
        return CrossEncoderReranker(r.path)
    if r.backend == "http":
        assert r.base_url is not None
        return HttpReranker(
            r.base_url, model=r.model, api_key=r.api_key.get_secret_value() if r.api_key else None,
            path="/rerank" if r.request_format == "tei" else "/v1/rerank", request_format=r.request_format,
            timeout_s=r.timeout_s,
        )
    if r.backend == "llm":
        return LLMReranker(model if model is not None else make_chat_model(settings.llm),
                           method=settings.llm.structured_output_method)
    return None


def lexical_indexes(settings: Settings) -> LexicalIndexes | None:
    """The lexical indexes under the data directory; None when hybrid retrieval is off."""
    r = settings.retrieval
    return LexicalIndexes(settings.home / "lexical", max_age_s=r.lexical_max_age_s) if r.hybrid else None


def refresh_lexical(settings: Settings, collection: object) -> None:
    """After a CLI write: apply what it logged to the collection's lexical index file (a running
    service with another data directory catches up within ``retrieval.lexical_max_age_s``; a
    deleted chunk is never returned meanwhile)."""
    stage = RetrievalStage(indexes=lexical_indexes(settings))
    try:
        stage.refresh(collection)
    finally:
        stage.close()


def forget_lexical(settings: Settings, name: str) -> None:
    """After a CLI collection delete: drop its lexical index file."""
    stage = RetrievalStage(indexes=lexical_indexes(settings))
    try:
        stage.forget(name)
    finally:
        stage.close()


def build_retrieval(settings: Settings, *, model: Any = None) -> RetrievalStage:
    """Hybrid search over lexical indexes under the data directory, and the rerank stage."""
    r = settings.retrieval
    return RetrievalStage(
        indexes=lexical_indexes(settings),
        hybrid=HybridConfig(fusion=r.fusion, depth=r.depth),
        reranker=build_reranker(settings, model=model),
        factor=r.rerank.factor,
        top_n=r.rerank.top_n,
        resource_fusion=r.resource_fusion,
    )


def build_engine(
    settings: Settings, *, store: Store | None = None, memory: bool = True, llm: BaseChatModel | None = None,
    embeddings: Embeddings | None = None, retrievers: Mapping[str, BaseRetriever] | None = None,
) -> SelfRagEngine:
    """The engine the settings describe; with ``memory``, thread memory in the configured checkpoint
    store (SQLite or a shared Postgres). The caller owns that store: when done,
    ``close_checkpointer(engine.checkpointer)``.

    Args:
        llm: any LangChain chat model (``ChatOpenAI``, ``ChatAnthropic``, ``ChatOllama``…) to use
            instead of ``settings.llm``: it grades, plans, rewrites and writes the answers.
        embeddings: any LangChain ``Embeddings`` for the collections instead of ``settings.embeddings``
            (a collection must be searched with the model it was embedded with).
        retrievers: LangChain retrievers by name: a run may name them as resources beside (or
            instead of) collections (``engine.run(q, collection="movies", resources=["web"])``).
    """
    quiet_langsmith()  # an unreachable tracing endpoint says so in one line, not a traceback per batch
    components = build_components(settings, store=store, llm=llm, embeddings=embeddings)
    return SelfRagEngine(
        components,
        checkpointer=open_checkpointer(settings) if memory else None,
        defaults=run_options(settings),
        turn_locks=turn_locks(settings),
        retrievers=retrievers,
    )


def run_options(settings: Settings) -> RunOptions:
    """The run defaults the settings give (grading concurrency: the provider profile's when unset)."""
    defaults = {
        name: ResourceSearch(k=c.search.k, min_score=c.search.min_score, where=c.search.where,
                             self_query=None if c.search.self_query else False)
        for name, c in settings.collections.items()
    }
    return RunOptions.from_settings(settings.workflow, provider=settings.llm.provider, search_defaults=defaults)
