"""What is computed over one numeric attribute of every document the filter selects: a superlative
("Which hotel is the cheapest?", "the club with the most members", "the 3 lightest touchscreen
laptops") or an aggregate ("the average price per night", "How many members do chess clubs have
in total?").

Which document has the largest value is a fact about all the documents the filter selects, never
about one of them: a reader shown four hotels' texts picks the one that reads best, and a passage
saying "a bargain at 85 euros" does not say no other hotel is cheaper. So the superlative is read
here, as a ranking the engine computes from the stored values (``workflows.set_answers``), and a
question that has one is never answered from a passage alone.

The attribute is the one the question names right after the superlative ("the highest guest
score", "the most members", "the longest battery life"), or, for a superlative that names its own
measure ("cheapest", "lightest", "newest", "most expensive", "best rated"), the one attribute of
that kind (``selfrag.kinds``; "the earliest inspection" ranks by a ``date`` attribute as "the oldest
club" does by a year). Two attributes of that kind (a price and a deposit) leave the
question unranked: which one it ranks by is not said. An aggregate is of the attribute named right
after its word ("the average yearly fee") or, after what it sums ("members in total"), of the one
the question names. The planner decides whether the computation is the whole answer
(``selfrag.query.Computation``): never for a yes/no question or a topic left to search.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

from selfrag.lang import NUMBER_WORDS, QUERY_STOP, Token, forms, lemma, word_map, word_set
from selfrag.lang.questions import AUXILIARIES
from selfrag.query._lexicon import ITEM_WORDS
from selfrag.query._profile import AttrProfile, SchemaProfile
from selfrag.query._spans import Spans
from selfrag.query._text import term_match

__all__ = ["Aggregate", "Superlative", "read_aggregate", "read_superlative", "read_unmeasured"]

_GENERIC = word_map("superlatives")
"""Superlatives that rank by the attribute named after them: max or min."""
_OWN: dict[str, tuple[frozenset[str], bool]] = {
    w: (frozenset(v.split()[:-1]), v.split()[-1] == "max") for w, v in word_map("superlative_measures").items()
}
"""Superlatives that name their own measure: the kinds they rank by, and whether the largest wins."""
_CMP_GENERIC = word_map("comparatives")
"""Comparatives that compare by the attribute named after them ("more rain"): max or min."""
_CMP_OWN: dict[str, tuple[frozenset[str], bool]] = {
    w: (frozenset(v.split()[:-1]), v.split()[-1] == "max") for w, v in word_map("comparative_measures").items()
}
"""Comparatives that name their own measure ("cheaper"): the kinds they compare by, and whether the largest wins."""
_ADJECTIVES = {w: frozenset(v.split()) for w, v in word_map("measure_adjectives").items()}
"""Adjectives naming a measure after a superlative ("most expensive", "best rated"): the kinds it ranks by."""
_VERBS = {w: frozenset(v.split()) for w, v in word_map("measure_verbs").items()}
"""Verbs naming the measure of a superlative right after them ("cost the most", "lasted longer"): the kinds."""
_AGGREGATES = word_map("aggregates")
"""Words asking for the mean (average) or the sum (total) of an attribute."""
_SUMMABLE = frozenset({"count", "money", "duration", "length", "area", "weight", "energy"})
"""Kinds whose values add up: a total of years or of scores means nothing."""
_RANK = {"best": True, "top": True, "worst": False}
"""Before a measure adjective only ("best rated", "top rated"): "the best price" is the lowest."""
_QUANTIFIERS = frozenset({"most", "least", "fewest"})
"""Superlatives that are also quantifiers ("most members attend"): superlatives after "the" only."""
_WINDOW = 3
"""How many words after the superlative may name its attribute ("the highest average guest score")."""


@dataclass(frozen=True)
class Superlative:
    attribute: str
    highest: bool
    """The largest value wins (max); else the smallest."""
    phrase: str
    """The words read, as written ("the cheapest", "most members")."""
    span: tuple[int, int]
    comparative: bool = False
    """A comparative ("more rain", "cheaper"): the alternatives the filter selects compared, the
    larger (or smaller) one the answer."""
    several: bool = False
    """The question names the items in the plural ("the cheapest hotels"): it asks for a ranked
    page of them, not the one first."""
    candidates: tuple[str, ...] = ()
    """When the measure it names fits several attributes ("best rated" over stars and a guest
    score): those, and ``attribute`` is "". No ranking then; only the reason none is signed."""
    counted: bool = False
    """It ranks by how many of the items there are ("the most events", "the fewest claims", "most
    common"): the values of the attribute the question asks for, by how many matches hold each."""


def _named(rest: list[Token], numeric: list[AttrProfile], items: frozenset[str] = frozenset()) -> tuple[AttrProfile, Token] | None:
    """The one numeric attribute a word right after the superlative names (its name's words),
    and the last word of the name as written ("distance to center km"). The items' own word in
    the plural (``items``) names none ("in total on Boston claims": not prior_claims)."""
    hits: dict[str, tuple[AttrProfile, Token]] = {}
    after = rest[:_WINDOW]
    for tok in after:
        plural_items = tok.norm in items and tok.norm.endswith("s")
        for p in numeric:
            if plural_items and not p.whole_name(tok.norm):
                continue  # "the most claims": no word of prior_claims; "the highest calories" is calories
            if p.name_terms and term_match(forms(tok.norm), p.name_terms) and p.name not in hits:
                hits[p.name] = (p, tok)
        if len(hits) > 1:
            # A word that is a name's own word beats one it abbreviates: "the most rain" is
            # rain_mm, not rainy_days.
            hits = {n: h for n, h in hits.items() if forms(h[1].norm) & h[0].name_terms} or hits
        if len(hits) > 1:
            # The word as a name writes it: "claimed" is amount_claimed's, not prior_claims'.
            hits = {n: h for n, h in hits.items() if h[1].norm in h[0].name_terms} or hits
        if hits:
            break  # the first word naming an attribute settles it ("highest score per guest")
    if len(hits) > 1:
        # "the largest amount claimed" of amount_claimed beside amount_paid: the next words of the
        # name tell them apart.
        first = next(iter(hits.values()))[1]
        for tok in after[after.index(first) + 1 :]:
            narrowed = {n: (h[0], tok) for n, h in hits.items() if term_match(forms(tok.norm), h[0].name_terms)}
            if not narrowed or len(narrowed) == len(hits):
                break
            hits = narrowed
    if len(hits) != 1:
        return None
    attr, last = next(iter(hits.values()))
    for tok in rest[rest.index(last) + 1 :]:
        # the name's other words ("guest score"), and its description's ("battery life" of
        # battery_hours, "battery life in hours")
        if not (term_match(forms(tok.norm), attr.terms) or tok.norm in attr.name.lower().split("_")):
            break
        last = tok
    return attr, last


def _name_start(rest: list[Token], named: tuple[AttrProfile, Token]) -> Token:
    """The first word of the attribute's name as ``_named`` found it (the words before ``named[1]``
    that belong to the name too: "review score")."""
    attr, last = named
    start = rest.index(last)
    while start > 0 and term_match(forms(rest[start - 1].norm), attr.name_terms):
        start -= 1
    return rest[start]


def _described(rest: list[Token], fits: list[AttrProfile], items: frozenset[str]) -> tuple[AttrProfile, Token] | None:
    """Of several attributes a measure fits, the one a word right after it names through its
    description ("the most recent reading": ``measured_on``, "date of the last reading", not
    ``year``); the collection's word for its items names none ("the newest record")."""
    after_items = False
    for tok in rest[:_WINDOW]:
        if forms(tok.norm) & items:
            after_items = True
            continue
        # After the items' word only a word of a name ("the most expensive energy cost"): "the
        # oldest car sold" says which cars, not by what they rank.
        hits = [p for p in fits if term_match(forms(tok.norm), p.name_terms if after_items else p.terms)]
        if hits:
            return (hits[0], tok) if len(hits) == 1 else None
        if tok.norm not in QUERY_STOP:
            # "the fastest marathon time": a word between that names neither ("marathon") would
            # be read as part of the measure's name, and no condition would hold it.
            return None
    return None


def _of_kind(kinds: frozenset[str], numeric: list[AttrProfile]) -> list[AttrProfile]:
    return [p for p in numeric if p.attr.kind in kinds]


_PRICE_NOUNS = word_set("price_nouns")
_PRICE_WORDS = word_set("price_words")


def _priced(word: str, fits: list[AttrProfile]) -> AttrProfile | None:
    """Of several money attributes a price word fits ("expensive", "cheapest", "cost"), the one
    price: the one whose name or description says it is what the thing costs. None when none or
    several are ("list_price" beside "sale_price": which one is not said)."""
    if word not in _PRICE_WORDS or len(fits) < 2 or any(p.attr.kind != "money" for p in fits):
        return None
    # Its name, or the head of its description ("price of the tests"), not a word further on
    # ("amount actually paid, after late fees").
    prices = [p for p in fits if {lemma(w) for w in re.findall(r"[a-z]+", p.name.casefold().replace("_", " "))
                                  + re.findall(r"[a-z]+", (p.attr.description or "").casefold())[:3]} & _PRICE_NOUNS]
    if len(prices) != 1:
        return None
    # "order_total" beside "delivery_charge": the order's total is what it costs too, and a
    # price noun naming a part of it ("charge") does not make that part the thing's price.
    totals = [p for p in fits if p is not prices[0] and "total" in _head_words(p)]
    return None if totals else prices[0]


def _head_words(p: AttrProfile) -> set[str]:
    """The words of ``p``'s name and the first three of its description."""
    return set(re.findall(r"[a-z]+", p.name.casefold().replace("_", " "))) \
        | set(re.findall(r"[a-z]+", (p.attr.description or "").casefold())[:3])


_AGE_WORDS = frozenset({"older", "oldest", "younger", "youngest"})


def _an_age(p: AttrProfile) -> bool:
    """Whether ``p`` is an age: "age" is a word of its name or heads its description ("estimated
    age of the animal at intake in weeks")."""
    head = re.findall(r"[a-z]+", (p.attr.description or "").casefold())[:2]
    return "age" in re.split(r"[_\W]+", p.name.casefold()) or "age" in head


def _begins_a_name(tokens: list[Token], i: int, profile: SchemaProfile) -> bool:
    """Whether ``tokens[i]`` begins an attribute's name of two words or more written whole
    ("Which nearest town …" of nearest_town): a name, no superlative."""
    for p in profile.attributes:
        words = [w for w in re.split(r"[_\W]+", p.name.casefold()) if w]
        if len(words) >= 2 and i + len(words) <= len(tokens) and all(
                w == t.norm or w in forms(t.norm) for w, t in zip(words, tokens[i : i + len(words)], strict=True)):
            return True
    return False


_AGGREGATE_WORDS = frozenset({"average", "mean", "median", "total", "sum", "combined", "overall", "typical"})
"""Words between a superlative and its measure that make it one of groups' aggregates."""


def read_superlative(question: str, tokens: list[Token], profile: SchemaProfile, taken: Spans,
                     dates: Sequence[AttrProfile] = (), *, alternatives: bool = False) -> Superlative | None:
    """The first superlative in ``question`` over one numeric or ``dates`` attribute of ``profile``,
    its words claimed in ``taken`` (so the search text no longer holds them); None when there is
    none or its attribute is not said. One whose measure fits several attributes comes back with
    them as ``candidates``, its words left to search. Words already read as a condition ("at most
    150") are not superlatives.

    ``dates`` are the schema's ``date`` attributes, which the generic readers do not see: "the
    earliest inspection" is a ranking by the day each was made, as "the oldest club" is one by the
    year each was founded.

    With ``alternatives`` (the question names two or more values of one attribute: "Ostby or
    Kelbridge"), a comparative ("more rain", "cheaper") is read the same way, as ``comparative``."""
    numeric = [*profile.numeric(), *dates]
    if not numeric:
        return None
    generic = {**_GENERIC, **_CMP_GENERIC} if alternatives else _GENERIC
    own = {**_OWN, **_CMP_OWN} if alternatives else _OWN

    def free_after(j: int) -> list[Token]:
        # Up to a year after its preposition: "largest trip in 2024 by students" names no measure
        # past the year, which the date reader holds.
        stop = next((k for k in range(max(j, 1), len(tokens)) if tokens[k].text.isdigit() and len(tokens[k].text) == 4
                     and tokens[k - 1].norm in ("in", "during", "since", "of", "for")), len(tokens))
        return [t for t in tokens[j:stop] if taken.free((t.start, t.end))]

    for i, tok in enumerate(tokens):
        if not taken.free((tok.start, tok.end)) or _begins_a_name(tokens, i, profile):
            continue
        word = tok.norm
        comparative = word in _CMP_GENERIC or word in _CMP_OWN
        verb = _verb_before(tokens, i, taken)
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        found: tuple[AttrProfile, bool, Token] | None = None
        several: list[AttrProfile] = []
        if nxt is not None and (word in generic or word in _RANK) and nxt.norm in _ADJECTIVES \
                and taken.free((nxt.start, nxt.end)):
            # "the most expensive", "the best rated": the adjective names the measure
            fits = _of_kind(_ADJECTIVES[nxt.norm], numeric)
            highest = _RANK[word] if word in _RANK else generic[word] == "max"
            described = _described(free_after(i + 2), fits, profile.item_nouns) if len(fits) > 1 else None
            used = [p for p in fits if _adverbial_verb(tokens, i, taken, p)] if len(fits) > 1 else []
            priced = _priced(nxt.norm, fits) if described is None else None
            if described is not None:
                found = (described[0], highest, described[1])  # "the most recent reading"
            elif len(fits) == 1:
                found = (fits[0], highest, nxt)
            elif len(used) == 1:
                found = (used[0], highest, nxt)  # "decided most recently": "date the case was decided"
            elif priced is not None:
                found = (priced, highest, nxt)  # "the most expensive sample": its price
            several = fits
        elif word in generic and (word not in _QUANTIFIERS or comparative or (i > 0 and tokens[i - 1].norm == "the")):
            # A word for size ("largest", "most", "smallest") ranks no date: "the largest recall"
            # is not the latest one because "recall" is a word of ``recall_date``.
            rest = free_after(i + 1)
            named = _named(rest, [p for p in numeric if p.attr.type != "date"], profile.item_nouns)
            if named is not None and word in _QUANTIFIERS and _name_start(rest, named) is named[1] \
                    and named[1].norm.endswith("s") \
                    and (not named[0].whole_name(named[1].norm) or forms(named[1].norm) & profile.record_nouns) \
                    and (named[1].norm in profile.item_nouns or forms(named[1].norm) & (_GENERIC_ITEMS | profile.record_nouns)):
                # "handled the most claims", "the most records": the items counted, not
                # prior_claims or record_high_c, whose names the items' word is one word of ("the
                # most prior claims", "the highest record high" write them), nor entry_year, whose
                # whole name but for its unit is the records' own word ("the most entries").
                named = None
            if named is not None and (rivals := _described_rivals(tokens, named, numeric)):
                # "the most seats" of seats_sold beside capacity, "number of seats on the aircraft":
                # which one is not said.
                found, several, highest = None, [named[0], *rivals], generic[word] == "max"
            elif named is not None:
                found = (named[0], generic[word] == "max", named[1])
            elif verb is not None:
                # "Which incident cost the most?": the verb names the measure, as "expensive" would.
                fits = _of_kind(_VERBS[verb.norm], [p for p in numeric if p.attr.type != "date"])
                highest = generic[word] == "max"
                if len(fits) == 1:
                    found = (fits[0], highest, tok)
                elif len(fits) > 1 and (named_by := _named_by_verb(tokens, i, taken, fits)) is not None:
                    # "Which claim was paid the most?" of amount_paid beside amount_claimed: the
                    # verb is a word of one's name.
                    verb, found = named_by[1], (named_by[0], highest, tok)
                elif (priced := _priced(verb.norm, fits)) is not None:
                    found = (priced, highest, tok)  # "Which sample cost the most?": its price
                several = fits
            elif not (nxt is not None and nxt.norm.endswith("s") and forms(nxt.norm) & profile.item_nouns) \
                    and (named_by := _named_by_verb(tokens, i, taken, [p for p in numeric if p.attr.type != "date"])) is not None:
                # (Not "listed the most properties": the items counted, not list_price.)
                # "Which item was borrowed the most?": the verb is a word of the one attribute's name
                # (borrowed_last_year), as "sold the most seats" is of seats_sold.
                verb, found = named_by[1], (named_by[0], generic[word] == "max", tok)
        elif word in own:
            kinds, highest = own[word]
            if verb is not None and kinds & _VERBS[verb.norm]:
                kinds = kinds & _VERBS[verb.norm]  # "lasted the longest": a duration, not a length
            named = _named(free_after(i + 1), numeric, profile.item_nouns)
            if named is not None and named[0].attr.kind not in kinds and forms(named[1].norm) & profile.item_nouns:
                named = None  # "the lightest shipment": the items, not ship_date, whose name it begins
            if named is not None and named[0].attr.kind in kinds:
                found = (named[0], highest, named[1])  # "the longest battery life"
            elif named is None:
                fits = _of_kind(kinds, numeric)
                described = _described(free_after(i + 1), fits, profile.item_nouns) if len(fits) > 1 else None
                used = [p for p in fits if _adverbial_verb(tokens, i, taken, p)] if len(fits) > 1 else []
                if described is not None:
                    found = (described[0], highest, described[1])  # "the latest reading"
                elif len(fits) == 1:
                    found = (fits[0], highest, tok)
                elif len(used) == 1:
                    # "Which case was filed earliest?" of filing_date beside decision_date: the one
                    # whose name or description uses the verb ("date the case was filed").
                    found = (used[0], highest, tok)
                elif (priced := _priced(word, fits)) is not None:
                    found = (priced, highest, tok)  # "the cheapest sample": its price
                several = fits
        if found is not None and word in _AGE_WORDS and found[0].attr.type in ("date", "integer"):
            ranked = found[0]
            if ages := [p for p in numeric if p is not ranked and _an_age(p)]:
                # "Which was older at intake, WR-7307 or WR-7370?" of age_weeks ("age of the animal
                # at intake") beside intake_date: the older animal or the earlier intake, not said.
                found, several = None, [ranked, *ages]
        if found is None:
            if len(several) > 1:
                last = nxt if nxt is not None and nxt.norm in _ADJECTIVES else tok
                first = tok if verb is None else verb
                return Superlative("", highest, question[first.start : last.end], (first.start, last.end),
                                   candidates=tuple(p.name for p in several), comparative=comparative)
            continue
        attr, highest, last = found
        if any(t.norm in _AGGREGATE_WORDS and t.norm not in attr.name.casefold().split("_")
               for t in tokens[i + 1 : tokens.index(last)]):
            # "the highest average rent": of each district's average, which no ranking of
            # records is; left unread ("the highest total minutes" names total_minutes).
            continue
        if verb is None:
            verb = _attribute_s_verb(tokens, i, taken, attr)
        span = (tok.start if verb is None else verb.start, last.end)
        if attr.attr.type != "date":
            # A date's words stay for the date readers ("the latest fares": newest first, ``latest``).
            taken.claim(span)
        # The items in the plural ("the cheapest hotels"), not a plural attribute ("the highest calories")
        plural = any(t.norm != t.lemma and t.norm.endswith("s") and forms(t.norm) & profile.item_nouns
                     and not (span[0] <= t.start < span[1])
                     and not any(term_match(forms(t.norm), p.name_terms) for p in profile.attributes) for t in tokens)
        return Superlative(attr.name, highest, question[span[0] : span[1]], span, several=plural and not comparative,
                           comparative=comparative)
    return None


def _verb_before(tokens: list[Token], i: int, taken: Spans) -> Token | None:
    """The verb naming a measure right before ``tokens[i]`` or its "the" ("cost the most", "lasted
    longer"), when no reader took it; None otherwise."""
    j = i - 1 if i > 0 and tokens[i - 1].norm != "the" else i - 2
    if j < 0 or tokens[j].norm not in _VERBS or not taken.free((tokens[j].start, tokens[j].end)):
        return None
    return tokens[j]


def _described_rivals(tokens: list[Token], named: tuple[AttrProfile, Token], numeric: list[AttrProfile]) -> list[AttrProfile]:
    """Other attributes of the named one's kind whose description has the word that named it, when
    the question writes none of the named one's other name words: "the most seats" names
    seats_sold by "seats", and capacity is "number of seats on the aircraft"."""
    attr, word = named
    said = frozenset().union(*(forms(t.norm) for t in tokens))
    others = [w for w in re.split(r"[_\W]+", attr.name.casefold()) if len(w) > 2 and not forms(w) & forms(word.norm)]
    if not others or any(forms(w) & said for w in others):
        return []
    return [p for p in numeric if p.name != attr.name and p.attr.kind == attr.attr.kind and forms(word.norm)
            & frozenset().union(*(forms(w) for w in re.findall(r"[a-z]+", (p.attr.description or "").casefold())))]


def _named_by_verb(tokens: list[Token], i: int, taken: Spans, numeric: list[AttrProfile]) -> tuple[AttrProfile, Token] | None:
    """The one attribute of ``numeric`` whose name has the verb right before ``tokens[i]`` or its
    "the" ("borrowed the most": borrowed_last_year), and the verb; None when none or several."""
    j = i - 1 if i > 0 and tokens[i - 1].norm != "the" else i - 2
    if j < 0 or not tokens[j].norm.isalpha() or tokens[j].norm in QUERY_STOP or not taken.free((tokens[j].start, tokens[j].end)):
        return None
    fits = [p for p in numeric if forms(tokens[j].norm) & frozenset().union(
        *(forms(w) for w in re.split(r"[_\W]+", p.name.casefold()) if len(w) > 2))]
    return (fits[0], tokens[j]) if len(fits) == 1 else None


def _adverbial_verb(tokens: list[Token], i: int, taken: Spans, attr: AttrProfile) -> bool:
    """Whether the word right before ``tokens[i]`` (no "the" between: the superlative is said of the
    verb, "filed earliest", "decided most recently") is a verb ``attr``'s own name or description
    uses: not an auxiliary ("was" of "price the property was listed at"), nor the verb of the items
    a superlative after "the" describes ("listed the most expensive property")."""
    if i < 1 or tokens[i - 1].norm == "the" or tokens[i - 1].norm in QUERY_STOP or tokens[i - 1].norm in AUXILIARIES:
        return False
    return _attribute_s_verb(tokens, i, taken, attr) is not None


def _attribute_s_verb(tokens: list[Token], i: int, taken: Spans, attr: AttrProfile) -> Token | None:
    """The verb right before ``tokens[i]`` or its "the" that ``attr``'s own name or description
    uses ("Did SK114 sell more seats …": seats_sold, "number of seats sold"), when no reader took
    it; None otherwise."""
    j = i - 1 if i > 0 and tokens[i - 1].norm != "the" else i - 2
    if j < 0 or not tokens[j].norm.isalpha() or not taken.free((tokens[j].start, tokens[j].end)):
        return None
    words = re.findall(r"[a-z]+", f"{attr.name.replace('_', ' ')} {attr.attr.description or ''}".casefold())
    uses = frozenset().union(*(forms(w) for w in words if len(w) > 2))
    return tokens[j] if forms(tokens[j].norm) & uses else None


_GENERIC_ITEMS = frozenset().union(*(forms(w) for w in ITEM_WORDS))
_UNMEASURED_RANK = frozenset({"best", "worst"})
"""Superlatives with no "-est" of their own form ("the best club")."""


def _superlative_form(tokens: list[Token], i: int) -> bool:
    """Whether ``tokens[i]`` is a superlative by its form: "wettest", "friendliest", "best",
    "the most popular" (an adjective's "-est" form, which the lemmatiser takes back to the
    adjective: "interest" and "forest" stay as they are)."""
    word = tokens[i].norm
    if word in _UNMEASURED_RANK:
        return True
    if word in ("first", "last"):
        # "the first Quill release": the earliest or the latest, which no attribute is named to
        # rank by here; not "the first 3 releases" (a limit) nor "first name".
        nxt = tokens[i + 1].norm if i + 1 < len(tokens) else ""
        return i > 0 and tokens[i - 1].norm == "the" and not nxt.isdigit() and nxt not in NUMBER_WORDS
    if word in _QUANTIFIERS | {"least"}:
        # "the most popular", "is most popular", "given most often"; not "at least", "most members attend"
        return i > 0 and (tokens[i - 1].norm in ("the", "is", "are", "was", "were", "be")
                          or (i + 1 < len(tokens) and tokens[i + 1].norm in _HOW_OFTEN and tokens[i - 1].norm != "at"))
    return word.isalpha() and word.endswith("est") and len(word) > 4 and lemma(word) != word


def read_unmeasured(question: str, tokens: list[Token], profile: SchemaProfile, taken: Spans) -> Superlative | None:
    """A superlative of the collection's items that no attribute measures ("the friendliest rowing
    club", "Which chess club is the most popular?", "the best hotel"), read when no measured one
    was: which item it picks depends on every item, and no stored value ranks them, so no answer
    to it is signed (``attribute`` and ``candidates`` empty). Only over a schema's items: the item
    noun stands within a few words after it, or the question asks "Which <item> …"; a word of an
    attribute's own name ("wettest_month") or one already read is no superlative here."""
    if not profile.attributes:
        return None
    # The collection's own nouns for its items, not the generic ones ("the best place to eat",
    # "Which one is the oldest?" over passages about the world rank no records).
    items = ((profile.item_nouns | profile.record_nouns) - _GENERIC_ITEMS) | frozenset().union(
        *(p.name_terms for p in profile.attributes if p.name == profile.schema.label_attribute))

    def item(t: Token) -> bool:
        return bool(forms(t.norm) & items)

    # "Which chess club is the most popular?": the item asked for, a few words after "which"
    which = bool(tokens) and tokens[0].norm in ("which", "what") and any(item(t) for t in tokens[1 : 1 + _WINDOW])
    for i, tok in enumerate(tokens):
        if not taken.free((tok.start, tok.end)) or not _superlative_form(tokens, i):
            continue
        if any(term_match(forms(tok.norm), p.name_terms) for p in profile.attributes):
            continue
        # What "the most …" may count: the items, or the values of a word attribute ("the most
        # vets" of visits: how many vets each clinic's visits name).
        countable = items | _GENERIC_ITEMS | frozenset().union(*(p.name_terms for p in profile.strings()))
        if tok.norm in _QUANTIFIERS and (counted := _counted(tokens, i, countable, taken)) is not None:
            # "Which region had the most events?", "Which breed is most common?": how many items
            # each value has ranks them, which the stored values count.
            return Superlative("", tok.norm == "most", question[tok.start : counted.end], (tok.start, counted.end),
                               counted=True)
        if which or any(item(t) for t in tokens[i + 1 : i + 1 + _WINDOW]):
            return Superlative("", tok.norm not in ("worst", "least"), question[tok.start : tok.end], (tok.start, tok.end))
    return None


_HOW_OFTEN = frozenset({"common", "commonly", "frequent", "frequently", "often"})
"""Words after "most"/"least" that rank by how many items there are ("most common", "least often")."""


def _counted(tokens: list[Token], i: int, items: frozenset[str], taken: Spans) -> Token | None:
    """The last word of what a quantifier superlative at ``tokens[i]`` counts, when it counts the
    items: the item noun right after it (values the filter holds may stand between: "the most
    volcanic events"), a value alone ("the most houses"), or a word for how often ("most common");
    None otherwise ("the most popular")."""
    valued: Token | None = None
    for t in tokens[i + 1 : i + 1 + _WINDOW]:
        if t.norm in _HOW_OFTEN:
            return t
        if forms(t.norm) & items:
            # Items counted are written in the plural: "the most rainfall" is an amount.
            return t if t.norm.endswith("s") else None
        if taken.free((t.start, t.end)):
            # "sold the most houses in 2023": a value the filter holds names the items counted.
            return valued if valued is not None and t.norm in QUERY_STOP else None
        if t.norm in QUERY_STOP or not t.norm.isalpha():
            return valued  # the date phrase after it ("in 2023") is the date reader's
        valued = t
    return valued


@dataclass(frozen=True)
class Aggregate:
    attribute: str
    op: Literal["average", "total"]
    phrase: str
    """The words read, as written ("average price per night", "total")."""
    span: tuple[int, int]


def read_aggregate(question: str, tokens: list[Token], profile: SchemaProfile, taken: Spans) -> Aggregate | None:
    """The first aggregate in ``question`` over one numeric attribute of ``profile``: the attribute
    named right after its word ("the average price per night", "the total members"), or, after
    what it sums ("How many members do chess clubs have in total?"), the one numeric attribute the
    question names. A word that is part of the attribute's own name ("total_minutes") is no
    aggregate, and a total is only of a kind that adds up (counts, money, durations, measures)."""
    numeric = profile.numeric()
    for i, tok in enumerate(tokens):
        if tok.norm not in _AGGREGATES or not taken.free((tok.start, tok.end)):
            continue
        op = cast(Literal["average", "total"], _AGGREGATES[tok.norm])
        rest = [t for t in tokens[i + 1 :] if taken.free((t.start, t.end))]
        named = _named(rest, numeric, profile.item_nouns)
        if named is not None and tok.norm == "mean" and rest[0] is not named[1] and rest[0] is not _name_start(rest, named):
            named = None  # "mean" names its attribute right after it; else it is the verb ("mean to its members")
        first, last = tok, tok
        if named is not None:
            attr, last = named
        elif tok.norm != "mean":  # "mean" alone is a verb ("what does it mean")
            # The word as the name writes it: "wins" begins winner_votes's "winner", and "How
            # many Green party wins … in total" counts wins, no sum of votes.
            # Nor does the items' own word ("How many talks are there in total?" of talk records
            # counts talks, no sum of talk_minutes).
            before = [(p, t) for t in tokens[:i] if taken.free((t.start, t.end)) for p in numeric
                      if p.name_terms and forms(t.norm) & p.name_terms
                      and not (forms(t.norm) & profile.item_nouns and not p.whole_name(t.norm))]
            if len({p.name for p, _ in before}) != 1:
                continue
            attr, first = before[0]
            first, last = before[0][1], tok
        else:
            continue
        if tok.norm in attr.name.lower().split("_"):
            continue  # "the total minutes" of an attribute named total_minutes is its value
        if op == "total" and attr.attr.kind not in _SUMMABLE:
            continue
        span = (first.start, last.end)
        if first is tok:
            taken.claim(span)  # "average price per night": one run of words
        else:
            taken.claim((first.start, first.end))  # "members ... in total": the name and the word
            taken.claim((tok.start, tok.end))
        return Aggregate(attr.name, op, question[span[0] : span[1]], span)
    return None
