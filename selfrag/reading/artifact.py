"""The reader-critic's weights on disk: versioned, checksum-pinned, smaller than the base.

An artifact is a folder with two files:

- ``weights.safetensors``: every tensor of the network that training changed. Large matrices are
  stored as int8 with one float scale per row (symmetric, per output channel: the scheme PyTorch's
  dynamic quantization uses for BERT's linear layers), the rest as float32. Tensors training did
  not change (the word embeddings, frozen) are not stored: they come from the base model, itself
  checksum-verified, named in ``base_tensors``.
- ``judge.json``: the ``ArtifactInfo`` record: version, the weights' sha256, the base model and its
  sha256, the encoder's config, the calibration and thresholds chosen on dev, and how it was trained.

``load_artifact`` refuses weights whose sha256 differs from the record's, and a record whose
``expected_sha256`` (the one a release pins in code) differs: nothing unverified is ever run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

import torch
from pydantic import BaseModel, ConfigDict, Field, field_validator

from selfrag.errors import ModelIntegrityError, ProviderError

__all__ = ["ArtifactInfo", "Calibration", "SupportVerifier", "Verified", "artifact_sha256", "as_stored", "load_state", "save_artifact"]

WEIGHTS_FILE = "weights.safetensors"
INFO_FILE = "judge.json"
_QUANTIZE_MIN = 4096
"""Matrices with at least this many elements are stored as int8."""


class Calibration(BaseModel):
    """Platt scaling of one raw score: ``p = sigmoid(a * score + b)``, fitted on dev."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    a: float = 1.0
    b: float = 0.0


class SupportVerifier(BaseModel):
    """Another artifact that judges support in this one's place, pinned by its weights' sha256.

    A verifier is trained on the reader's own near misses (``eval.training.near_misses``): the
    other span of the passage the reader takes for the answer. A separate network learns that
    without costing the reader what one shared encoder did (``bench/results/judge/v3-experiment``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    folder: str
    """The verifier's artifact folder, relative to this one's."""
    sha256: str
    """sha256 of the verifier's ``weights.safetensors``: anything else is refused at load."""
    claims: bool = True
    """Whether it judges every support claim (the groundedness check) too; False: only the
    reader's answers (``Verified``), and this artifact's own critic judges the claims."""


