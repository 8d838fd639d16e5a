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

__all__ = ["DEFAULT_GENRES", "GENRES", "build_synthetic", "build_synthetic_critic", "support_examples"]

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


# --- terms: one figure per item, stated side by side ---------------------------------------------
# (title, the figure's kind, items, how the first item's figure is stated, how the others' are
# stated when they share its sentence, how an item's figure is stated alone, questions). "{I}" is
# the item, "{N}" the place or firm, "{F}" the figure.
_TERMS: tuple[tuple[str, str, tuple[str, ...], str, str, str, tuple[str, ...]], ...] = (
    ("{N} library: loan periods.", "weeks",
     ("books", "DVDs", "magazines", "audiobooks", "video games", "e-readers", "sheet music", "jigsaw puzzles"),
     "{I} can be borrowed for {F}", "{I} for {F}", "{I} may be kept for {F}.",
     ("How long can I keep {I} from {N} library?", "What is the loan period for {I} at {N}?",
      "{N} library loan period for {I}?", "for how long can you borrow {I} from {N}")),
    ("{N} Leisure: membership prices.", "price",
     ("standard membership", "off-peak membership", "student membership", "family membership",
      "senior membership", "premium membership", "junior membership"),
     "the {I} costs {F} a month", "the {I} {F}", "The {I} is {F} a month.",
     ("How much is the {I} at {N} each month?", "What does the {I} at {N} cost per month?",
      "{N} {I} price?", "monthly fee for the {I} at {N}")),
    ("{N} laptops: what the warranty covers.", "months",
     ("battery", "screen", "keyboard", "charger", "motherboard", "hinges", "speakers", "trackpad"),
     "the {I} is covered for {F}", "the {I} for {F}", "The {I} is under warranty for {F}.",
     ("How long is the {I} of a {N} laptop under warranty?", "What is the warranty period for the {I} on {N} laptops?",
      "{N} {I} warranty?", "for how long is the {I} covered by the {N} warranty")),
    ("{N} Car Hire: extra charges.", "daily",
     ("drivers under 25", "drivers over 75", "an additional driver", "a child seat", "satellite navigation",
      "snow chains", "a roof box"),
     "{I} add {F}", "{I} {F}", "For {I} the charge is {F}.",
     ("What extra do I pay for {I} at {N} Car Hire?", "How much does {N} charge for {I}?",
      "{N} car hire charge for {I}?", "what is the daily charge for {I} at {N}")),
    ("The {N} ferry: capacity.", "count",
     ("passengers", "cars", "lorries", "crew", "cabins", "bicycles", "lifeboats"),
     "the ferry can take {F} {I}", "{F} {I}", "It has room for {F} {I}.",
     ("How many {I} can the {N} ferry take?", "What is the capacity of the {N} for {I}?",
      "{N} ferry: number of {I}?", "how many {I} does the {N} carry")),
    ("{N} Cookery School: course lengths.", "hours",
     ("evening class", "weekend masterclass", "taster session", "knife skills course", "bread workshop",
      "pastry course"),
     "the {I} lasts {F}", "the {I} {F}", "The {I} runs for {F}.",
     ("How long is the {I} at {N} Cookery School?", "How many hours does the {I} at {N} last?",
      "{N} {I} length?", "what is the duration of the {I} at {N}")),
    ("{N} Council: resident parking permits.", "yearly",
     ("a Zone A permit", "a Zone B permit", "a Zone C permit", "a Zone D permit", "a visitor permit",
      "a business permit", "a motorcycle permit"),
     "{I} costs {F}", "{I} {F}", "For {I} residents pay {F}.",
     ("How much is {I} in {N}?", "What does {I} cost per year in {N}?", "{N} price of {I}?",
      "yearly cost of {I} from {N} Council")),
    ("{N} Software: cooling-off periods.", "days",
     ("yearly plan", "monthly plan", "lifetime licence", "team plan", "student plan", "add-on pack"),
     "the {I} can be cancelled for a full refund within {F}", "the {I} within {F}",
     "A full refund on the {I} is given within {F}.",
     ("How long do I have to cancel the {I} of {N} for a full refund?", "What is the refund window for the {I} at {N}?",
      "{N} {I} cooling-off period?", "within how many days can the {I} from {N} be refunded")),
)


