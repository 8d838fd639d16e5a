"""Judged metrics: answer quality as an independent judge sees it, RAGAS's metrics on a critic.

Each metric is a small object, ``evaluate(inputs, judge) -> MetricValue``; ``inputs`` is what any
system's answer provides (``JudgedInputs``: question, answer, contexts, reference), so the engine's
runs, predictions files and endpoints are judged alike. The judge is a ``selfrag.reading.Critic``
(``eval.judges``: the local trained critic or a chat model) and a verdict is its probability
against its own threshold for the task. A claim too short to stand alone ("American.") is judged
as "question + claim", as the engine's groundedness grader does; a claim quoted word for word
from a context is supported without asking.

- ``judged_correct`` (RAGAS *answer correctness*): the answer's lead (the short answer, else its
  first sentence) and the reference state the same thing: each, after the question, supports
  the other. A lead that contains the reference word for word is correct without a judge call;
  a yes/no reference is matched by the lead's first word (the critic cannot tell them apart).
- ``faithfulness`` (RAGAS *faithfulness*, TruLens *groundedness*): the share of the answer's
  sentences that some context supports. The engine's own check never enters it.
- ``context_precision`` (RAGAS *context precision*): average precision of the contexts' order:
  mean over relevant positions k of (relevant among the first k) / k; relevance is judged
  between the question and each context. 0 when none is relevant.
- ``context_recall`` (RAGAS *context recall*): the share of the reference's sentences that some
  context supports.
- ``answer_relevancy`` (RAGAS *answer relevancy*, TruLens *answer relevance*): the judge's
  probability that the answer is useful for the question (a graded value, not a verdict).

A metric is None (and left out of the means) when its inputs are missing: no answer (abstained),
no contexts, no reference.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from eval.metrics import MetricValue, contains_reference, normalize_answer, strip_citations
from selfrag.reading import Critic, split_sentences

__all__ = [
    "JUDGED_METRICS",
    "AnswerRelevancy",
    "ContextPrecision",
    "ContextRecall",
    "Faithfulness",
    "JudgedCorrectness",
    "JudgedInputs",
    "JudgedMetric",
    "judge_records",
]

_SHORT_CLAIM = 6
"""Words at or under which a claim is judged with its question in front."""


class JudgedInputs(NamedTuple):
    question: str
    answer: str
    """The answer as shown, citation markers included (they are stripped here)."""
    contexts: Sequence[str]
    reference: str | None
    short_answer: str | None = None


class JudgedMetric(Protocol):
    @property
    def name(self) -> str: ...

    def evaluate(self, inputs: JudgedInputs, judge: Critic) -> MetricValue: ...


def _flat(text: str) -> str:
    """A claim as the critic was trained to see it: one line, no final full stop (the critic
    scores "... American." far below "... American"; the groundedness grader flattens alike)."""
    return " ".join(text.split()).rstrip(".").strip()


def _claims(question: str, text: str) -> list[str]:
    sentences = [_flat(s) for s in split_sentences(strip_citations(text))]
    return [f"{question} {s}" if len(s.split()) <= _SHORT_CLAIM else s for s in sentences if s]


def _supported(judge: Critic, claims: Sequence[str], contexts: Sequence[str]) -> list[float]:
    """Each claim's best support among the contexts (one batched judge call).

    A claim quoted word for word from a context is stated there: 1.0 without a call, as in the
    engine's grader (the critic judges paraphrase, not string containment).
    """
    flat = [_flat(t) for t in contexts]
    quoted = [any(c in t for t in flat) for c in claims]
    todo = [c for c, q in zip(claims, quoted, strict=True) if not q]
    firsts = [c for c in todo for _ in contexts]
    seconds = [t for _ in todo for t in contexts]
    scores = judge.score("support", firsts, seconds) if firsts else []
    n = len(contexts)
    best = iter([max(scores[i * n : (i + 1) * n]) for i in range(len(todo))])
    return [1.0 if q else next(best) for q in quoted]


@dataclass(frozen=True)
class JudgedCorrectness:
    name: str = "judged_correct"

    def evaluate(self, inputs: JudgedInputs, judge: Critic) -> MetricValue:
        if not inputs.reference or not inputs.reference.strip():
            return MetricValue(None, "no reference answer")
        if not inputs.answer.strip():
            return MetricValue(None, "no answer")
        # The lead is the answer: the short answer, else the first sentence (a quote after it is
        # evidence, and a reference found only in the evidence does not make the answer right).
        lead = inputs.short_answer or next(iter(split_sentences(strip_citations(inputs.answer))), inputs.answer)
        if contains_reference(lead, inputs.reference):
            return MetricValue(1.0, "the answer states the reference word for word")
        reference = normalize_answer(inputs.reference)
        if reference in ("yes", "no"):
            # the critic scores "Q? No" as supported by "Q? yes" (the question's words dominate
            # both sides; measured on HaluEval test rows): polarity is read, not judged
            said = next(iter(normalize_answer(lead).split()), "")
            return MetricValue(float(said == reference), f"a {reference!r} question answered {said or 'nothing'!r}")
        # Equivalence, not entailment one way: the lead must be supported by the reference and
        # the reference by the lead, each after the question (one way let 10 % of answers that
        # share no word with the reference pass on HaluEval test rows; both ways, 5 %).
        claim = f"{inputs.question} {_flat(lead)}"
        passage = f"{inputs.question} {_flat(inputs.reference)}"
        forth, back = judge.score("support", [claim, passage], [passage, claim])
        threshold = judge.threshold("support")
        ok = forth >= threshold and back >= threshold
        return MetricValue(float(ok), f"reference supports the answer {forth:.2f}, the answer the reference {back:.2f}")


@dataclass(frozen=True)
class Faithfulness:
    name: str = "faithfulness"

    def evaluate(self, inputs: JudgedInputs, judge: Critic) -> MetricValue:
        claims = _claims(inputs.question, inputs.answer)
        if not claims:
            return MetricValue(None, "no answer")
        if not inputs.contexts:
            return MetricValue(None, "no contexts")
        best = _supported(judge, claims, inputs.contexts)
        ok = sum(1 for s in best if s >= judge.threshold("support"))
        return MetricValue(ok / len(claims), f"{ok}/{len(claims)} answer sentences supported by a context")


@dataclass(frozen=True)
class ContextPrecision:
    name: str = "context_precision"

    def evaluate(self, inputs: JudgedInputs, judge: Critic) -> MetricValue:
        if not inputs.contexts:
            return MetricValue(None, "no contexts")
        scores = judge.score("relevance", [inputs.question] * len(inputs.contexts), list(inputs.contexts))
        relevant = [s >= judge.threshold("relevance") for s in scores]
        hits, total = 0, 0.0
        for k, rel in enumerate(relevant, start=1):
            if rel:
                hits += 1
                total += hits / k
        value = total / hits if hits else 0.0
        return MetricValue(value, f"relevant at ranks {[k for k, r in enumerate(relevant, 1) if r]} of {len(relevant)}")


@dataclass(frozen=True)
class ContextRecall:
    name: str = "context_recall"

    def evaluate(self, inputs: JudgedInputs, judge: Critic) -> MetricValue:
        claims = _claims(inputs.question, inputs.reference or "")
        if not claims:
            return MetricValue(None, "no reference answer")
        if not inputs.contexts:
            return MetricValue(None, "no contexts")
        best = _supported(judge, claims, inputs.contexts)
        ok = sum(1 for s in best if s >= judge.threshold("support"))
        return MetricValue(ok / len(claims), f"{ok}/{len(claims)} reference sentences supported by a context")


@dataclass(frozen=True)
class AnswerRelevancy:
    name: str = "answer_relevancy"

    def evaluate(self, inputs: JudgedInputs, judge: Critic) -> MetricValue:
        answer = strip_citations(inputs.answer).strip()
        if not answer:
            return MetricValue(None, "no answer")
        score = judge.score("usefulness", [inputs.question], [answer])[0]
        return MetricValue(score, f"judged useful with probability {score:.2f}")


JUDGED_METRICS: tuple[JudgedMetric, ...] = (
    JudgedCorrectness(), Faithfulness(), ContextPrecision(), ContextRecall(), AnswerRelevancy(),
)


def judge_records(
    records: Sequence[MutableMapping[str, Any]],
    judge: Critic,
    *,
    metrics: Sequence[JudgedMetric] = JUDGED_METRICS,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Add each judged metric's value (and reason, under ``reasons``) to every ``cases.jsonl`` row.

    A row that failed (``error``) gets nulls; an abstention is judged on what it said, so its
    correctness and relevancy are None only when it said nothing.
    """
    for n, row in enumerate(records, start=1):
        reasons = row.setdefault("reasons", {})
        if row.get("error"):
            for m in metrics:
                row[m.name] = None
        else:
            inputs = JudgedInputs(str(row["question"]), str(row.get("answer") or ""), list(row.get("contexts") or []),
                                  row.get("reference_answer"), row.get("short_answer"))
            for m in metrics:
                value = m.evaluate(inputs, judge)
                row[m.name] = None if value.value is None else round(value.value, 4)
                reasons[m.name] = value.reason
        if progress is not None:
            progress(n, len(records))
