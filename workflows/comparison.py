"""Comparison questions answered by arithmetic: each side's figure read, the two compared in code.

"Which band was formed first, Loudspeakers or Marcy Playground?" or "Did Ashford or Brayton have
more residents in 2022?" name two alternatives and a comparative. A reader asked the question as
a whole must pick a name from the passages, and a small one picks the name it saw nearest the
question's words. Here the question is taken apart instead:

1. ``parse_comparison`` finds the two alternatives ("…, A or B?", "Was A or B …?") and the
   comparative, which says what is compared (a time: first, older, later…; an amount: more, larger,
   fewer…) and which way;
2. ``read_comparison`` asks the reader one plain question per alternative ("When was Loudspeakers
   formed?", "How many residents did Ashford have in 2022?"), reads a date or an amount out of
   each short answer, and compares the two in code;
3. the answer names the winner and cites both figures, each with its own document:
   "Marcy Playground. Marcy Playground: 1994 [2]; Loudspeakers: 1998 [1]." Its probability is the
   smaller of the two readings', since both must be right.

Two more shapes: one thing at two times or places ("Did the festival draw more people in 2021 or
in 2022?": the years are the alternatives, each side asks "How many people did the festival draw
in 2021?"), and a comparative whose measure is its verb ("Which costs more per year, A or B?":
"How much does A cost per year?"). An alternative that leaves out words the other states ("a
Zone B or a Zone D resident permit") takes them ("a Zone B resident permit").

A comparative that names its own measure asks each side that measure: "Which ferry is longer, A or
B?" asks "How long is A?", "Is A or B cheaper?" asks what each costs (``_OWN_MEASURE``). "In 2019,
did more people visit A or B?" asks "How many people visited A in 2019?".

A side's figure must be about that side (``_about``): read from a sentence naming it, or naming
neither side and following one whose subject is that side ("It opened in 1974."). Amounts of
different kinds are not compared: money against a count, metres against hours (``_same_kind``).

Anything it cannot do this way (no figure read, figures of different kinds, a tie, a comparative
whose measure is not said: "which is larger, A or B?", by population or by area) returns None and
the question is read whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from graders.figures import figures
from selfrag.reading import Reader, Reading, sentence_spans

__all__ = ["Comparison", "ComparedAnswer", "alternatives", "names_one_of", "parse_comparison", "read_comparison",
           "readings"]

Dimension = Literal["time", "amount"]

# The comparative words of English grammar and what they compare. A closed class, not a domain
# list: a question comparing by any other word is read whole.
_COMPARATIVES: dict[str, tuple[Dimension, int]] = {
    # time, earliest wins (-1) or latest wins (+1)
    "first": ("time", -1), "earlier": ("time", -1), "earliest": ("time", -1), "older": ("time", -1),
    "oldest": ("time", -1), "sooner": ("time", -1), "before": ("time", -1),
    "later": ("time", 1), "latest": ("time", 1), "last": ("time", 1), "newer": ("time", 1),
    "newest": ("time", 1), "younger": ("time", 1), "youngest": ("time", 1), "recent": ("time", 1),
    # amount, largest wins (+1) or smallest wins (-1)
    "more": ("amount", 1), "most": ("amount", 1), "greater": ("amount", 1), "greatest": ("amount", 1),
    "larger": ("amount", 1), "largest": ("amount", 1), "bigger": ("amount", 1), "biggest": ("amount", 1),
    "higher": ("amount", 1), "highest": ("amount", 1), "longer": ("amount", 1), "longest": ("amount", 1),
    "taller": ("amount", 1), "tallest": ("amount", 1), "heavier": ("amount", 1), "heaviest": ("amount", 1),
    "wider": ("amount", 1), "widest": ("amount", 1), "deeper": ("amount", 1), "deepest": ("amount", 1),
    "less": ("amount", -1), "least": ("amount", -1), "fewer": ("amount", -1), "fewest": ("amount", -1),
    "smaller": ("amount", -1), "smallest": ("amount", -1), "lower": ("amount", -1), "lowest": ("amount", -1),
    "shorter": ("amount", -1), "shortest": ("amount", -1), "lighter": ("amount", -1), "lightest": ("amount", -1),
    "narrower": ("amount", -1), "narrowest": ("amount", -1), "shallower": ("amount", -1),
    "cheaper": ("amount", -1), "cheapest": ("amount", -1), "dearer": ("amount", 1), "dearest": ("amount", 1),
    "faster": ("amount", 1), "fastest": ("amount", 1), "slower": ("amount", -1), "slowest": ("amount", -1),
}
# A comparative that names its own measure ("which is longer, A or B?" asks each side's length),
# as the question that reads it: the adjective's plain degree ("How long is A?"), or for a price
# "How much does A cost?". Not "larger", "bigger", "higher": a town is larger by its population or
# by its area, and which one the question means is not said.
_OWN_MEASURE: dict[str, str] = {
    "longer": "long", "longest": "long", "shorter": "long", "shortest": "long",
    "taller": "tall", "tallest": "tall", "heavier": "heavy", "heaviest": "heavy", "lighter": "heavy",
    "lightest": "heavy", "wider": "wide", "widest": "wide", "narrower": "wide", "narrowest": "wide",
    "deeper": "deep", "deepest": "deep", "shallower": "deep", "faster": "fast", "fastest": "fast",
    "slower": "fast", "slowest": "fast",
    "cheaper": "cost", "cheapest": "cost", "dearer": "cost", "dearest": "cost", "expensive": "cost",
}
_AUX = ("was", "were", "is", "are", "did", "does", "do", "has", "had", "have")
_PAST = {"was", "were", "did", "had"}
_WH = ("which", "who", "what", "whose")
# "…, A or B?" / "…: A or B?" / "…, between A and B?"
_TRAILING = re.compile(r"^(?P<head>.+?)\s*[,:;]\s*(?:(?P<a>[^,;:?]+?),?\s+or|between\s+(?P<a2>[^,;:?]+?)\s+and)"
                       r"\s+(?P<b>[^,;:?]+?)\s*\?*\s*$", re.IGNORECASE)
# "Was A or B founded first?": the alternatives right after the auxiliary, B a run of capitalised
# words (so the case of the rest matters: no IGNORECASE but for the auxiliary)
_LEADING = re.compile(r"^(?P<aux>(?i:" + "|".join(_AUX) + r"))\s+(?P<a>.+?)\s+or\s+"
                      r"(?P<b>(?:the\s+)?[A-Z0-9][\w'&.-]*(?:\s+(?:of|the|and|de|[A-Z0-9][\w'&.-]*))*)"
                      r"(?P<rest>(?:\s+[^?]*)?)\?*\s*$")
# "Did the festival draw more people in 2021 or in 2022?": one thing at two times (or places), the
# alternatives after a preposition; the head must start with an auxiliary (a yes/no form).
_QUALIFIED = re.compile(r"^(?P<head>(?i:" + "|".join(_AUX) + r")\s.+?)\s+(?P<prep>in|at|on|during|for)\s+"
                        r"(?P<a>[^,;:?]+?)\s+or\s+(?:(?P=prep)\s+)?(?P<b>[^,;:?\s]+(?:\s+[^,;:?\s]+){0,3})\s*\?*\s*$")
# "Who is older Glenn Hughes or Ross Lynch?": the alternatives straight after the comparative, no
# comma between; the first alternative must start as a name does (a capital, a digit or "the"),
# so "which is the older university, …" is not read as comparing "university X".
_BARE = re.compile(r"^(?P<head>(?i:which|who|what|whose)\b.*?\b(?i:" + "|".join(sorted(_COMPARATIVES, key=len, reverse=True))
                   + r"))\s+(?P<a>(?:the\s+)?[A-Z0-9][^,;:?]*?)\s+or\s+(?P<b>[^,;:?]+?)\s*\?*\s*$")
_WH_START = re.compile(r"^\s*(?:which|who|whom|whose|what)\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_PREPOSITIONS = ("in", "on", "at", "during", "by", "for", "over", "from", "between", "since", "per", "each", "every")
_COMPARATIVE_WORDS = "|".join(sorted(_COMPARATIVES, key=len, reverse=True))
# "Is the standard or the off-peak membership cheaper each month?": the alternatives right after the
# auxiliary and the comparative right after them, so the second alternative ends where the
# comparative begins, whatever its case.
_LEADING_THEN_COMPARATIVE = re.compile(r"^(?P<aux>" + "|".join(_AUX) + r")\s+(?P<a>[^,;:?]+?)\s+or\s+"
                                       r"(?P<b>[^,;:?]+?)\s+(?P<rest>(?:" + _COMPARATIVE_WORDS + r")\b[^,;:?]*)\?*\s*$",
                                       re.IGNORECASE)
# "In 2019, did more people visit A or B?": more or fewer of something doing something to each.
_MORE_DOING = re.compile(r"^(?:(?P<pre>[^,;:?]{1,40}),\s*)?(?P<aux>did|do|does)\s+(?P<cmp>more|fewer)\s+"
                         r"(?P<noun>[a-z]+)\s+(?P<verb>[a-z]+)\s+(?P<a>[^,;:?]+?)\s+or\s+(?P<b>[^,;:?]+?)\s*\?*\s*$",
                         re.IGNORECASE)


@dataclass(frozen=True)
class Comparison:
    """A question comparing two alternatives."""

    a: str
    b: str
    dimension: Dimension
    direction: int
    """+1: the larger (or later) wins; -1: the smaller (or earlier)."""
    questions: tuple[str, ...]
    """The question to ask of each alternative, with ``{}`` where its name goes (tried in order)."""
    qualified: bool = False
    """One thing at two times or places ("… more people in 2021 or in 2022?"): both figures are
    often stated in one sentence, so a side may take the reader's second answer (``_PER_SIDE``)."""


