"""The rule-based self-query constructor: a question read against a schema, with no model.

Everything it knows about the collection comes from the declared schema and the catalogue of
known values (see ``_profile``): nothing here names a domain. In order:

1. numbers and year phrases become conditions on the numeric attribute their unit, cue words and
   declared range point to (``_numeric``);
2. words naming a value become conditions on string and boolean attributes, negation applied
   (``_values``): known values, boolean attribute names, embedding similarity under the
   collection's own model (when given), and unknown proper names for name-like attributes;
3. in a yes/no question about one thing it names, the conditions after the name are what it asks
   ("Is Portrait of Clara Vinter a watercolour?", "Is PHIL 340 taught online?" where the code
   identifies one course): set aside and searched, never filtered (``_asked``);
4. a requested number of results becomes the limit ("show me 5", "three dramas", "top 3": ``_limit``);
   a bound never does ("fewer than 50 places"): one no attribute fits is left out, and recorded;
   a superlative or an aggregate over a numeric attribute ("the cheapest", "the most members",
   "the average price") is computed by the engine, not words to search (``_computed``);
5. the search text is the question minus the phrases consumed by conditions and the filler at
   its ends ("show me", "recipes", "please"), and never empty; a word for the collection's items
   stays when the words before it qualify it ("latest fares") or only numbers follow it.

It never invents a value: every condition is written in the question, which is also what makes
it a yardstick for a model's filter (see :func:`~selfrag.query.validate.grounding`). Several
positive values of one attribute become ``in`` (a document has one cuisine, so "Thai or Chinese"
and "Thai and Chinese dishes" both mean either); negated ones become ``nin``. Two bounds on one
attribute joined by "or" ("before 1920 or after 2015") become an ``or``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from datetime import date
from difflib import SequenceMatcher

from langchain_core.embeddings import Embeddings

from selfrag.lang import (
    DETERMINERS,
    FILLER,
    FUNCTION_WORDS,
    MONTHS,
    QUERY_STOP,
    UNITS,
    Token,
    find_date_range,
    find_date_ranges,
    forms,
    lemma,
    normalise,
    tokenize,
    word_set,
)
from selfrag.lang.questions import AUXILIARIES, PREPOSITIONS
from selfrag.query._asked import named_subject
from selfrag.query._computed import Aggregate, Superlative, read_aggregate, read_superlative, read_unmeasured
from selfrag.query._grounding import clauses
from selfrag.query._lexicon import DISTINCT_WORDS, ITEM_WORDS, LINKING_VERBS, NEGATION_PHRASES, NEGATIONS
from selfrag.query._limit import bound_cue, read_led_limit, read_limit
from selfrag.query._match import accent_only, month_forms
from selfrag.query._numbers import Number, find_numbers
from selfrag.query._numeric import Found, numeric_conditions
from selfrag.query._profile import AttrProfile, SchemaProfile, affirmed
from selfrag.query._similar import Similarity
from selfrag.query._spans import Span, Spans
from selfrag.query._text import plural, term_match
from selfrag.query._values import NAME_FLOOR, Mention, does, find_mentions
from selfrag.query.model import Comparison, FilterNode, Operation, Scalar, StructuredQuery
from selfrag.schema import CollectionSchema

__all__ = ["Reading", "read_question", "rule_based_query"]

_PLAIN = FUNCTION_WORDS | DETERMINERS | frozenset({"whats", "please", "thanks", "anything", "something", "everything"})
"""Words that never ask anything of their own (what a listing's question may hold besides its filter)."""
_BOUNDS = frozenset({"gt", "gte", "lt", "lte"})
_ARTICLES = frozenset({"a", "an", "the"})
_HUNDREDS = re.compile(r"\b(?:the\s+)?(?!2000)\d\d00['’]?s\b", re.IGNORECASE)
""""the 1900s", "the 1800s": a decade or a century. "the 2000s" is the decade in common use (the
labelled sets' homes-042, movies-guide-030 read it so)."""
_DOTTED_CODE = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,}(?![\w.]*\d)")
"""A dotted code of three numbers or more ("1.2.3"): a version, never a number (``_numbers``)."""
_COMPARING_TWO = re.compile(r"\bthan\b|\bor\b", re.IGNORECASE)
"""A comparison's words between two named records ("cost more than", "INC-2014 or INC-2041 cheaper")."""
_CONTAINING = frozenset({"in", "inside", "on", "aboard", "within", "onboard"})
"""Prepositions after "What was …" that ask what a named record holds ("What was in SHP-30471?")."""
_HAVING = frozenset({"have", "has", "had", "having", "with"})
_ROLE_WORDS = frozenset({"from", "to", "into", "toward", "towards", "via", "by"})
"""Words giving the value after them a role ("from Boston", "sent by Alice")."""
_BETWEEN = word_set("gap_words") - {"and", "or", "nor", "either"}
"""Words a negation reaches a list's element through ("not about graphs", "not on graphs"); not
the words joining two conditions, each of which the negation may not govern."""
_DROPPED = FILLER | ITEM_WORDS | NEGATIONS
"""Words a search drops ("good", "made", "show", "result", "lacks") that may be all a question asks."""


class Reading:
    """What the constructor read from one question: the structured query and the consumed spans."""

    def __init__(self, query: StructuredQuery, consumed: list[tuple[int, int]], notes: list[str],
                 residual: str = "", asked: Sequence[FilterNode] = (), subject: str = "",
                 unread: Sequence[str] = (), extreme: Superlative | None = None,
                 aggregate: Aggregate | None = None, leftover: Sequence[str] = (), which_items: bool = False,
                 guessed: Sequence[str] = (), unknown_names: Sequence[str] = (),
                 dated: Sequence[tuple[int, int]] = (), either: Sequence[str] = (),
                 ambiguous: Sequence[str] = (), exclusive: Sequence[str] = (),
                 unheld_negations: Sequence[str] = (), coordinated: Sequence[str] = ()) -> None:
        self.query = query
        self.consumed = consumed
        """Character spans of the question that became conditions or the limit."""
        self.notes = notes
        """How each value was linked ("cuisine: 'veggie' → vegetarian (embedding 0.81)")."""
        self.residual = residual
        """What is left of the question once its conditions, its limit and the words naming the
        collection's items are taken out: "" when the filter holds all of it ("3 bedroom houses
        under 500k"). A date phrase and a verb a condition holds ("announced in March 2023",
        "affected Japan") are held too, though ``query.query``, the search text, keeps them; with
        nothing left at all it searches the question as asked."""
        self.asked = list(asked)
        """Conditions a yes/no question asks of the one thing it names ("a watercolour" in "Is
        Portrait of Clara Vinter a watercolour?"): set aside, their words searched (``_asked``)."""
        self.subject = subject
        """That thing's name as written, when conditions were set aside."""
        self.unread = list(unread)
        """Notes on what bounds the items but no condition holds ("'in March': a month without its year")."""
        """Bounds written in the question that no attribute fits ("fewer than 3 ports" over
        prices and ratings): not filtered, and no limit either."""
        self.extreme = extreme
        """A superlative over one numeric attribute ("the cheapest", "the most members"): a ranking
        of what the filter selects, its words no longer searched (``_computed``)."""
        self.leftover = list(leftover)
        """The words of the question no condition took that a search drops as filler or as a
        generic word for results ("good" in "What is the Duo 14 good for?", "show", "result"):
        nothing to search for, but to a listing the question itself."""
        self.aggregate = aggregate
        """An aggregate over one numeric attribute ("the average price", "members in total"):
        computed over what the filter selects, its words no longer searched (``_computed``)."""
        self.which_items = which_items
        """The question asks "Which <the collection's items> …?" ("Which Acme laptops have HDMI
        ports?"): when the filter holds the rest, the items it selects are the answer."""
        self.ambiguous = list(ambiguous)
        """Names read as one attribute's value that are also a word of another name attribute's
        known value ("Hunter": a title, and Mara Hunter's surname): which one is meant is not said."""
        self.unknown_names = list(unknown_names)
        """Names the question writes that are a known name and more ("Aurora Sport", "Brisa HD"):
        no known item, so an answer must name them to be about what was asked."""
        self.dated = list(dated)
        """The spans of the date phrase the date reader holds and of its verb, when a date
        attribute's description uses it ("listed in 2024" of "date the car was listed"): not in
        ``consumed`` (that reader reads them later), but no word of the question's own."""
        self.coordinated = list(coordinated)
        """Conditions on two attributes the question joins with "or" ("a written score over 85 or a
        practical score over 85"): the filter holds them together, which the question did not say."""
        self.either = list(either)
        """Values several attributes hold, read as in any of them, after a word that gives them a
        role the question leaves unsaid ("flights from Boston": origin or destination): searched,
        but what the filter selects answers nothing for certain."""
        self.exclusive = list(exclusive)
        self.unheld_negations = list(unheld_negations)
        """Negations no condition took ("did Ana Ruiz not lead"): the filter holds the question
        without them, so what it selects answers nothing."""
        """A list's elements asked as its only one ("support only Linux"): filtered as contained,
        which holds less than asked (the others may be there too), so the matches answer nothing."""
        self.guessed = list(guessed)
        """The values linked by meaning, not by spelling ("'purple' read as colour 'Blue' (embedding
        0.78)"): the filter searches with them, but what it selects answers nothing for certain."""


def _mention_nodes(mentions: list[Mention]) -> list[Found]:
    groups: dict[tuple[str, bool], list[Mention]] = {}
    booleans: dict[str, Mention] = {}
    for m in mentions:
        if m.attr.attr.type == "boolean":
            booleans[m.attr.name] = m  # the last word on a yes/no attribute wins
            continue
        groups.setdefault((m.attr.name, m.negated), []).append(m)
    found = []
    for (name, negated), group in groups.items():
        values: list[Scalar] = list(dict.fromkeys(m.value for m in group))
        clause: FilterNode = (
            Comparison(attribute=name, comparator="ne" if negated else "eq", value=values[0])
            if len(values) == 1
            else Comparison(attribute=name, comparator="nin" if negated else "in", value=values)
        )
        if len(group) == 1 and group[0].also:
            # A value of several attributes the question does not choose between: in any of
            # them, or (negated) in none.
            clause = Operation(operator="and" if negated else "or", arguments=[clause, *(
                Comparison(attribute=o.name, comparator="ne" if negated else "eq", value=values[0]) for o in group[0].also)])
        found.append(Found(clause, group[0].span, name))
    for name, m in booleans.items():
        found.append(Found(Comparison(attribute=name, comparator="eq", value=m.value), m.span, name))
    return found


