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

from graders.claims import FILLER, figures, measure_match, names, split_sentences
from graders.usefulness import choice_options, expected_answer
from selfrag.fencing import document_text
from selfrag.text import content_terms

__all__ = ["attribute", "extract", "is_verbatim", "split_sentences"]



def _metadata_line(doc: Mapping[str, Any]) -> str:
    return document_text({"text": "", "metadata": doc.get("metadata", {})})


_MARKUP = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)")  # emphasis markers; snake_case survives


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
    if expected_answer(question, documents) == "amount":
        # A figure is asked for: lead with the sentence stating the figure whose own words best
        # name what was asked ("revenue of $212 billion", not "Cloud revenue was $88 billion").
        measure = frozenset(t for t in all_terms - names(question) - FILLER if not t[0].isdigit())

        def figure_fit(i: int) -> float:
            return max((measure_match(measure, f) for f in figures(candidates[i][1]) if f.kind in ("amount", "percent")), default=0.0)

        fits = {i: figure_fit(i) for i in ranked}
        if max(fits.values(), default=0.0) > 0:
            ranked = sorted(ranked, key=lambda i: -fits[i])  # stable: term score breaks ties
            max_sentences = 1  # the sentence stating the figure is the answer; more would add other figures
    options = choice_options(question)
    if options:
        # A choice ("which had more employees, Microsoft or Costco?"): the best sentence about
        # each option (in its text or its document's metadata), so the answer shows both sides.
        meta_terms = [content_terms(_metadata_line(d)) for d in documents]
        picks = []
        for option in options:
            wanted = content_terms(option)
            pick = next((i for i in ranked if score(candidates[i][2]) > 0
                         and wanted <= candidates[i][2] | meta_terms[candidates[i][0] - 1]), None)
            if pick is not None and pick not in picks:
                picks.append(pick)
        if picks:
            ranked = picks + [i for i in ranked if i not in picks]
            max_sentences = max(max_sentences, len(picks)) if len(picks) > 1 else max_sentences
    first = next((i for i in ranked if score(candidates[i][2]) > 0), None)
    if first is None:
        return "", []  # quoting an unrelated sentence would be worse than no answer
    chosen = [first]
    covered = q_terms & candidates[first][2]
    for i in ranked:
        if len(chosen) >= max_sentences:
            break
        # A further sentence when it brings question terms the quote lacks, or matches nearly as well.
        s_i = score(candidates[i][2])
        if i not in chosen and s_i > 0 and ((q_terms & candidates[i][2]) - covered or s_i >= 0.5 * score(candidates[first][2])):
            chosen.append(i)
            covered |= q_terms & candidates[i][2]
    chosen.sort()  # keep document order: reads better than score order
    parts: list[str] = []
    for pos, i in enumerate(chosen):
        n, sentence = candidates[i][0], candidates[i][1].lstrip("-*• ").strip("() ").rstrip(",;:- ")
        if not sentence.endswith((".", "!", "?")):
            sentence += "."
        last_of_doc = pos + 1 == len(chosen) or candidates[chosen[pos + 1]][0] != n
        meta = _metadata_line(documents[n - 1]).strip()
        if last_of_doc and meta and not any(candidates[j][0] == n and candidates[j][1].startswith("(") for j in chosen):
            # What the quote is about (a film's title, a report's company and year) lives in the
            # metadata: a plot line alone does not say which film it is.
            sentence = f"{sentence} {meta}"
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