@dataclass(frozen=True)
class ComparedAnswer:
    winner: str
    answer: str
    citations: list[int]
    probability: float


def _words(text: str) -> list[str]:
    return re.findall(r"[\w'’-]+", text)


def _elided(a: str, b: str) -> str:
    """``a`` completed with the words ``b`` shares and ``a`` left out: in "a Zone B or a Zone D
    resident permit" the first alternative is "a Zone B resident permit"."""
    wa, wb = a.split(), b.split()
    if len(wb) > len(wa) >= 2 and [w.lower() for w in wa[:-1]] == [w.lower() for w in wb[: len(wa) - 1]]:
        return " ".join([*wa, *wb[len(wa):]])
    return a


def _parse_qualified(q: str) -> Comparison | None:
    """One thing compared at two times or places ("Was the unemployment rate higher in 2019 or
    2020?"): the alternatives are the qualifiers, each side asked about the thing at one of them."""
    m = _QUALIFIED.match(q)
    if m is None:
        return None
    words = _words(m.group("head"))
    lowered = [w.lower() for w in words]
    found = [i for i, w in enumerate(lowered) if w in _COMPARATIVES and i > 0]
    if not found or _COMPARATIVES[lowered[found[0]]][0] != "amount":
        return None
    at = found[0]
    aux, middle, measure = lowered[0], " ".join(words[1:at]), " ".join(words[at + 1:])
    prep, a, b = m.group("prep").lower(), m.group("a").strip(), m.group("b").strip()
    if not middle and not measure:
        return None
    own = _OWN_MEASURE.get(lowered[at])
    if own is None and lowered[at] in ("more", "most", "less", "least") and at + 1 < len(lowered):
        own = _OWN_MEASURE.get(lowered[at + 1])  # "more expensive", "less costly": a measure of its own
    if own == "cost":
        verb = "did" if aux in _PAST else "do" if aux in ("are", "do", "have") else "does"
        asked = f"How much {verb} {middle} cost {prep} {{}}?"
    elif own is not None and middle:
        asked = f"How {own} {aux} {middle} {prep} {{}}?"
    elif measure and lowered[at] in ("more", "most", "fewer", "fewest"):
        asked = f"How many {measure} {aux} {middle} {prep} {{}}?" if middle else f"How many {measure} {prep} {{}}?"
    elif measure:
        asked = f"What {aux} the {measure} of {middle} {prep} {{}}?" if middle else f"What {aux} the {measure} {prep} {{}}?"
    else:
        asked = f"What {aux} {middle} {prep} {{}}?"
    _, direction = _COMPARATIVES[lowered[at]]
    return Comparison(a, b, "amount", direction, (" ".join(asked.split()), f"{middle} {measure} {prep} {{}}?".strip()),
                      qualified=True)


