"""Grader variants: the configurations a grader-tuning experiment compares.

A variants file is JSON (``{"variants": [...]}`` or a bare list) or TOML (``[[variants]]``)::

    [[variants]]
    name = "v2-both"
    prompt_file = "prompts/relevance-v2.toml"   # version/system/user; relative to this file
    llm = { provider = "openai", model = "gpt-4o-mini" }   # overrides of the base LLMSettings
    combine = "both"                            # llm | signal | both | either
    threshold = 0.3
    policy = "fail_closed"

Without a file, ``default_variants(kind)`` compares the shipped prompt alone, the signal alone,
and the two combinations at the embedded model's profile threshold: enough to show whether a
combination beats each of its parts. Every mistake in a file is one ``VariantsError`` line.
"""

from __future__ import annotations

import json
import string
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from graders import GRADERS, Combine, FailurePolicy, PromptSpec
from selfrag.errors import VariantsError, one_line
from selfrag.settings import LLMSettings, StructuredMethod

__all__ = ["PromptFields", "Variant", "VariantsError", "default_variants", "load_variants"]


class PromptFields(BaseModel):
    """A prompt as written in a variants or prompt file; becomes a ``graders.PromptSpec``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = Field(min_length=1)
    system: str = Field(min_length=1)
    user: str = Field(min_length=1)

    def spec(self) -> PromptSpec:
        return PromptSpec(self.version, self.system, self.user)

    def check(self, kind: str) -> None:
        """Fail early, not on the first case: bad braces or a field this grader does not fill."""
        allowed = GRADERS[kind].fields  # the template fields this grader fills; no others
        try:
            self.system.format()
            used = {f for _, f, _, _ in string.Formatter().parse(self.user) if f is not None}
        except (ValueError, IndexError, KeyError) as exc:
            raise VariantsError(f"prompt {self.version!r}: bad template braces ({exc}); write literal braces as {{{{ }}}}") from exc
        unknown = sorted(f or "{}" for f in used - allowed)
        if unknown:
            raise VariantsError(
                f"prompt {self.version!r} uses {{{', '.join(unknown)}}}, which the {kind} grader does not fill "
                f"(it fills {', '.join(sorted(allowed))})"
            )


class Variant(BaseModel):
    """One grader configuration under test."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    prompt: PromptFields | None = None
    """None: the grader's shipped prompt."""
    prompt_file: Path | None = None
    """A JSON or TOML file with version/system/user; read into ``prompt`` by ``load_variants``."""
    llm: dict[str, Any] = Field(default_factory=dict)
    """Overrides of the base ``LLMSettings`` (provider, model, base_url, structured_output_method...)."""
    method: StructuredMethod | None = None
    """Structured-output method; None takes the LLM settings' ``structured_output_method``."""
    combine: Combine = Combine.LLM
    threshold: float = Field(0.5, ge=-1.0, le=1.0)
    policy: FailurePolicy = FailurePolicy.FAIL_CLOSED

    @model_validator(mode="after")
    def _checks(self) -> Variant:
        if self.prompt is not None and self.prompt_file is not None:
            raise ValueError("give 'prompt' or 'prompt_file', not both")
        unknown = sorted(set(self.llm) - set(LLMSettings.model_fields))
        if unknown:
            raise ValueError(f"llm.{unknown[0]} is not an LLM setting (known: {', '.join(LLMSettings.model_fields)})")
        try:
            self.settings(LLMSettings())  # validate the override values now, not at run time
        except ValidationError as exc:
            raise ValueError(f"llm.{_first_error(exc)}") from None
        return self

    @property
    def uses_llm(self) -> bool:
        return self.combine is not Combine.SIGNAL

    def settings(self, base: LLMSettings) -> LLMSettings:
        """The base settings with this variant's overrides applied."""
        return LLMSettings.model_validate({**base.model_dump(), **self.llm})

    def public_dict(self) -> dict[str, Any]:
        """For reports: everything but secrets."""
        data = self.model_dump(mode="json", exclude_none=True)
        if "api_key" in data.get("llm", {}):
            data["llm"]["api_key"] = "***"
        return data


def _read_structured(path: Path, what: str) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise VariantsError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc
    try:
        if path.suffix.lower() == ".toml":
            return tomllib.loads(text)
        if path.suffix.lower() == ".json":
            return json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise VariantsError(f"{what} {path} is not valid {path.suffix[1:].upper()}: {one_line(exc)}") from exc
    raise VariantsError(f"{what} {path} must be a .json or .toml file")


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(x) for x in err["loc"])
    msg = str(err["msg"]).removeprefix("Value error, ")
    return f"{where}: {msg}" if where else msg


def load_variants(path: str | Path, *, kind: str | None = None) -> list[Variant]:
    """Read and validate a variants file; prompt files are read and checked against ``kind``.

    Raises:
        VariantsError: unreadable or malformed file, invalid or duplicate variant, bad prompt.
    """
    p = Path(path)
    data = _read_structured(p, "variants file")
    rows = data.get("variants") if isinstance(data, dict) else data
    if not isinstance(rows, list) or not rows:
        raise VariantsError(f"variants file {p} needs a non-empty 'variants' list")
    variants: list[Variant] = []
    for i, row in enumerate(rows, start=1):
        label = f"{p}: variant {i}" + (f" ({row['name']!r})" if isinstance(row, dict) and "name" in row else "")
        try:
            v = Variant.model_validate(row)
            if v.prompt_file is not None:
                prompt_path = v.prompt_file if v.prompt_file.is_absolute() else p.parent / v.prompt_file
                prompt = PromptFields.model_validate(_read_structured(prompt_path, "prompt file"))
                v = v.model_copy(update={"prompt": prompt})
            if kind is not None and v.prompt is not None:
                v.prompt.check(kind)
        except ValidationError as exc:
            raise VariantsError(f"{label}: {_first_error(exc)}") from exc
        except VariantsError as exc:
            raise VariantsError(f"{label}: {exc.one_line()}") from exc
        variants.append(v)
    names = [v.name for v in variants]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise VariantsError(f"variants file {p} repeats names: {', '.join(dupes)}")
    return variants


def default_variants(kind: str) -> list[Variant]:
    """The shipped prompt alone, the critic alone, and both combinations at the critic's own threshold."""
    return [
        Variant(name="llm", combine=Combine.LLM),
        Variant(name="signal", combine=Combine.SIGNAL),
        Variant(name="both", combine=Combine.BOTH),
        Variant(name="either", combine=Combine.EITHER),
    ]
