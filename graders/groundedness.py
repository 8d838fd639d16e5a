"""Groundedness: is every claim of the answer supported by the documents it cites?"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from graders.base import CaseInputs, Combine, StructuredGrader
from graders.figures import Figure, unsupported_figures
from graders.prompts import GROUNDEDNESS_V1
from graders.registry import register
from graders.verdicts import GradeResult, GroundednessGrade
from selfrag.fencing import document_text, fence, fence_documents
from selfrag.reading import split_sentences

__all__ = ["Claim", "GroundednessGrader", "answer_claims"]

_MARKER = re.compile(r"\s*\[(\d{1,3})\]")


def _flat(text: str) -> str:
    return " ".join(text.split()).rstrip(".").strip()


class Claim(NamedTuple):
    text: str
    """What is claimed: an answer sentence without its markers, or "question + short answer"."""
    cited: tuple[int, ...]
    """1-based numbers of the documents it cites (all of them when it cites none)."""


def answer_claims(answer: str, n_documents: int, *, question: str | None = None,
                  short_answer: str | None = None) -> list[Claim]:
    """The answer's claims: each sentence with the documents it cites.

    A sentence without a marker belongs to the next marked one ("Quote one. Quote two [1]" cites
    [1] for both); an unmarked answer cites every document. With a ``short_answer`` (the reader's
    span, "Yes", "No"), the leading sentence that states it alone is replaced by the claim
    "question + short answer": that is the pair the critic judges ("Who directed Alien? Ridley Scott").
    """
    every = tuple(range(1, n_documents + 1))
    if short_answer:
        # The answer leads with the short answer ("American folksinger. <quote> [1]"): cut it off
        # whole before splitting, since a span may hold a sentence end of its own.
        lead = short_answer.strip().rstrip(".")
        if answer.lower().startswith(lead.lower()):
            answer = answer[len(lead):].lstrip(" .")
    sentences = split_sentences(answer)
    pending: list[str] = []
    claims: list[Claim] = []
    for sentence in sentences:
        marks = tuple(sorted({int(m) for m in _MARKER.findall(sentence) if 1 <= int(m) <= n_documents}))
        text = _MARKER.sub("", sentence).strip()
        if not text:
            continue
        if marks:
            claims += [Claim(p, marks) for p in pending] + [Claim(text, marks)]
            pending = []
        else:
            pending.append(text)
    claims += [Claim(p, every) for p in pending]
    if short_answer:
        cited = tuple(sorted({n for c in claims for n in c.cited})) or every
        claims.insert(0, Claim(f"{question or ''} {short_answer}".strip(), cited))
    return claims


@register
class GroundednessGrader(StructuredGrader):
    """Signal: the weakest claim's support (the critic's ISSUP probability against the best of the
    documents it cites), and zero for a claim stating a figure its documents do not
    (``graders.figures``). The per-claim records go into the result's ``claims`` for the trace.
    """

    kind = "groundedness"
    schema = GroundednessGrade
    positive = "grounded"
    negative = "ungrounded"
    default_prompt = GROUNDEDNESS_V1
    fields = frozenset({"documents", "answer"})
    critic_task = "support"

    def grade_case(self, case: CaseInputs) -> GradeResult:
        return self.grade(case.answer, case.documents, case.question)

    @classmethod
    def case_problem(cls, case: CaseInputs) -> str | None:
        return None if case.answer and case.documents else "a groundedness case needs an answer and documents"

    def grade(self, answer: str, documents: Sequence[Mapping[str, Any]], question: str | None = None, *,
              short_answer: str | None = None, held: Sequence[Figure] = ()) -> GradeResult:
        """Grade ``answer`` against ``documents``; ``short_answer`` (the reader's) is judged with
        ``question`` as one claim. ``held``: figures of the question a search filter holds, which
        the documents need not state (``unsupported_figures``)."""
        fields = {"documents": fence_documents(documents), "answer": fence("answer", answer)}
        claims = answer_claims(answer, len(documents), question=question, short_answer=short_answer)
        records = self._support(claims, documents, held) if self.config.combine is not Combine.LLM else []
        # No claim at all (an empty answer) supports nothing.
        score = min((float(r["score"]) for r in records), default=0.0)  # type: ignore[arg-type]
        result = self._grade(fields, {}, score=None if self.config.combine is Combine.LLM else score)
        weakest = min(records, key=lambda r: float(r["score"]), default=None)  # type: ignore[arg-type]
        if not result.passed and not result.failed and weakest is not None and result.llm_label != self.negative:
            result = dataclasses.replace(result, reason=f"claim not supported: {weakest['reason']} ({result.reason})")
        return dataclasses.replace(result, claims=tuple(records))

    def _support(self, claims: list[Claim], documents: Sequence[Mapping[str, Any]],
                 held: Sequence[Figure] = ()) -> list[dict[str, object]]:
        """Per claim: the best support among its cited documents, the figure guard applied.

        A claim quoted word for word from a document it cites is stated there by construction
        and costs no critic call; what a quote is *for* is the short answer's claim, judged by it.
        """
        assert self.critic is not None
        texts = [document_text(d) for d in documents]
        flat = [_flat(t) for t in texts]
        quoted = [next((n for n in c.cited if _flat(c.text) and _flat(c.text) in flat[n - 1]), None) for c in claims]
        pairs = [(i, n) for i, c in enumerate(claims) if quoted[i] is None for n in c.cited]
        seconds = [texts[n - 1] for _, n in pairs]
        # A claim citing several documents whose answer quotes sentences from two or more of them
        # (a two-document answer: "the late fee at the library the company pays for") is also
        # judged against those quotes together: no one document states it, both do. The quotes
        # are verbatim from the documents they cite (checked above), so this adds no new text.
        for i, c in enumerate(claims):
            quotes = [(quoted[j], claims[j].text) for j in range(len(claims)) if quoted[j] in c.cited and j != i]
            if quoted[i] is None and len({n for n, _ in quotes}) >= 2:
                pairs.append((i, 0))
                seconds.append(" ".join(t for _, t in quotes))
        scores = self.critic.score("support", [claims[i].text for i, _ in pairs], seconds) if pairs else []
        records: list[dict[str, object]] = []
        threshold = self.threshold
        for i, claim in enumerate(claims):
            missing = unsupported_figures(claim.text, [texts[n - 1] for n in claim.cited], held=held)
            if missing:
                best, doc = 0.0, None
                reason = f"{', '.join(missing)} is not stated by the cited document{'s' if len(claim.cited) > 1 else ''}"
            elif quoted[i] is not None:
                best, doc = 1.0, quoted[i]
                reason = f"quoted verbatim from document [{doc}]"
            else:
                best, doc = max(((s, n) for (j, n), s in zip(pairs, scores, strict=True) if j == i), default=(0.0, None))
                if doc == 0:  # the quotes of several documents together
                    doc = None
                    reason = f"support {best:.2f} from the quotes of documents {list(claim.cited)} together"
                else:
                    reason = f"support {best:.2f} from document [{doc}]" if doc is not None else "no document to support it"
            records.append({"claim": claim.text[:300], "supported": best >= threshold, "score": round(best, 4),
                            "document": doc, "reason": reason})
        return records
