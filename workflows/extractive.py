"""Extractive answers and citation attribution: deterministic, grounded by construction.

Two jobs a small model does badly:
- ``attribute``: an answer with no [n] markers gets them from the documents its sentences
  overlap most (a sentence cites a document only when most of its content terms are there);
- ``extract``: when every generated answer was ungrounded, the last attempt quotes the
  document sentences that best match the question, verbatim, each with its citation. It is
  recorded as ``strategy: extractive`` in the trace, so nobody mistakes it for generation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from graders.fencing import document_text
from graders.signals import content_terms

__all__ = ["attribute", "extract", "split_sentences"]

_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n+")


def _metadata_line(doc: Mapping[str, Any]) -> str:
    return document_text({"text": "", "metadata": doc.get("metadata", {})})


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT.split(text) if len(s.strip()) > 2]


def attribute(answer: str, documents: Sequence[Mapping[str, Any]], *, min_overlap: float = 0.5) -> list[int]:
    """Document numbers (1-based) supporting the answer's sentences, by content-term overlap."""
    doc_terms = [content_terms(document_text(d)) for d in documents]
    cited: set[int] = set()
    for sentence in split_sentences(answer) or [answer]:
        terms = content_terms(sentence)
        if not terms:
            continue
        scores = [len(terms & dt) / len(terms) for dt in doc_terms]
        if scores and max(scores) >= min_overlap:
            cited.add(scores.index(max(scores)) + 1)
    return sorted(cited)


def extract(question: str, documents: Sequence[Mapping[str, Any]], *, max_sentences: int = 2) -> tuple[str, list[int]]:
    """The best-matching document sentences for ``question``, quoted with [n] markers.

    Sentences are scored by the question terms they contain, rarer terms (across the
    documents' sentences) weighing more; the metadata line of a document counts as a sentence,
    so "who directed X" can be answered from a ``director`` attribute.
    """
    q_terms = content_terms(question)
    # Terms every document's metadata shares (the self-queried company and year, say) do not
    # tell sentences apart; leave them out so "revenue" decides, not "Walmart 2023".
    shared = set.intersection(*(content_terms(_metadata_line(d)) for d in documents)) if documents else set()
    if q_terms - shared:
        q_terms -= shared
    candidates: list[tuple[int, str, set[str]]] = []
    for n, doc in enumerate(documents, start=1):
        for sentence in split_sentences(document_text(doc)):
            candidates.append((n, sentence, content_terms(sentence)))
    if not candidates:
        return "", []
    df: dict[str, int] = {}
    for _, _, terms in candidates:
        for t in terms:
            df[t] = df.get(t, 0) + 1
    total = len(candidates)

    def score(terms: set[str]) -> float:
        return sum(math.log(1 + total / df[t]) for t in q_terms & terms)

    ranked = sorted(range(total), key=lambda i: (-score(candidates[i][2]), i))
    chosen = [i for i in ranked[:max_sentences] if score(candidates[i][2]) > 0] or ranked[:1]
    chosen.sort()  # keep document order: reads better than score order
    parts: list[str] = []
    for pos, i in enumerate(chosen):
        n, sentence = candidates[i][0], candidates[i][1].strip("() ").rstrip(",;:- ")
        if not sentence.endswith((".", "!", "?")):
            sentence += "."
        last_of_doc = pos + 1 == len(chosen) or candidates[chosen[pos + 1]][0] != n
        parts.append(f"{sentence} [{n}]" if last_of_doc else sentence)  # one marker per run of a document
    return " ".join(parts), sorted({candidates[i][0] for i in chosen})
