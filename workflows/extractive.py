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

__all__ = ["attribute", "extract", "is_verbatim", "split_sentences"]

_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n\s*\n+|\n(?=\s*(?:[-*#(]|\d+\.))")


def _metadata_line(doc: Mapping[str, Any]) -> str:
    return document_text({"text": "", "metadata": doc.get("metadata", {})})


_MARKUP = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)")  # emphasis markers; snake_case survives


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT.split(text) if len(s.strip()) > 2]


def _quotable(sentence: str) -> bool:
    """Headings, short fragments and editorial notes make poor answers; the metadata line is kept."""
    s = sentence.strip()
    return s.startswith("(") or (not s.startswith("#") and len(s.split()) >= 4)


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
    all_terms = content_terms(question)
    # Terms every document's metadata shares (the self-queried company and year, say) do not
    # tell sentences apart; leave them out so "revenue" decides, not "Walmart 2023".
    shared = set.intersection(*(content_terms(_metadata_line(d)) for d in documents)) if documents else set()
    q_terms = all_terms - shared or all_terms
    candidates: list[tuple[int, str, set[str]]] = []
    for n, doc in enumerate(documents, start=1):
        for sentence in split_sentences(_MARKUP.sub("", document_text(doc))):
            sentence = " ".join(_MARKUP.sub("", sentence).split())  # wrapped lines rejoin
            if _quotable(sentence):
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

    if not any(score(c[2]) > 0 for c in candidates):
        q_terms = all_terms  # nothing matches the distinctive terms: fall back to all of them
    ranked = sorted(range(total), key=lambda i: (-score(candidates[i][2]), i))
    chosen = [i for i in ranked[:max_sentences] if score(candidates[i][2]) > 0]
    if not chosen:
        return "", []  # quoting an unrelated sentence would be worse than no answer
    chosen.sort()  # keep document order: reads better than score order
    parts: list[str] = []
    for pos, i in enumerate(chosen):
        n, sentence = candidates[i][0], candidates[i][1].strip("() ").rstrip(",;:- ")
        if not sentence.endswith((".", "!", "?")):
            sentence += "."
        last_of_doc = pos + 1 == len(chosen) or candidates[chosen[pos + 1]][0] != n
        parts.append(f"{sentence} [{n}]" if last_of_doc else sentence)  # one marker per run of a document
    return " ".join(parts), sorted({candidates[i][0] for i in chosen})


def is_verbatim(answer: str, documents: Sequence[Mapping[str, Any]]) -> bool:
    """True when every sentence of ``answer`` (markers removed) is quoted from the documents.

    An extractive answer is grounded by construction; this checks it instead of asking a model.
    """
    haystack = " ".join(" ".join(_MARKUP.sub("", document_text(d)).split()) for d in documents)
    # Split at every sentence end and citation marker: quotes are joined with ". " whatever follows.
    pieces = re.split(r"(?<=[.!?])\s+|\s*\[\d+\]\s*", answer)
    sentences = [p.strip().rstrip(".").strip("() ") for p in pieces]
    sentences = [s for s in sentences if s]
    return bool(sentences) and all(s in haystack for s in sentences)