def _term_figure(rng: random.Random, kind: str, used: set[str]) -> str:
    while True:
        if kind == "weeks":
            n = rng.randint(1, 6)
            text = rng.choice((f"{n} week" + ("s" if n > 1 else ""), f"{n * 7} days"))
        elif kind == "price":
            text = f"${rng.randint(9, 95)}"
        elif kind == "months":
            text = f"{rng.choice((3, 6, 12, 18, 24, 36, 48, 60))} months"
        elif kind == "daily":
            text = f"${rng.randint(3, 40)} per day"
        elif kind == "count":
            text = f"{rng.randint(2, 1400):,}"
        elif kind == "hours":
            text = rng.choice((f"{rng.randint(1, 8)} hours", f"{rng.choice((30, 45, 90))} minutes"))
        elif kind == "yearly":
            text = f"${rng.randint(2, 60) * 5} a year"
        else:  # days
            text = f"{rng.choice((7, 14, 21, 28, 30, 60, 90))} days"
        if text not in used:
            used.add(text)
            return text


def _terms(rng: random.Random) -> list[ReaderExample]:
    title, kind, pool, first, rest, alone, asks = rng.choice(_TERMS)
    name = _name(rng)
    items = rng.sample(pool, rng.randint(3, min(5, len(pool) - 1)))
    missing = rng.choice([i for i in pool if i not in items])
    used: set[str] = set()
    figures = {item: _term_figure(rng, kind, used) for item in items}
    p = _Passage()
    p.add(title.format(N=name))

    def stated(template: str, item: str) -> list[str | tuple[str, str]]:
        before, after = template.split("{F}")
        return [before.format(I=item), (item, figures[item]), after.format(I=item)]

    if rng.random() < 0.6:  # the items side by side in one sentence
        parts: list[str | tuple[str, str]] = []
        for i, item in enumerate(items):
            sep = "" if i == 0 else (" and " if i == len(items) - 1 else rng.choice((", ", "; ")))
            parts += [sep, *stated(first if i == 0 else rest, item)]
        lead = next(i for i, part in enumerate(parts) if isinstance(part, str) and part)
        head = parts[lead]
        assert isinstance(head, str)
        parts[lead] = head[:1].upper() + head[1:]
        p.add(*parts, ".")
    else:  # a sentence each
        for item in items:
            parts = stated(alone, item)
            head = parts[0]
            assert isinstance(head, str) and head  # every template states the item before its figure
            parts[0] = head[:1].upper() + head[1:]
            p.add(*parts)
    p.add(rng.choice(("Prices and terms are reviewed every April.", "Ask at the front desk for details.",
                      "These terms apply from 1 March.", "Members are told of any change a month ahead.")))
    out = [p.example(rng.choice(asks).format(I=item, N=name), item) for item in rng.sample(items, min(3, len(items)))]
    out.append(p.none(rng.choice(asks).format(I=missing, N=name)))
    return out


# --- rules: yes/no questions a stated rule, exception or change answers ---------------------------
# Each maker returns a passage's sentences and (question, "yes"/"no" or a span key, sentence index)
# rows. The same sentence answers a yes and a no, so the words a question shares with the
# passage never decide it: the exception, the negation, the date of a change does.
_THINGS = ("towels", "padlocks", "helmets", "life jackets", "safety goggles", "wetsuits", "umbrellas", "yoga mats",
           "hairdryers", "walking poles", "snorkels", "blankets")
_EXCEPTIONS = (
    ("items can be renewed up to twice", "another member has reserved them",
     ("Can I renew an item that another member has reserved?", "Can an item be renewed if someone else has reserved it?"),
     ("Can I renew an item nobody has reserved?", "Can items be renewed?")),
    ("unused tickets can be refunded", "they were bought at a discount",
     ("Can I get a refund on a discounted ticket I did not use?", "Are discounted tickets refundable?"),
     ("Can an unused full-price ticket be refunded?", "Are unused tickets refundable?")),
    ("bookings can be moved to another date free of charge", "the class starts within 48 hours",
     ("Can I move a booking for free when the class starts tomorrow?", "Is it free to change a booking the day before the class?"),
     ("Can I move my booking to another date for free a week ahead?", "Can bookings be moved to another date?")),
    ("an excess of $100 is deducted from every claim", "the claim is for emergency medical treatment",
     ("Is an excess deducted from emergency medical claims?", "Do I pay the excess on a claim for emergency medical treatment?"),
     ("Is an excess deducted from a claim for lost luggage?", "Is there an excess on claims?")),
    ("dogs are welcome in the garden", "they are off the lead",
     ("Can dogs run free off the lead in the garden?", "Are dogs allowed in the garden without a lead?"),
     ("Are dogs allowed in the garden on a lead?", "Can I bring my dog into the garden?")),
)
_WHEN_NOT = ("unless", "except when", "except where", "but not if")


