"""Claim-level support: is each sentence of an answer stated by one passage of the documents?

A whole-answer term overlap passes "$11.7 billion in revenue" when the document says revenue was
$611 billion and net income $11.7 billion: every term is somewhere in it. So support is decided
per claim (a sentence of the answer, its citation markers removed) against single passages (a
document sentence with its neighbours, the document's first sentence and its metadata line):

- **anchors**: every figure, year and named entity of the claim must appear in that one passage,
  and most of the claim's content terms with them (``coverage``);
- **figures about the same thing**: a figure's *measure* is the words around it, in the claim
  (or, for a bare figure such as "$611 billion [1]", the question's words). Wherever the
  documents state the figure, the words around it there must match that measure, and no other
  figure of the same kind (money and counts, percentages, years) may match it better: a figure
  borrowed from a sentence about something else (net income for revenue, Sam's Club sales for
  Walmart's) loses to the figure the sentence is really about;
- **the question's years**: a year the question asks about must be stated by the document the
  claim is supported from (fiscal 2024 is not answered from the fiscal 2023 report).

Everything here is deterministic and cheap (no model): it is the groundedness signal of every
provider profile, and the verdict alone for the embedded model, whose own verdict says
"grounded" to nearly everything.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import simplemma

from selfrag.fencing import HIDDEN_METADATA
from selfrag.text import content_terms

__all__ = ["FILLER", "ClaimSupport", "Figure", "check_claims", "claim_score", "figures", "measure_match", "measured", "names", "split_claims", "split_sentences"]

_MARKER = re.compile(r"\s*\[\d{1,3}\]")
_MARKUP = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n\s*\n+|\n(?=\s*(?:[-*#(]|\d+\.))")
_SCALES = {
    "thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9, "trillion": 1e12, "tn": 1e12,
}
# A figure: optional currency, a number (thousands separators allowed), an optional scale or unit.
_FIGURE = re.compile(
    r"(?P<cur>[$€£¥])?\s?(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w.]\d)"
    r"(?:\s?(?P<unit>%|percent\b|per\s+cent\b|thousand\b|million\b|billion\b|trillion\b|bn\b|mn\b|tn\b))?",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"(?P<fig>" + _FIGURE.pattern + r")|(?P<word>[^\W\d_][\w'’\-]*)|(?P<stop>[.;:!?](?=\s|$)|\n\s*\n|\n\s*[-*#])", re.IGNORECASE)
_CONTEXT_BEFORE = 8
_CONTEXT_AFTER = 3
FILLER = frozenset(content_terms(
    "approximately about around roughly nearly almost over under more less than total totaling totalled "
    "was were reached stood came amounted year years fiscal figure number amount value thousand million billion "
    "trillion percent dollars dollar usd many much yes no report reported record posted company corporation inc group"
))
"""Words around a figure that say nothing about what it measures."""
_MONTHS = frozenset(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"]
)
_NOT_NAMES = frozenset(
    ["a", "an", "the", "in", "on", "at", "of", "for", "and", "or", "but", "if", "it", "its", "this", "that", "these", "those", "there", "here", "he", "she", "they", "we", "i", "you", "yes", "no", "not", "what", "which", "who", "when", "where", "why", "how", "during", "after", "before", "since", "until", "while", "with", "from", "by", "to", "as"]
)


@dataclass(frozen=True)
class Figure:
    """A number as written, with what it measures nearby."""

    value: float
    """In base units: "$611 billion" is 6.11e11."""
    step: float
    """Half the last written digit's place, scaled: "611 billion" is exact to ±0.5e9."""
    kind: str
    """``amount`` (money and counts), ``percent``, ``year`` or ``day`` (of a month)."""
    text: str
    context: frozenset[str]
    """Content terms of the words just before and after it, up to the next figure or clause end."""

    def same(self, other: Figure) -> bool:
        """Whether ``other`` states this figure (a rounded figure matches its more precise source)."""
        if self.kind != other.kind:
            return False
        return abs(self.value - other.value) <= self.step + 1e-9 * max(abs(self.value), 1.0)