def alternatives(question: str) -> tuple[str, str] | None:
    """The two alternatives a question names for its answer ("Which cathedral is in London,
    Norwich Cathedral or St Paul's Cathedral?", "Who is older Glenn Hughes or Ross Lynch?"), with
    or without a comparative; None when it names none."""
    q = " ".join(question.split())
    if (comparison := parse_comparison(q)) is not None:
        return comparison.a, comparison.b
    # "Is A or B a musician?" may ask yes or no: only a wh-question, or a comparative, offers a choice
    # Nor does "…, between A and B?" without a comparative ("What is the distance, between A and B?").
    if (m := _TRAILING.match(q)) is None or not _WH_START.match(q) or m.group("a") is None:
        return None
    a, b = m.group("a"), m.group("b")
    a, b = _elided(a.strip(" '\"“”"), b.strip(" '\"“”")), b.strip(" '\"“”")
    if not a or not b or a.lower() == b.lower() or len(_words(a)) > 8 or len(_words(b)) > 8:
        return None
    return a, b


def _word_set(text: str) -> set[str]:
    """Lower-cased words, a possessive's "'s" dropped ("Ashford's population" names Ashford)."""
    return {re.sub(r"['’]s$", "", w.lower()) for w in _words(text)}


def _own_words(name: str, other: str) -> set[str]:
    theirs = _word_set(other)
    return {w for w in _word_set(name) if w not in theirs and w not in ("the", "a", "an", "of")}