def _rules(rng: random.Random) -> list[ReaderExample]:
    """A venue's rules, each sentence asked about twice: once answered yes, once no."""
    name = _name(rng)
    p = _Passage()
    asked: list[tuple[str, str]] = []  # (question, "yes" / "no" / a span key), in sentence order
    at: list[int] = []  # the sentence each question is answered by
    # provided, and not provided ("do I need to bring my own …" turns the answer round)
    given, withheld = rng.sample(_THINGS, 2)
    for i, (thing, provided) in enumerate(((given, True), (withheld, False))):
        if provided:
            p.add(rng.choice((f"{name} provides {thing} free of charge.", f"{thing.capitalize()} are provided at {name}.")))
        else:
            p.add(rng.choice((f"{name} does not provide {thing}, so please bring your own.",
                              f"{thing.capitalize()} are not provided at {name}; bring your own.")))
        own = rng.random() < 0.3
        question = (f"Do I need to bring my own {thing} to {name}?" if own
                    else rng.choice((f"Does {name} provide {thing}?", f"are {thing} provided at {name}")))
        asked.append((question, "yes" if provided != own else "no"))
        at.append(i)
    # a rule and its exception
    rule, exception, noes, yeses = rng.choice(_EXCEPTIONS)
    p.add(f"At {name}, {rule} {rng.choice(_WHEN_NOT)} {exception}.")
    asked += [(rng.choice(noes), "no"), (rng.choice(yeses), "yes")]
    at += [2, 2]
    # a change over time
    year, fee = rng.randint(1990, 2022), f"${rng.randint(2, 15)}"
    if rng.random() < 0.5:
        p.add(f"Entry to {name} has been free since {year}; before that visitors paid {fee}.")
        asked += [(rng.choice((f"Has entry to {name} always been free?", f"Was {name} always free to visit?")), "no"),
                  (rng.choice((f"Is entry to {name} free?", f"Did visitors ever have to pay to enter {name}?")), "yes")]
        at += [3, 3]
    else:
        family, buyer = _name(rng), _name(rng) + rng.choice((" Group", " Holdings", " Trust"))
        p.add(f"{name} was run by the {family} family until {year}, when it was sold to ", ("buyer", buyer), ".")
        asked += [(rng.choice((f"Is {name} still run by the {family} family?", f"Does the {family} family still run {name}?")), "no"),
                  (rng.choice((f"Was {name} once run by the {family} family?", f"Was {name} sold to {buyer}?")), "yes"),
                  (rng.choice((f"Who runs {name} now?", f"who owns {name} today")), "buyer")]
        at += [3, 3, 3]
    bounds = [(s.start, s.end) for s in sentence_spans(p.text)]
    out = []
    for (question, answer), where in zip(asked, at, strict=True):
        if answer in ("yes", "no"):
            out.append(ReaderExample(question, p.text, answer, evidence=bounds[where] if where < len(bounds) else None))
        else:
            out.append(p.example(question, answer))
    unasked = rng.choice([t for t in _THINGS if t not in (given, withheld)])
    out.append(p.none(f"How much does {name} charge for {unasked}?"))
    return out


