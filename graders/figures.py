"""The one deterministic guard left beside the critic: a figure in an answer must be in its source.

A trained critic reads "$11.7 billion in revenue" against a passage stating revenue of $611
billion and net income of $11.7 billion as nearly supported; no model of this size reliably
tells 611 from 616 either. Arithmetic does: every figure a claim states (an amount, a count, a
percentage, a year) must be stated by a passage the claim cites, equal within the precision it
was written with (the rounding rules: "$611 billion" is supported by "$611.2 billion", never
the other way round; "2.1 million" by "2,100,000").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from selfrag.lang import MAGNITUDES, UNITS
from selfrag.reading import sentence_spans
from selfrag.text import content_terms

__all__ = ["Figure", "codes", "figures", "nearer_figure", "other_year", "parallel_year", "unnamed_codes", "unnamed_phrases",
           "unsupported_figures"]

# A figure: optional currency, a number (thousands separators allowed), an optional scale or unit.
_FIGURE = re.compile(
    r"(?P<cur>[$€£¥])?\s?(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w.]\d)"
    r"(?:\s?(?P<unit>%|percent\b|per\s+cent\b|thousand\b|million\b|billion\b|trillion\b|bn\b|mn\b|tn\b))?",
    re.IGNORECASE,
)
_MARKER = re.compile(r"\[\d{1,3}\]")


@dataclass(frozen=True)
class Figure:
    """A number as written."""

    value: float
    """In base units: "$611 billion" is 6.11e11."""
    step: float
    """Half the last written digit's place, scaled: "611 billion" is exact to ±0.5e9."""
    percent: bool
    text: str

    def within(self, other: Figure) -> bool:
        """``other`` states this figure to this figure's own precision (and is the same kind)."""
        if self.percent != other.percent:
            return False
        return abs(self.value - other.value) <= self.step + 1e-9 * max(abs(self.value), 1.0)


def figures(text: str) -> list[Figure]:
    """The figures of ``text`` (citation markers are not figures)."""
    found = []
    for m in _FIGURE.finditer(_MARKER.sub(" ", text)):
        raw = m.group("num")
        number = float(raw.replace(",", ""))
        decimals = len(raw.split(".", 1)[1]) if "." in raw else 0
        unit = (m.group("unit") or "").lower().replace(" ", "")
        scale = MAGNITUDES.get(unit, 1.0)  # the pattern admits only scale words, never "k" or "m"
        percent = unit == "%" or unit.startswith("per")
        found.append(Figure(number * scale, 0.5 * 10 ** (-decimals) * scale, percent, m.group(0).strip()))
    return found


def unsupported_figures(claim: str, passages: list[str], *, held: Sequence[Figure] = ()) -> list[str]:
    """The figures of ``claim`` that none of ``passages`` states, as written in the claim.

    ``held``: figures a search filter holds (the bound of "acquired after 1990"): the documents it
    selected satisfy them without stating them, so a claim repeating one is not asked to.
    """
    stated = [f for p in passages for f in figures(p)]
    return [f.text for f in figures(claim) if not any(f.within(g) for g in [*stated, *held])]


# Where a sentence's clauses part: punctuation, and the words that join two statements of figures
# ("0.472, close to graph-based methods at 0.481", "41,000 in 2019 and 38,500 in 2018").
_CLAUSE = re.compile(r"[,;:](?!\d)|[()]|\b(?:while|whereas|but|versus|vs|against|compared|than|and)\b", re.IGNORECASE)
_YEAR_FIGURE = re.compile(r"(?:1[5-9]|20)\d\d")


_ORDINAL = re.compile(r"(?:st|nd|rd|th)\b", re.IGNORECASE)
_WORD_AFTER = re.compile(r"\s?([A-Za-z]+)")


def _kinds(text: str) -> list[tuple[Figure, tuple[bool, bool, str]]]:
    """The figures of ``text`` with their kind for telling near misses apart: a percentage, a year,
    and the dimension of the unit written after it ("554 ft" a length, "3 hours" a time). An
    ordinal ("10th tallest") is a rank, no figure of any kind."""
    out = []
    plain = _MARKER.sub(" ", text)
    for m in _FIGURE.finditer(plain):
        after = plain[m.end():]
        if _ORDINAL.match(after):
            continue
        figure = figures(m.group(0))[0]
        word = _WORD_AFTER.match(after)
        unit = UNITS.get(word.group(1).casefold()) if word is not None else None
        out.append((figure, (figure.percent, bool(_YEAR_FIGURE.fullmatch(figure.text)), unit.dimension if unit else "")))
    return out


