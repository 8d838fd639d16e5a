"""Build a ready engine from ``Settings``: the one place that wires real providers together.

The CLI, the HTTP service and the evaluation harness all call ``build_engine``; tests build
``Components`` from fakes instead.
"""

from __future__ import annotations

from typing import Any

from graders import GRADERS, Combine, FailurePolicy, GraderConfig, RetryPolicy
from selfrag.errors import ConfigError
from selfrag.kg import GraphContexts, open_graph_store
from selfrag.providers import make_chat_model, make_embeddings
from selfrag.query.profiles import build_planner
from selfrag.settings import Settings
from selfrag.store import Store, StoreUse
from workflows.checkpoints import close_checkpointer, open_checkpointer, turn_locks
from workflows.components import Components
from workflows.engine import SelfRagEngine
from workflows.options import RunOptions

__all__ = ["build_components", "build_engine", "close_checkpointer", "open_checkpointer", "open_store", "run_options", "speculate"]


def open_store(settings: Settings, use: StoreUse | None = None) -> Store:
    """The configured store (embedded Chroma under the data directory, or a Chroma server); the
    embedded one is locked for ``use`` (default: a writer) until the store is closed."""
    return Store.from_settings(settings, make_embeddings(settings.embeddings), use=use)


ANSWER_STRATEGIES: dict[str, str] = {"local": "extractive", "openai": "hybrid"}
"""The ``profile`` answer strategy per provider (bench/results/answer-strategy)."""


def answer_strategy(settings: Settings) -> str:
    chosen = settings.workflow.answer_strategy
    return ANSWER_STRATEGIES[settings.llm.provider] if chosen == "profile" else chosen


def speculate(settings: Settings) -> bool:
    """Whether runs speculate: the setting, else on for API providers (bench/results/speculation);
    the embedded model runs one call at a time, so speculative calls would only queue before the plan's."""
    chosen = settings.workflow.speculate
    return settings.llm.provider != "local" if chosen is None else chosen


def _grader_configs(settings: Settings, method: str, retry: RetryPolicy) -> dict[str, GraderConfig]:
    """Each registered grader's config: its settings, else its own profile for the provider.

    The embedded 135M model says "relevant"/"grounded"/"useful" to nearly everything, so the
    local profiles make its verdicts clear a deterministic signal (see each grader's ``profiles``).
    """
    unknown = sorted(set(settings.graders.kinds()) - set(GRADERS))
    if unknown:
        raise ConfigError(f"graders: no grader is registered as {', '.join(map(repr, unknown))} (known: {', '.join(GRADERS)})")
    configs = {}
    for kind, grader in GRADERS.items():
        g = settings.graders.for_kind(kind)
        combine, threshold = grader.profiles.get(settings.llm.provider, ("llm", 0.5))
        configs[kind] = GraderConfig(
            method=method,
            retry=retry,
            policy=FailurePolicy(g.policy),
            combine=Combine(g.combine or combine),
            threshold=threshold if g.threshold is None else g.threshold,
        )
    return configs


def build_components(settings: Settings, *, store: Store | None = None, model: Any = None) -> Components:
    model = model if model is not None else make_chat_model(settings.llm)
    method = settings.llm.structured_output_method
    retry = RetryPolicy(attempts=settings.workflow.grader_retries)
    configs = _grader_configs(settings, method, retry)
    # The collections' own embedding model (a local one is loaded once per process and shared).
    embeddings = make_embeddings(settings.embeddings)
    components = Components.from_model(
        model,
        store if store is not None else Store.from_settings(settings, embeddings),
        method=method,
        retry=retry,
        planner=build_planner(settings, model=model, embeddings=embeddings),
        embeddings=embeddings,
        parallel_checks=settings.llm.provider != "local",  # one local model runs one call at a time
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
    )
    # Opened on first use only: a collection without a graph never starts a graph server.
    components.graphs = GraphContexts(lambda: open_graph_store(settings.home, settings.graph.url))
    return components


def build_engine(settings: Settings, *, store: Store | None = None, memory: bool = True) -> SelfRagEngine:
    """The engine the settings describe; with ``memory``, thread memory in the configured checkpoint
    store (SQLite or a shared Postgres). The caller owns that store: when done,
    ``close_checkpointer(engine.checkpointer)``."""
    components = build_components(settings, store=store)
    return SelfRagEngine(
        components,
        checkpointer=open_checkpointer(settings) if memory else None,
        defaults=run_options(settings),
        turn_locks=turn_locks(settings),
    )


def run_options(settings: Settings) -> RunOptions:
    """The run defaults the settings give (grading concurrency depends on the provider)."""
    return RunOptions.from_settings(settings.workflow, provider=settings.llm.provider)