def _figure(match: re.Match[str], context: frozenset[str]) -> Figure:
    raw = match.group("num")
    number = float(raw.replace(",", ""))
    decimals = len(raw.split(".", 1)[1]) if "." in raw else 0
    unit = (match.group("unit") or "").lower().replace(" ", "")
    scale = _SCALES.get(unit, 1.0)
    if unit == "%" or unit.startswith("per"):
        kind = "percent"
    elif not match.group("cur") and not unit and decimals == 0 and "," not in raw and 1000 <= number <= 2199:
        kind = "year"
    else:
        kind = "amount"
    return Figure(number * scale, 0.5 * 10 ** (-decimals) * scale, kind, match.group(0).strip(), context)


def figures(text: str) -> list[Figure]:
    """The figures of ``text``, each with the content terms around it as its measure."""
    tokens = list(_TOKEN.finditer(_MARKUP.sub("", text)))
    found: list[Figure] = []
    for i, tok in enumerate(tokens):
        if tok.group("fig") is None:
            continue
        words: list[str] = []
        for j in range(i - 1, max(-1, i - 1 - _CONTEXT_BEFORE), -1):
            if tokens[j].group("word") is None:
                break
            words.append(tokens[j].group("word"))
        for j in range(i + 1, min(len(tokens), i + 1 + _CONTEXT_AFTER)):
            if tokens[j].group("word") is None:
                break
            words.append(tokens[j].group("word"))
        context = frozenset(content_terms(" ".join(words)) - FILLER)
        sub = _FIGURE.fullmatch(tok.group("fig").strip()) or _FIGURE.search(tok.group("fig"))
        if sub is not None:
            figure = _figure(sub, context)
            beside = {tokens[j].group("word").lower() for j in (i - 1, i + 1) if 0 <= j < len(tokens) and tokens[j].group("word")}
            if figure.kind == "amount" and beside & _MONTHS:
                figure = Figure(figure.value, figure.step, "day", figure.text, context)  # "May 30": a date, not a quantity
            found.append(figure)
    return found


def names(text: str, *, initial: bool = False) -> set[str]:
    """Named entities, approximately: capitalised words other than function words. A sentence's
    first word counts only when it is not an ordinary English word, or with ``initial`` (a bare
    answer such as "Delhi" is a name wherever it stands)."""
    names: set[str] = set()
    for m in re.finditer(r"(?<![\w'’])([A-Z][\w'’\-]*)", text):
        word = m.group(1)
        if word.lower() in _NOT_NAMES:
            continue
        before = text[: m.start()].rstrip(" \"'(")
        starts = not before or before.endswith((".", "!", "?", ":", "\n"))
        base = re.sub(r"['’]s$", "", word).lower()
        if starts and not initial and simplemma.is_known(base, lang="en"):
            continue  # an ordinary word, capitalised because it starts a sentence ("Revenue was ...")
        names |= content_terms(word)
    return names


def split_sentences(text: str) -> list[str]:
    """Sentences: end punctuation then a capital, digit, quote or bracket; a paragraph break; or a
    line starting a bullet, heading or "(" (a single newline is a wrapped line). Fragments of two
    characters or less are dropped."""
    return [s.strip() for s in _SENTENCE.split(text) if len(s.strip()) > 2]


def split_claims(answer: str) -> list[str]:
    """The answer's sentences, citation markers and emphasis removed."""
    return split_sentences(_MARKUP.sub("", _MARKER.sub("", answer)))


@dataclass(frozen=True)
class ClaimSupport:
    """How one claim of an answer is (or is not) supported, for the trace."""

    claim: str
    supported: bool
    score: float
    """Content-term coverage in the best passage; 0 when an anchor or a figure's measure fails."""
    document: int | None
    """1-based number of the supporting document, None when no passage holds the anchors."""
    passage: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim, "supported": self.supported, "score": round(self.score, 3),
            "document": self.document, "passage": self.passage[:300], "reason": self.reason,
        }