class Verified(BaseModel):
    """How the reader's probability and the verifier's support of its answer make one probability
    that the answer is right: ``p = sigmoid(reader * logit(p_reader) + support * logit(p_support) + bias)``,
    a logistic regression fitted on the reader's answers of an end-to-end dev run
    (``python -m eval.training.verified``). Every candidate answer is scored so; the best is read."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reader: float
    support: float
    bias: float
    candidates: int = Field(1, ge=1, le=20)
    """How many of the reader's best answers are scored (1: the reader's choice is kept)."""
    confidence: Literal["combined", "reader"] = "combined"
    """The probability the chosen answer carries: the combination's, or the reader's own (the
    verifier then only chooses among the reader's answers)."""
    fitted_on: dict[str, Any] = Field(default_factory=dict)
    """The run, its cases' sha256 and the fit's dev figures."""


class ArtifactInfo(BaseModel):
    """``judge.json``: what the weights are, where they came from and how to read their scores."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    """``<family>-v<N>``: the name every trace and run manifest carries."""
    sha256: str
    """sha256 of ``weights.safetensors``."""
    base: str
    """The encoder the weights were trained from (``all-MiniLM-L6-v2``, or ``tiny`` in tests)."""
    base_sha256: str | None = None
    """sha256 of the base model file; None when no tensor comes from the base."""
    base_tensors: list[str] = Field(default_factory=list)
    """Tensors taken from the base model unchanged (not stored in the artifact)."""
    encoder_config: dict[str, Any]
    """The BERT config (``transformers.BertConfig.to_dict()``)."""
    max_length: int = 320
    """Tokens per reader window / critic pair."""
    critic_max_length: int = 256
    """Tokens per critic pair."""
    stride: int = 96
    """Tokens the reader's windows overlap by, for passages longer than one window."""
    calibration: dict[str, Calibration] = Field(default_factory=dict)
    """Per score: ``reader`` and each critic task."""
    thresholds: dict[str, float] = Field(default_factory=dict)
    """Calibrated probabilities a run must clear to end ``answered`` (chosen on dev)."""
    training: dict[str, Any] = Field(default_factory=dict)
    """Command, seed, data manifest hash and metrics: how to rebuild these weights."""
    support: SupportVerifier | None = None
    """The artifact whose critic judges support instead of this one's; None: this one's does."""
    verified: Verified | None = None
    """With ``support``: the reader's probability combined with the verifier's (``Verified``)."""

    @field_validator("encoder_config")
    @classmethod
    def _portable(cls, config: dict[str, Any]) -> dict[str, Any]:
        # transformers' to_dict() keeps the folder the base model was read from: a path of the
        # machine that built the weights, which the record must neither leak nor depend on.
        return {k: v for k, v in config.items() if k != "_name_or_path"}


def artifact_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _pack(state: dict[str, torch.Tensor], skip: set[str]) -> dict[str, torch.Tensor]:
    packed: dict[str, torch.Tensor] = {}
    for key, tensor in state.items():
        if key in skip:
            continue
        t = tensor.detach().to(torch.float32).contiguous()
        if t.dim() == 2 and t.numel() >= _QUANTIZE_MIN:
            scale = t.abs().amax(dim=1).clamp(min=1e-12) / 127.0
            packed[f"{key}::q8"] = torch.round(t / scale[:, None]).clamp(-127, 127).to(torch.int8).contiguous()
            packed[f"{key}::scale"] = scale.contiguous()
        else:
            packed[key] = t
    return packed


def _unpack(packed: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    state: dict[str, torch.Tensor] = {}
    for key, tensor in packed.items():
        if key.endswith("::scale"):
            continue
        if key.endswith("::q8"):
            name = key[: -len("::q8")]
            state[name] = tensor.to(torch.float32) * packed[f"{name}::scale"][:, None]
        else:
            state[key] = tensor
    return state


def as_stored(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``state`` as it will load after ``save_artifact``: the int8 matrices rounded to their row
    scale. Training calibrates and reports on these weights, so the calibration, the thresholds
    and the metrics describe the artifact that ships, not the float32 network it came from."""
    return _unpack(_pack(state, set()))


def save_artifact(folder: Path, state: dict[str, torch.Tensor], info: ArtifactInfo) -> ArtifactInfo:
    """Write the weights (less ``info.base_tensors``) and ``judge.json``; returns the record with
    the weights' sha256 filled in."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    weights = folder / WEIGHTS_FILE
    save_file(_pack(state, set(info.base_tensors)), str(weights))
    # validated again, not copied: model_copy skips the validators that make the record portable
    final = ArtifactInfo.model_validate({**info.model_dump(), "sha256": artifact_sha256(weights)})
    (folder / INFO_FILE).write_text(json.dumps(final.model_dump(mode="json"), indent=2, sort_keys=True) + "\n")
    return final


def read_info(folder: Path) -> ArtifactInfo:
    """The artifact's record.

    Raises:
        ProviderError: no readable ``judge.json`` in ``folder``.
    """
    try:
        return ArtifactInfo.model_validate_json((folder / INFO_FILE).read_text())
    except FileNotFoundError as exc:
        raise ProviderError(f"no reader-critic weights in {folder.name!r} (judge.json is missing)") from exc
    except ValueError as exc:
        raise ProviderError(f"the reader-critic record in {folder.name!r} is not valid") from exc


def load_state(folder: Path, *, expected_sha256: str | None = None) -> tuple[ArtifactInfo, dict[str, torch.Tensor]]:
    """The record and the stored tensors (dequantized), after checking the weights' checksum.

    Raises:
        ModelIntegrityError: the weights' sha256 differs from the record's or from ``expected_sha256``.
    """
    from safetensors.torch import load_file

    info = read_info(folder)
    if expected_sha256 is not None and info.sha256 != expected_sha256:
        raise ModelIntegrityError(
            f"reader-critic {info.name} records sha256 {info.sha256[:12]}…, this release pins {expected_sha256[:12]}…"
        )
    weights = folder / WEIGHTS_FILE
    if not weights.exists():
        raise ModelIntegrityError(f"reader-critic {info.name}: {WEIGHTS_FILE} is missing")
    actual = artifact_sha256(weights)
    if actual != info.sha256:
        raise ModelIntegrityError(
            f"reader-critic {info.name}: weights have sha256 {actual[:12]}…, expected {info.sha256[:12]}…; refusing to load them"
        )
    return info, _unpack(load_file(str(weights)))