def _list_elements(tokens: list[Token], lists: Sequence[AttrProfile], catalogue: Mapping[str, Sequence[str]],
                   taken: Spans, *, exclude: frozenset[str] | set[str] = frozenset()) -> list[Found]:
    """The known elements of ``lists`` (``string[]`` attributes) the question names, as written
    but for case ("an sd card reader" is "SD card reader"), each a ``contains`` condition (after
    "without", "no" or "not": ``not_contains``), its words and the attribute's own word beside it
    ("HDMI ports", "the Harrow Fen station") claimed. Only catalogued elements, longest first: an
    unknown one is the search's, as an unknown value of a string attribute would be; one in
    ``exclude`` (casefolded) is left to the other readers."""
    found: list[Found] = []
    norms = [t.norm for t in tokens]
    for p in lists:
        elements = sorted(((tuple(t.norm for t in tokenize(v)), v) for v in catalogue.get(p.name, [])
                           if v.casefold() not in exclude), key=lambda e: -len(e[0]))
        for words, value in elements:
            n = len(words)
            for i in range(len(tokens) - n + 1) if n else ():
                span = (tokens[i].start, tokens[i + n - 1].end)
                if tuple(norms[i : i + n]) != words or not taken.free(span):
                    continue
                if n == 1 and accent_only(tokens[i].text, value):
                    continue  # "part of the series" is no Pärt
                if n == 1 and value.isupper() and tokens[i].text != value \
                        and (tokens[i].norm in QUERY_STOP or tokens[i].norm in PREPOSITIONS):
                    continue  # "per booking" is no handling code "PER"
                first, last = i, i + n - 1
                if last + 1 < len(tokens) and term_match(forms(norms[last + 1]), p.name_terms):
                    last += 1  # "HDMI ports"
                if first > 0 and term_match(forms(norms[first - 1]), p.name_terms):
                    first -= 1  # "station Harrow Fen"
                before = [w for w in norms[max(0, first - 2) : first] if w not in DETERMINERS]
                # "neither" and "no" are determiners too: the word right before is read first.
                negated = (first > 0 and norms[first - 1] in NEGATIONS) or (bool(before) and before[-1] in NEGATIONS)
                start = tokens[first - 1].start if negated and first > 0 and norms[first - 1] in NEGATIONS else tokens[first].start
                if not negated and (phrase := _negation_phrase_before(tokens, first)) is not None:
                    negated, start = True, tokens[phrase].start  # "versions other than 2.0"
                if not negated:
                    # "didn't affect Germany", "do not have a tow hitch": the negation governs the
                    # element through an article and a verb of having (or one saying an item has it).
                    k = first - 1
                    while k > 0 and first - k <= 3 and (norms[k] in _ARTICLES or norms[k] in _HAVING or norms[k] in _BETWEEN
                                                          or forms(norms[k]) & LINKING_VERBS):
                        k -= 1
                    if k < first - 1 and k >= 0 and norms[k] in NEGATIONS:
                        negated, start = True, tokens[k].start
                    elif k >= 1 and norms[k - 1] in NEGATIONS and norms[k].isalpha() and norms[k] not in NEGATIONS \
                            and taken.free((tokens[k].start, tokens[k].end)):
                        # "did not study psoriasis", "not tested for asthma": through the one verb after it
                        negated, start = True, tokens[k - 1].start
                claimed = (start, tokens[last].end)
                taken.claim(claimed)
                found.append(Found(Comparison(attribute=p.name, comparator="not_contains" if negated else "contains",
                                              value=value), claimed, p.name))
    return found


def _join(question: str, found: list[Found]) -> list[FilterNode]:
    """Conditions in question order; two on one attribute joined by "or" become one ``or``."""
    out: list[tuple[Found, FilterNode]] = []
    for f in sorted(found, key=lambda f: f.span):
        if out:
            prev, node = out[-1]
            between = question[prev.span[1] : f.span[0]].casefold()
            if prev.attribute == f.attribute and re.fullmatch(r"[\s,]*(?:or|either|,)\s*(?:\w+\s+)?", between) and "or" in between.split():
                if isinstance(prev.node, Comparison) and prev.node.comparator == "not_contains" \
                        and isinstance(f.node, Comparison) and f.node.comparator == "contains":
                    # "did not affect 2.2 or 2.1": neither, the negation carrying over the list.
                    negated = f.node.model_copy(update={"comparator": "not_contains"})
                    args = [*(node.arguments if isinstance(node, Operation) and node.operator == "and" else [node]), negated]
                    out[-1] = (Found(negated, (prev.span[0], f.span[1]), f.attribute), Operation(operator="and", arguments=args))
                    continue
                args = [*(node.arguments if isinstance(node, Operation) and node.operator == "or" else [node]), f.node]
                out[-1] = (Found(f.node, (prev.span[0], f.span[1]), f.attribute), Operation(operator="or", arguments=args))
                continue
        out.append((f, f.node))
    return [node for _, node in out]


def _residual(question: str, tokens: list[Token], taken: Spans, profile: SchemaProfile, used: set[str], *,
              extra: Mapping[str, AttrProfile] | None = None) -> str:
    """The question's free words without the filler at their ends: stop words and negations, the
    name of an attribute a condition is on ("rated", "salary"), and, before the rest, the words for
    the collection's items and the other words of such an attribute ("recipes with chicken" →
    "chicken").

    After the rest, a word for the items is what the rest qualifies and stays ("latest fares",
    "How much are the fares", "return fares"); so does one before nothing but numbers ("fares in
    2024"). Else the search text would be "latest", "much" or "2024", the question's one content
    word lost. ``extra`` profiles the attributes ``profile`` has not (a list's, read from the whole schema).
    """
    by_name = {**(extra or {}), **profile.by_name}
    words = [by_name[name].terms for name in used]
    names = [by_name[name].name_terms for name in used]

    # "sold for the most": a superlative no reader took asks for a ranking, stop word as "most" is.
    ranking = {id(t) for i, t in enumerate(tokens)
               if t.norm in ("most", "fewest", "least") and i > 0 and tokens[i - 1].norm == "the"}
    # "How many different towns …": what "how many" of a word attribute counts already.
    how_many = len(tokens) > 2 and (tokens[0].norm, tokens[1].norm) == ("how", "many")
    distinct = {id(tokens[2])} if how_many and tokens[2].norm in DISTINCT_WORDS else set()
    # "How many talks are there in total?": a count says "in all" of itself (an aggregate reader
    # took "in total" already where it sums an attribute the question names).
    distinct |= {id(t) for i, t in enumerate(tokens) if how_many and i > 2 and tokens[i - 1].norm == "in"
                 and t.norm in ("total", "all") and i + 1 == len(tokens)}
    # "number of refused permits in Carver ward": a count of the records, as "how many" is, not
    # the permit_number it shares a word with.
    lead = [t.norm for t in tokens[:4]]
    for opening in (["number", "of"], ["the", "number", "of"], ["total", "number", "of"], ["count", "of"]):
        if lead[:len(opening)] == opening and any(forms(t.norm) & profile.record_nouns for t in tokens[len(opening):]):
            distinct |= {id(t) for t in tokens[:len(opening)]}

    def is_stop(t: Token) -> bool:
        if id(t) in ranking:
            return False
        if id(t) in distinct:
            return True
        return bool(forms(t.norm) & QUERY_STOP) or t.norm in NEGATIONS or any(term_match(forms(t.norm), n) for n in names)

    def names_items(t: Token) -> bool:
        f = forms(t.norm)
        return bool(f & profile.item_nouns) or any(term_match(f, ts) for ts in words)

    def modifies_condition(i: int) -> bool:
        # An adverb right before a condition's words says how it holds ("highly rated", "newly
        # built"): the filter holds it with them, and alone it is no topic ("highly film").
        t, nxt = tokens[i], tokens[i + 1] if i + 1 < len(tokens) else None
        return (nxt is not None and t.norm.isalpha() and len(t.norm) > 4 and t.norm.endswith("ly")
                and (not taken.free((nxt.start, nxt.end)) or any(term_match(forms(nxt.norm), n) for n in names)))

    kept = [t for i, t in enumerate(tokens)
            if taken.free((t.start, t.end)) and t.text not in "$€£¥%+<>=≤≥" and not modifies_condition(i)]
    lo, hi = 0, len(kept)
    while lo < hi and (is_stop(kept[lo]) or names_items(kept[lo])):
        lo += 1
    while hi > lo and is_stop(kept[hi - 1]):
        hi -= 1
    if lo < hi and not any(t.norm.isalpha() for t in kept[lo:hi]):
        lo = max((i for i in range(lo) if names_items(kept[i])), default=lo)
    return _written(question, kept[lo:hi])


def _unheld_negations(question: str, tokens: Sequence[Token], taken: Spans, today: date | None) -> list[str]:
    """The negation words no reader claimed, but one a few words before a date phrase, which the
    date reader reads later ("not published in 2024", ``graph_terms.negated_date``). ``today`` is
    None when the collection has no date attribute: no date reader reads any phrase later."""
    dates = [r.span[0] for r in find_date_ranges(question, today) if r.span is not None] if today is not None else []
    out = []
    for i, t in enumerate(tokens):
        ahead = tokens[i + 1:i + 4]
        if t.norm in NEGATIONS and taken.free((t.start, t.end)) \
                and not (ahead and any(t.end <= d <= ahead[-1].end for d in dates)):
            out.append(t.text)
    return out


_ONLY_BEFORE = frozenset({"only", "just", "exclusively", "solely"})
_ONLY_AFTER = frozenset({"only", "exclusively", "alone"})


def _name_words(name: str) -> list[str]:
    return [w for w in re.split(r"[_\W]+", name.casefold()) if w]


def _runs(tokens: Sequence[Token], words: Sequence[str]) -> list[Span]:
    """Where ``tokens`` write ``words`` one after the other (each in any of its forms)."""
    out = []
    for i in range(len(tokens) - len(words) + 1):
        if all(forms(tokens[i + k].norm) & forms(w) for k, w in enumerate(words)):
            out.append((tokens[i].start, tokens[i + len(words) - 1].end))
    return out


def _name_tails(tokens: Sequence[Token], profile: SchemaProfile) -> list[Span]:
    """The last words of an attribute's name (two or more), written together where the question
    writes another word of that name too: "last year" of "borrowed … last year" (borrowed_last_year)."""
    out: list[Span] = []
    for p in profile.attributes:
        words = _name_words(p.name)
        if len(words) < 3:
            continue
        head, tail = words[:-2], words[-2:]
        if any(forms(t.norm) & forms(w) for t in tokens for w in head if len(w) > 2):
            out += _runs(tokens, tail)
    return out


def _boolean_names(tokens: Sequence[Token], profile: SchemaProfile) -> list[Span]:
    """Where a yes/no attribute's name of two words or more is written whole ("reference only")."""
    return [span for p in profile.attributes if p.attr.type == "boolean" and len(words := _name_words(p.name)) > 1
            for span in _runs(tokens, words)]


