"""Answers the trained reader reads out of the documents, and citations for a model's answers.

- ``read_answer``: the reader (``selfrag.reading``) finds the short answer (a span, yes or no) in
  the relevant documents with its supporting sentence(s) and a calibrated probability; the answer
  leads with it, then quotes the support with its citation: "Yes. <sentence> [1]",
  "$245 billion. <sentence> [2]". Recorded as ``strategy: reader`` in the trace.
- a comparison ("which was founded first, A or B?") is answered by ``workflows.comparison``: each
  side's figure read, the two compared in code, both cited; any other question is read whole, and
  one that names its alternatives ("Which cathedral is in London, A or B?") gets the reader's best
  answer that names one of them, or none: never yes or no, never a third name;
- a question that needs two documents ("the late fee at the library whose membership the company
  pays for") is read across them: the critic picks each of the best documents' most relevant
  sentences, the reader reads them as one passage (as HaluEval's passages, which join two
  articles' sentences, taught it), and the answer cites the sentence it came from and the other
  document's best sentence, each with its own marker. It is kept when the reader is surer of it
  than of the answer read from the documents one at a time, and gives another answer.
- a question about a thing named by a relative clause ("the daily late fee at the library whose
  card the company pays for") is read in two hops by ``workflows.bridge``: the thing first, then
  the question about it; kept when its weaker hop is surer than the question read whole, with the
  product of the hops' probabilities, citing both hops' sentences.
- ``attribute``: a model's answer written without [n] markers gets them from the critic: each
  sentence cites the document that supports it best, when that support clears the critic's
  threshold.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from selfrag.fencing import document_text, shown_metadata, shown_value
from selfrag.reading import Critic, Reader, Reading, answer_key, sentence_spans, split_sentences
from workflows.bridge import Bridged, read_bridge
from workflows.comparison import alternatives, names_one_of, read_comparison, readings

__all__ = ["ReadAnswer", "Rival", "attribute", "read_answer"]

_MARKUP = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)")  # emphasis markers; snake_case survives


@dataclass(frozen=True)
class ReadAnswer:
    answer: str
    """Short answer first, then the supporting quote and its marker; "" when nothing was read."""
    short_answer: str
    citations: list[int]
    """1-based document numbers."""
    probability: float
    """The reader's calibrated probability that the short answer is right."""
    kind: str
    """``span``, ``yes``, ``no`` or ``none``."""
    rival: Rival | None = None
    """Another document's answer that says otherwise (``Reading.rival``); None for none, and for the
    answers of a comparison, a two-document or a two-hop reading, which weigh the documents together."""


@dataclass(frozen=True)
class Rival:
    """The reader's best answer in another document that disagrees with the one given."""

    answer: str
    document: int
    """1-based number of the document it was read in."""
    probability: float


def _clean(text: str) -> str:
    return " ".join(_MARKUP.sub("", text).split())


_HEADING = re.compile(r"^(?:#{1,6}|[-*+]|\d+[.)])\s+")
"""A markdown heading's or a list item's marker at the start of a quoted line."""


def _quote(sentences: Sequence[str]) -> str:
    """Quoted sentences joined, each ending its own sentence: a heading or a "Field: value" line
    has no full stop of its own, and without one it ran into the next sentence ("Mode: bus On
    Saturdays buses run …"); a heading's "#" is markup, not text."""
    parts = [_HEADING.sub("", _clean(t)) for t in sentences]
    parts = [p for p in parts if p]
    return " ".join(p if i == len(parts) - 1 or p.endswith((".", "!", "?", ":", ";")) else p + "."
                    for i, p in enumerate(parts))


def _balanced(short: str) -> str:
    """``short`` without a bracket it does not open or close (a span cut from "(year: 1995)")."""
    for opening, closing in ("()", "[]"):
        while short.endswith(opening) and short.count(opening) > short.count(closing):
            short = short[:-1].rstrip()  # "20 cents per day (": the span ran into the next bracket
        while short.endswith(closing) and short.count(closing) > short.count(opening):
            short = short[:-1].rstrip()
        while short.startswith(opening) and short.count(opening) > short.count(closing):
            short = short[1:].lstrip()
    return short


def _figure_end(short: str) -> str:
    """``short`` without the full stop after a final figure ("1995." read from "year: 1995."): a
    full stop is never part of a number."""
    return short[:-1] if len(short) > 1 and short.endswith(".") and short[-2].isdigit() else short


def _lead(short: str) -> str:
    short = short.strip().rstrip(",;:")
    if not short:
        return ""
    short = short[0].upper() + short[1:]
    return short if short.endswith((".", "!", "?")) else short + "."


