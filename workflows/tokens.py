"""Answer tokens as a model writes them, and what a client must do when the checks reject them.

When a chat model writes the answer (``workflows.generation``), a run streamed with ``tokens=True``
yields an ``AnswerDelta`` for each piece of text it writes, before the answer is checked. Every
face shows them the same way, by folding the run's events through an ``AnswerStream``:

- deltas of one model call append to the text shown;
- the first delta of a *new* model call (a retry after a broken reply, a regeneration after an
  ungrounded verdict) when text was already shown is a reset: the text shown so far is withdrawn;
- at the end, ``AnswerStream.finish`` compares the final answer with the last text streamed. When
  they differ — the check rejected the streamed answer and the run abstained, the trained reader's
  answer replaced it, invalid citation markers were dropped — the final event says so
  (``replaced``) and carries the answer to show instead, with the outcome.

The offline default answers with the trained extractive reader, which writes no tokens: then
nothing streams and the whole answer arrives as one delta at the end (``AnswerStream.finish``).
"""

from __future__ import annotations

from dataclasses import dataclass

from workflows.generation import tidy

__all__ = ["AnswerDelta", "AnswerFinal", "AnswerStream"]


@dataclass(frozen=True)
class AnswerDelta:
    """A piece of the answer as the model wrote it (not yet checked)."""

    text: str
    generation: int
    """The answer's generation number in the run (1-based; a regeneration writes the next)."""
    attempt: int
    """The model call within that generation (1-based; a retry after a broken reply writes again)."""


@dataclass(frozen=True)
class AnswerFinal:
    """What a client is told once the run is over."""

    answer: str
    """The answer to show: the result's answer."""
    outcome: str
    replaced: bool
    """True when text was streamed and this answer is not it: the client replaces what it showed."""
    streamed: bool
    """Whether any delta was streamed (False: the answer is given whole, e.g. by the trained reader)."""


class AnswerStream:
    """Folds a run's ``AnswerDelta``s: the text shown, when to withdraw it, and the final word."""

    def __init__(self) -> None:
        self.text = ""
        """The text of the model call being streamed (what a client shows now)."""
        self.streamed = False
        self._call: tuple[int, int] | None = None

    def feed(self, delta: AnswerDelta) -> bool:
        """Take a delta; True when it starts a new model call after text was shown (a reset:
        the client withdraws what it showed before appending this delta)."""
        call = (delta.generation, delta.attempt)
        reset = self._call is not None and call != self._call and bool(self.text)
        if call != self._call:
            self._call, self.text = call, ""
        self.text += delta.text
        self.streamed = True
        return reset

    def finish(self, answer: str, outcome: str) -> AnswerFinal:
        """The final word: whether the final ``answer`` replaces the text streamed."""
        if not self.streamed:
            return AnswerFinal(answer, outcome, replaced=False, streamed=False)
        # The generator tidies what the model wrote (an "Answer:" prefix, spaces): not a replacement.
        same = tidy(self.text) == answer or " ".join(self.text.split()) == " ".join(answer.split())
        return AnswerFinal(answer, outcome, replaced=not same, streamed=True)