def _one_plain(mention: Mention) -> bool:
    """Whether one of the attributes holding ``mention``'s value is named by words all of which
    the others' names have too: party beside runner_up_party. The plain one is the record's own
    (the winner's party), the other a second role's; the value alone ("Is Victor Hale a Green?",
    "How many independents won?") is asked of one of them, and "either" answers another question.
    Roles named alike (home_team, away_team) are either: "How many matches did Arlow City play?"."""
    held = [mention.attr, *mention.also]
    plain = [p for p in held if p.name_terms and p.name_terms <= frozenset().union(*(q.name_terms for q in held if q is not p))]
    return len(plain) == 1


def _exclusive(tokens: Sequence[Token], found: Found) -> bool:
    """Whether a list's element is asked as the only one ("only Linux", "only on Linux", "Linux only")."""
    if not isinstance(found.node, Comparison) or found.node.comparator != "contains":
        return False
    inside = [i for i, t in enumerate(tokens) if found.span[0] <= t.start and t.end <= found.span[1]]
    if not inside:
        return False
    k = inside[0] - 1
    while k >= 0 and inside[0] - k <= 2 and tokens[k].norm in ("on", "in", "for", "with", "the", "a", "an"):
        k -= 1
    after = inside[-1] + 1
    return (k >= 0 and tokens[k].norm in _ONLY_BEFORE) or (after < len(tokens) and tokens[after].norm in _ONLY_AFTER)


def _verb_of(word: str, attr: AttrProfile) -> bool:
    """Whether ``attr``'s description uses ``word`` as a verb: the same form ("played" of "date the
    match was played") or another form of a verb written inflected ("play" of "was played"); not
    a noun of the same stem ("supported" is no "support" of "date support for the release ends")."""
    f = forms(word)
    return any(w == word or (lemma(w) != w and f & forms(w))
               for w in re.findall(r"[a-z]+", f"{attr.attr.name.replace('_', ' ')} {attr.attr.description or ''}".casefold()))


def _negation_phrase_before(tokens: Sequence[Token], at: int) -> int | None:
    """The index of the first token of a negation phrase ("other than", "apart from") right
    before token ``at``; None without one."""
    for phrase in NEGATION_PHRASES:
        words = phrase.split()
        start = at - len(words)
        if start >= 0 and [t.text.casefold() for t in tokens[start:at]] == words:
            return start
    return None


def _outside_names(question: str, numbers: list[Number], profile: SchemaProfile) -> list[Number]:
    """``numbers`` less those inside a known value written in the question ("Aero 14 price?",
    "zx-14 price?", "How much does the Volt 17 weigh?"): the number is part of the name, not a
    price or a weight, and the value is read as the name it is (``_values``)."""
    spans: list[tuple[int, int]] = []
    for p in profile.strings():
        for value in p.values:
            # A name of letters and digits; a value that is a number ("62" of a route) is read as one.
            if any(c.isdigit() for c in value) and any(c.isalpha() for c in value) \
                    and (parts := re.findall(r"[^\W_]+", value)):
                pattern = r"(?<![^\W_])" + r"[\s\-_./]*".join(map(re.escape, parts)) + r"(?![^\W_])"
                spans += [m.span() for m in re.finditer(pattern, question, re.IGNORECASE)]
    spans += _known_codes(question, profile)
    return [n for n in numbers if not any(s <= n.start and n.end <= e for s, e in spans)]


def _known_codes(question: str, profile: SchemaProfile) -> list[Span]:
    """The spans where ``question`` writes exactly a known value of digits joined by a slash or a
    hyphen ("2024/25" of a season, "2022-23"): that value, no year or number of its own. (A dotted
    one is a version, which may be compared: "after version 2.0".)"""
    spans: list[Span] = []
    for p in profile.strings():
        for value in p.values:
            if re.fullmatch(r"\d+(?:[/\-]\d+)+", value) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                spans += [m.span() for m in re.finditer(rf"(?<![\w/.\-]){re.escape(value)}(?![\w/\-]|\.\d)", question)]
    return spans


_HONORIFICS = frozenset(["mr", "mrs", "ms", "miss", "dr", "prof", "professor", "sir", "dame", "lady", "lord"])


def _misspelt(written: str, known: str) -> bool:
    """Whether ``written`` is ``known`` (a first name) mistyped: the same first letter and most
    letters in order ("Dnaiel" of "Daniel"), not another name ("Austin", "Carlos" of "Ruby")."""
    a, b = written.casefold(), known.casefold()
    return a[:1] == b[:1] and SequenceMatcher(None, a, b).ratio() >= 0.66


def _first_name_before(question: str, tokens: list[Token], mention: Mention) -> Token | None:
    """The capitalised word written right before the surname ``mention`` read ("Austin" of "Austin
    Chen"), when it is no function word, question word or title ("Does Chen …", "Dr Chen")."""
    before = [t for t in tokens if t.end <= mention.span[0]]
    if not before or question[before[-1].end:mention.span[0]] != " ":
        return None
    word = before[-1]
    if not word.text[:1].isupper() or word.norm in QUERY_STOP or word.norm in _HONORIFICS or word.norm in AUXILIARIES:
        return None
    return word


def _known_names(question: str, profile: SchemaProfile) -> list[Span]:
    """The spans where ``question`` writes, as whole words and but for case, a known value of
    several words of a word attribute (a name's exactly; another's last word maybe in the plural:
    "battery replacements" of a service type), longest first, none inside another."""
    found: list[Span] = []
    values = sorted({(str(v), p.attr.kind in _NAMING_KINDS) for p in profile.strings() for v in p.values
                     if len(str(v).split()) > 1}, key=lambda vn: len(vn[0]), reverse=True)
    for value, naming in values:
        plural = "" if naming else "(?:e?s)?"
        for m in re.finditer(rf"(?<!\w){re.escape(value)}{plural}(?!\w)", question, re.IGNORECASE):
            if not any(a <= m.start() and m.end() <= b for a, b in found):
                found.append(m.span())
    return found


_PLACE_WORDS = frozenset({"at", "in", "on", "near", "from", "to", "into", "via", "around", "inside", "outside", "of"})
"""Prepositions that make the name after them a place ("at Kingsley")."""


def _also_part_of(question: str, mention: Mention, profile: SchemaProfile,
                  valued: Sequence[tuple[int, int]] = ()) -> str | None:
    """Another name attribute's known value that the name ``mention`` read (one word, as written)
    is the last word of ("Hunter" of author "Mara Hunter", read as the title "Hunter"), as
    ``attribute 'value'``; None when there is none."""
    written = question[mention.span[0]:mention.span[1]]
    if mention.negated or len(written.split()) != 1:
        return None
    if mention.attr.attr.kind not in _NAMING_KINDS:
        # A place or a kind does nothing: one a verb follows is someone's name ("Which properties
        # did Whitfield sell?" of the neighbourhood Whitfield and the agent Clara Whitfield).
        toks = tokenize(question)
        after = [t for t in toks if t.start >= mention.span[1]][:1]
        before = [t for t in toks if t.end <= mention.span[0]][-1:]
        # "What prescriptions does Brooks have?": the subject of "does", who has them.
        subject = bool(before) and before[0].norm in ("does", "did", "do") and bool(after) and after[0].norm.isalpha()
        # "pull requests by Okafor": "by" names who did it (Dana or Kwame Okafor), not the repository.
        agent = bool(before) and before[0].norm == "by" and written[:1].isupper()
        # "involve Kingsley", "with Kingsley": at the end, after a word that is no place's
        # preposition nor the place's own attribute, the name may be someone's.
        ended = mention.attr.attr.kind == "place" and not after and bool(before) and before[0].norm not in _PLACE_WORDS \
            and not term_match(forms(before[0].norm), mention.attr.name_terms)
        if not subject and not agent and not ended and (not after or not after[0].norm.isalpha() or after[0].norm in QUERY_STOP \
                or forms(after[0].norm) & profile.item_nouns or not written[:1].isupper() \
                or any(term_match(forms(after[0].norm), q.name_terms) for q in profile.attributes) \
                or after[0].text[:1].isupper() \
                or (before and before[0].norm in PREPOSITIONS) \
                or (any(a <= after[0].start < b for a, b in valued)
                    and (after[0].norm.endswith("s")
                         or any(after[0].norm == str(v).casefold() for q in profile.strings() for v in q.values)))):
            return None  # "in Whitfield", "Whitfield houses": the place (not "Whitfield sell", a verb read as Sold)
    word = written.casefold()
    toks = tokenize(question)
    before = [t for t in toks if t.end <= mention.span[0]][-1:]
    if mention.attr.attr.kind in _NAMING_KINDS and before and before[0].norm in ("at", "in", "near"):
        # "filled at Lindqvist" of Dr. Elena Lindqvist beside the branch Lindqvist Square: a place's
        # preposition before a word of the place's name.
        for p in profile.strings():
            if p.attr.kind == "place":
                for value in p.values:
                    if word in str(value).casefold().split():
                        return f"{p.name} {value!r}"
    label = profile.schema.label_attribute
    for p in profile.strings():
        if p.name == mention.attr.name or p.attr.kind not in _NAMING_KINDS:
            continue
        for value in p.values:
            words = str(value).casefold().split()
            if len(words) > 1 and (words[-1] == word or (words[0] == word and p.name != label)):
                # A surname ("Mara Hunter"), or the name a company is called by ("Lindqvist Pharma"
                # beside the contact Erik Lindqvist); not a brand that opens or sits inside the
                # items' own names ("Ibis Berlin Alexanderplatz", "Paris Marriott Champs-Elysees").
                return f"{p.name} {value!r}"
    return None


def _named_number(question: str, found: Found, numbers: Sequence[Number], profile: SchemaProfile) -> bool:
    """Whether ``found``, an equality on a number written bare (no currency, unit or scale), read a
    number that is, as written, a known value of a name or identifier attribute ("2084", a title):
    the value names the item, as "route 62" does, and the number reader leaves it to the values'."""
    if not any(isinstance(c, Comparison) and c.comparator == "eq" for c in clauses(found.node)):
        return False
    inside = [n for n in numbers if found.span[0] <= n.start and n.end <= found.span[1]]
    if len(inside) != 1 or inside[0].money or inside[0].scaled or inside[0].unit is not None:
        return False
    text = question[inside[0].start:inside[0].end].casefold()
    return any(p.attr.kind in _NAMING_KINDS and any(str(v).casefold() == text for v in p.values) for p in profile.strings())


def _written(question: str, words: list[Token]) -> str:
    """``words`` as the question writes them: joined by a space, or by the punctuation alone that
    joins them in the question ("2.0", "Wi-Fi", "1,500"), which the lexical index reads as one term."""
    out = []
    for prev, tok in zip([None, *words], words, strict=False):
        gap = question[prev.end : tok.start] if prev is not None else ""
        joined = prev is not None and gap != "" and not any(c.isspace() or c.isalnum() for c in gap)
        out.append((gap if joined else " " if prev is not None else "") + tok.text)
    return "".join(out)


