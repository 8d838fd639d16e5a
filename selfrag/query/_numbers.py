"""Numbers as people write them in questions, with the unit or noun that follows them.

"$150k", "150K", "1.2 million", "100 grand", "half a million", "70€", "1,500", "two hours",
"twenty five", "half an hour", "a dozen", "5+", "4-star", "one-bedroom", "500 m". Each becomes a
:class:`Number`: its value (scaled), where it is, its currency, and the unit or noun written after
it (kept as a folded form so the caller can link it to an attribute: "bedrooms", "cals", "km").
Number words are composed by text2num ("two hundred thousand" → 200000).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from text_to_num import text2num

from selfrag.lang import MAGNITUDES, NUMBER_WORDS, QUERY_STOP, UNITS, Token, lemma, tokenize
from selfrag.lang.dates import MONTHS
from selfrag.query._lexicon import CUES, POSTFIX

__all__ = ["Number", "find_numbers"]

_DIGITS = re.compile(
    # Never the start of a dotted code ("1.2.3", a version): that is no number "1.2".
    r"(?<![\w.,])(?P<cur>[$€£¥]\s?)?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?!\.?\d)"
    r"(?:\s?(?P<mag>k|K|mm|MM|bn|BN|M|m|b|B|mil|mio)(?![\w]))?(?P<cur2>\s?[$€£¥])?(?P<plus>\+)?"
)
_CURRENCY = {"$", "€", "£", "¥"}
_DEGREES = re.compile(r"\s?[°º]\s?([CcFf])\b")
_AND_A_HALF = re.compile(r"\s+and\s+a\s+half\b", re.IGNORECASE)
_CUE_ENDS = frozenset(c.split()[-1] for c in CUES)
_MULTIWORD_UNITS = sorted((k for k in UNITS if " " in k), key=len, reverse=True)


@dataclass(frozen=True)
class Number:
    """One number in a question."""

    value: float
    start: int
    end: int
    """The span of the number itself, currency sign and scale included."""
    unit: str | None = None
    """The folded unit or noun written right after it ("hour", "$", "star", "bedroom", "km"), or None."""
    unit_end: int = -1
    """Where the number with its unit ends (``end`` when there is no unit)."""
    money: bool = False
    """A currency sign or word, or a money scale ("grand"), came with it."""
    plus: bool = False
    """Written "5+"."""
    year_like: bool = False
    """Four plain digits that can be a calendar year."""
    scaled: bool = False
    """A scale came with it ("150k", "1.2 million"): not a year, not a small count."""

    @property
    def stop(self) -> int:
        return max(self.end, self.unit_end)


def _tokens_after(tokens: list[Token], end: int) -> list[Token]:
    return [t for t in tokens if t.start >= end]


def _unit_after(question: str, tokens: list[Token], end: int) -> tuple[str | None, int, bool]:
    """(unit, end of unit, is money) for the words right after ``end`` (a hyphen may join them)."""
    if (degrees := _DEGREES.match(question, end)) is not None:
        # "-0.5 °C", "30°F": the tokenizer keeps no "°", only the scale's letter after it.
        return ("celsius" if degrees.group(1) in "cC" else "fahrenheit"), degrees.end(), False
    rest = _tokens_after(tokens, end)
    if not rest or question[end : rest[0].start].strip(" -–") != "":
        return None, end, False
    folded = " ".join(t.norm for t in rest[:3])
    for key in _MULTIWORD_UNITS:
        words = key.split()
        if folded.split()[: len(words)] == words or [lemma(w) for w in folded.split()[: len(words)]] == words:
            return key, rest[len(words) - 1].end, UNITS[key].dimension == "money"
    first = rest[0]
    if first.norm in MAGNITUDES:
        return first.norm, first.end, first.norm == "grand"
    if first.norm in NUMBER_WORDS or first.norm.isdigit() or first.norm in QUERY_STOP or first.norm in POSTFIX:
        return None, end, False
    key = first.norm if first.norm in UNITS else first.lemma
    return key, first.end, key in UNITS and UNITS[key].dimension == "money"


def _word_numbers(question: str, tokens: list[Token]) -> list[tuple[float, int, int]]:
    """Runs of number words ("twenty five", "a hundred", "half a million", "a dozen")."""
    found: list[tuple[float, int, int]] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        j = i
        parts: list[str] = []
        half = False
        if t.norm == "half" and i + 1 < len(tokens) and tokens[i + 1].norm in ("a", "an"):
            half, j = True, i + 2
        elif t.norm in ("a", "an") and i + 1 < len(tokens) and tokens[i + 1].norm in ("hundred", "thousand", "million", "billion", "dozen", "couple", "pair"):
            j = i + 1
        while j < len(tokens) and (tokens[j].norm in NUMBER_WORDS or (parts and tokens[j].norm == "and" and j + 1 < len(tokens) and tokens[j + 1].norm in NUMBER_WORDS and tokens[j + 1].norm not in ("dozen", "couple", "pair", "single"))):
            parts.append(tokens[j].norm)
            j += 1
            if parts[-1] in ("dozen", "couple", "pair", "single"):
                break
        if parts == ["one"] and ((i > 0 and tokens[i - 1].norm in _PRONOUN_ONE) or (j < len(tokens) and tokens[j].norm == "of")):
            # "Which one cost the most?", "the one in Leeds", "one of the SEV1 incidents": a
            # pronoun, no figure (it was read as a cost of 1).
            i += 1
            continue
        if parts:
            if parts[-1] == "couple" and j < len(tokens) and tokens[j].norm == "of":
                j += 1
            value = _compose(parts)
            if value is not None:
                end = tokens[j - 1].end
                found.append((value * (0.5 if half else 1), t.start, end))
                i = j
                continue
        if half:
            # "half an hour": a half of one unit.
            found.append((0.5, t.start, tokens[i + 1].end))
            i += 2
            continue
        i += 1
    return found


_PRONOUN_ONE = frozenset({"which", "what", "this", "that", "the", "each", "every", "any", "no", "another", "whichever"})
"""Words before a lone "one" that make it a pronoun ("which one", "the one"), not the figure 1."""


def _compose(parts: list[str]) -> float | None:
    if len(parts) == 1:
        return float(NUMBER_WORDS[parts[0]])
    if parts[-1] in ("dozen", "couple", "pair", "single"):
        return None
    try:
        return float(text2num(" ".join(parts), "en"))
    except ValueError:
        return None


@dataclass
class _Draft:
    """A number being read: its value and where it ends, then what follows it."""

    value: float
    end: int
    unit: str | None = None
    unit_end: int = -1
    money: bool = False
    scaled: bool = False

    def read_unit(self, question: str, tokens: list[Token], at: int | None = None) -> None:
        self.unit, self.unit_end, money = _unit_after(question, tokens, self.end if at is None else at)
        self.money = self.money or money

    def scale_word(self, question: str, tokens: list[Token]) -> None:
        """A scale word after the number: "150 thousand", "100 grand" ("m" and "b" alone are units,
        and "mm" is millimetres but after money: "$5 mm")."""
        if self.unit in MAGNITUDES and not self.scaled and self.unit not in ("m", "b") \
                and not (self.unit == "mm" and not self.money):
            self.value *= MAGNITUDES[self.unit]
            self.scaled = True
            self.money = self.money or self.unit == "grand"
            self.end = self.unit_end
            self.read_unit(question, tokens)

    def and_a_half(self, question: str, tokens: list[Token]) -> None:
        """ "2 and a half hours", "an hour and a half": the unit may come after the half."""
        half = _AND_A_HALF.match(question, self.unit_end if self.unit else self.end)
        if half is None:
            return
        self.value += 0.5
        if self.unit is None:
            self.read_unit(question, tokens, half.end())
            self.end = half.end() if self.unit is None else self.end
        self.unit_end = max(self.unit_end, half.end())

    def number(self, start: int, *, plus: bool = False, year_like: bool = False) -> Number:
        return Number(self.value, start, self.end, self.unit, self.unit_end if self.unit else self.end, self.money,
                      plus, year_like, self.scaled)  # fmt: skip


def _digit_number(m: re.Match[str], question: str, tokens: list[Token]) -> Number:
    raw, mag = m.group("num"), m.group("mag")
    d = _Draft(float(raw.replace(",", "")), m.end("num"), money=bool(m.group("cur") or m.group("cur2")))
    # "500 m" is metres and "1500 mm" millimetres; "$2m", "2M" and "$5mm" millions.
    metres = mag in ("m", "mm") and not d.money
    if mag and not metres:
        d.value *= MAGNITUDES.get(mag.lower(), 1.0)
        d.scaled = True
        d.end = m.end("mag")
    d.end = m.end("plus") if m.group("plus") else m.end("cur2") if m.group("cur2") else d.end
    d.read_unit(question, tokens)
    if metres and d.unit in (mag, None):  # "1500mm" is one token: its unit is the magnitude's letters
        d.unit, d.unit_end = mag, m.end("mag")
    d.scale_word(question, tokens)
    if not d.scaled:
        d.and_a_half(question, tokens)
    year_like = not d.scaled and not d.money and raw.isdigit() and len(raw) == 4 and 1000 <= d.value <= 2999
    start = m.start("cur") if m.group("cur") else m.start("num")
    if _signed(question, start):
        # "below -0.5 °C": the minus sign is the figure's; not a hyphen ("COVID-19", "2023-24").
        d.value, start, year_like = -d.value, start - 1, False
    return d.number(start, plus=bool(m.group("plus")), year_like=year_like)


def _signed(question: str, start: int) -> bool:
    """Whether a minus sign written right before the figure at ``start`` is its sign: after a space,
    an opening bracket or the question's start, not after a word or a figure."""
    return start > 0 and question[start - 1] in "-−" and (start == 1 or question[start - 2].isspace()
                                                           or question[start - 2] in "([:=<>≤≥")