def nearer_figure(question: str, answer: str, sentence: str) -> Figure | None:
    """A figure of ``sentence``, of the kind of the answer's, in a clause that shares more of the
    question's words than any clause stating the answer's figure does; None when there is none.

    "What Hits@10 do graph-based methods get?" read as the 0.472 of "Hits@10 reaches 0.472, close
    to graph-based methods at 0.481": the clause the question describes states another figure, so
    the reader's span is a near miss, however sure it is. A figure the question states ("in 2018")
    counts twice: it tells the clauses apart more than any word. Only withholds a signature: a
    clause no better than the answer's own leaves it standing.
    """
    stated = figures(answer)
    if not stated:
        return None
    asked = {t for t in content_terms(question) if not t[:1].isdigit()}
    # The figures the question writes as figures ("in 2018"), not the digits of a name ("Hits@10", "P-108").
    own = [f for word in question.split() for f in figures(word.strip(".,;:?!")) if f.text == word.strip(".,;:?!")]
    answer_figure = stated[0]
    # Its kind as the sentence writes it: "554" of "554 ft" is a length.
    kind = next((k for f, k in _kinds(sentence) if answer_figure.within(f) or f.within(answer_figure)), None)
    if kind is None:
        return None

    def score(clause: str) -> int:
        shared = asked & content_terms(clause)
        return len(shared) + 2 * sum(1 for f in figures(clause) if any(f.within(q) or q.within(f) for q in own))

    clauses = [c for c in _CLAUSE.split(sentence) if c and c.strip()]
    mine = [score(c) for c in clauses if any(answer_figure.within(f) or f.within(answer_figure) for f in figures(c))]
    if not mine:
        return None
    best: tuple[int, Figure] | None = None
    for clause in clauses:
        others = [f for f, k in _kinds(clause) if k == kind and not answer_figure.within(f)
                  and not f.within(answer_figure) and not any(f.within(q) for q in own)]
        if others and score(clause) > max(mine) and (best is None or score(clause) > best[0]):
            best = (score(clause), others[0])
    return None if best is None else best[1]


# A code: capitals and a number written as one name ("CHEM 210", "SR-71", "MBIO330", "A320").
_CODE = re.compile(r"\b(?P<letters>[A-Z]{2,6})(?P<sep>[ -]?)(?P<num>\d{1,5})\b|\b(?P<one>[A-Z])(?P<num1>\d{2,5})\b")
_WRITTEN_CODE = re.compile(r"(?<![A-Za-z])(?P<letters>[A-Za-z]{1,8})[ -]?(?P<num>\d{1,5})(?!\d)")
_YEAR = re.compile(r"(?:19|20)\d\d")


def codes(question: str) -> list[str]:
    """The codes ``question`` names, as written: capitals and a number that name one thing (a
    course, a part, a model). Not a year after capitals ("FY 2023"), nor a unit's or a currency's
    letters ("USD 500", "20 KG")."""
    found = []
    for m in _CODE.finditer(question):
        letters, num = (m.group("letters"), m.group("num")) if m.group("letters") else (m.group("one"), m.group("num1"))
        if letters.casefold() in UNITS or (m.group("sep") == " " and _YEAR.fullmatch(num)):
            continue
        found.append(m.group(0))
    return found


def _key(letters: str, num: str) -> str:
    return letters.casefold() + num.lstrip("0")


def unnamed_codes(question: str, passages: Sequence[tuple[str, Mapping[str, object]]]) -> list[str]:
    """The codes of ``question`` that none of ``passages`` (text and metadata) names, however it
    spaces them ("ASTR 210", "astr-210", "ASTR210" are one code). A number alone is the figure
    guard's: here the letters and the number must stand together, so "ASTR 210" never vouches for
    "CHEM 210"."""
    named: set[str] = set()
    for text, metadata in passages:
        values = [text, *(str(v) for value in metadata.values()
                          for v in (value if isinstance(value, list) else [value]))]
        for value in values:
            named.update(_key(m.group("letters"), m.group("num")) for m in _WRITTEN_CODE.finditer(value))
    missing = []
    for code in codes(question):
        m = _WRITTEN_CODE.search(code)
        if m is not None and _key(m.group("letters"), m.group("num")) not in named:
            missing.append(code)
    return missing