def read_question(
    question: str,
    schema: CollectionSchema,
    catalogue: Mapping[str, Sequence[str]],
    *,
    today: date,
    embeddings: Embeddings | None = None,
    full: CollectionSchema | None = None,
) -> Reading:
    """Read ``question`` into a structured query, keeping what was consumed (see the module docstring).

    ``full`` is the whole schema when ``schema`` is its scalar view: a superlative may rank by its
    ``date`` attributes ("the earliest inspection"), which no other reader here knows."""
    # Dates some records lack, as their descriptions say before those clauses are cut.
    undated = {a.name for a in (full or schema).attributes if _UNDATED.search(a.description or "")}
    schema, full = affirmed(schema), affirmed(full) if full is not None else None
    profile = SchemaProfile(schema, catalogue)
    tokens = tokenize(question)
    taken = Spans()
    numbers = _outside_names(question, find_numbers(question), profile)
    similarity = Similarity(embeddings) if embeddings is not None else None
    # "the 1900s" is the decade 1900-1909 or the century, as often one as the other: no bound.
    hundreds = [m.span() for m in _HUNDREDS.finditer(question)]
    for span in hundreds:
        taken.claim(span)
    # "2024/25" of a season: the value, which no number or date reader takes apart.
    codes = _known_codes(question, profile)
    for span in codes:
        taken.claim(span)
    for span in _name_tails(tokens, profile):
        # "borrowed more than 100 times last year" of borrowed_last_year: "last year" is the
        # attribute's name, no year of another.
        taken.claim(span)
    led_limit = read_led_limit(tokens, numbers, taken)
    numeric = numeric_conditions(question, tokens, numbers, profile, today, taken, similarity)
    for f in [f for f in numeric if _named_number(question, f, numbers, profile)]:
        # "price of 2084?" of a book titled "2084": the title, not a price of 2,084.
        numeric.remove(f)
        taken.release(f.span)
    if (full or schema).date_attribute is not None:
        # "after June 2024" is one date, the date readers' ("from 2024-07-01"), not a year of a
        # year attribute and "after June" of this year.
        for f in [f for f in numeric if _month_s_year(tokens, f, schema)]:
            numeric.remove(f)
            taken.release(f.span)
    unread = [question[b[0] : b[1]] for n in numbers if taken.free((n.start, n.end))
              and (b := bound_cue(question, tokens, n)) is not None and not n.year_like]
    full_profile = SchemaProfile(full, catalogue) if full is not None else profile
    dates = [p for p in full_profile.attributes if p.attr.type == "date"]
    # The records' events, each dated by an attribute: a date, or a string of dates' kind
    # ("scheduled_date", kind date), which no range filters but whose verb is still its event's.
    events = [p for p in full_profile.attributes if p.attr.type == "date" or p.attr.kind == "date"]
    for f in [f for f in numeric if _date_s_year(tokens, f, full_profile, dates) or _a_year_of_a_date(tokens, f, full_profile,
                                                                                                      dates, numbers)]:
        # "listed in 2024" is a year of the listing date, not of the model year.
        numeric.remove(f)
        taken.release(f.span)
    for f in [f for f in numeric if _records_year(tokens, f, full_profile)]:
        # "its 2026 call": the call's year, not the year its ship was built; which of the calls'
        # dates is not said, so left unread (and nothing is signed on it).
        numeric.remove(f)
        unread.append(question[f.span[0]:f.span[1]])
    for f in [f for f in numeric if _either_event(tokens, f, full_profile, dates)]:
        # "Which trees in 2023?": planted in 2023 ("year the tree was planted"), or inspected in
        # 2023 (last_inspected); which is not said, so left unread (and nothing is signed on it).
        numeric.remove(f)
        unread.append(question[f.span[0]:f.span[1]])
    # A list's known elements first, but for one that is also a known value of a string attribute
    # ("Ostby", a town and a station): the longer name ("Pellham Mill", a station) is not read as
    # the shorter one inside it ("Pellham", a town).
    values = {str(v).casefold() for p in profile.strings() for v in catalogue.get(p.name, [])}
    # The date phrase the date reader holds ("in January 2025") names no value: a capitalised month
    # after "in" is no unknown place. Held while values are read, then given back to that reader.
    held = [d for d in _dated(question, tokens, taken, dates, today, known=values) if taken.free(d)]
    # A month a string attribute holds as "YYYY-MM" ("month billed") is that value, not a date's
    # range, unless a verb of the date's own event comes with it ("read in January 2024" of "date
    # the meter was read": then ``_dated`` holds the verb too).
    months_held = {f for p in profile.strings() for v in catalogue.get(p.name, []) for f in month_forms(str(v))}
    if len(held) == 1 and " ".join(normalise(question[held[0][0]:held[0][1]]).split()[-2:]) in months_held:
        held = []
    for span in held:
        taken.claim(span)
    # "in March" without its year: no value ("March" is no unknown venue) and no bound the filter
    # holds (which year is not said), so left unread and kept from every reader.
    months = _bare_months(question, tokens, taken, values)
    for span in months:
        taken.claim(span)
    # A list's element inside a known name of several words is part of the name: "Ruby" of "Ruby
    # Chen" is no skill, "History" of "A Short History of Bridges" no genre.
    names = [span for span in _known_names(question, profile) if taken.free(span)]
    for span in names:
        taken.claim(span)
    # A yes/no attribute's name written whole ("reference only" of reference_only) holds its words:
    # "reference" in it is no subject heading.
    flags = [span for span in _boolean_names(tokens, full_profile) if taken.free(span)]
    for span in flags:
        taken.claim(span)
    listed = _list_elements(tokens, [p for p in full_profile.attributes if p.attr.type == "string[]"], catalogue, taken,
                            exclude=values)
    for span in [*names, *flags, *codes]:
        taken.release(span)
    mentions = find_mentions(question, tokens, profile, taken, similarity, numbers,
                             asked=headed_attribute(question, full or schema) if tokens and tokens[0].norm in ("which", "what")
                             else None, full=full_profile)
    for span in held:
        taken.release(span)
    unknown: list[str] = []
    for m in [m for m in mentions if _name_goes_on(question, tokens, m, taken)]:
        # "the Orbit Smart Scale Pro" names no known product: "Orbit Smart Scale" is another one.
        mentions.remove(m)
        taken.release(m.span)
        after = next(t for t in tokens if t.start >= m.span[1])
        unknown.append(question[m.span[0]:after.end])
    # "Harbor 3.10.7" when no release has that version: a code nobody has, not a number.
    unknown += [m.group() for m in _DOTTED_CODE.finditer(question)
                if not any(a <= m.start() < b for a, b in (x.span for x in mentions))]
    for f in [f for f in numeric if _event_s_year(tokens, f, full_profile, mentions)]:
        # "cars sold in 2025": the year the sale happened, which no attribute records (status
        # says only that it did), not the model year; left unread, so nothing is signed on it.
        numeric.remove(f)
        taken.release(f.span)
        unread.append(question[f.span[0]:f.span[1]])
    if dates:
        # "sold in March 2024", "sold after June 2024": likewise no date of the listing's; held
        # from the date reader (consumed) and left unread.
        masked = "".join(ch if taken.free((i, i + 1)) else " " for i, ch in enumerate(question))
        event = find_date_range(masked, today)
        if event is not None and event.span is not None and _event_word(tokens, event.span[0], mentions, None) \
                and not any(term_match(forms(_word_before(tokens, event.span[0]).norm), d.terms) for d in dates):
            taken.claim(event.span)
            unread.append(question[event.span[0]:event.span[1]].strip())
    for m in [m for m in mentions if _graded_form(question, m)]:
        # "the highest CVSS score", "a higher score": a comparison's word, not severity = high.
        mentions.remove(m)
        taken.release(m.span)
    for m in [m for m in mentions if _dated_event(tokens, m, mentions, events, profile)]:
        # "When was NCT-7011 completed?": "completed" is the event whose date is asked ("date the
        # trial was completed"), not the state of the records to look in; as a filter it hides a
        # trial not completed yet.
        mentions.remove(m)
        taken.release(m.span)
    for m in [m for m in mentions if _event_verb(question, m, events) or _dated_state(question, tokens, m, events, today)
              or _records_verb(tokens, m, full_profile) or _event_phrase(tokens, m, events)]:
        # "How many applications did Nora Whitaker submit?": "submit" tells of the event the
        # records' first date records ("date the application was submitted"), which every
        # record had, not of the state "submitted" an application holds until its review. So
        # does a state's word a date phrase dates ("boats arrived in 2025": those that have left
        # since arrived too), and the verb the records are named after ("Which agent booked
        # Curlew?" of bookings, whichever state the booking is in now).
        mentions.remove(m)
        taken.release(m.span)
    together = _run_together(question, mentions)
    for m in together:
        # "the Aurora Sport": two names of one attribute written as one ("Sport" the last word of
        # "Corvane 300 Sport") are one name nobody knows, neither of them.
        mentions.remove(m)
        taken.release(m.span)
    if together:
        unknown.append(question[min(m.span[0] for m in together):max(m.span[1] for m in together)])
    for m in [m for m in mentions if m.how == "surname"]:
        # "Austin Chen", "Carlos Chen": a surname after another first name ("Ruby Chen" is known) is
        # a name nobody knows; the first name is no city either.
        first = _first_name_before(question, tokens, m)
        if first is None or m not in mentions:
            continue
        if _misspelt(first.text, str(m.value).split()[0]):
            continue  # "Dnaiel Brandt": Daniel Brandt, misspelt
        gone = [m, *(o for o in mentions if o is not m and o.span[0] <= first.start < o.span[1])]
        for o in gone:
            mentions.remove(o)
            taken.release(o.span)
        unknown.append(question[min(first.start, *(o.span[0] for o in gone)):m.span[1]])
    # A value linked by meaning, not spelling, is a guess: an embedding cannot tell a synonym
    # ("veggie" for vegetarian) from a sibling ("purple" for Blue).
    # Past the alias floor ("NYC" for New York, 0.94) a link is the value it names; below it a
    # sibling scores as high as a synonym ("Mercedes" for BMW 0.77, "townhomes" for townhouse 0.76).
    guessed = [f"{question[m.span[0]:m.span[1]]!r} read as {m.attr.name} {m.value!r} ({m.how})"
               for m in mentions if m.how.startswith("embedding") and float(m.how.split()[1]) < NAME_FLOOR]
    # "from Boston", "by Arlow City": a word giving the value a role, which one of the attributes
    # holding it is not said ("played by" either team, "sent by" the sender only).
    # Nor is it said when one of them is what the records are called by ("Yuki Tanaka": an
    # employee's name, and her reports' manager): "What languages does Yuki Tanaka speak?" asks of
    # her record, "Who reports to Yuki Tanaka?" of theirs.
    label = (full or schema).label_attribute
    either = [f"{question[m.span[0]:m.span[1]]!r} read as {' or '.join([m.attr.name, *(o.name for o in m.also)])}"
              for m in mentions if m.also and ((before := [t for t in tokens if t.end <= m.span[0]])
                                               and before[-1].norm in _ROLE_WORDS
                                               or label in (m.attr.name, *(o.name for o in m.also))
                                               or _one_plain(m))]
    # "Which claims were filed by Paris Holloway?" of an adjuster: the verb is the policyholder's.
    either += [f"{question[m.span[0]:m.span[1]]!r} read as {m.attr.name}, the one holding it; the verb before it is "
               f"{m.role.name}'s" for m in mentions if m.role is not None]
    ambiguous = [f"{question[m.span[0]:m.span[1]]!r} read as {m.attr.name} {m.value!r}; also a word of {other}"
                 for m in mentions if (other := _also_part_of(question, m, profile, [n.span for n in mentions])) is not None]
    if len(tokens) > 1 and tokens[0].norm in FILLER and forms(tokens[1].norm) & profile.item_nouns \
            and taken.free((tokens[0].start, tokens[0].end)):
        # "search bugs that are still open": a request ("search for bugs …"), or the bugs of the
        # Search component; which one is not said.
        ambiguous += [f"{tokens[0].text!r}: a request, or the {p.name} {v!r} of the {tokens[1].text} asked for"
                      for p in profile.strings() for v in p.values if v.casefold() == tokens[0].norm]
    identifying = [m.span for m in mentions if m.attr.attr.kind == "identifier" and not m.negated]
    # "Did INC-2014 cost more than INC-2028?" sets two records side by side: the second is the
    # other side of a comparison, not a property asked of the first.
    paired = len({(m.attr.name, m.value) for m in mentions if m.attr.attr.kind == "identifier" and not m.negated}) == 2 \
        and len({m.attr.name for m in mentions if m.attr.attr.kind == "identifier" and not m.negated}) == 1 \
        and _COMPARING_TWO.search(question) is not None
    subject = None if paired else named_subject(question, tokens, taken, profile, identifying)
    asked: list[Found] = []
    if subject is not None:
        # What a yes/no question asks of the thing it names is no filter: its words are searched.
        asked = ([f for f in numeric if f.span[0] >= subject.end] + _mention_nodes([m for m in mentions if m.span[0] >= subject.end])
                 + [f for f in listed if f.span[0] >= subject.end])
        numeric = [f for f in numeric if f.span[0] < subject.end]
        listed = [f for f in listed if f.span[0] < subject.end]
        mentions = [m for m in mentions if m.span[0] < subject.end]
        for span in taken.in_order():
            if span[0] >= subject.end:
                taken.release(span)
    limit = led_limit if led_limit is not None else read_limit(question, tokens, numbers, profile, taken)
    # Two or more values of one attribute ("Ostby or Kelbridge"): alternatives a comparative compares.
    alternatives = any(len({m.value for m in mentions if m.attr.name == name and not m.negated}) >= 2
                       for name in {m.attr.name for m in mentions if m.attr.attr.type == "string"})
    # The date phrase and its verb ("listed in 2025") name no measure to rank or aggregate by: held
    # while those are read, then given back for the date reader.
    dated = [d for d in _dated(question, tokens, taken, dates, today) if taken.free(d)]
    for span in dated:
        taken.claim(span)
    extreme = read_superlative(question, tokens, profile, taken, dates, alternatives=alternatives)
    aggregate = read_aggregate(question, tokens, profile, taken)
    if extreme is None and aggregate is None:
        extreme = read_unmeasured(question, tokens, profile, taken)
    for span in dated:
        taken.release(span)
    parts = _join(question, numeric + _mention_nodes(mentions) + listed)
    node: FilterNode | None = None if not parts else parts[0] if len(parts) == 1 else Operation(operator="and", arguments=parts)
    used = {f.attribute for f in numeric} | {m.attr.name for m in mentions} | {f.attribute for f in listed}
    if (headed := headed_attribute(question, full or schema)) is not None:
        used.add(headed)  # "Which town …": the word asks for what each document is shown by
        tie = tokens[2] if len(tokens) > 4 else None
        if extreme is not None and tie is not None and tokens[0].norm == "which" and tokens[3].norm == "the" \
                and tokens[4].start == extreme.span[0] and tie.norm.isalpha() and tie.norm not in QUERY_STOP \
                and taken.free((tie.start, tie.end)):
            # "Which carrier moved the heaviest shipment?": the verb ties the asked attribute to the
            # ranked item, as its own value does; no topic left to search.
            taken.claim((tie.start, tie.end))
    notes = [f"{m.attr.name}: {question[m.span[0]:m.span[1]]!r} → {m.value!r} ({m.how})" for m in mentions if m.how not in ("exact",)]
    # The date phrase the date reader holds (``graph_terms``: "in March 2023", "after June 2024")
    # is no word left to search for, nor is a verb right before it that a date attribute's own
    # description uses ("announced" of "date the recall was announced"); it stays in ``consumed``
    # for that reader to read.
    read = Spans()
    dated = _dated(question, tokens, taken, dates, today)
    for span in [*taken.in_order(), *dated]:
        read.claim(span)
    # A verb that says an item has a value, right before the condition holding it ("recalls that
    # affected Japan", "involved a fire hazard", "affected the most units"), is that condition's own.
    # Not while a negation no condition holds is about ("did not affect Germany" read as Germany).
    unheld_negation = any(t.norm in NEGATIONS and taken.free((t.start, t.end)) for t in tokens) \
        or any(p in question.casefold() for p in NEGATION_PHRASES)
    for i, t in enumerate(tokens if not unheld_negation else ()):
        if forms(t.norm) & LINKING_VERBS and read.free((t.start, t.end)) \
                and not (i > 0 and tokens[i - 1].norm in ("what", "who")):
            # Not the verb of a wh-word subject: "What caused the delay of SHP-30581?" asks the cause.
            nxt = next((u for u in tokens[i + 1:] if u.norm not in _ARTICLES), None)
            if nxt is not None and not taken.free((nxt.start, nxt.end)):
                read.claim((t.start, t.end))
    # "How many cup matches were played?": the verb the date attribute's description uses ("date
    # the match was played") says only that the items took place, as the date records they did.
    for i, t in enumerate(tokens if not unheld_negation else ()):
        word = t.text.casefold()
        # A verb's form ("played"), or its base after "did" ("did Arlow City play"): not a noun.
        verb = (not word.endswith("s") and lemma(word) != word) or any(u.norm in ("did", "do", "does") for u in tokens[:i])
        if read.free((t.start, t.end)) and word.isalpha() and verb \
                and any(_verb_of(word, d) for d in events) and not forms(t.norm) & profile.item_nouns:
            read.claim((t.start, t.end))
            if t.norm not in QUERY_STOP and t.norm not in AUXILIARIES and _SELECTING.match(question) \
                    and lemma(word) == word and any(u.norm in ("did", "do", "does") for u in tokens[:i]) \
                    and not any(_verb_of(word, d) and d.name not in undated for d in events) \
                    and not any(a <= t.start < b for a, b in dated):
                # "Which procedures did Thomas Reid perform?" of "date the procedure was actually
                # performed (missing if not yet done)": those he performed, which no filter
                # selects (a date missing is no value), not all his listed cases.
                unread.append(t.text)
    unheld = _unheld_negations(question, tokens, taken, today if dates else None)
    # "trips not approved by Samuel Carver": not approved at all, or approved by another, which
    # the question does not say (and a trip with no principal recorded is neither).
    unheld += [question[m.span[0]:m.span[1]] for m in mentions if m.negated and _done_by(tokens, m, mentions)]
    # A year no reader took, right before or after the records' own word ("the 2024 sessions",
    # "issued permits 2023": no preposition for the date reader): a bound of the records no
    # condition holds, so nothing computed from the filter is the answer.
    unread += [question[n.start:n.end] for n in numbers if n.year_like and read.free((n.start, n.end))
               and any(forms(t.norm) & full_profile.record_nouns
                       for t in [*[u for u in tokens if u.start >= n.end][:1], *[u for u in tokens if u.end <= n.start][-1:]])
               and question[n.start:n.end] not in unread]
    # (not of a choice between two records: "Which is cheaper, the Halden Brisa or the Brennan Metro?")
    coordinated = [] if extreme is not None or _CHOICE.match(question) else _coordinated(question, tokens, read, [*((f.span, f.attribute) for f in numeric),
                                                        *((m.span, m.attr.name) for m in mentions),
                                                        *((f.span, f.attribute) for f in listed),
                                                        *((span, "") for span in dated[:1])])
    residual = _residual(question, tokens, read, profile, used, extra=full_profile.by_name)
    # The search text keeps the date phrase and those verbs: a vector search ranks by them too.
    search = _residual(question, tokens, taken, profile, used, extra=full_profile.by_name)
    # The words the search text drops as filler or as a generic word for results: any other word
    # left is in ``residual`` already.
    # The collection's own word for its items ("records" of "Yearly rainfall records") is no word
    # left, generic as it may be elsewhere.
    described = profile.item_nouns & frozenset().union(*(forms(t.norm) for t in tokenize(schema.description or "")))
    # A verb right before a bound is the bound's own ("got more than 900 mm", "get over 1000 mm"):
    # the condition holds it, as "have" in "have more than 50 members".
    bounds = {f.span[0] for f in numeric if any(c.comparator in _BOUNDS for c in clauses(f.node))}
    bound_verbs = {i for i, t in enumerate(tokens[:-1]) if tokens[i + 1].start in bounds}
    leftover = [t.text for i, t in enumerate(tokens) if read.free((t.start, t.end)) and t.norm.isalpha()
                and t.norm not in _PLAIN and forms(t.norm) & _DROPPED and not forms(t.norm) & described
                and i not in bound_verbs]
    # The last word no condition read: "What was Lena Okafor running for in 2024?" strands "for"
    # before the year its condition holds.
    at = next((i for i in range(len(tokens) - 1, -1, -1) if read.free((tokens[i].start, tokens[i].end))), None)
    last = tokens[at] if at is not None else None
    # Stranded: nothing after it, or another preposition ("for in 2024"); not "in Denver", its object read.
    stranded = at is not None and (at + 1 == len(tokens) or tokens[at + 1].norm in PREPOSITIONS)
    if len(tokens) > 2 and tokens[0].norm in ("what", "who", "whom") and tokens[1].norm in AUXILIARIES \
            and last is not None and stranded and last.norm in _STRANDED:
        # "What is Winter Lanterns about?", "What is it for?": the preposition's object is the
        # wh-word alone, what is asked, which no filter holds. Not "Which matches did X score in?",
        # whose object is the items asked for.
        leftover.append(last.text)
    if len(tokens) > 3 and tokens[0].norm in ("what", "who", "whom") and tokens[1].norm in AUXILIARIES \
            and tokens[2].norm in _CONTAINING and read.free((tokens[2].start, tokens[2].end)) \
            and any(m.attr.attr.kind == "identifier" and m.span[0] > tokens[2].start for m in mentions):
        # "What was in shipment SHP-30471?", "Who was on INC-2014?": what the record holds or
        # involves, its text's to say, not the record itself.
        leftover.append(tokens[2].text)
    text = search or " ".join(question.split())
    # "Which <the items> …?", or "Which <a category's value> …?" ("Which SUVs were listed in
    # 2024?", "Which diesel hatchbacks are red?"): the items the value selects. Not a name's value
    # ("Which Golf is red?" asks which of that model's records, a passage's to say).
    lead = tokens[1] if len(tokens) > 1 else None
    which_items = bool(tokens) and tokens[0].norm == "which" and (
        any(forms(t.norm) & profile.item_nouns for t in tokens[1:4])
        or (lead is not None and any(m.span[0] <= lead.start < m.span[1] and m.attr.attr.kind == "category"
                                     and not m.negated for m in mentions)))
    return Reading(StructuredQuery(query=text, filter=node, limit=limit), taken.in_order(), notes, residual,
                   [f.node for f in asked], subject.text if asked and subject is not None else "",
                   [f"{u!r}: no attribute it bounds" for u in unread]
                   + [f"{question[a:b]!r}: a month without its year" for a, b in months]
                   + [f"{question[a:b]!r}: a decade or a century, which is not said" for a, b in hundreds], extreme, aggregate,
                   leftover, which_items, guessed, unknown, dated, either, ambiguous,
                   [question[f.span[0]:f.span[1]] for f in listed if _exclusive(tokens, f)], unheld, coordinated)