def _article_units(question: str, tokens: list[Token], numbers: list[Number]) -> list[Number]:
    """ "under an hour", "within a mile": one unit, written with an article after a cue."""
    found = []
    for i, t in enumerate(tokens[:-1]):
        nxt = tokens[i + 1]
        if (i > 0 and tokens[i - 1].norm not in _CUE_ENDS) or t.norm not in ("a", "an"):
            continue
        if nxt.lemma in UNITS and UNITS[nxt.lemma].dimension in ("time", "length", "weight"):
            if not any(t.start < n.stop and n.start < nxt.end for n in numbers):
                half = _AND_A_HALF.match(question, nxt.end)  # "an hour and a half"
                found.append(Number(1.5 if half else 1.0, t.start, t.end, nxt.lemma, half.end() if half else nxt.end))
    return found


_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_ISO_DAY = re.compile(rf"(?<![\w-])\d{{4}}-\d{{2}}-\d{{2}}(?![\w-])|\b(?:{_MONTH})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b"
                      rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH})\.?,?\s+\d{{4}}\b", re.IGNORECASE)
"""A day written whole, "2024-01-18", "June 30, 2026" or "1 October 2024": the date readers'."""


def find_numbers(question: str) -> list[Number]:
    """Every number in ``question``, in order, with its scale, currency and following unit."""
    tokens = tokenize(question)
    # A day written whole ("2024-01-18", "June 30, 2026") is the date readers': no year, month and
    # day apart ("delivered on 2024-01-18" is no range of tonnes from 1 to 2,024, "June 30, 2026"
    # no years 30 and 2026).
    days = [m.span() for m in _ISO_DAY.finditer(question)]
    numbers = [_digit_number(m, question, tokens) for m in _DIGITS.finditer(question)
               if not any(a <= m.start() < b for a, b in days)]
    taken = [(n.start, n.stop) for n in numbers] + days
    for value, start, end in _word_numbers(question, tokens):
        if any(start < e and s < end for s, e in taken):
            continue
        d = _Draft(value, end)
        d.read_unit(question, tokens)
        d.scale_word(question, tokens)
        if d.value < 1000:
            d.and_a_half(question, tokens)
        d.scaled = d.value >= 1000
        numbers.append(d.number(start))
    numbers += _article_units(question, tokens, numbers)
    return sorted(numbers, key=lambda n: n.start)