_CHOICES = 5
"""How many of the reader's best answers are searched for one naming an alternative the question offers."""
_ACROSS_DOCUMENTS = 3
"""How many of the best-graded documents a question is read across."""
_SENTENCES_EACH = 2
"""How many of each document's sentences, the critic's most relevant to the question, join the passage."""


def passage_text(doc: Mapping[str, Any]) -> str:
    """A document as the reader reads it: its text (as ``document_text`` gives it), then each
    metadata field as a sentence of its own ("year_acquired: 1958."). A span runs within one
    sentence, so an answer read from the metadata is one field's value; on one line, "(room: 4;
    year_acquired: 1958; …)", it took in parts of several ("4; year_acquired: 1958; year")."""
    text = document_text({"text": doc.get("text", "")})
    fields = [f"{k}: {shown_value(v)}" for k, v in shown_metadata(doc)]
    return "\n".join([text, *(f if f.endswith((".", "!", "?")) else f + "." for f in fields)])


def read_answer(reader: Reader, question: str, documents: Sequence[Mapping[str, Any]],
                critic: Critic | None = None) -> ReadAnswer:
    """The reader's answer to ``question`` from ``documents`` (each read with its metadata line);
    with a ``critic``, also read across the best documents (module docstring)."""
    texts = [passage_text(d) for d in documents]
    compared = read_comparison(reader, question, texts)
    if compared is not None:
        return ReadAnswer(compared.answer, compared.winner, compared.citations, compared.probability, "span")
    reading = reader.read(question, texts)
    pair = alternatives(question)
    if pair is not None and (reading.kind in ("yes", "no") or (reading.kind == "span" and not names_one_of(reading.answer, pair))):
        # A question that names its alternatives ("Which ferry is longer, A or B?", "Did A or B
        # have more …?") is answered by one of them: never yes or no, never a third name. The
        # reader's best answer that names one, or none.
        reading = next((r for r in readings(reader, question, texts, _CHOICES, yes_no=False) if names_one_of(r.answer, pair)),
                       Reading("none", "", -1))
    direct = reading.probability if reading.kind != "none" else 0.0
    across = _read_across(reader, critic, question, documents) if critic is not None else None
    if across is not None and not (across.probability > direct
                                   and answer_key(across.short_answer) != answer_key(reading.answer if reading.kind != "none" else "")
                                   and (pair is None or names_one_of(across.short_answer, pair))):
        across = None
    bridged = read_bridge(reader, question, texts) if pair is None else None
    if bridged is not None and bridged.surety > max(direct, across.probability if across is not None else 0.0):
        return _bridged_answer(bridged, texts, documents)
    if across is not None:
        return across
    if reading.kind == "none" or reading.passage < 0:
        return ReadAnswer("", "", [], reading.probability, "none")
    text = texts[reading.passage]
    # Where the document's own text ends and its metadata line begins: a sentence running into
    # that line is cut there, so a quote never carries "(pages: 1)" (the metadata line alone
    # may still be quoted: it is what answers "who directed it?").
    text_end = len(document_text({"text": documents[reading.passage].get("text", "")}))
    spans = [(a, min(b, text_end) if a < text_end else b) for a, b in reading.sentences]
    in_text = [(a, b) for a, b in spans if a < text_end]
    from_metadata = reading.kind == "span" and reading.start >= text_end
    if in_text and not from_metadata:
        spans = in_text  # the metadata line is quoted only when the answer is read from it
    elif from_metadata and not in_text and (own := sentence_spans(text[:text_end])):
        # … and then after the document's own first sentence, so the answer says what it is about
        spans = [(own[0].start, own[0].end), *spans]
    quote = _quote([text[a:b] for a, b in spans])
    short = _figure_end(_balanced(_clean(reading.answer)))
    lead = _lead(short)
    n = reading.passage + 1
    if not quote or _clean(quote).rstrip(".").lower() == short.rstrip(".").lower():
        body = f"{lead} [{n}]"
    else:
        body = f"{lead} {quote if quote.endswith(('.', '!', '?', ')')) else quote + '.'} [{n}]"
    rival = reading.rival
    return ReadAnswer(body, short, [n], reading.probability, reading.kind,
                      None if rival is None else Rival(_figure_end(_balanced(_clean(rival.answer))), rival.passage + 1, rival.probability))