_CHOICE = re.compile(r"\s*(?:which|who|what)\b[^,]*,[^,]*\bor\b", re.IGNORECASE)
"""A choice between two things after a comma: "Which came out first, Quill 10.2 or Harbor 3.2.0?"."""


def _coordinated(question: str, tokens: list[Token], read: Spans, conditions: Sequence[tuple[Span, str]]) -> list[str]:
    """Notes on each "or" no reader took that joins conditions on two attributes: the nearest
    condition before it and the nearest after it hold different attributes ("graded Grade 1 or
    delivered to Riverside"; a date phrase counts as one attribute, ""). The filter ands every
    condition, so it holds what the question did not say; of one attribute ("Riverside or
    Hartley") the values are alternatives, read as such elsewhere."""
    notes = []
    for t in tokens:
        if t.norm != "or" or not read.free((t.start, t.end)):
            continue
        left = max((c for c in conditions if c[0][1] <= t.start), key=lambda c: c[0][1], default=None)
        right = min((c for c in conditions if c[0][0] >= t.end), key=lambda c: c[0][0], default=None)
        if left is not None and right is not None and left[1] != right[1]:
            notes.append(f"{question[left[0][0]:right[0][1]]!r}: conditions on {left[1] or 'a date'} and "
                         f"{right[1] or 'a date'} joined by 'or'")
    return notes