def names_one_of(answer: str, pair: tuple[str, str]) -> bool:
    """Whether ``answer`` names one of the two alternatives: it has a word of one that the other
    lacks ("Norwich" of "Norwich Cathedral or St Paul's Cathedral", not "Cathedral")."""
    said = {w.lower() for w in _words(answer)}
    a, b = pair
    return bool(said & _own_words(a, b)) or bool(said & _own_words(b, a))


def _past(verb: str) -> str:
    """A regular verb's past tense ("visit" -> "visited"); an irregular one is asked in the other
    template too (``_parse_more_doing``)."""
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"


def _parse_more_doing(q: str) -> Comparison | None:
    """"In 2019, did more people visit A or B?" -> "How many people visited A in 2019?"."""
    m = _MORE_DOING.match(q)
    if m is None:
        return None
    a, b = m.group("a").strip(" '\"“”"), m.group("b").strip(" '\"“”")
    if not a or not b or a.lower() == b.lower() or len(_words(a)) > 8 or len(_words(b)) > 8:
        return None
    pre = m.group("pre")
    qualifier = f" {pre[0].lower()}{pre[1:]}" if pre else ""
    noun, verb, aux = m.group("noun").lower(), m.group("verb").lower(), m.group("aux").lower()
    asked = _past(verb) if aux == "did" else verb
    _, direction = _COMPARATIVES[m.group("cmp").lower()]
    return Comparison(a, b, "amount", direction, (f"How many {noun} {asked} {{}}{qualifier}?",
                                                  f"{{}} {noun} {verb}{qualifier}?"))