@dataclass(frozen=True)
class _Passage:
    doc: int
    text: str
    terms: frozenset[str]
    figures: tuple[Figure, ...]


def _meta_line(doc: Mapping[str, Any]) -> str:
    meta = doc.get("metadata")
    if not isinstance(meta, Mapping):
        return ""
    return "; ".join(f"{k}: {v}" for k, v in sorted(meta.items()) if k not in HIDDEN_METADATA and v not in (None, ""))


def _dates(doc: Mapping[str, Any]) -> str:
    """The values of a document's date-like metadata (``fiscal_year``, ``release_date``...)."""
    meta = doc.get("metadata")
    if not isinstance(meta, Mapping):
        return ""
    return " ; ".join(str(v) for k, v in meta.items() if any(h in str(k).lower() for h in ("year", "date", "period")))


def _passages(documents: Sequence[Mapping[str, Any]]) -> tuple[list[_Passage], list[Figure]]:
    passages: list[_Passage] = []
    all_figures: list[Figure] = []
    for n, doc in enumerate(documents, start=1):
        text = _MARKUP.sub("", str(doc.get("text", "")))
        meta = _meta_line(doc)
        sentences = [" ".join(s.split()) for s in split_sentences(text)]
        meta_terms = content_terms(meta)
        meta_figures = tuple(figures(meta))  # "year: 1995" is stated by the document as much as its text
        sentence_figures = [figures(s) for s in sentences]
        for stated in sentence_figures:
            all_figures.extend(stated)
        head = sentences[0] if sentences else ""
        for i in range(len(sentences)):
            around = sentences[max(0, i - 1): i + 2]
            terms = content_terms(" ".join(around)) | content_terms(head) | meta_terms
            figs = tuple(f for k in range(max(0, i - 1), min(len(sentences), i + 2)) for f in sentence_figures[k]) + meta_figures
            passages.append(_Passage(n, " ".join(around), frozenset(terms), figs))
        if not sentences and meta:
            passages.append(_Passage(n, meta, frozenset(meta_terms), meta_figures))
    return passages, all_figures


def measure_match(measure: frozenset[str], figure: Figure) -> float:
    """How well the words around ``figure`` name ``measure``: Jaccard similarity, so "revenue"
    matches "total revenues of $212 billion" better than "Intelligent Cloud revenue was $88 billion"."""
    if not measure:
        return 1.0
    return len(measure & figure.context) / len(measure | figure.context)


_RANGE_WORDS = frozenset(
    ["after", "before", "since", "until", "till", "between", "to", "through", "over", "under", "than", "earlier",
     "later", "prior", "following", "and", "or"]
)
_RANGE_START = re.compile(r"\s*(?:-|–|to|until|till|through)\b", re.IGNORECASE)


def _asked_years(question: str) -> list[Figure]:
    """The years a question asks about as a point ("in fiscal year 2024"), not as a bound of a range
    ("after 1990 but before 2005", which the self-query's filter handles)."""
    asked: list[Figure] = []
    for m in re.finditer(r"(?<![\w.,])(1\d{3}|2[01]\d{2})(?![\w.,]\d)", question):
        before = [w.lower() for w in re.findall(r"[A-Za-z]+", question[: m.start()])[-2:]]
        opens_range = bool(before) and before[-1] == "from" and _RANGE_START.match(question, m.end()) is not None
        if not _RANGE_WORDS & set(before) and not opens_range:
            asked.extend(f for f in figures(m.group(1)) if f.kind == "year")
    return asked


