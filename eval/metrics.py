"""Per-case metrics: one small object each, ``evaluate(case, result) -> MetricValue(value, reason)``.

A value is ``None`` when the case gives nothing to compare against (no reference answer, no gold
ids, no expected filter); summaries then leave the case out instead of counting it as a miss.

Definitions (so numbers can be recomputed by hand):

- **Answers** lose their citation markers (``[1]``) and are then compared after SQuAD normalisation: lowercase, punctuation removed, the articles
  *a/an/the* removed, whitespace collapsed. ``answer_exact`` is equality; ``answer_f1`` is token F1
  (bag of tokens; 1.0 when both sides are empty); ``answer_contains`` holds when the normalised
  reference appears in the normalised answer *as whole tokens* (so "no" is not found in "nothing").
- **Retrieval** is scored on the ranked documents of the case's *first* retrieval (before any
  rewrite), in the order the store returned them; it measures self-query plus search, which the
  later loop would otherwise mask. A retrieved chunk counts for gold id ``g`` when its id is ``g``
  or ``g:<n>`` (ingest names the n-th chunk of a document that way). ``recall_at_k`` is the share
  of gold documents among the top ``k`` chunks; ``mrr`` is 1/rank of the first gold chunk (0 if none).
- **Filters** are compared by what they select, not by syntax: both where clauses are run by
  Chroma itself over the collection's stored metadata (``eval.selection``), and equal id sets are
  correct; a clause Chroma refuses selects nothing it could compare (an expected one makes the
  case unscored, a produced one wrong). No filter selects everything; both absent is correct without looking. A case counts
  only if its dataset line states ``expected_filter`` (``null`` included: "no filter expected").
  The produced filter is the self-query plan's (``trace.plan["where"]``), before relaxation.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from eval.datasets import E2ECase
from eval.selection import InvalidWhere, selected_ids
from workflows.outcomes import Result
from workflows.records import GradedDocument

__all__ = [
    "ContainsReference",
    "Correct",
    "ExactMatch",
    "FilterAccuracy",
    "Groundedness",
    "MetadataLookup",
    "Metric",
    "MetricValue",
    "RecallAtK",
    "ReciprocalRank",
    "TokenF1",
    "contains_reference",
    "is_correct",
    "short_answer",
    "exact_match",
    "is_chunk_of",
    "normalize_answer",
    "ranked_ids",
    "recall_at_k",
    "reciprocal_rank",
    "same_selection",
    "strip_citations",
    "token_f1",
]

MetadataLookup = Callable[[str], Mapping[str, Mapping[str, Any]] | None]
"""Collection name → ``{stored id: metadata}``; None when the metadata cannot be read."""

Scope = Literal["first", "all"]


@dataclass(frozen=True)
class MetricValue:
    value: float | None
    """The score; None when the case has nothing to compare against."""
    reason: str
    """Why, in a few words a reader can check against the case."""


class Metric(Protocol):
    @property
    def name(self) -> str: ...

    def evaluate(self, case: E2ECase, result: Result) -> MetricValue: ...


# -- answers ---------------------------------------------------------------------------------------
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_CITATION = re.compile(r"\[\d{1,3}\]")
_PUNCT = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lowercase, drop punctuation and articles, collapse whitespace."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCT)).split())


def strip_citations(answer: str) -> str:
    """Remove the engine's ``[n]`` markers, which are not part of the answer's words."""
    return _CITATION.sub(" ", answer)


def exact_match(answer: str, reference: str) -> bool:
    return normalize_answer(strip_citations(answer)) == normalize_answer(reference)


def token_f1(answer: str, reference: str) -> float:
    """Harmonic mean of token precision (of the answer) and recall (of the reference)."""
    pred, gold = normalize_answer(strip_citations(answer)).split(), normalize_answer(reference).split()
    if not pred or not gold:
        return float(pred == gold)
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def contains_reference(answer: str, reference: str) -> bool:
    """The normalised reference occurs in the normalised answer as a run of whole tokens."""
    ref = normalize_answer(reference)
    return bool(ref) and f" {ref} " in f" {normalize_answer(strip_citations(answer))} "


def short_answer(result: Result) -> str:
    """What exact match and F1 score: the reader's short answer when the engine gave one (the
    quote after it is evidence, not the answer), else the whole answer."""
    return result.short_answer or result.answer


def is_correct(answer: str, short: str | None, reference: str) -> bool:
    """A right answer: the short answer matches the reference (contains it, or token F1 >= 0.5
    either way round: "Prince" for "Prince and The Revolution"); without one, the answer contains it."""
    if short:
        return contains_reference(short, reference) or token_f1(short, reference) >= 0.5
    return contains_reference(answer, reference)


@dataclass(frozen=True)
class ExactMatch:
    name: str = "answer_exact"

    def evaluate(self, case: E2ECase, result: Result) -> MetricValue:
        if case.reference_answer is None:
            return MetricValue(None, "no reference answer")
        ok = exact_match(short_answer(result), case.reference_answer)
        return MetricValue(float(ok), "normalised answer equals the reference" if ok else "normalised answer differs")


@dataclass(frozen=True)
class TokenF1:
    name: str = "answer_f1"

    def evaluate(self, case: E2ECase, result: Result) -> MetricValue:
        if case.reference_answer is None:
            return MetricValue(None, "no reference answer")
        f1 = token_f1(short_answer(result), case.reference_answer)
        return MetricValue(f1, f"token F1 {f1:.3f} against the reference")


@dataclass(frozen=True)
class Correct:
    """Whether the answer is right (``is_correct``); with the outcome, this gives wrong among answered."""

    name: str = "answer_correct"

    def evaluate(self, case: E2ECase, result: Result) -> MetricValue:
        if case.reference_answer is None or not normalize_answer(case.reference_answer):
            return MetricValue(None, "no reference answer")
        ok = is_correct(result.answer, result.short_answer, case.reference_answer)
        return MetricValue(float(ok), "the answer matches the reference" if ok else "the answer does not match the reference")


@dataclass(frozen=True)
class ContainsReference:
    name: str = "answer_contains"

    def evaluate(self, case: E2ECase, result: Result) -> MetricValue:
        if case.reference_answer is None or not normalize_answer(case.reference_answer):
            return MetricValue(None, "no reference answer")
        ok = contains_reference(result.answer, case.reference_answer)
        return MetricValue(float(ok), "answer contains the reference" if ok else "reference not found in the answer")


# -- retrieval -------------------------------------------------------------------------------------
def ranked_ids(result: Result, scope: Scope = "first") -> list[str]:
    """Retrieved chunk ids, best first: of the first retrieval, or of all (first appearance order)."""
    docs = result.trace.documents
    if not docs:
        return []
    if scope == "first":
        first_query = docs[0]["query"]
        docs = _prefix(docs, lambda d: d["query"] == first_query)
    return list(dict.fromkeys(str(d["id"]) for d in docs))


def _prefix(items: Sequence[GradedDocument], keep: Callable[[GradedDocument], bool]) -> list[GradedDocument]:
    out: list[GradedDocument] = []
    for item in items:
        if not keep(item):
            break
        out.append(item)
    return out


def is_chunk_of(chunk_id: str, doc_id: str) -> bool:
    """``chunk_id`` is the document ``doc_id`` itself or its n-th chunk ``doc_id:n``."""
    if chunk_id == doc_id:
        return True
    rest = chunk_id[len(doc_id) + 1 :]
    return chunk_id.startswith(doc_id + ":") and rest.isdigit()


def recall_at_k(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Share of gold documents with a chunk among the top ``k`` (0.0 for no gold)."""
    top = ranked[:k]
    wanted = set(gold)
    if not wanted:
        return 0.0
    return sum(1 for g in wanted if any(is_chunk_of(r, g) for r in top)) / len(wanted)


