"""Matching a string against an attribute's known values without snapping to the wrong entity.

Both the LLM and the rules produce strings that should equal a stored metadata value exactly,
since Chroma compares strings byte for byte. We therefore map a string onto a known value when
it is the same value written differently: other case or accents, an inflection ("comedies"), an
abbreviation ("sci-fi"), a typo ("Cristopher Nolan"), or an unambiguous surname ("Nolan").

A plain fuzzy ratio is not enough for the typo case: "Luc Besson" scores 91 against a
hypothetical "Luc Bessonne", and names of different people often share a first name. So a typo
match also needs every word to be within a small edit distance of its counterpart, scaled by the
word's length (short words must match exactly).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

from selfrag.lang import is_word, lemma, normalise, stem, word_set
from selfrag.lang.dates import MONTHS

__all__ = ["KnownMatch", "KnownValues", "accent_only", "month_forms", "same_entity"]

_YEAR_MONTH = re.compile(r"((?:1[89]|20)\d\d)-(0[1-9]|1[0-2])")


def month_forms(value: str) -> list[str]:
    """How a question writes a month a value holds as "YYYY-MM" ("2022-12": "december 2022",
    "dec 2022", "sept 2022" too), normalised; none for any other value."""
    m = _YEAR_MONTH.fullmatch(value.strip())
    if m is None:
        return []
    return [f"{name} {m.group(1)}" for name, number in MONTHS.items() if number == int(m.group(2))]

MatchKind = Literal["exact", "inflection", "abbreviation", "typo", "part", "surname"]

_TYPO_CUTOFF = 90.0
_DERIVATIONS = word_set("derivations")


@dataclass(frozen=True)
class KnownMatch:
    """A known value that a string was matched to, and how."""

    value: str
    """The known value, spelled as stored."""
    how: MatchKind
    """Which rule matched; ``exact`` covers case, accent and punctuation differences."""


def _allowed_edits(length: int) -> int:
    return 0 if length <= 4 else 1 if length <= 8 else 2


def _tokens_close(a: list[str], b: list[str]) -> bool:
    return all(Levenshtein.distance(x, y) <= _allowed_edits(max(len(x), len(y))) for x, y in zip(a, b, strict=False))


def same_entity(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by no more than a typo in each word (word order free)."""
    ta, tb = normalise(a).split(), normalise(b).split()
    if not ta or len(ta) != len(tb):
        return False
    return _tokens_close(ta, tb) or _tokens_close(sorted(ta), sorted(tb))


def _raw(text: str) -> str:
    """``text`` folded, its spaces dropped and its punctuation kept ("A +" and "a+" alike)."""
    return re.sub(r"\s+", "", text.casefold()).replace("\u2212", "-")