def measured(figure: Figure, measures: Sequence[frozenset[str]], doc_figures: Sequence[Figure]) -> str | None:
    """Why ``figure`` is not stated about what it is said to measure, or None when it is.

    Each measure (the claim's own words around the figure, then the question's) is tried: the
    figure passes when, for one of them, the documents state it with those words around it at least
    as well as any other figure of its kind. It fails when the words point to another figure. When
    no figure of the documents is stated with those words at all, the check has nothing to say.
    """
    stated = [g for g in doc_figures if figure.same(g)]
    rivals = [g for g in doc_figures if g.kind == figure.kind and not figure.same(g)]
    blame: frozenset[str] | None = None
    for measure in measures:
        if not measure:
            continue
        here = max((measure_match(measure, g) for g in stated), default=0.0)
        better = max((measure_match(measure, g) for g in rivals), default=0.0)
        if here > 0.0 and here >= better:
            return None
        if better > here and blame is None:
            blame = measure
    if blame is None:
        return None
    return f"{figure.text} is not what the documents state for {', '.join(sorted(blame))}"


def check_claims(
    answer: str, documents: Sequence[Mapping[str, Any]], question: str | None = None, *, min_coverage: float = 0.5
) -> list[ClaimSupport]:
    """Per-claim support of ``answer`` by ``documents`` (see the module docstring).

    ``min_coverage`` only labels claims ``supported``; the score (coverage) is kept for thresholds.
    An answer without claims (empty, or only markers) yields no records.
    """
    passages, doc_figures = _passages(documents)
    meta_dates = [_dates(d) for d in documents]
    q_terms = content_terms(question or "")
    q_names = names(question or "")
    q_measure = frozenset(t for t in q_terms - q_names if not t[0].isdigit()) - FILLER
    q_years = _asked_years(question or "")
    out: list[ClaimSupport] = []
    for claim in split_claims(answer):
        terms = content_terms(claim) - FILLER
        if not terms and not figures(claim):
            out.append(ClaimSupport(claim, True, 1.0, None, "", "no content to check"))
            continue
        claim_figures = figures(claim)
        claim_names = names(claim) - {t for f in claim_figures for t in content_terms(f.text)}
        best: tuple[float, _Passage] | None = None
        for p in passages:
            if not claim_names <= p.terms:
                continue
            if not all(any(f.same(g) for g in p.figures) for f in claim_figures):
                continue
            coverage = len(terms & p.terms) / len(terms)
            if best is None or coverage > best[0]:
                best = (coverage, p)
        if best is None:
            missing = sorted(claim_names - set().union(*(p.terms for p in passages))) if passages else sorted(claim_names)
            unmatched = [f.text for f in claim_figures if not any(f.same(g) for g in doc_figures)]
            why = ", ".join([*unmatched, *missing]) or "its figures and names are not stated together"
            out.append(ClaimSupport(claim, False, 0.0, None, "", f"no passage states {why}"))
            continue
        coverage, passage = best
        reason = ""
        for f in claim_figures:
            if f.kind in ("year", "day"):
                continue  # dates are anchors (checked above), not measured quantities
            verdict = measured(f, [frozenset(f.context - q_names), q_measure], doc_figures)
            if verdict is not None:
                reason = verdict
                break
        if not reason and q_years:
            # A document whose metadata dates it (fiscal_year: 2023) concerns that year only: it
            # does not answer a question about another year, whatever its text mentions.
            dated = [f for f in figures(meta_dates[passage.doc - 1]) if f.kind == "year"]
            wanted = [y for y in q_years if not any(y.same(d) for d in dated)]
            if dated and wanted:
                reason = f"the supporting document concerns {', '.join(d.text for d in dated)}, not {', '.join(y.text for y in wanted)}"
        if reason:
            out.append(ClaimSupport(claim, False, 0.0, passage.doc, passage.text, reason))
            continue
        ok = coverage >= min_coverage
        out.append(ClaimSupport(
            claim, ok, coverage, passage.doc, passage.text,
            f"{coverage:.0%} of its terms in one passage" + ("" if ok else f" (below {min_coverage:.0%})"),
        ))
    return out


def claim_score(claims: Sequence[ClaimSupport]) -> float:
    """The weakest claim's score: an answer is as grounded as its least supported claim."""
    return min((c.score for c in claims), default=1.0)