def reciprocal_rank(ranked: Sequence[str], gold: Sequence[str]) -> float:
    """1/rank of the first chunk of a gold document; 0.0 when none was retrieved."""
    for rank, rid in enumerate(ranked, start=1):
        if any(is_chunk_of(rid, g) for g in gold):
            return 1.0 / rank
    return 0.0


@dataclass(frozen=True)
class RecallAtK:
    k: int = 4
    scope: Scope = "first"

    @property
    def name(self) -> str:
        return f"recall_at_{self.k}" if self.scope == "first" else f"recall_at_{self.k}_all"

    def evaluate(self, case: E2ECase, result: Result) -> MetricValue:
        if not case.gold_ids:
            return MetricValue(None, "no gold ids")
        ranked = ranked_ids(result, self.scope)
        value = recall_at_k(ranked, case.gold_ids, self.k)
        found = sorted(g for g in set(case.gold_ids) if any(is_chunk_of(r, g) for r in ranked[: self.k]))
        return MetricValue(value, f"{len(found)}/{len(set(case.gold_ids))} gold in top {self.k} of {ranked[: self.k]}")


@dataclass(frozen=True)
class ReciprocalRank:
    scope: Scope = "first"

    @property
    def name(self) -> str:
        return "mrr" if self.scope == "first" else "mrr_all"

    def evaluate(self, case: E2ECase, result: Result) -> MetricValue:
        if not case.gold_ids:
            return MetricValue(None, "no gold ids")
        rr = reciprocal_rank(ranked_ids(result, self.scope), case.gold_ids)
        return MetricValue(rr, f"first gold at rank {round(1 / rr)}" if rr else "no gold document retrieved")