_MONTH_NAMES = frozenset(m for m in MONTHS if len(m) > 3) | {"may"}
_MONTH_CUES = frozenset({"in", "during", "before", "until", "till", "by", "through", "throughout", "of"})


def _bare_months(question: str, tokens: list[Token], taken: Spans, values: set[str]) -> list[Span]:
    """The spans of a month's name written without its year after a date's preposition ("in March",
    "during may"), not a known value's and not a name's first word ("in June Carter's books")."""
    out: list[Span] = []
    for i in range(1, len(tokens)):
        t, cue = tokens[i], tokens[i - 1]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if t.norm not in _MONTH_NAMES or cue.norm not in _MONTH_CUES or t.norm in values \
                or not taken.free((cue.start, t.end)) or (nxt is not None and question[t.end:nxt.start] == " "
                                                          and (nxt.text[:1].isupper() or nxt.text[:1].isdigit())):
            continue
        out.append((cue.start, t.end))
    return out


def _dated(question: str, tokens: list[Token], taken: Spans, dates: Sequence[AttrProfile], today: date, *,
           known: Collection[str] = ()) -> list[Span]:
    """The span of the date phrase no other reader took, and of a verb right before it that a date
    attribute's description uses ("were announced in March 2023"); none when the schema has no date
    attribute or the question names no date. A verb the description does not use ("expanded in
    March 2023") names another event than the one the date records, and stays a word of the question;
    so does one that is a ``known`` value as written and no word of a date's name ("resolved in
    2023" of a status "resolved" beside ``closed``, "date the ticket was closed (resolved or won't
    fix)": the status is a condition too; "not sold in 2022" stays ``sold_date``'s)."""
    if not dates:
        return []
    unread = "".join(ch if taken.free((i, i + 1)) else " " for i, ch in enumerate(question))
    found = find_date_range(unread, today)
    if found is None or found.span is None:
        return []
    spans: list[Span] = [found.span]
    before = [t for t in tokens if t.end <= found.span[0]]
    if before and taken.free((before[-1].start, before[-1].end)) \
            and any(term_match(forms(before[-1].norm), d.terms) for d in dates) \
            and (before[-1].text.casefold() not in known or any(_own_event(before[-1], d) for d in dates)):
        spans.append((before[-1].start, before[-1].end))
    return spans


def _own_event(verb: Token, date_attribute: AttrProfile) -> bool:
    """Whether ``verb`` is the event ``date_attribute`` records: a word of its name (sold_date) or
    the verb of its description's "was …" ("date the trial was completed"), not a word beside it
    ("date the ticket was closed (resolved or won't fix)": resolved is a kind of closing)."""
    if term_match(forms(verb.norm), date_attribute.name_terms):
        return True
    words = re.findall(r"[a-z']+", (date_attribute.attr.description or "").casefold())
    return any(w in ("was", "were", "is", "are", "be", "been") and forms(words[i + 1]) & forms(verb.norm)
               for i, w in enumerate(words[:-1]))


def _a_year_of_a_date(tokens: list[Token], found: Found, profile: SchemaProfile, dates: Sequence[AttrProfile],
                      numbers: Sequence[Number]) -> bool:
    """Whether ``found``, a condition on a number attribute no year, is a year written after "in" or
    "during" in a collection with a date, which the date reader reads ("incidents affecting search
    in 2022": the year they started, not 2,022 customers affected, "affecting" near as it stands)."""
    attr = profile.by_name.get(found.attribute)
    if attr is None or attr.is_year or not dates:
        return False
    inside = [n for n in numbers if found.span[0] <= n.start < found.span[1]]
    if len(inside) != 1 or not inside[0].year_like or inside[0].unit:
        return False
    before = [t for t in tokens if t.end <= inside[0].start]
    # "the cheapest order of 2025": of the records, a year too.
    return bool(before) and (before[-1].norm in ("in", "during") or (
        before[-1].norm == "of" and len(before) > 1 and bool(forms(before[-2].norm) & (profile.record_nouns | profile.item_nouns))))


_PHRASE_WORDS = frozenset({"at", "in", "on", "from", "by", "the", "a", "an", "of", "for", "to"})
"""Words of a prepositional phrase a value is named in ("at Northgate", "by the Kingsley branch")."""


def _date_s_year(tokens: list[Token], found: Found, profile: SchemaProfile, dates: Sequence[AttrProfile]) -> bool:
    """Whether ``found``, a condition on a year attribute, is a year of a date attribute instead: the
    word right before it is a verb the date's name or description uses and the year attribute's
    does not ("listed in 2024" of "date the car was listed for sale", beside "model year the car
    was first registered")."""
    year = profile.by_name.get(found.attribute)
    if year is None or year.attr.kind != "year" or not dates:
        return False
    before = [t for t in tokens if t.end <= found.span[0]][-1:]
    # A negation's reach holds its verb too ("were not listed in 2024"): the words up to the figure.
    figure = next((t.start for t in tokens if found.span[0] <= t.start < found.span[1] and t.text[:1].isdigit()), found.span[1])
    words = [*before, *(t for t in tokens if found.span[0] <= t.start < figure and t.text.isalpha())]
    # The verb before a value's phrase ("sold at Northgate in 2023"): the year's too.
    back = [t for t in tokens if t.end <= found.span[0]]
    k = len(back) - 1
    while k >= 0 and len(back) - k <= 4 and (back[k].norm in _PHRASE_WORDS or back[k].text[:1].isupper()):
        k -= 1
    if 0 <= k < len(back) - 1:
        words.append(back[k])
    if any(any(term_match(forms(t.norm), d.terms) for d in dates) and not term_match(forms(t.norm), year.terms)
           for t in words):
        return True
    return _another_event([t for t in tokens if t.end <= figure], year, profile)


def _records_year(tokens: list[Token], found: Found, profile: SchemaProfile) -> bool:
    """Whether ``found``, a condition on a year attribute of a thing the records are of ("year the
    ship was built" in "Port calls of ships"), is a year written before the records' own word
    ("its 2026 call", "the 2024 calls"): the records' year, not that thing's."""
    year = profile.by_name.get(found.attribute)
    if year is None or year.attr.kind != "year":
        return False
    after = [t for t in tokens if t.start >= found.span[1]][:1]
    if not after or not forms(after[0].norm) & profile.record_nouns:
        return False
    # Or a year of another subject than the records ("year the house was built" of policies).
    subjects = re.findall(r"\b(?:the|a|an)\s+(?:[a-z]+\s+)?([a-z]+)\s+(?:was|were|is|are)\b", (year.attr.description or "").casefold())
    return profile.of_another_thing(year) or any(not forms(w) & profile.record_nouns and w not in ("year", "it")
                                                 for w in subjects)


_YEAR_PREPOSITIONS = frozenset({"in", "during", "before", "after", "since", "until"})
"""What a year of an event follows ("done in 2024", "done before 2024"); "from 2021" is the item's."""


def _described_events(attribute: AttrProfile) -> list[str]:
    """The words after "was"/"is" in an attribute's description: "first", "registered" of "model
    year the car was first registered"."""
    text = (attribute.attr.description or "").casefold()
    found = re.findall(r"\b(?:was|were|is|are)\s+([a-z]+)(?:\s+([a-z]+))?", text)
    # or the past form right after its subject: "premiered" of "year the film premiered"
    found += [(w, "") for w in re.findall(r"\b(?:the|a|an)\s+(?:[a-z]+\s+)?[a-z]+\s+([a-z]+ed)\b", text)]
    return [w for pair in found for w in pair if w and w not in QUERY_STOP]