def _bridged_answer(bridged: Bridged, texts: Sequence[str], documents: Sequence[Mapping[str, Any]]) -> ReadAnswer:
    """The second hop's answer first, then its sentence and the first hop's, each with its marker
    and cut where the document's own text ends (its metadata line is never quoted)."""
    quoted: list[tuple[int, int, int]] = []  # (passage, start, end)
    for r in (bridged.answer, bridged.thing):
        text_end = len(document_text({"text": documents[r.passage].get("text", "")}))
        for a, b in r.sentences[:1]:
            if a < text_end and (r.passage, a, min(b, text_end)) not in quoted:
                quoted.append((r.passage, a, min(b, text_end)))
    quote = " ".join(_marked(_clean(texts[p][a:b]), p + 1) for p, a, b in quoted)
    short = _figure_end(_balanced(_clean(bridged.answer.answer)))
    citations = sorted({p + 1 for p, _, _ in quoted} | {bridged.answer.passage + 1})
    return ReadAnswer(f"{_lead(short)} {quote}".strip(), short, citations, bridged.probability, bridged.answer.kind)


def _marked(sentence: str, n: int) -> str:
    """``sentence`` with its marker inside the full stop ("… per day [2]."), so that a marker is never
    read as the start of the next sentence."""
    body = sentence.rstrip()
    end = body[-1] if body and body[-1] in ".!?" else "."
    return f"{body.rstrip('.!?').rstrip()} [{n}]{end}"


def _source(doc: Mapping[str, Any], index: int) -> str:
    """The document a chunk belongs to: chunks of one document are one source, not two."""
    meta = doc.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    return str(meta.get("doc_id") or meta.get("source") or doc.get("id") or index)


def _read_across(reader: Reader, critic: Critic, question: str,
                 documents: Sequence[Mapping[str, Any]]) -> ReadAnswer | None:
    """The answer read from the best documents' most relevant sentences joined into one passage,
    citing the document it came from and the best sentence of another source; None when fewer
    than two sources have whole sentences or the reader finds nothing."""
    sources: list[str] = []
    sentences: list[tuple[int, str]] = []  # (document index, sentence)
    seen: set[str] = set()
    for i, doc in enumerate(documents):
        source = _source(doc, i)
        if source not in sources:
            if len(sources) == _ACROSS_DOCUMENTS:
                continue
            sources.append(source)
        for sent in sentence_spans(str(doc.get("text", ""))):
            text = " ".join(sent.text.split())
            # a chunk's cut edge is a fragment, and overlapping chunks repeat sentences
            if text.endswith((".", "!", "?", ")", '"', "”")) and text not in seen:
                seen.add(text)
                sentences.append((i, text))
    source_of = [sources.index(_source(documents[i], i)) for i, _ in sentences]
    if len(set(source_of)) < 2:
        return None
    scores = critic.score("relevance", [question] * len(sentences), [t for _, t in sentences])
    best_first = sorted(range(len(sentences)), key=lambda k: -scores[k])
    picked = sorted(k for src in range(len(sources)) for k in [k for k in best_first if source_of[k] == src][:_SENTENCES_EACH])
    placed: list[tuple[int, int, int]] = []  # (start, end) in the joined passage, the sentence's index
    at = 0
    for k in picked:
        placed.append((at, at + len(sentences[k][1]), k))
        at += len(sentences[k][1]) + 1
    reading = reader.read(question, [" ".join(sentences[k][1] for k in picked)])
    if reading.kind == "none":
        return None
    where = reading.start if reading.kind == "span" else (reading.sentences[0][0] if reading.sentences else -1)
    home = next((k for a, b, k in placed if a <= where < b), None)
    if home is None:
        return None
    others = [k for _, _, k in placed if source_of[k] != source_of[home]]
    if not others:
        return None
    bridge = max(others, key=lambda k: scores[k])
    quoted = sorted({home, bridge}, key=lambda k: sentences[k][0])
    quote = " ".join(_marked(_clean(sentences[k][1]), sentences[k][0] + 1) for k in quoted)
    short = _clean(reading.answer)
    return ReadAnswer(f"{_lead(short)} {quote}", short, sorted({sentences[k][0] + 1 for k in quoted}),
                      reading.probability, reading.kind)


def attribute(critic: Critic, answer: str, documents: Sequence[Mapping[str, Any]]) -> list[int]:
    """Document numbers (1-based) supporting the answer's sentences, by the critic's support."""
    sentences = [s for s in split_sentences(answer) if s.strip()] or [answer]
    if not documents or not answer.strip():
        return []
    texts = [passage_text(d) for d in documents]
    firsts = [s for s in sentences for _ in texts]
    seconds = [t for _ in sentences for t in texts]
    scores = critic.score("support", firsts, seconds)
    threshold = critic.threshold("support")
    cited: set[int] = set()
    for i in range(len(sentences)):
        row = scores[i * len(texts) : (i + 1) * len(texts)]
        best = max(range(len(texts)), key=lambda j: row[j])
        if row[best] >= threshold:
            cited.add(best + 1)
    return sorted(cited)