# --- procedures: how to do a thing, among the figures and rules about it --------------------------
# (the task as a verb phrase, as a noun phrase, its steps, figure sentences about the same thing, a
# rule with its reason). A how-question is answered by the steps, never by one of the figures
# beside them, which share the question's words ("how do I request time off" / "25 days of leave").
_PROCEDURES: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...], tuple[str, str]], ...] = (
    ("request time off", "a time-off request",
     ("submit the request in the staff portal", "wait for your manager to approve it"),
     ("Staff get {n} days of paid leave a year.", "Up to {m} unused days can be carried over."),
     ("requests must be made two weeks ahead", "rotas are planned a fortnight in advance")),
    ("make a claim", "a claim",
     ("fill in the claim form online", "attach your receipts", "send it within 30 days of coming home"),
     ("An excess of ${n} applies to each claim.", "Claims are paid within {m} working days."),
     ("original receipts are required", "copies are too easily altered")),
    ("get a phone repaired under warranty", "a warranty repair",
     ("book a repair on the support website", "post the phone in the prepaid bag"),
     ("The warranty lasts {n} months.", "Most repairs are finished within {m} working days."),
     ("drop damage is not covered", "it is not a manufacturing defect")),
    ("sign up for modules", "module registration",
     ("log in to the student portal", "add the modules to your basket", "confirm before the deadline"),
     ("Each module is worth {n} credits.", "Students take {m} modules a term."),
     ("registration closes in week two", "timetables are fixed after that")),
    ("change to another plan", "a plan change",
     ("open the account settings", "choose the new plan", "confirm the change"),
     ("The basic plan costs ${n} a month.", "The team plan adds {m} users."),
     ("the change applies from the next bill", "bills are calculated a month ahead")),
    ("return an item", "a return",
     ("print the returns label from your order page", "drop the parcel at any post office"),
     ("Returns are accepted within {n} days.", "Refunds reach your card within {m} days."),
     ("swimwear cannot be returned", "of hygiene rules")),
    ("report a fault", "a fault report",
     ("call the repairs line", "give your tenancy number", "describe the fault"),
     ("Urgent faults are fixed within {n} hours.", "Other faults are fixed within {m} days."),
     ("tenants must not repair boilers themselves", "gas work needs a registered engineer")),
    ("cancel a booking", "a cancellation",
     ("open the booking in the app", "tap cancel", "choose a refund or a credit note"),
     ("Cancellations are free up to {n} hours before the start.", "Late cancellations cost ${m}."),
     ("no-shows are charged in full", "the place could have gone to someone on the waiting list")),
    ("renew a parking permit", "a permit renewal",
     ("sign in to the council website", "upload proof of address", "pay the fee by card"),
     ("A permit costs ${n} a year.", "Visitor permits cost ${m} a day."),
     ("permits are checked by camera", "there are no paper permits any more")),
    ("join the club", "membership",
     ("fill in the application form", "pay the first month's fee", "attend an induction session"),
     ("Membership costs ${n} a month.", "The club has {m} members."),
     ("new members must attend an induction", "the equipment can be dangerous if misused")),
)
_ASK_HOW = ("How do I {v} at {N}?", "What is the procedure for {np} at {N}?", "What steps do I follow to {v} with {N}?",
            "how can you {v} at {N}", "What should I do to {v} at {N}?", "{N}: how to {v}?")


def _procedures(rng: random.Random) -> list[ReaderExample]:
    (verb, noun, steps, facts, (rule, reason)), other = rng.sample(_PROCEDURES, 2)
    name = _name(rng)
    p = _Passage()
    p.add(f"{name}: {noun} and what to know.")
    order = list(facts)
    rng.shuffle(order)
    joined = ", ".join(steps[:-1]) + (f" and then {steps[-1]}" if len(steps) > 1 else steps[0])
    form = rng.randrange(3)
    p.add(order[0].format(n=rng.randint(2, 40), m=rng.randint(2, 40)))
    if form == 0:
        p.add(f"To {verb}, ", ("steps", joined), ".")
    elif form == 1:
        p.add(f"If you want to {verb}, ", ("steps", joined), ".")
    else:
        p.add(f"How to {verb}: ", ("steps", joined), ".")
    p.add(order[1].format(n=rng.randint(2, 40), m=rng.randint(2, 40)))
    p.add(f"Please note that {rule} {rng.choice(_BECAUSE)} ", ("reason", reason), ".")
    first, second = rng.sample(_ASK_HOW, 2)
    out = [p.example(first.format(v=verb, np=noun, N=name), "steps"),
           p.example(second.format(v=verb, np=noun, N=name), "steps"),
           p.example(rng.choice((f"Why {_why(rule)}?", f"What is the reason {rule}?")), "reason"),
           p.none(rng.choice(_ASK_HOW).format(v=other[0], np=other[1], N=name))]
    return out


GENRES: dict[str, Callable[[random.Random], list[ReaderExample]]] = {
    "series": _series, "places": _places, "doses": _doses, "steps": _steps, "terms": _terms, "rules": _rules,
    "procedures": _procedures,
}
DEFAULT_GENRES = ("series", "places", "doses", "steps")
"""The genres a build takes unless told otherwise: the ones v2 and v4 were trained on, so their
recipes keep their data hashes."""


def build_synthetic(count: int, seed: int, genres: Sequence[str] = DEFAULT_GENRES) -> list[ReaderExample]:
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


def build_synthetic_critic(count: int, seed: int, genres: Sequence[str] = DEFAULT_GENRES) -> list[CriticExample]:
    """About ``count`` support examples over new passages of ``genres``, in a seeded order (its own
    stream: the reader's synthetic examples for the same seed are unchanged)."""
    rng = random.Random(f"synthetic-critic:{seed}")
    out: list[CriticExample] = []
    while len(out) < count:
        out.extend(support_examples(GENRES[rng.choice(list(genres))](rng), rng))
    out = out[:count]
    rng.shuffle(out)
    return out