def parse_comparison(question: str) -> Comparison | None:
    """The comparison ``question`` asks, or None when it is not one this module can compute."""
    q = " ".join(question.split())
    if (doing := _parse_more_doing(q)) is not None:
        return doing
    if _TRAILING.match(q) is None and (qualified := _parse_qualified(q)) is not None:
        return qualified
    m = _TRAILING.match(q)
    if m is not None:
        head, a, b = m.group("head"), m.group("a") or m.group("a2"), m.group("b")
    elif (m := _LEADING.match(q)) is not None:
        head, a, b = f"{m.group('aux')} {m.group('rest').strip()}", m.group("a"), m.group("b")
    elif (m := _LEADING_THEN_COMPARATIVE.match(q)) is not None:
        head, a, b = f"{m.group('aux')} {m.group('rest').strip()}", m.group("a"), m.group("b")
        last_a, words_b = m.group("a").split()[-1].lower(), [w.lower() for w in m.group("b").split()]
        if last_a in words_b[:-1]:
            return None  # "Did the home team or the away team score more goals?": B ran on into a verb
    elif (m := _BARE.match(q)) is not None:
        head, a, b = m.group("head"), m.group("a"), m.group("b")
    else:
        return None
    a, b = a.strip(" '\"“”"), b.strip(" '\"“”")
    a = _elided(a, b)
    if not a or not b or a.lower() == b.lower() or len(_words(a)) > 8 or len(_words(b)) > 8:
        return None
    words = _words(head)
    lowered = [w.lower() for w in words]
    found = [(i, w) for i, w in enumerate(lowered) if w in _COMPARATIVES]
    if not found:
        return None
    at, word = found[0]
    if word in ("more", "most") and at + 1 < len(lowered) and lowered[at + 1] in _COMPARATIVES \
            and _COMPARATIVES[lowered[at + 1]][0] == "time":
        at, word = at + 1, lowered[at + 1]  # "more recent": a time
    dimension, direction = _COMPARATIVES[word]
    aux_at = next((i for i, w in enumerate(lowered) if w in _AUX), None)
    aux = lowered[aux_at] if aux_at is not None else "was"
    if dimension == "time":
        # "Which band was formed first" -> "When was {} formed?"
        verb = [w for i, w in enumerate(words) if aux_at is not None and i > aux_at and i != at
                and lowered[i] not in ("the", "a", "an", "more", "most")]
        if aux_at is None and at > 0 and lowered[at - 1] not in _WH:
            phrases: tuple[str, ...] = (f"When {{}} {words[at - 1]}?",)  # "Which decision occurred first"
        elif verb:
            phrases = (f"When {aux} {{}} {' '.join(verb)}?",)
        elif aux in ("did", "does", "do"):
            return None
        else:  # "Which is older, A or B?": a person's birth or a thing's founding
            phrases = ("When was {} born?", "When was {} founded?")
        return Comparison(a, b, "time", direction, phrases)
    # amount: the measure is what follows the comparative ("the larger population in 2023")
    after = words[at + 1 :]
    cut = next((i for i, w in enumerate(after) if w.lower() in _PREPOSITIONS), len(after))
    measure, qualifier = " ".join(after[:cut]), " ".join(after[cut:])
    qualifier = f" {qualifier}" if qualifier else ""
    verb_word = lowered[at - 1] if at > 0 else ""
    if not measure and at > 0 and lowered[at - 2 if at > 1 else 0] in _WH and verb_word.endswith("s") and verb_word not in _AUX:
        # "Which costs more per year, A or B?": the measure is the verb's ("how much does A cost")
        base = verb_word[:-2] if verb_word.endswith(("shes", "ches", "sses", "xes")) else verb_word[:-1]
        return Comparison(a, b, "amount", direction, (f"How much does {{}} {base}{qualifier}?", f"{{}} {verb_word}{qualifier}?"))
    if word in ("more", "most", "less", "least") and measure.lower() == "expensive":
        measure = ""  # "more expensive": the comparative's own measure, a price
        word = "expensive"
    if not measure and word in _OWN_MEASURE:
        # "Which is longer at the school, A or B?" -> "How long is A at the school?"
        if _OWN_MEASURE[word] == "cost":
            tense = "did" if aux in _PAST else "does"
            return Comparison(a, b, "amount", direction, (f"How much {tense} {{}} cost{qualifier}?", f"{{}} price{qualifier}?"))
        be = "was" if aux in _PAST else "is"
        return Comparison(a, b, "amount", direction, (f"How {_OWN_MEASURE[word]} {be} {{}}{qualifier}?",))
    if not measure or measure.lower() in ("than", "of"):
        return None
    tense = "did" if aux in _PAST else "does"
    be = "was" if aux in _PAST else "is"
    if word in ("more", "most", "fewer", "fewest") and measure.lower().endswith("s"):
        phrases_amount: tuple[str, ...] = (f"How many {measure} {tense} {{}} have{qualifier}?", f"{{}} {measure}{qualifier}?")
    else:
        phrases_amount = (f"What {be} the {measure} of {{}}{qualifier}?", f"{{}} {measure}{qualifier}?")
    return Comparison(a, b, "amount", direction, phrases_amount)


Key = tuple[float, ...]


def _date_key(text: str) -> Key | None:
    """A date as (year, month, day), month and day 0 when not written."""
    years = _YEAR.findall(text)
    if len(years) != 1:
        return None
    low = text.lower()
    month = next((i + 1 for i, name in enumerate(_MONTHS) if re.search(rf"\b(?:{name}|{name[:3]}\.?)(?!\w)", low)), 0)
    day_match = re.search(r"\b([0-3]?\d)(?:st|nd|rd|th)?\b", _YEAR.sub(" ", text))
    day = int(day_match.group(1)) if month and day_match and 1 <= int(day_match.group(1)) <= 31 else 0
    return float(years[0]), float(month), float(day)


