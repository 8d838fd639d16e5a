"""The trained reader and critic: Self-RAG's judgements learned, not written as rules.

One small network fine-tuned here from the packaged all-MiniLM-L6-v2 (``python -m eval.training``;
the data manifest, command and metrics sit beside the weights in ``weights/<name>/``):

- the **reader** answers a question from passages: a short answer (a span, yes or no), the
  sentence(s) that support it, and a calibrated probability that it is right;
- the **critic** scores Self-RAG's reflection judgements, calibrated: relevance (ISREL),
  support (ISSUP) and usefulness (ISUSE).

The weights are verified by checksum at load (``JUDGE_SHA256`` pins the shipped ones), and the
artifact's name is carried by every verdict it decides, every trace and every run manifest.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from selfrag.errors import ConfigError
from selfrag.reading.sentences import Sentence, sentence_spans, split_sentences
from selfrag.reading.types import AnswerKind, CriticTask, Reading, answer_key, disagree

if TYPE_CHECKING:  # the model code imports torch: loaded when a judge is, not with this package
    from selfrag.reading.judge import Judge

__all__ = [
    "DEFAULT_JUDGE_DIR",
    "JUDGE_SHA256",
    "AnswerKind",
    "Critic",
    "CriticTask",
    "Reader",
    "ReaderCritic",
    "Reading",
    "Sentence",
    "answer_key",
    "default_judge",
    "disagree",
    "sentence_spans",
    "split_sentences",
]

DEFAULT_JUDGE_DIR = Path(__file__).parent / "weights" / "minilm-judge-v7"
"""The shipped artifact (committed; rebuilt by ``make weights``)."""
JUDGE_SHA256 = "d0b49ee0db0ce0ed7a3742107b2621c07956ae3cb0243594596f095b1be90974"
"""sha256 of the shipped ``weights.safetensors``: a changed file is refused at load."""


@runtime_checkable
class Critic(Protocol):
    """Calibrated probabilities of Self-RAG's judgements (the graders' signal)."""

    @property
    def name(self) -> str: ...

    def score(self, task: CriticTask, firsts: list[str], seconds: list[str]) -> list[float]: ...

    def threshold(self, key: str, default: float = 0.5) -> float: ...


@runtime_checkable
class Reader(Protocol):
    """Reads a short answer, its support and a calibrated probability out of passages."""

    @property
    def name(self) -> str: ...

    def read(self, question: str, passages: list[str]) -> Reading: ...

    def threshold(self, key: str, default: float = 0.5) -> float: ...


@runtime_checkable
class ReaderCritic(Critic, Reader, Protocol):
    """Both at once, as one trained network provides them (``Judge``; ``selfrag.testing.ScriptedJudge``)."""

    @property
    def version(self) -> str:
        """What traces and run manifests name: ``name@sha256[:12]`` of the weights."""
        ...


def default_judge(folder: Path | None = None) -> Judge:
    """The shipped reader-critic (or the artifact in ``folder``), loaded once per process.

    The model code (``selfrag.reading.judge``: ``Judge``, ``load_judge``; ``.artifact``;
    ``.network``) needs the ``local`` extra (torch, transformers) and is imported here, on use.

    Raises:
        ConfigError: ``folder`` holds no artifact (no ``judge.json``).
        ModelIntegrityError: the weights fail their checksum.
        ProviderError: the shipped weights or the base model are missing.
    """
    from selfrag.reading.judge import load_judge

    if folder is None:
        return load_judge(DEFAULT_JUDGE_DIR, expected_sha256=JUDGE_SHA256)
    if not (folder / "judge.json").is_file():
        # A folder someone named: the configuration is wrong, not a dependency down. (The shipped
        # artifact missing is a broken install, which load_judge reports as a provider error.)
        raise ConfigError(f"[judge] path names {folder.name!r}, which holds no reader-critic artifact (no judge.json)")
    return load_judge(folder)