def _another_event(before: Sequence[Token], year: AttrProfile, profile: SchemaProfile) -> bool:
    """Whether the year written after ``before`` follows "in", "during", "before" … and is the year
    of the records' own event, not of the item ``year`` is described by ("model year the vehicle
    was built"): the question uses none of the year's own words ("model", "built"), and the records
    have a date of their own, named by the items' word (service_date of "Service records": "done in
    2024", "services except annual inspections in 2022"), or their one date when the year is of a
    thing another attribute names ("year the building was built" beside building). A year described by no event of its own
    ("year of the record"), or by the records' date's event ("year the recall was announced"), is
    every record's; and without such a date a verb alone ("made after 1890" beside "year the
    artwork was created") is no other event."""
    described = _described_events(year)
    dates = [p for p in profile.attributes if p.attr.type == "date"]
    if len(before) < 2 or before[-1].norm not in _YEAR_PREPOSITIONS or not described \
            or any(set(described) & set(_described_events(d)) for d in dates):
        return False  # "year the recall was announced" beside "date the recall was announced": one event
    # (a verb ending in -e by its base too: "premiere" of "premiered")
    # (not the records' own word: "entries … in 2024" of entry_year, "year the school registered
    # the entry", says nothing of that year)
    own = frozenset().union(*(forms(v) | (forms(v[:-1]) if v.endswith("ed") else frozenset()) for v in described)) \
        | {t for t in year.name_terms if t not in _DATE_WORDS and t not in profile.record_nouns}
    if any(forms(t.norm) & own for t in before):
        return False  # "vans built in 2021", "model year 2021"
    if any(p.name_terms & profile.item_nouns for p in dates):
        return True
    # "year the building was built" of "Monthly energy bills of … buildings", building being
    # another attribute: the year of that thing, not of the records, whose one date ("date the
    # meter was read") a bare "bills … in 2023" is of.
    return len(dates) >= 1 and profile.of_another_thing(year)


def _either_event(tokens: list[Token], found: Found, profile: SchemaProfile, dates: Sequence[AttrProfile]) -> bool:
    """Whether ``found``, a condition on the year of the records' own event ("year the tree was
    planted"), is a bare year after "in" or "during" where a date attribute records another event
    of theirs ("date of the tree's most recent inspection"), and the question uses no word of
    either: which of the two it dates is not said. ("Summit frost days 2023" of a year of no event
    is that year; "from 1917" is the item's own.)"""
    year = profile.by_name.get(found.attribute)
    if year is None or year.attr.kind != "year" or not dates:
        return False
    described = _described_events(year)
    if not described or any(set(described) & set(_described_events(d)) for d in dates):
        return False
    figure = next((t for t in tokens if found.span[0] <= t.start < found.span[1] and t.text[:1].isdigit()), None)
    before = [t for t in tokens if figure is not None and t.end <= figure.start]
    if not before or before[-1].norm not in ("in", "during"):
        return False
    generic = profile.record_nouns | profile.item_nouns | _DATE_WORDS
    own = frozenset().union(*(forms(v) | (forms(v[:-1]) if v.endswith("ed") else frozenset()) for v in described)) \
        | {t for t in year.name_terms if t not in generic}
    others = frozenset().union(*(d.terms for d in dates)) - generic
    said = [t for t in tokens if t.norm.isalpha() and t.norm not in QUERY_STOP]
    return not any(forms(t.norm) & own or term_match(forms(t.norm), others) for t in said)


def _event_s_year(tokens: list[Token], found: Found, profile: SchemaProfile, mentions: Sequence[Mention]) -> bool:
    """Whether ``found``, a condition on a year attribute, is the year of an event a value names:
    the word right before "in 2025" or "last year" is a value another attribute took as written
    ("sold" of status in "sold in 2025"), which the year attribute's name and description do not
    use ("model year of the car")."""
    year = profile.by_name.get(found.attribute)
    if year is None or year.attr.kind != "year":
        return False
    inside = [t for t in tokens if found.span[0] <= t.start < found.span[1]]
    figure = next((t for t in reversed(inside) if t.text.isdigit()), None)
    if figure is not None:
        before = [t for t in tokens if t.end <= figure.start]
        if not before or before[-1].norm not in ("in", "during"):
            return False  # "thrillers from 1979": the item's year
        start = before[-1].start
    elif inside and inside[0].norm in ("last", "this", "next", "past"):
        start = inside[0].start
    else:
        return False
    if not any(t.end <= start for t in tokens) or _word_before(tokens, start).start >= found.span[0]:
        return False  # the condition's own word comes first ("founded in 1975")
    return _event_word(tokens, start, mentions, found.attribute) and not term_match(
        forms(_word_before(tokens, start).norm), year.terms)


def _graded_form(question: str, mention: Mention) -> bool:
    """Whether ``mention`` read a comparative or superlative ("higher", "highest") as the value
    its base spells ("high"): a comparison's word, which the superlative and bound readers read."""
    written = question[mention.span[0]:mention.span[1]].casefold()
    value = str(mention.value).casefold()
    return written != value and written.isalpha() and written.endswith(("er", "est")) and lemma(written) == value


_DATE_WORDS = frozenset(["date", "day", "year", "month"])
_STRANDED = frozenset(PREPOSITIONS) | {"about", "of", "to", "like", "into"}
"""Prepositions a question may end on, their object the wh-word ("What is it about?")."""


def _asks_a_date(tokens: list[Token]) -> bool:
    """Whether the question asks when: "When …", "What date/year …", "In what year …"."""
    words = [t.norm for t in tokens[:3]]
    if words[:1] == ["when"]:
        return True
    if words[:1] == ["in"] or words[:1] == ["on"]:
        words = words[1:]
    return len(words) >= 2 and words[0] in ("what", "which") and words[1] in _DATE_WORDS


def _dated_event(tokens: list[Token], mention: Mention, mentions: Sequence[Mention], dates: Sequence[AttrProfile],
                 profile: SchemaProfile) -> bool:
    """Whether ``mention`` is the event a when-question asks the date of: a verb's form a value
    took as written ("completed" of status) that a date attribute's name or description uses
    ("date the trial was completed"), not before the items' word, other values between ("the
    completed Velatrib trials": a state that selects them)."""
    if not dates or not _asks_a_date(tokens) or mention.negated or mention.attr.attr.kind in _NAMING_KINDS:
        return False
    word = next((t for t in tokens if (t.start, t.end) == mention.span), None)
    if word is None or not word.text.isalpha():
        return False
    text = word.text.casefold()
    if text.endswith("s") or lemma(text) == text or str(mention.value).casefold() != text:
        return False
    valued = [m.span for m in mentions if m is not mention]
    after = next((t for t in tokens if t.start >= word.end and not any(a <= t.start < b for a, b in valued)), None)
    if after is not None and forms(after.norm) & profile.item_nouns:
        return False
    return any(term_match(forms(word.norm), d.terms) for d in dates)


def _event_verb(question: str, mention: Mention, dates: Sequence[AttrProfile]) -> bool:
    """Whether ``mention`` is a state's name read from another form of its verb ("submit" of
    "submitted", "opened" of "open") that the records' first date uses as its verb ("date the
    application was submitted", "date the pull request was opened"): the event every record
    began with, whose state it then left (under review, merged). A later event's verb ("did X
    sell", "did not settle") is the state it leaves, and the state written as itself is the
    state."""
    if mention.how != "inflection" or mention.negated or not isinstance(mention.value, str) or " " in mention.value \
            or not dates:
        return False
    written = question[mention.span[0]:mention.span[1]].casefold()
    return written.isalpha() and written != mention.value.casefold() and _verb_of(written, dates[0])


def _done_by(tokens: list[Token], mention: Mention, mentions: Sequence[Mention]) -> bool:
    """Whether ``mention``, a state's name, is followed by "by" and a person of an attribute that
    does its verb ("approved by Samuel Carver" of "principal who approves the trip")."""
    after = [t for t in tokens if t.start >= mention.span[1]][:1]
    if not after or after[0].norm != "by" or not isinstance(mention.value, str):
        return False
    verb = str(mention.value).casefold()
    return any(o.span[0] >= after[0].end and o.attr.attr.kind == "name" and does(o.attr, verb) for o in mentions)


_SELECTING = re.compile(r"\s*(?:which|how\s+many|list|show|name)\b", re.IGNORECASE)
"""Questions that select records ("Which procedures did …", "How many … did …"), not a when- or
a yes/no question about one."""
_UNDATED = re.compile(r"\b(?:missing|absent|empty|blank|none|null|not\s+yet|until|unless|only\s+(?:for|if|when|once))\b",
                      re.IGNORECASE)
"""A date's description saying some records have none ("missing if not yet done")."""


_STATE_BEFORE = frozenset({"is", "are", "was", "were", "be", "been", "being", "still", "now", "currently", "status",
                           "state", "marked", "not"})
"""Words before a state's name that use it as the state ("still booked", "status booked")."""


def _dated_state(question: str, tokens: list[Token], mention: Mention, dates: Sequence[AttrProfile],
                 today: date | None) -> bool:
    """Whether ``mention``, a state's name written as a verb a date attribute's description uses in
    any form ("arrived" of "date the boat arrives"), is followed by a date phrase ("in 2025",
    "between 1 June and 31 August 2025"): the date of that event, not the state's."""
    if today is None or mention.negated or not isinstance(mention.value, str) or " " in mention.value:
        return False
    written = question[mention.span[0]:mention.span[1]].casefold()
    if not written.isalpha() or not any(_verb_of(written, d) for d in dates) or _used_as_state(tokens, mention):
        return False
    rest = question[mention.span[1]:]
    found = find_date_range(rest, today)
    return found is not None and found.span is not None and not rest[:found.span[0]].strip()


def _event_phrase(tokens: list[Token], mention: Mention, events: Sequence[AttrProfile]) -> bool:
    """Whether ``mention``, a state of one word ("out"), ends with the word before it a verb phrase
    a date's description writes ("checked out" of "date the kit was checked out"): that event,
    not the state, unless the phrase is used as the state ("still checked out")."""
    if mention.negated or not isinstance(mention.value, str) or " " in mention.value:
        return False
    before = [t for t in tokens if t.end <= mention.span[0]]
    if len(before) < 1 or not before[-1].norm.isalpha() or before[-1].norm in QUERY_STOP:
        return False
    phrase = f"{before[-1].norm} {str(mention.value).casefold()}"
    if len(before) > 1 and before[-2].norm in ("still", "currently", "now"):
        return False
    return any(re.search(rf"\b{re.escape(phrase)}\b", (d.attr.description or "").casefold()) for d in events)


def _records_verb(tokens: list[Token], mention: Mention, profile: SchemaProfile) -> bool:
    """Whether ``mention``, a state's name, is written as the verb the records' own noun is made
    from ("booked" of bookings, "Which agent booked Curlew?"): the act that made each record, not
    the state a record is in now. Not where it is used as the state ("still booked", "booked
    bookings")."""
    if mention.negated or not isinstance(mention.value, str) or " " in mention.value:
        return False
    word = next((t for t in tokens if (t.start, t.end) == mention.span), None)
    if word is None or not word.norm.isalpha():
        return False
    bases = {n[:-3] for n in profile.record_nouns if n.endswith("ing") and len(n) > 6}
    return lemma(word.norm) in bases and not _used_as_state(tokens, mention)