def _amount_key(text: str) -> Key | None:
    """An amount as (value, 1.0 if a percentage else 0.0)."""
    found = [f for f in figures(text) if not (_YEAR.fullmatch(f.text) and len(figures(text)) > 1)]
    if len(found) != 1:
        return None
    return found[0].value, float(found[0].percent)


def readings(reader: Reader, question: str, passages: Sequence[str], n: int, *,
             yes_no: bool | None = None) -> list[Reading]:
    """The reader's ``n`` best answers when it can offer them (``Judge.candidates``), else its one
    answer; ``yes_no=False``: spans only (for a reader that takes it)."""
    offer = getattr(reader, "candidates", None)
    if callable(offer):
        found = offer(question, list(passages), n) if yes_no is None else offer(question, list(passages), n, yes_no=yes_no)
        return list(found)
    if yes_no is False:
        return []  # a reader without candidates cannot be asked for a span alone
    reading = reader.read(question, list(passages))
    return [reading] if reading.kind != "none" else []


_PER_SIDE = 5
"""How many of the reader's best answers a side of a qualified comparison takes: its first answer
is often the other side's figure when one sentence states both ("18,500 in 2021 and 52,300 in
2022"). Two different things are stated each in its own place: there a side takes only the
reader's first answer, and the same figure read for both means one of them is not in the passage
(a second answer would be a guess: "2009" read for both bands, then "1997", a hit's year)."""


_SUBJECT_WORDS = 5
"""How many of a sentence's first words are taken as its subject ("The Kestrel Bridge is …")."""


def _about(reading: Reading, own: set[str], other: set[str], passages: Sequence[str]) -> bool:
    """Whether the figure ``reading`` read is about the side whose own words are ``own``.

    Its sentence names that side: yes. It names only the other: no. It names neither ("The bridge
    is 486 metres long", "They formed in 1998"): the last sentence before it whose subject (its
    first words) names one side alone decides, as a reader resolves "it"; failing that, the last
    sentence before it naming a side anywhere, when it names one alone. A small reader asked "How
    much is a Zone D permit?" may read the fine stated after the sentence listing every zone's
    price: that figure is no side's."""
    if not own or reading.passage < 0:
        return True  # nothing tells the sides apart: the reader's reading stands
    text = passages[reading.passage]
    sentences = sentence_spans(text)
    at = next((i for i, s in enumerate(sentences) if s.start <= reading.start < s.end), None)
    if at is None:
        return True

    def names(i: int, words: int | None = None) -> tuple[bool, bool]:
        said = _word_set(" ".join(_words(sentences[i].text)[:words]))
        return bool(said & own), bool(said & other)

    mine, theirs = names(at)
    if mine and theirs:
        # One sentence states both sides' figures ("cost £48 in 2024 and costs £52 from 2025",
        # "$40 for the North Stand and $55 for the South Stand"): the figure's own clause decides.
        said = _word_set(_clause(sentences[at].text, reading.start - sentences[at].start, own | other))
        if bool(said & own) != bool(said & other):
            return bool(said & own)
    if mine or theirs:
        return mine
    for words in (_SUBJECT_WORDS, None):
        for i in range(at - 1, -1, -1):
            mine, theirs = names(i, words)
            if mine != theirs:
                return mine
            if mine and words is None:
                return False  # the last sentence naming a side names both: no telling which
    return True  # no sentence before it names a side


_CLAUSE_BREAK = re.compile(r"\s*;\s*|,?\s+(?:and|but|while|whereas)\s+|,\s+")


def _clause(sentence: str, at: int, sides: set[str]) -> str:
    """The clause of ``sentence`` holding character ``at``. Clauses are cut at "and", "but",
    "while", "whereas", commas and semicolons; a piece stating no figure but the sides' own
    ("In 2024" of "In 2024 and 2025 the fees were …") belongs to the next, so each clause keeps a
    figure and what is said of it."""
    pieces: list[tuple[int, int]] = []
    start = 0
    for m in _CLAUSE_BREAK.finditer(sentence):
        pieces.append((start, m.start()))
        start = m.end()
    pieces.append((start, len(sentence)))
    merged: list[tuple[int, int]] = []
    pending = None
    for a, b in pieces:
        a = pending if pending is not None else a
        if not any(ch.isdigit() for w in _words(sentence[a:b]) if w.lower() not in sides for ch in w) and b < len(sentence):
            pending = a
            continue
        pending = None
        merged.append((a, b))
    return next((sentence[a:b] for a, b in merged if a <= at < b), sentence)