# -- filters ---------------------------------------------------------------------------------------
def same_selection(
    expected: Mapping[str, Any] | None, produced: Mapping[str, Any] | None, metadata: Mapping[str, Mapping[str, Any]]
) -> bool:
    """Whether two where clauses select the same documents of ``metadata``.

    Raises:
        InvalidWhere: Chroma refuses one of them.
    """
    if not expected and not produced:
        return True
    return selected_ids(expected, metadata) == selected_ids(produced, metadata)


@dataclass(frozen=True)
class FilterAccuracy:
    metadata_for: MetadataLookup
    """How to read a collection's stored metadata (the runner caches it per collection)."""
    name: str = "filter_ok"

    def evaluate(self, case: E2ECase, result: Result) -> MetricValue:
        if "expected_filter" not in case.model_fields_set:
            return MetricValue(None, "no expected filter in the dataset")
        expected, produced = case.expected_filter or None, result.trace.plan.get("where") or None
        if expected is None and produced is None:
            return MetricValue(1.0, "no filter expected and none produced")
        metadata = self.metadata_for(result.collection)
        if metadata is None:
            return MetricValue(None, f"metadata of collection {result.collection!r} unavailable")
        try:
            want = selected_ids(expected, metadata)
        except InvalidWhere as exc:
            return MetricValue(None, f"the expected filter is not one Chroma accepts: {exc}")
        try:
            got = selected_ids(produced, metadata)
        except InvalidWhere as exc:
            return MetricValue(0.0, f"the produced filter is not one Chroma accepts: {exc}")
        if want == got:
            return MetricValue(1.0, f"both select the same {len(want)} of {len(metadata)} chunks")
        return MetricValue(
            0.0,
            f"expected selects {len(want)}, produced {len(got)} of {len(metadata)} chunks "
            f"({len(want - got)} missed, {len(got - want)} extra)",
        )


# -- answer quality as judged by the engine itself ---------------------------------------------------
@dataclass(frozen=True)
class Groundedness:
    """The groundedness verdict of the last generation (None when nothing was generated)."""

    name: str = "grounded"

    def evaluate(self, case: E2ECase, result: Result) -> MetricValue:
        gens = result.trace.generations
        if not gens or gens[-1]["grounded"] is None:
            return MetricValue(None, "no answer was generated and checked")
        ok = bool(gens[-1]["grounded"])
        return MetricValue(float(ok), f"generation {len(gens)} judged {'grounded' if ok else 'ungrounded'}")