def _used_as_state(tokens: list[Token], mention: Mention) -> bool:
    """Whether the state's word is used as the state: after "is/are/still/status …", or before the
    items' word ("booked bookings")."""
    before = [t for t in tokens if t.end <= mention.span[0]][-1:]
    after = [t for t in tokens if t.start >= mention.span[1]][:1]
    return bool(before and before[0].norm in _STATE_BEFORE) or bool(after and plural(after[0]))


def _word_before(tokens: list[Token], start: int) -> Token:
    return [t for t in tokens if t.end <= start][-1]


def _event_word(tokens: list[Token], start: int, mentions: Sequence[Mention], attribute: str | None) -> bool:
    """Whether the word right before offset ``start`` is a verb's form that an attribute (not
    ``attribute``, not a name) took as its value, as written: "sold" is a state, "thrillers" and
    "toys" the items themselves."""
    before = [t for t in tokens if t.end <= start]
    if not before:
        return False
    verb = before[-1]
    # A verb's form ("sold", "closed", "cancelled": another word than its lemma), not a noun's
    # plural ("toys", "electronics").
    word = verb.text.casefold()
    if word.endswith("s") or lemma(word) == word:
        return False
    # Negated too: "not sold in 2025" is about a sale's year as "sold in 2025" is, which no
    # attribute records (a car sold in 2024 was not sold in 2025 either).
    return any(m.span[1] == verb.end and m.span[0] <= verb.start and str(m.value).casefold() == word
               and m.attr.name != attribute and m.attr.attr.kind not in _NAMING_KINDS for m in mentions)


def _month_s_year(tokens: list[Token], found: Found, schema: CollectionSchema) -> bool:
    """Whether ``found`` is a condition on a year attribute read from a year written right after a
    month's name ("June 2024")."""
    attr = schema.attribute(found.attribute)
    if attr is None or attr.kind != "year":
        return False
    for a, b in zip(tokens, tokens[1:], strict=False):
        if found.span[0] <= b.start < found.span[1] and b.text.isdigit() and len(b.text) == 4 \
                and a.norm in MONTHS and (a.norm != "may" or a.text[:1].isupper()):
            return True
    return False


_NAMING_KINDS = frozenset({"name", "identifier"})


def _run_together(question: str, mentions: Sequence[Mention]) -> list[Mention]:
    """The mentions of a name or identifier attribute written right next to another of the same
    attribute, with nothing but a space between ("Aurora Sport"): one name, unknown."""
    naming = sorted((m for m in mentions if m.attr.attr.kind in _NAMING_KINDS and not m.negated), key=lambda m: m.span)
    out: list[Mention] = []
    for a, b in zip(naming, naming[1:], strict=False):
        if a.attr.name == b.attr.name and question[a.span[1]:b.span[0]] == " ":
            out += [m for m in (a, b) if m not in out]
    return out


def _name_goes_on(question: str, tokens: list[Token], mention: Mention, taken: Spans) -> bool:
    """Whether the name ``mention`` read is the start of a longer name the question writes: the
    value is a name or an identifier, and right after it, with nothing between, comes a
    capitalised word (or one with a digit) no reader took ("Orbit Smart Scale Pro", "VoltEdge 45W")."""
    if mention.attr.attr.kind not in _NAMING_KINDS or not isinstance(mention.value, str):
        return False
    if re.search(r"['’]s?$", question[mention.span[0]:mention.span[1]]):
        return False  # a possessive ends the name: "Ada Brenn's Lighthouse"
    nxt = next((t for t in tokens if t.start >= mention.span[1]), None)
    if nxt is None or question[mention.span[1]:nxt.start].strip() or not taken.free((nxt.start, nxt.end)):
        return False
    return nxt.text != "I" and (nxt.text[:1].isupper() or any(ch.isdigit() for ch in nxt.text))


_LABEL_HEADS = frozenset({"name", "title", "id", "code", "number", "identifier"})
"""A name's last word that says only that it names something: "pet_name" names pets, "loan_officer" no loans."""


def _qualifies_only(tok: Token, profile: AttrProfile, near: Sequence[Token]) -> bool:
    """Whether ``tok`` names a word attribute by nothing but a word that qualifies its own noun:
    "loans" of loan_officer (an officer), "products" of product_category. Not its own last word
    ("officer"), nor a word before a label ("pets" of pet_name), nor the name written whole nearby."""
    if profile.attr.type not in ("string", "string[]"):
        return False  # a number or a date is headed by its whole name (or its year) elsewhere
    words = [w for w in re.split(r"[_\W]+", profile.name.casefold()) if w and w not in UNITS]
    said = forms(tok.norm)
    matched = [i for i, w in enumerate(words) if forms(w) & said]
    if len(words) < 2 or not matched or matched[-1] == len(words) - 1 or words[-1] in _LABEL_HEADS:
        return False
    written = frozenset().union(*(forms(u.norm) for u in near))
    return not all(forms(w) & written for w in words)


def item_words(schema: CollectionSchema) -> frozenset[str]:
    """The words a collection's records go by, in each of their forms: the plural nouns of its
    description ("Tenancy records …": tenancies, records), a word most attributes' descriptions
    share, and the generic ones ("items", "entries"). Naming one names the records themselves,
    never one attribute of theirs."""
    return SchemaProfile(schema, {}).item_nouns


def record_words(schema: CollectionSchema) -> frozenset[str]:
    """The records' own word in each of its forms (the first plural noun of the collection's
    description: "tickets" of "City parking tickets"): naming it names the records, and an attribute
    named by it alone and a unit ("talk_minutes") or a stop word ("ticket_no") is not named by it."""
    return SchemaProfile(schema, {}).record_nouns


def headed_attribute(question: str, schema: CollectionSchema) -> str | None:
    """The attribute a "which"/"what" question asks for by naming it right after its word ("Which
    town had the most rain?", "What year …"), or a yes/no question right after "any" ("Did any
    town get more than 900 mm?"): each document the answer shows is shown by its value
    of it, so the question asks nothing the filter leaves unsaid by naming it; or a "how many"
    question right after its words, of a word attribute ("How many towns …?": how many of its
    values). None when no attribute, or more than one, is named there."""
    tokens = tokenize(question)
    if not tokens:
        return None
    types: tuple[str, ...] = ("string", "string[]", "integer", "float", "date")
    if tokens[0].norm in ("which", "what") and len(tokens) > 1 and tokens[1].norm not in AUXILIARIES:
        # Not "Which was wetter …?": a word after the verb is no noun the question is headed by.
        after = tokens[1:3]
    elif len(tokens) > 2 and (tokens[0].norm, tokens[1].norm) == ("how", "many"):
        # "How many (different) (coast) towns …?": how many of its values, a count only a word
        # attribute has.
        start = 3 if tokens[2].norm in DISTINCT_WORDS else 2
        after, types = tokens[start:start + 2], ("string", "string[]")
        if start == 2 and forms(tokens[2].norm) & SchemaProfile(schema, {}).record_nouns:
            return None  # "How many procedures …" of surgical procedures: the records, whatever is named like them
    elif tokens[0].norm in AUXILIARIES and len(tokens) > 2 and tokens[1].norm == "any":
        after = tokens[2:3]  # "Did any town get more than 900 mm?": whether any, shown by town
    else:
        return None
    profile = SchemaProfile(schema, {})
    # "How many recalls …" counts records, whose identifiers (recall_id) are one each.
    counted = types == ("string", "string[]")
    for tok in after:
        hits = [p.name for p in profile.attributes if p.attr.type in types and p.name_terms
                and term_match(forms(tok.norm), p.name_terms) and not (counted and p.attr.kind == "identifier")]
        at = tokens.index(tok)
        hits = [h for h in hits if not _qualifies_only(tok, profile.by_name[h], tokens[at : at + 3])]
        if forms(tok.norm) & (profile.item_nouns | profile.record_nouns):
            # "Which record had the most frost days?": the items' own word, which only begins
            # record_high_c's name; "Which record high …" names it whole.
            # Every word of the name as declared: "type" of event_type is no name term (too
            # generic), yet "How many events …" counts events, not event types. An identifier's
            # "id" is the item itself ("Which paper …" is shown by paper_id).
            near = frozenset().union(*(forms(u.norm) for u in tokens[at : at + 3]))
            hits = [h for h in hits if all(len(t) < 2 or t in near for t in [
                *profile.by_name[h].name_terms,
                *(re.split(r"[_\W]+", h.lower()) if profile.by_name[h].attr.kind != "identifier" else ())])]
            if not hits:
                return None  # "How many advisories affect version 2.0?": the items themselves, whatever follows
            if len(hits) > 1:
                # "Which event type …" of event_type and event_id: the one whose name is written whole.
                hits = [h for h in hits if all(w in near for w in re.split(r"[_\W]+", h.lower()) if w)] or hits
        following = []
        for u in tokens[at + 1 : at + 3]:
            word = u.text.casefold()
            if u.norm in AUXILIARIES or (not word.endswith("s") and lemma(word) != word):
                break  # "Which products were recalled …", "any products recalled by …": a verb, not the items' word
            following.append(u)
        if hits and any(forms(u.norm) & profile.item_nouns for u in following):
            # "How many home matches …", "Which phase 3 trial …": a word of the items asked about
            # (with its value), not the attribute whose values are asked for.
            return None
        # A number is headed by its whole name: "Which floor is LST-6001 on?" asks a floor, which
        # floor_area does not record (a year is its own word: "What year …" of year_acquired). So
        # is any attribute by a verb's form ("Which sold for £379,000?" asks which listings, not
        # their sold_date).
        near_words = frozenset().union(*(forms(u.norm) for u in tokens[max(0, at - 2) : at + 3]))
        word = tok.text.casefold()
        verb_form = not word.endswith("s") and lemma(word) != word
        hits = [h for h in hits if ((a := profile.by_name[h].attr).type not in ("integer", "float") or a.kind == "year")
                and not verb_form
                or all(w in near_words or w in UNITS or w in QUERY_STOP or w in PREPOSITIONS for w in re.split(r"[_\W]+", h.lower()) if len(w) > 1)]
        if len(hits) > 1:
            # "What model year …" of model and model_year: the one whose name is written whole;
            # "Which district …" of district and district_id: the one named by the word alone.
            whole = [h for h in hits if len(h.split("_")) > 1 and all(forms(w) & near_words for w in h.casefold().split("_") if w)]
            hits = whole if len(whole) == 1 else [h for h in hits if h.casefold() in forms(tok.norm)] or hits
        if hits:
            return hits[0] if len(hits) == 1 else None
    return None


def rule_based_query(
    question: str,
    schema: CollectionSchema,
    catalogue: Mapping[str, Sequence[str]],
    *,
    today: date,
    embeddings: Embeddings | None = None,
) -> StructuredQuery:
    """Read ``question`` into a structured query using only ``schema`` and ``catalogue``.

    ``embeddings`` (the collection's own model) lets words link to known values by meaning; without
    it only spelling links them. The query text is never empty.
    """
    return read_question(question, schema, catalogue, today=today, embeddings=embeddings).query