_CURRENCY = re.compile(r"[$€£¥]|\b(?:dollars?|euros?|pounds?|pence|cents?|yen)\b", re.IGNORECASE)


def _unit(text: str) -> tuple[bool, str]:
    """What an amount counts: money or not, and the word after its number ("metres", "hours"; ""
    when the reader's span ends at the number)."""
    found = figures(text)
    tail = text[text.find(found[-1].text) + len(found[-1].text):] if found else ""
    word = re.match(r"\s*([A-Za-z]+)", tail)
    unit = word.group(1).lower() if word and not _CURRENCY.fullmatch(word.group(1)) else ""
    return bool(_CURRENCY.search(text)), unit[:-1] if unit.endswith("s") else unit


def _same_kind(a: str, b: str) -> bool:
    """Whether two amounts can be compared as numbers: both money or neither, and the same unit
    where both state one (metres against hours, or a price against a head count, cannot)."""
    (money_a, unit_a), (money_b, unit_b) = _unit(a), _unit(b)
    return money_a == money_b and (unit_a == unit_b or not unit_a or not unit_b)


def _read_side(reader: Reader, comparison: Comparison, name: str, passages: Sequence[str],
               key: Callable[[str], Key | None]) -> list[tuple[Reading, Key]]:
    """Every figure read for one side (the best answers to each question template) that is about
    that side (``_about``), surest first."""
    other = comparison.b if name == comparison.a else comparison.a
    own, theirs = _own_words(name, other), _own_words(other, name)
    found: list[tuple[Reading, Key]] = []
    for template in comparison.questions:
        for reading in readings(reader, template.format(name), passages, _PER_SIDE if comparison.qualified else 1):
            if reading.kind != "span" or not _about(reading, own, theirs, passages):
                continue
            value = key(reading.answer)
            if value is not None:
                found.append((reading, value))
    return sorted(found, key=lambda f: -f[0].probability)


def read_comparison(reader: Reader, question: str, passages: Sequence[str]) -> ComparedAnswer | None:
    """The comparison's winner from two figures read and compared in code, or None."""
    comparison = parse_comparison(question)
    if comparison is None or not passages:
        return None
    key: Callable[[str], Key | None] = _date_key if comparison.dimension == "time" else _amount_key
    a_side = _read_side(reader, comparison, comparison.a, passages, key)
    b_side = _read_side(reader, comparison, comparison.b, passages, key)
    # The two sides are two facts: the same figure read at the same place for both ("18,500" for
    # 2021 and for 2022 out of one sentence stating both years) is a misreading of one of them, so
    # the surest pair of readings at different places is taken.
    pairs = [(a, b) for a in a_side for b in b_side
             if (a[0].passage, a[0].start) != (b[0].passage, b[0].start)
             and (comparison.dimension == "time" or _same_kind(a[0].answer, b[0].answer))]
    if not pairs:
        return None
    (ra, va), (rb, vb) = max(pairs, key=lambda p: min(p[0][0].probability, p[1][0].probability))
    if comparison.dimension == "time":
        if va[0] != vb[0]:
            va, vb = va[:1], vb[:1]  # different years: the year decides
        elif not (va[1] and vb[1]):
            return None  # the same year, a month missing: no order
    elif va[1] != vb[1]:
        return None  # a percentage against a count
    if va == vb:
        return None
    a_wins = (va > vb) == (comparison.direction > 0)
    winner = comparison.a if a_wins else comparison.b
    na, nb = ra.passage + 1, rb.passage + 1
    answer = (f"{winner[0].upper()}{winner[1:]}. {comparison.a}: {ra.answer.strip()} [{na}]; "
              f"{comparison.b}: {rb.answer.strip()} [{nb}].")
    return ComparedAnswer(winner, answer, sorted({na, nb}), min(ra.probability, rb.probability))