class KnownValues:
    """An index over one attribute's known values, built once per question."""

    def __init__(self, values: Iterable[str]) -> None:
        self.values: list[str] = []
        self.by_norm: dict[str, str] = {}
        self.by_stem: dict[str, set[str]] = defaultdict(set)
        self.by_lemma: dict[str, set[str]] = defaultdict(set)
        self.by_last: dict[str, set[str]] = defaultdict(set)
        self.max_words = 0
        self._by_shape: dict[tuple[int, str], list[list[str]]] = defaultdict(list)
        # Values that differ only by a sign or other punctuation ("A+" and "A-"): normalised alike,
        # so each is known only as written.
        self.by_raw: dict[str, str] = {}
        self.collided: set[str] = set()
        for v in values:
            norm = normalise(v)
            if norm and self.by_norm.get(norm, v) != v and _raw(self.by_norm[norm]) != _raw(v):
                self.collided.add(norm)
            self.by_raw.setdefault(_raw(v), v)
            if not norm or norm in self.by_norm:
                continue
            toks = norm.split()
            self.values.append(v)
            self.by_norm[norm] = v
            self.by_stem[" ".join(stem(t) for t in toks)].add(v)
            self.by_lemma[" ".join(lemma(t) for t in toks)].add(v)
            written = v.split()
            if len(toks) > 1 and len(toks[-1]) >= 3 and written and written[-1][:1].isupper():
                # A surname is capitalised ("Christopher Nolan"); a title's last word ("retrying
                # payment") names nothing by itself.
                self.by_last[toks[-1]].add(v)
            self.max_words = max(self.max_words, len(toks))
            self._by_shape[(len(toks), toks[0][0])].append(toks)
        for v in list(self.values):
            # "December 2022" of a month billed "2022-12": the value as a question writes it.
            for form in month_forms(v):
                self.by_norm.setdefault(form, v)
                self.max_words = max(self.max_words, 2)
        self._norms = list(self.by_norm)

    def __len__(self) -> int:
        return len(self.values)

    def exact(self, text: str) -> KnownMatch | None:
        """Same value up to case, accents, punctuation or an inflection of its words."""
        norm = normalise(text)
        if norm in self.collided:
            return KnownMatch(self.by_raw[_raw(text)], "exact") if _raw(text) in self.by_raw else None
        if norm in self.by_norm:
            return KnownMatch(self.by_norm[norm], "exact")
        toks = norm.split()
        for key, index in ((" ".join(stem(t) for t in toks), self.by_stem), (" ".join(lemma(t) for t in toks), self.by_lemma)):
            hits = index.get(key, set())
            if len(hits) == 1:
                return KnownMatch(next(iter(hits)), "inflection")
        if len(toks) == 1 and len(toks[0]) >= 6:
            # A derived word: "contractor" for "contract", "Italians" for "italian".
            stems = {v for n, v in self.by_norm.items() if " " not in n and len(n) >= 5 and toks[0].startswith(n)
                     and toks[0][len(n):] in _DERIVATIONS}
            if len(stems) == 1:
                return KnownMatch(stems.pop(), "inflection")
        return None

    def abbreviation(self, text: str) -> KnownMatch | None:
        """Every word a prefix of the value's word, as in "sci-fi" for "science fiction"; unique only."""
        toks = normalise(text).split()
        if len(toks) < 2 or len(toks[0]) < 3:
            return None
        hits = {
            self.by_norm[" ".join(ns)]
            for ns in self._by_shape.get((len(toks), toks[0][0]), [])
            if all(w.startswith(t) for t, w in zip(toks, ns, strict=False)) and ns != toks
        }
        return KnownMatch(hits.pop(), "abbreviation") if len(hits) == 1 else None

    def typo(self, text: str) -> KnownMatch | None:
        """A high fuzzy score *and* a typo-sized difference in every word; ties are ambiguous."""
        norm = normalise(text)
        if not norm or not self._norms:
            return None
        found = process.extract(norm, self._norms, scorer=fuzz.token_sort_ratio, score_cutoff=_TYPO_CUTOFF, limit=5)
        close = [(n, score) for n, score, _ in found if same_entity(norm, n)]
        if not close:
            return None
        best = max(score for _, score in close)
        winners = {self.by_norm[n] for n, score in close if score == best}
        return KnownMatch(winners.pop(), "typo") if len(winners) == 1 else None

    def part(self, text: str) -> KnownMatch | None:
        """Two or more words that all belong to exactly one value ("Kenji Lopez-Alt" for "J. Kenji López-Alt")."""
        words = normalise(text).split()
        toks = set(words)
        if len(toks) < 2 or any(words.count(w) > 1 and len(w) > 3 for w in toks):
            return None  # "Owen Price's price": a word twice is the name and another word, no part of it
        hits = {v for n, v in self.by_norm.items() if toks <= set(n.split()) and len(n.split()) > len(toks) - 1}
        return KnownMatch(hits.pop(), "part") if len(hits) == 1 else None

    def surname(self, text: str) -> KnownMatch | None:
        """The last word (up to a typo) of exactly one multi-word value: "Nolan" for "Christopher Nolan"."""
        toks = normalise(text).split()
        if len(toks) != 1:
            return None
        hits = self.by_last.get(toks[0]) or {v for last, vs in self.by_last.items() if same_entity(last, toks[0]) for v in vs}
        return KnownMatch(next(iter(hits)), "surname") if len(hits) == 1 else None

    def match(self, text: str, *, loose: bool = True) -> KnownMatch | None:
        """Try each rule from the strictest; ``loose=False`` stops after exact and inflection."""
        found = self.exact(text)
        if found or not loose:
            return found
        return self.abbreviation(text) or self.typo(text) or self.surname(text)


def accent_only(written: str, value: str) -> bool:
    """Whether ``written``, a lowercase English word ("part"), matches ``value`` only once its accents
    are dropped ("Pärt"): the word, not the name."""
    return (written.islower() and written.casefold() != value.casefold() and normalise(written) == normalise(value)
            and is_word(written))
