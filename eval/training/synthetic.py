"""Synthetic reading examples: the genres HaluEval never shows the reader, made from templates.

HaluEval's passages are encyclopaedia sentences about people and works, so a reader trained on
them alone has never had to pick one figure out of a series ("41,300 in 2019 … 43,400 in 2023"),
tell two measures of the same thing apart, give a dose for one group of people out of several,
or give the reason or the steps a why/how question asks for. This module writes such passages
with invented names and figures (nothing from any evaluation set), each with questions in
several phrasings and the character span that answers them:

- **series**: one measure of one place or body over several years, written as a list, a story of
  rises and falls, or one sentence a year, with a second measure beside it as a near miss;
- **places**: one measure across several places in one year;
- **doses**: how much of a product each group takes, how often, and the most in a day;
- **steps**: how to do a task (the answer is the steps) and why a rule holds (the reason);
- **none**: the same passages asked about a year, a place or a group they do not cover.

Every example is drawn from a seeded ``random.Random``, so a seed pins the set (its hash goes
into the training manifest like the HaluEval examples').

The same passages also make **support** examples for the critic (``build_synthetic_critic``): the
question with its right answer is supported by the passage; the question with another answer the
same passage states (another year's figure, the other measure, another group's dose, the steps
for the reason) is not, nor is any answer to a question the passage does not cover. These are
the near misses a reader makes on such passages: the figure is in the passage, with the words
the question uses, but it answers another question; HaluEval's hallucinated answers are rarely
stated in the passage at all, so the critic never learnt that a stated figure can still be the
wrong one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from eval.training.examples import CriticExample, ReaderExample
from selfrag.reading.sentences import sentence_spans

__all__ = ["GENRES", "build_synthetic", "build_synthetic_critic", "support_examples"]

_ONSETS = ("Bel", "Dun", "Ash", "Mor", "Kel", "Wyn", "Tor", "Lin", "Stan", "Brad",
           "Ros", "Fen", "Gar", "Hol", "Mar", "Nor", "Oak", "Ral", "Sel", "Thorn", "Ul", "Ver", "Wal", "Yar")
_CODAS = ("ford", "ton", "ley", "by", "stead", "combe", "field", "haven", "brook",
          "ridge", "well", "dale", "burn", "holt", "gate", "worth", "mouth")
_KINDS_OF_PLACE = ("town", "district", "county", "city", "borough", "region", "island", "parish")

# (measure, unit word after the figure, figure range, decimals, how-many noun or None)
_MEASURES: tuple[tuple[str, str, tuple[int, int], int, str | None], ...] = (
    ("population", "", (2_000, 900_000), 0, "people"),
    ("number of museum visitors", "", (10_000, 600_000), 0, "visitors"),
    ("annual rainfall", "mm", (400, 2_400), 0, None),
    ("unemployment rate", "%", (2, 14), 1, None),
    ("average house price", "", (90_000, 650_000), 0, None),
    ("number of registered businesses", "", (300, 40_000), 0, "businesses"),
    ("median age", "years", (28, 52), 1, None),
    ("number of pupils", "", (500, 60_000), 0, "pupils"),
    ("household recycling rate", "%", (20, 70), 1, None),
    ("number of bus passengers", "", (50_000, 9_000_000), 0, "passengers"),
    ("average commute", "minutes", (12, 70), 0, None),
    ("number of new homes completed", "", (40, 6_000), 0, "homes"),
    ("energy use per household", "kWh", (2_000, 6_500), 0, None),
    ("number of hospital admissions", "", (1_000, 90_000), 0, "admissions"),
    ("library loans", "", (5_000, 800_000), 0, "loans"),
)
_PRODUCT_ENDINGS = ("ol", "ex", "in", "ane")
_PRODUCTS = ("tablets", "capsules", "ml of syrup", "drops", "sprays", "sachets", "lozenges", "pastilles")
_GROUPS = (("adults", "Adults"), ("children aged 6 to 11", "Children aged 6 to 11"),
           ("children aged 12 to 17", "Young people aged 12 to 17"), ("people over 65", "People over 65"),
           ("children under 6", "Children under 6"))
_TASKS = (
    ("descale the kettle", ("fill it halfway with equal parts water and white vinegar", "bring it to the boil",
                            "leave it to stand for an hour", "rinse it three times with clean water")),
    ("reset the router", ("unplug it from the mains", "wait thirty seconds", "hold the reset button for ten seconds",
                          "plug it back in")),
    ("clean the filter", ("switch off the unit", "slide the filter out of its slot", "wash it in warm soapy water",
                          "let it dry completely before refitting it")),
    ("renew a parking permit", ("log in to the council website", "choose the permit to renew",
                                "upload proof of address", "pay the fee by card")),
    ("bleed a radiator", ("turn the heating off", "put a cloth under the valve", "turn the bleed key a quarter turn",
                          "close the valve when water appears")),
    ("store the vaccine", ("keep it in the fridge between 2 and 8 degrees", "keep it in the outer carton",
                           "do not freeze it", "use it within 28 days of opening")),
    ("replace the cartridge", ("open the front cover", "press the old cartridge down to release it",
                               "push the new one in until it clicks", "close the cover")),
    ("apply for a refund", ("fill in the refund form", "attach the original receipt", "post both to the address below",
                            "allow fourteen days for the payment")),
)
_RULES = (
    ("the tablets must be swallowed whole", "the coating protects the stomach lining"),
    ("the road closes overnight", "the bridge is being resurfaced"),
    ("the reading room is shut on Mondays", "the staff catalogue new stock that day"),
    ("patients should avoid grapefruit juice", "it changes how the liver breaks the medicine down"),
    ("the survey is repeated every two years", "the sample is too small to show change in a single year"),
    ("the footpath is diverted", "the riverbank has been eroded by flooding"),
    ("the figures are rounded to the nearest 50", "small counts could identify individual households"),
    ("the pool closes early on Fridays", "the swimming club has the water booked in the evening"),
    ("the syrup should not be given to babies", "it contains alcohol"),
    ("the vans run on electricity", "the council pledged to cut fleet emissions by half"),
)
_BECAUSE = ("because", "as", "since", "owing to the fact that", "due to the fact that")


def _name(rng: random.Random) -> str:
    return rng.choice(_ONSETS) + rng.choice(_CODAS)


def _figure(rng: random.Random, lo: int, hi: int, decimals: int) -> float:
    value = rng.uniform(lo, hi)
    if decimals:
        return round(value, decimals)
    step = 50 if value >= 10_000 else 10 if value >= 1_000 else 1
    return float(int(value / step) * step)


def _fmt(value: float, unit: str, decimals: int) -> str:
    text = f"{value:,.{decimals}f}" if decimals else f"{int(value):,}"
    if unit == "%":
        return text + "%"
    return f"{text} {unit}" if unit else text


def _walk(rng: random.Random, n: int, span: tuple[int, int], decimals: int) -> list[float]:
    """``n`` figures a year apart: a start in ``span``, then rises and falls of up to 8 %."""
    values = [_figure(rng, *span, decimals)]
    while len(values) < n:
        nxt = values[-1] * rng.uniform(0.92, 1.08)
        values.append(round(nxt, decimals) if decimals else float(int(nxt / 10) * 10 if nxt >= 1_000 else int(nxt)))
    return values


class _Passage:
    """A passage being written: sentences appended, answer spans remembered by key."""

    def __init__(self) -> None:
        self.text = ""
        self.spans: dict[str, tuple[int, int]] = {}

    def add(self, *parts: str | tuple[str, str]) -> None:
        """Append one sentence made of plain parts and (key, text) answer parts."""
        sentence = ""
        for part in parts:
            if isinstance(part, tuple):
                key, words = part
                start = len(self.text) + (1 if self.text else 0) + len(sentence)
                self.spans[key] = (start, start + len(words))
                sentence += words
            else:
                sentence += part
        self.text = f"{self.text} {sentence}" if self.text else sentence

    def example(self, question: str, key: str) -> ReaderExample:
        start, end = self.spans[key]
        assert self.text[start:end], key
        evidence = next(((s.start, s.end) for s in sentence_spans(self.text) if s.start <= start < s.end), None)
        return ReaderExample(question, self.text, "span", start, end, evidence)

    def none(self, question: str) -> ReaderExample:
        return ReaderExample(question, self.text, "none", evidence=(0, 0))


def _series(rng: random.Random) -> list[ReaderExample]:
    place, kind = _name(rng), rng.choice(_KINDS_OF_PLACE)
    (measure, unit, span, dec, noun), (other, ounit, ospan, odec, _) = rng.sample(_MEASURES, 2)
    first = rng.randint(2008, 2019)
    years = list(range(first, first + rng.randint(3, 6)))
    values, others = _walk(rng, len(years), span, dec), _walk(rng, len(years), ospan, odec)
    p = _Passage()
    p.add(f"{place} {measure} and {other}, {years[0]} to {years[-1]}.")
    style = rng.randrange(3)
    if style == 0:  # one list sentence
        parts: list[str | tuple[str, str]] = [f"The {measure} of {place} was "]
        for i, (y, v) in enumerate(zip(years, values, strict=True)):
            sep = "" if i == 0 else (" and " if i == len(years) - 1 else ", ")
            parts += [sep, (str(y), _fmt(v, unit, dec)), f" in {y}"]
        p.add(*parts, ".")
    elif style == 1:  # a story of rises and falls
        p.add(f"In {years[0]} the {measure} of the {kind} stood at ", (str(years[0]), _fmt(values[0], unit, dec)), ".")
        for y, prev, v in zip(years[1:], values, values[1:], strict=False):
            verb = rng.choice(("rose", "climbed", "increased")) if v > prev else rng.choice(("fell", "dropped", "dipped"))
            p.add(f"It {verb} to ", (str(y), _fmt(v, unit, dec)), f" in {y}.")
    else:  # a year a sentence, the year first
        for y, v in zip(years, values, strict=True):
            p.add(f"{y}: {measure} ", (str(y), _fmt(v, unit, dec)), ".")
    parts = [f"Over the same years its {other} went from "]
    parts += [(f"other{years[0]}", _fmt(others[0], ounit, odec)), f" in {years[0]} to ",
              (f"other{years[-1]}", _fmt(others[-1], ounit, odec)), f" in {years[-1]}."]
    p.add(*parts)
    out = []
    for y in rng.sample(years, min(3, len(years))):
        out.append(p.example(_ask_series(rng, measure, noun, place, y), str(y)))
    out.append(p.example(_ask_series(rng, other, None, place, years[-1]), f"other{years[-1]}"))
    missing = rng.choice((years[0] - rng.randint(1, 4), years[-1] + rng.randint(1, 4)))
    out.append(p.none(_ask_series(rng, measure, noun, place, missing)))
    return out


def _ask_series(rng: random.Random, measure: str, noun: str | None, place: str, year: int) -> str:
    forms: list[str] = [
        f"What was the {measure} of {place} in {year}?",
        f"{place} {measure} in {year}?",
        f"what was {place}'s {measure} in {year}",
        f"In {year}, what was the {measure} in {place}?",
        f"Give the {measure} for {place} in {year}.",
    ]
    if noun:
        forms.append(f"How many {noun} did {place} have in {year}?")
    return rng.choice(forms)


def _places(rng: random.Random) -> list[ReaderExample]:
    measure, unit, span, dec, noun = rng.choice(_MEASURES)
    year = rng.randint(2010, 2024)
    places = list(dict.fromkeys(_name(rng) for _ in range(6)))[: rng.randint(3, 5)]
    values = [_figure(rng, *span, dec) for _ in places]
    p = _Passage()
    p.add(f"{measure.capitalize()} by {rng.choice(_KINDS_OF_PLACE)}, {year}.")
    parts: list[str | tuple[str, str]] = [f"In {year} the {measure} was "]
    for i, (name, v) in enumerate(zip(places, values, strict=True)):
        sep = "" if i == 0 else (" and " if i == len(places) - 1 else ", ")
        parts += [sep, (name, _fmt(v, unit, dec)), f" in {name}"]
    p.add(*parts, ".")
    p.add(f"Figures for {year + 1} will be published next spring.")
    out = [p.example(_ask_series(rng, measure, noun, name, year), name) for name in rng.sample(places, 2)]
    absent = next(n for n in iter(lambda: _name(rng), None) if n not in places)
    out.append(p.none(_ask_series(rng, measure, noun, absent, year)))
    return out


def _doses(rng: random.Random) -> list[ReaderExample]:
    product, unit = _name(rng) + rng.choice(_PRODUCT_ENDINGS), rng.choice(_PRODUCTS)
    groups = rng.sample(_GROUPS, 3)
    p = _Passage()
    p.add(f"{product} {unit.split()[-1]}: how to take them.")
    asks = []
    for key, label in groups:
        amount, hours = rng.randint(1, 4) * (5 if unit.startswith("ml") else 1), rng.choice((4, 6, 8, 12))
        dose = f"{amount} {unit}" if amount > 1 or unit.startswith("ml") else f"1 {unit.rstrip('s')}"
        p.add(f"{label}: take ", (f"dose:{key}", dose), f" every {hours} hours.")
        asks.append(key)
    most = rng.randint(4, 16)
    p.add("Do not take more than ", ("most", f"{most} {unit}"), " in 24 hours.")
    out = []
    for key in rng.sample(asks, 2):
        out.append(p.example(rng.choice((f"What is the dose of {product} for {key}?", f"How much {product} should {key} take?",
                                         f"{product} dose for {key}?")), f"dose:{key}"))
    out.append(p.example(rng.choice((f"What is the most {product} you can take in a day?",
                                     f"maximum daily amount of {product}?",
                                     f"How many {unit} of {product} can be taken in 24 hours at most?")), "most"))
    missing = next(label for label, _ in _GROUPS if label not in asks)
    out.append(p.none(f"What is the dose of {product} for {missing}?"))
    return out


def _steps(rng: random.Random) -> list[ReaderExample]:
    (task, steps), (rule, reason) = rng.choice(_TASKS), rng.choice(_RULES)
    (other_task, _), (other_rule, _) = rng.choice([t for t in _TASKS if t[0] != task]), rng.choice([r for r in _RULES if r[0] != rule])
    thing = _name(rng)
    p = _Passage()
    p.add(f"{thing} guidance.")
    joined = ", ".join(steps[:-1]) + f" and then {steps[-1]}"
    if rng.random() < 0.5:
        p.add(f"To {task}, ", ("steps", joined), ".")
    else:
        p.add(f"How to {task}: ", ("steps", joined), ".")
    connective = rng.choice(_BECAUSE)
    if rng.random() < 0.7:
        p.add(f"Please note that {rule} {connective} ", ("reason", reason), ".")
    else:
        p.add("Because ", ("reason", reason), f", {rule}.")
    p.add(rng.choice(("Keep this leaflet.", "Contact us if you have questions.", "Updated last spring.")))
    out = [
        p.example(rng.choice((f"How do I {task}?", f"how to {task}", f"What are the steps to {task}?")), "steps"),
        p.example(rng.choice((f"Why {_why(rule)}?", f"What is the reason {rule}?")), "reason"),
    ]
    out.append(p.none(rng.choice((f"How do I {other_task}?", f"Why {_why(other_rule)}?"))))
    return out


def _why(rule: str) -> str:
    """'the road closes overnight' -> 'does the road close overnight' (present tense, third person)."""
    words = rule.split()
    for i, w in enumerate(words):
        if w in ("must", "should", "is", "are", "will"):
            return " ".join([w, *words[:i], *words[i + 1:]])
        if i > 0 and w.endswith("s") and not w.endswith("ss") and words[i - 1] not in ("the", "a", "an"):
            stem = w[:-2] if w.endswith("es") and w[:-2].endswith(("sh", "ch", "x", "ss")) else w[:-1]
            return " ".join(["does", *words[:i], stem, *words[i + 1:]])
    return "is it that " + rule


GENRES: dict[str, Callable[[random.Random], list[ReaderExample]]] = {
    "series": _series, "places": _places, "doses": _doses, "steps": _steps,
}


def build_synthetic(count: int, seed: int, genres: Sequence[str] = tuple(GENRES)) -> list[ReaderExample]:
    """About ``count`` reader examples across ``genres``, in a seeded order."""
    rng = random.Random(f"synthetic:{seed}")
    out: list[ReaderExample] = []
    while len(out) < count:
        out.extend(GENRES[rng.choice(list(genres))](rng))
    out = out[:count]
    rng.shuffle(out)
    return out


def support_examples(passage_examples: Sequence[ReaderExample], rng: random.Random) -> list[CriticExample]:
    """Support examples from one passage's reader examples (module docstring): each question with
    its own answer (1), with one other answer the passage states (0), and each uncovered question
    with one of the passage's answers (0)."""
    answers = [(e.question, e.passage[e.start:e.end]) for e in passage_examples if e.kind == "span"]
    out: list[CriticExample] = []
    for e in passage_examples:
        if e.kind == "span":
            right = e.passage[e.start:e.end]
            out.append(CriticExample("support", f"{e.question} {right}", e.passage, 1))
            others = [a for _, a in answers if a != right and a not in right and right not in a]
            if others:
                out.append(CriticExample("support", f"{e.question} {rng.choice(others)}", e.passage, 0))
        elif e.kind == "none" and answers:
            out.append(CriticExample("support", f"{e.question} {rng.choice(answers)[1]}", e.passage, 0))
    return out


def build_synthetic_critic(count: int, seed: int, genres: Sequence[str] = tuple(GENRES)) -> list[CriticExample]:
    """About ``count`` support examples over new passages of ``genres``, in a seeded order (its own
    stream: the reader's synthetic examples for the same seed are unchanged)."""
    rng = random.Random(f"synthetic-critic:{seed}")
    out: list[CriticExample] = []
    while len(out) < count:
        out.extend(support_examples(GENRES[rng.choice(list(genres))](rng), rng))
    out = out[:count]
    rng.shuffle(out)
    return out