def unnamed_phrases(phrases: Sequence[str], passages: Sequence[tuple[str, Mapping[str, object]]]) -> list[str]:
    """The ``phrases`` (names the question writes, "Aurora Sport") that none of ``passages`` (text and
    metadata values) writes, up to case and spacing."""
    def squeeze(text: str) -> str:
        return " ".join(re.findall(r"\w+", text.casefold()))

    written = [squeeze(text) for text, _ in passages] + [
        squeeze(str(v)) for _, metadata in passages for value in metadata.values()
        for v in (value if isinstance(value, list) else [value])]
    return [p for p in phrases if not any(f" {squeeze(p)} " in f" {w} " for w in written)]


_YEARS = re.compile(r"(?<![\d.,])(?:1[89]\d\d|20\d\d)(?![\d.,]\d)")


def _words(sentence: str) -> set[str]:
    return {t for t in content_terms(sentence) if not any(ch.isdigit() for ch in t)}


def parallel_year(question: str, short: str, quote: str, passages: Sequence[str]) -> str | None:
    """A sentence of ``passages`` that states the same thing as the sentence of ``quote`` holding
    ``short`` (a figure) for another year, when the question writes none of that sentence's years
    (it may write the other's: "the KRT2 budget in 2024" read from the 2022 sentence):
    "Its budget for 2022 was 48,000 dollars" beside "The KRT2 budget for 2024 was 55,000 dollars",
    asked "the KRT2 budget in the year Mount Kelda erupted". Which year's figure answers is then
    the reader's guess. "The same thing": at least two content words in common, and every word of
    the question the quoted sentence has is in it too. None when there is no such sentence."""
    asked = figures(short)
    if not asked:
        return None
    question_words = _words(question)
    for sentence in sentence_spans(_MARKER.sub(" ", quote)):
        text = sentence.text
        if short.casefold() not in text.casefold():
            continue
        years = set(_YEARS.findall(text)) - set(_YEARS.findall(short))
        if not years or years & set(_YEARS.findall(question)):
            continue
        words = _words(text)
        needed = question_words & words
        for passage in passages:
            for other in sentence_spans(passage):
                others_years = set(_YEARS.findall(other.text))
                if not others_years or others_years & years or other.text.strip() == text.strip():
                    continue
                theirs = _words(other.text)
                stated = figures(_YEARS.sub(" ", other.text))
                if needed <= theirs and len(words & theirs) >= 2 and stated \
                        and not any(a.within(f) or f.within(a) for a in asked for f in stated):
                    return other.text.strip()
    return None


_FROM = frozenset({"since", "from", "after", "starting", "beginning"})
_UNTIL = frozenset({"before", "until", "till", "through", "to", "by", "up"})


def _covers(sentence: str, year: int) -> bool:
    """Whether a year of ``sentence`` (in, for, since, before, from … to …) takes in ``year``."""
    words = re.findall(r"[A-Za-z]+|\d{4}", sentence)
    years = [(i, int(w)) for i, w in enumerate(words) if w.isdigit() and _YEARS.fullmatch(w)]
    for k, (i, y) in enumerate(years):
        before = words[i - 1].casefold() if i > 0 else ""
        if before in _FROM:
            later = next((z for j, z in years[k + 1:] if j - i <= 3 and words[j - 1].casefold() in _UNTIL | {"and"}), None)
            if y <= year and (later is None or year <= later):
                return True
        elif before in _UNTIL:
            # "before 2023" leaves 2023 out; "until 2023", "through 2023" take it in
            if year < y or (year == y and before != "before"):
                return True
        elif y == year:
            return True
    return False


def other_year(question: str, short: str, quote: str) -> str | None:
    """The sentence of ``quote`` holding ``short`` (a figure) when it states the figure for years
    that leave out every year the question writes: asked "the notice period … in 2022", it reads
    "Since 2023 the notice period is 7 days". None when the question writes no year, the sentence
    none but the short answer's own, or one of them takes in a year asked."""
    asked = {int(y) for y in _YEARS.findall(question)}
    if not asked or not figures(short):
        return None
    own = set(_YEARS.findall(short))
    for sentence in sentence_spans(re.sub(r"\s*\[\d{1,3}\]", "", quote)):
        text = sentence.text
        if short.casefold() not in text.casefold():
            continue
        stated = set(_YEARS.findall(text)) - own
        if stated and not any(_covers(_YEARS.sub(lambda m: m.group() if m.group() not in own else " ", text), y) for y in asked):
            return text.strip()
    return None
