"""Words of the question that name a value: known categories, booleans, and proper names.

In order of trust:

1. **Known values** of string attributes (allowed values, else the catalogue): the same words up to
   case, accents, inflection or derivation ("comedies", "contractor"), an abbreviation ("sci-fi"),
   a typo in a multi-word name, or a capitalised surname ("Nolan"). A number written alone is
   such a value only when it is exactly one ("route 62", "bus 14", "homes in 3121") and neither
   a count of results ("show me 14 routes") nor a quantity ("14 minutes"), nor written as a bound
   ("after version 5.0", "2.0 or later": strings cannot be ordered, so it stays in the search text).
2. **Boolean attributes** named by a word of their name ("with a pool" → has_pool, "pet friendly"
   → pets_allowed, "sponsor visas" → visa_sponsorship).
3. **Embedding similarity** under the collection's own model, above a confidence floor and clear
   of the runner-up ("veggie" → vegetarian, "flats" → apartment, "lactose free" → dairy_free).
   Proper-name attributes are excluded: a name is never "similar" to another name.
4. **Unknown proper names** for name-like attributes, when the question clearly names one: a
   capitalised name after a cue ("by Agnès Varda", "at Anthropic", "from Villeneuve") or after
   the attribute's own word ("route Kingsford Express", "director Agnès Varda"), right before the
   collection's item noun ("Fairphone phones"), or listed with "or" after a value of such an
   attribute ("by Greta Gerwig or Agnès Varda": the cue holds for the whole list), kept as
   written. A capitalised word that a cue joins to a capitalised title before it is the title's
   ("Harbour at Dusk" names no maker "Dusk"). Which attribute: the one named or listed with; places take "in"; otherwise the one
   whose known values the name is most similar to. A name nothing ties to such an attribute (a title, a
   ship, a character: "What is Solaris about?") stays in the search text: a filter on a value the
   collection does not know selects nothing. So does one unlike every known value of the
   attribute (words where the values are codes: "from Kingsford Central" is no route when the
   routes are R1, 14 and 62) unless the attribute's word names it ("directed by"), and one beside
   a known value of the attribute it would join, unless listed with it ("by Nolan or by Agnès
   Varda") or named by the attribute's word: the values of one attribute become ``in``, and a
   cue alone ("from", "at") does not make "from Kingsford Central" another route when the
   question names route R1.

Negation ("not", "except", "aren't", "other than", "non-", "no", "without") marks the mentions it
governs, and carries over a list of values of the same attribute ("not in Paris or London").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from selfrag.lang import (
    DETERMINERS,
    FILLER,
    FUNCTION_WORDS,
    MONTHS,
    NUMBER_WORDS,
    QUERY_STOP,
    UNITS,
    Token,
    doer_of,
    forms,
    is_word,
    lemma,
    normalise,
    word_map,
    word_set,
)
from selfrag.lang.questions import AUXILIARIES, PREPOSITIONS
from selfrag.query._lexicon import CUES, NEGATION_PHRASES, NEGATIONS
from selfrag.query._limit import asks_count
from selfrag.query._match import KnownValues, accent_only
from selfrag.query._numbers import Number
from selfrag.query._numeric import compared
from selfrag.query._profile import AttrProfile, SchemaProfile
from selfrag.query._similar import Similarity
from selfrag.query._spans import Spans
from selfrag.query._text import plural, term_match
from selfrag.query.model import Scalar

__all__ = ["Mention", "does", "find_mentions"]

VALUE_FLOOR = 0.73
"""Least cosine similarity for linking a phrase to a known value by embedding."""
NAME_FLOOR = 0.85
"""Least cosine similarity for reading an unknown name as a known one ("NYC" → New York)."""
BOOLEAN_FLOOR = 0.73
"""Least cosine similarity for linking a phrase to a boolean attribute's name by embedding."""
MARGIN = 0.05
"""How far the best embedding match must lead the runner-up (another value or attribute)."""

_NAME_CUES = word_set("name_cues")
"""Words after which an unknown name is a value: maker, origin, employer, place. Not "of", "for" or
"with": they tie a name to the question ("the rating of Parasite", "a sequel for Alien", "movies
with Keanu Reeves"), not to a name-like attribute, and an unknown value filters everything out."""
_PARTICLES = word_set("name_particles")
_BOOL_MODIFIERS = word_set("bool_modifiers")
_MEASURE_WORDS = frozenset(word_map("superlative_measures")) | frozenset(word_map("comparative_measures"))
"""Words that rank or compare by a measure ("shortest", "cheaper"): never a value by inflection ("shorts")."""
_GAP_WORDS = word_set("gap_words")
_OR_WORDS = frozenset(["or", "nor"])
_CUE_WORDS = frozenset(w for cue in CUES for w in cue.split())
_REQUEST_LEADS = frozenset(["please", "pls", "can", "could", "would", "will", "you", "i", "we", "want", "wanna", "need",
                            "like", "id", "i'd", "to", "let", "lets", "let's", "us", "and", "then", "now", "also",
                            "just", "quickly", "kindly"])  # fmt: skip
"""Words that may come before the verb opening a request ("Could you please search ...", "I'd like to find ...")."""
_VERB_OBJECTS = frozenset(["for", "through", "me", "us", "about"])
"""Words after a request word that make it a verb ("search for", "find me", "look through")."""


_ROLE_PREPOSITIONS = frozenset({"to", "from", "into", "by"})
"""Prepositions that give a value a role an attribute's description may name ("sent to", "left from")."""


def _spells(words: Sequence[str], name: str) -> bool:
    """Whether ``words`` are the words of the attribute name ``name`` ("resit fee" of resit_fee)."""
    named = [w for w in re.split(r"[_\W]+", name.casefold()) if w]
    return len(named) == len(words) and all(lemma(a) == lemma(b) for a, b in zip(words, named, strict=True))


def does(p: AttrProfile, verb: str) -> bool:
    """Whether attribute ``p`` is the doer of ``verb`` (any form): its description says so ("person
    who reported the bug") or its name is the verb's doer noun (reporter)."""
    said = forms(verb.casefold())
    words = re.findall(r"[a-z]+", (p.attr.description or "").casefold())
    if any(w in ("who", "that", "which") and forms(words[i + 1]) & said for i, w in enumerate(words[:-1])):
        return True
    name = [w for w in re.split(r"[_\W]+", p.name.casefold()) if w]
    # The role's own noun as its verb ("did X captain" of "master (captain) of the ship", "did X
    # chair" of chair): a word of its name or of its description's head, before "of"/"who".
    head = list(itertools.takewhile(lambda w: w not in _HEAD_ENDS, words))
    if any(w in said for w in [*name, *head] if w not in QUERY_STOP):  # the noun itself: not "win" of winner
        return True
    return any(doer_of(w, verb) for w in name)


_HEAD_ENDS = frozenset({"of", "who", "that", "which", "whom", "for", "in", "at", "on", "during", "with", "by",
                        "from", "to", "is", "was", "the", "a", "an"})


@dataclass(frozen=True)
class Mention:
    """A value named in the question."""

    attr: AttrProfile
    value: Scalar
    span: tuple[int, int]
    how: str
    negated: bool = False
    also: tuple[AttrProfile, ...] = ()
    """Other attributes holding the same value, when the question does not say which one ("Arlow
    City", a home team and an away team): the value in any of them."""
    role: AttrProfile | None = None
    """Another attribute the verb before the value gives it the role of ("filed by Paris Holloway"
    of an adjuster, where the policyholder is "the person who filed the claim"): the question may
    ask about that attribute, which does not hold the value."""


class _Finder:
    def __init__(self, question: str, tokens: list[Token], profile: SchemaProfile, taken: Spans,
                 similarity: Similarity | None, item_nouns: frozenset[str]) -> None:  # fmt: skip
        self.q = question
        self.tokens = tokens
        self.profile = profile
        self.taken = taken
        self.sim = similarity
        self.items = item_nouns
        self.indexes = [(p, KnownValues(p.values)) for p in profile.strings() if p.values]
        self.asked: str | None = None
        self.named: list[AttrProfile] = profile.attributes
        """The attributes a question may name by their words (the lists' too, when given)."""
        self.every = _words_of(profile.schema.description)
        """The words of the collection's own description: what every record is."""

    def span(self, i: int, j: int) -> tuple[int, int]:
        return self.tokens[i].start, self.tokens[j - 1].end

    def light(self, tok: Token) -> bool:
        return tok.norm in QUERY_STOP or tok.lemma in self.items or tok.norm.isdigit()

    # -- 1. known values ---------------------------------------------------------------------------
    def known(self) -> list[Mention]:
        out: list[Mention] = []
        longest = max((idx.max_words for _, idx in self.indexes), default=0)
        i = 0
        while i < len(self.tokens):
            hit = None
            for n in range(min(longest + 1, len(self.tokens) - i), 0, -1):
                toks = self.tokens[i : i + n]
                span = self.span(i, i + n)
                if not self.taken.free(span) or self.q[span[0]:span[1]].count(","):
                    continue
                text = self.q[span[0] : span[1]]
                signed = self.q[span[1]:span[1] + 1] in ("+", "-", "\u2212") and not self.q[span[1] + 1:span[1] + 2].isalnum()
                if signed:
                    # "AB-", "O+": a sign the words leave out is the value's ("A-" is no "A+").
                    text, span = text + self.q[span[1]], (span[0], span[1] + 1)
                if _DOTTED.fullmatch(text):
                    # "1.2.3": a code (a version), no number; the value written exactly, or none
                    # ("1.2.4" is no misspelt "1.2.3").
                    exact = [(p, m) for p, idx in self.indexes if (m := idx.exact(text)) is not None and m.how == "exact"]
                    hit = Mention(exact[0][0], exact[0][1].value, span, "exact") if len(exact) == 1 else None
                elif all(self.light(t) for t in toks) and not signed:
                    # "BUG-1007" of tickets called bugs: the items' word and a number, which as
                    # written whole is an identifier's value.
                    # So is any code written whole, "2024/25" of a season, "VAN-014" of a vehicle:
                    # letters or digits joined by a slash or hyphen, with a digit.
                    code = re.fullmatch(r"[^\W_]+(?:[/\-][^\W_]+)+", text) is not None and any(c.isdigit() for c in text)
                    exact = [(p, m) for p, idx in self.indexes if n > 1 and (p.attr.kind == "identifier" or code)
                             and (m := idx.exact(text)) is not None and m.how == "exact"]
                    hit = (Mention(exact[0][0], exact[0][1].value, span, "exact") if len(exact) == 1
                           else (self._filler_value(i, span) or self._kind_of_item(text, span)) if n == 1 else None)
                else:
                    hit = self._lookup(text, n, span)
                if hit:
                    i += n
                    break
            if hit:
                out.append(hit)
                self.taken.claim(hit.span)
            else:
                i += 1
        return out

    def _lookup(self, text: str, n: int, span: tuple[int, int]) -> Mention | None:
        """The strictest match over every attribute first, then looser ones: "Thai" is a cuisine
        before it is the last word of a title."""
        exact = [(p, m) for p, idx in self.indexes if (m := idx.exact(text)) is not None
                 # "per booking" is no handling code "PER": a code in capitals is not a little word
                 and not (n == 1 and (text.casefold() in QUERY_STOP or text.casefold() in PREPOSITIONS)
                          and isinstance(m.value, str) and m.value.isupper() and text != m.value)
                 and not (m.how == "inflection" and n == 1 and self._another_attributes_word(text, p))
                 and not (n == 1 and isinstance(m.value, str) and accent_only(text, m.value))
                 and not (n == 1 and text.casefold() in _MEASURE_WORDS and m.how != "exact")]
        if n == 1 and self.names_an_attribute(span):
            exact = []  # "premiere year": premiere_year's name, not the title "Premiere"
        if exact:
            (p, m), others = exact[0], [q for q, o in exact[1:] if o.value == exact[0][1].value]
            if others and self.asked in {c.name for c in [p, *others]}:
                # "which branch has the book Riverside?": the attribute the question asks for is
                # not the one its value is given of (Riverside the title, not the branch).
                rest = [c for c in [p, *others] if c.name != self.asked]
                p, others = rest[0], rest[1:]
            if others:
                # "Arlow City" is a home team and an away team: the one the question names by its
                # own words ("away matches"), else either.
                chosen = self._named_among([p, *others]) or self._by_verb(span, [p, *others]) \
                    or self._by_preposition(span, [p, *others]) or self._doer_of_verb_after(span, [p, *others])
                return Mention(chosen, m.value, span, m.how) if chosen else Mention(p, m.value, span, m.how, also=tuple(others))
            return Mention(p, m.value, span, m.how, role=self._agent_of_another(span, p))
        words = text.split()
        if n >= 2 and words[0].casefold() in ("the", "a", "an") \
                and any(idx.exact(" ".join(words[1:])) is not None for _, idx in self.indexes):
            # "in the Market": the district Market, written whole, not a part of "The Market Table".
            return None
        if n >= 2:
            for p, idx in self.indexes:
                # A part of a name names it only written as a name: "chess club" in lower case is
                # a kind of club, not the "Boston Knights Chess Club" it is part of.
                m = idx.abbreviation(text) or idx.typo(text) or (
                    idx.part(text) if p.name_like and any(w[:1].isupper() for w in text.split()) else None)
                if m is not None:
                    return Mention(p, m.value, span, m.how)
        if n == 1 and text[:1].isupper() and len(text) >= 3 and text.casefold() not in MONTHS:
            # A month's name ("in March") is no misspelt surname ("Marsh").
            for p, idx in self.indexes:
                m = idx.surname(text) if p.name_like else None
                if m is not None:
                    return Mention(p, m.value, span, m.how)
        return None

    def names_an_attribute(self, span: tuple[int, int]) -> bool:
        """Whether the one word at ``span`` and a word beside it are an attribute's name ("premiere
        year" of premiere_year) or the head of its description ("award cycle" of "award cycle the
        application is for", "documents submitted" of "documents submitted with the
        application"): that attribute named, not a value that word also is."""
        at = next((k for k, t in enumerate(self.tokens) if t.start == span[0]), None)
        if at is None:
            return False
        pairs = [[self.tokens[k].norm, self.tokens[k + 1].norm] for k in (at - 1, at) if 0 <= k < len(self.tokens) - 1]
        for p in self.named:
            named = [w for w in re.split(r"[_\W]+", p.name.casefold()) if w]
            head = re.findall(r"[a-z]+", (p.attr.description or "").casefold())[:2]
            for pair in pairs:
                said = [lemma(w) for w in pair]
                if (len(named) == 2 and said == [lemma(w) for w in named]) or (len(head) == 2 and said == [lemma(w) for w in head]):
                    return True
        return False

    def _named_among(self, candidates: Sequence[AttrProfile]) -> AttrProfile | None:
        """The one of ``candidates`` a word of the question names and the others' names do not
        ("away" of away_team beside home_team; "team", in both, names neither)."""
        own = {p.name: p.name_terms - frozenset().union(*(q.name_terms for q in candidates if q is not p))
               for p in candidates}
        # Not a word of another known value the question writes: "Manager" of the title "Engineering
        # Manager" names no manager ("Is Marta Kowalska an Engineering Manager?").
        valued = self._valued_spans()
        naming = [(p, [t for t in self.tokens if forms(t.norm) & own[p.name]
                       and not any(a <= t.start < b for a, b in valued)]) for p in candidates]
        named = [(p, toks) for p, toks in naming if toks]
        if not named:
            # "Is Jordan Green in the Green party?": party beside runner_up_party, whose name says
            # which party more; the name written alone is the plain one's.
            named = [(p, toks) for p in candidates if not own[p.name] and p.name_terms
                     and (toks := [t for t in self.tokens if forms(t.norm) & p.name_terms
                                   and not any(a <= t.start < b for a, b in valued)])]
        if len(named) != 1:
            return None
        for t in named[0][1]:  # the word is the attribute's, as a value's attribute word beside it is
            if self.taken.free((t.start, t.end)):
                self.taken.claim((t.start, t.end))
        return named[0][0]

    def _by_preposition(self, span: tuple[int, int], candidates: Sequence[AttrProfile]) -> AttrProfile | None:
        """The one of ``candidates`` whose description alone has the preposition right before the
        value ("went to Split": destination_port, "the port the shipment was sent to"; "from
        Split": origin_port, "the port it left from"), whatever the verb."""
        before = [t for t in self.tokens if t.end <= span[0]][-1:]
        if not before or before[0].norm not in _ROLE_PREPOSITIONS:
            return None
        using = [p for p in candidates if before[0].norm in re.findall(r"[a-z]+", (p.attr.description or "").casefold())]
        if len(using) != 1:
            return None
        # The preposition is the attribute's, and so is the verb right before it ("went to",
        # "came from"): nothing left to search. Not the items' word ("shipments from Genoa").
        held = before[0]
        prior = [t for t in self.tokens if t.end <= held.start][-1:]
        if prior and prior[0].norm.isalpha() and prior[0].norm not in QUERY_STOP and not forms(prior[0].norm) & self.items \
                and self.taken.free((prior[0].start, prior[0].end)):
            held = prior[0]
        if self.taken.free((held.start, span[0])):
            self.taken.claim((held.start, span[0]))
        return using[0]

    def _by_verb(self, span: tuple[int, int], candidates: Sequence[AttrProfile]) -> AttrProfile | None:
        """The one of ``candidates`` whose description alone uses the verb right before the value,
        a preposition or an adverb between ("reports to X", "reports directly to X": the manager,
        "the person they report to"). The value before its verb ("Who does X report to?") is the
        verb's subject, and stays either."""
        before = [t for t in self.tokens if t.end <= span[0]][-3:]
        link = before.pop().norm if before and before[-1].norm in _VERB_LINKS else None
        while before and before[-1].norm.endswith("ly"):
            before.pop()  # "reports directly to"
        if not before or not before[-1].norm.isalpha() or before[-1].norm in QUERY_STOP or before[-1].lemma in self.items:
            return None  # "flights from Boston": the items, no verb
        verb = forms(before[-1].norm)

        def uses(description: str) -> bool:
            # The verb with the same preposition after it: "played at home" is no "played by".
            words = re.findall(r"[a-z]+", description.casefold())
            return any(forms(w) & verb and (link is None or link in words[i + 1:i + 3]) for i, w in enumerate(words))

        using = [p for p in candidates if uses(p.attr.description or "")]
        if len(using) != 1:
            return None
        held = (before[-1].start, span[0])
        if self.taken.free(held):
            self.taken.claim(held)  # the verb is the attribute's, as its own word beside a value is
        return using[0]

    def _doer_of_verb_after(self, span: tuple[int, int], candidates: Sequence[AttrProfile]) -> AttrProfile | None:
        """The one of ``candidates`` that does the verb right after the value ("Which bugs did Grace
        Liu report?": reporter, "person who reported the bug", or by its name, the verb's doer),
        not one it is done to (assignee, "person the bug is assigned to"); None when none or
        several. "Who does X report to?" stays either: the manager is the one reported to."""
        after = [t for t in self.tokens if t.start >= span[1]][:2]
        # A stop word may be the verb ("did X give": "person who gives the talk"), not an auxiliary.
        if not after or not after[0].norm.isalpha() or after[0].norm in AUXILIARIES or forms(after[0].norm) & self.items:
            return None
        if len(after) > 1 and after[1].norm in _VERB_LINKS:
            return None  # "report to": the other one's role
        verb = after[0]
        doers = [p for p in candidates if does(p, verb.text)]
        if len(doers) != 1:
            return None
        if self.taken.free((verb.start, verb.end)):
            self.taken.claim((verb.start, verb.end))  # the verb is the attribute's
        return doers[0]

    def _another_attributes_word(self, word: str, held: AttrProfile) -> bool:
        """Whether ``word`` is, in another form, the verb a person attribute other than ``held`` is
        described by ("person who reported the bug") or named for (reporter): "reported" is no
        inflection of the component Reports. ("deny" stays the status denied, whatever
        denial_reason's description says.)"""
        return any(does(p, word) for p in self.profile.attributes if p.name != held.name and p.attr.kind == "name")

    def _agent_of_another(self, span: tuple[int, int], held: AttrProfile) -> AttrProfile | None:
        """The one attribute other than ``held`` whose name or description uses the verb of "<verb>
        by" right before the value ("filed by Paris Holloway": policyholder, "the person who filed
        the claim"), when ``held``'s own do not ("the adjuster who handled the claim"); None
        otherwise ("handled by Paris Holloway", "claims by Paris Holloway")."""
        before = [t for t in self.tokens if t.end <= span[0]][-2:]
        if len(before) < 2 or before[-1].norm != "by":
            return None
        verb = before[0]
        if not verb.norm.isalpha() or verb.norm in QUERY_STOP or forms(verb.norm) & self.items:
            return None
        said = forms(verb.norm)

        def uses(p: AttrProfile) -> bool:
            words = re.findall(r"[a-z]+", f"{p.name.replace('_', ' ')} {p.attr.description or ''}".casefold())
            return any(forms(w) & said for w in words)

        if uses(held):
            return None
        others = [p for p in self.profile.strings() if p.name != held.name and uses(p)]
        return others[0] if len(others) == 1 else None

    def _valued_spans(self) -> list[tuple[int, int]]:
        """Where the question writes, whole and but for case, a known value of several words."""
        spans = []
        for _, idx in self.indexes:
            for value in idx.values:
                if len(value.split()) > 1:
                    spans += [m.span() for m in re.finditer(rf"(?<!\w){re.escape(value)}(?!\w)", self.q, re.IGNORECASE)]
        return spans

    def _kind_of_item(self, text: str, span: tuple[int, int]) -> Mention | None:
        """The items' word that is one declared value of an attribute whose values the collection's
        description names as several kinds of its items ("the fleet's vans and trucks" of
        vehicle_class van, truck): "trucks" selects the trucks. Not a word that is the only such
        value ("Homes for sale" with a type "home"): that word is every item."""
        if self.q[span[1] : span[1] + 1] in ("-", "/") or self.q[span[0] - 1 : span[0]] in ("-", "/"):
            return None  # "VAN-014": a code's part, no kind
        hits = []
        for p, idx in self.indexes:
            m = idx.exact(text)
            declared = [v for v in p.attr.allowed_values or () if isinstance(v, str)]
            if m is None or m.value not in declared:
                continue
            if sum(1 for v in declared if forms(v.casefold()) & self.items) >= 2:
                hits.append(Mention(p, m.value, span, m.how))
        return hits[0] if len(hits) == 1 else None

    def _filler_value(self, i: int, span: tuple[int, int]) -> Mention | None:
        """A request word that is, exactly, a known value ("search" of a service, "watch" of a
        category), where a value stands: a modifier or a noun ("search incidents", "the search
        service", "affecting search"), not the verb opening a request ("Search for ...", "I want
        to search incidents"), nor one followed by what a verb takes ("... search for", "find me"),
        nor one that leads a count ("the top 5" where "top" is a garment)."""
        tok = self.tokens[i]
        if tok.norm not in FILLER or tok.norm in FUNCTION_WORDS | DETERMINERS | _CUE_WORDS or tok.norm in NUMBER_WORDS:
            return None
        nxt = self.tokens[i + 1].norm if i + 1 < len(self.tokens) else None
        if nxt in _VERB_OBJECTS or all(t.norm in _REQUEST_LEADS for t in self.tokens[:i]):
            return None
        if nxt is not None and (nxt.isdigit() or nxt in NUMBER_WORDS):
            return None  # "the top 5", "best three": it asks for a number of results
        hits = [Mention(p, m.value, span, m.how) for p, idx in self.indexes
                if (m := idx.exact(self.q[span[0] : span[1]])) is not None and m.how == "exact"]
        return hits[0] if len(hits) == 1 else None

    def numbered(self, numbers: Sequence[Number]) -> list[Mention]:
        """Numbers that are known values ("route 62"). ``known`` passes over numbers, which are
        counts and quantities far more often than names; here each is read with what the number
        reader saw around it, and the limit reader's view of it."""
        out: list[Mention] = []
        for n in numbers:
            span = (n.start, n.end)
            text = self.q[n.start : n.end]
            if not text[:1].isdigit() or not self.taken.free(span) or n.money or n.scaled or n.plus \
                    or n.unit in UNITS or asks_count(self.q, n, self.tokens, self.profile, self.taken):
                continue
            hits = [(p, m.value) for p, idx in self.indexes if (m := idx.exact(text)) is not None and m.how == "exact"
                    and not compared(self.q, self.tokens, self.profile, self.taken, n, p)]
            if len(hits) > 1:
                # "platform 3" when platforms and routes both have a 3: the noun before says which.
                before = [t for t in self.tokens if t.end <= n.start][-1:]
                hits = [(p, v) for p, v in hits if before and term_match(forms(before[0].norm), p.terms)]
            if len(hits) == 1:
                p, value = hits[0]
                out.append(Mention(p, value, span, "exact"))
                self.taken.claim(span)
        return out

    # -- 2. booleans by name ------------------------------------------------------------------------
    def booleans(self) -> list[Mention]:
        out: list[Mention] = []
        for p in self.profile.booleans():
            terms = p.name_terms or frozenset().union(*(forms(w) for w in normalise(p.name).split()))
            for k, tok in enumerate(self.tokens):
                if not self.taken.free((tok.start, tok.end)) or tok.norm in QUERY_STOP:
                    continue
                f = forms(tok.norm)
                negative_prefix = False
                nxt = self.tokens[k + 1] if k + 1 < len(self.tokens) else None
                if tok.norm.endswith("ing") and tok.norm not in normalise(p.name).split() and nxt is not None \
                        and nxt.norm.isalpha() and nxt.norm not in QUERY_STOP and not nxt.norm.endswith("ed") \
                        and not forms(nxt.norm) & (self.items | terms):
                    continue  # "the towing fee" names a fee, not whether the vehicle was towed
                if nxt is not None and any(o.name != p.name and _spells([tok.norm, nxt.norm], o.name) for o in self.named):
                    continue  # "the resit fee" is resit_fee, not whether a resit is required
                if not _bool_term(f, terms):
                    bare = _strip_negative_prefix(tok.norm)
                    if bare is None or not _bool_term(forms(bare), terms):
                        continue
                    negative_prefix = True
                i, j = k, k + 1
                while i > 0 and (_bool_term(forms(self.tokens[i - 1].norm), terms) or self.tokens[i - 1].norm in _BOOL_MODIFIERS) \
                        and self.taken.free((self.tokens[i - 1].start, self.tokens[i - 1].end)):
                    i -= 1
                while j < len(self.tokens) and (_bool_term(forms(self.tokens[j].norm), terms) or self.tokens[j].norm in _BOOL_MODIFIERS) \
                        and self.taken.free((self.tokens[j].start, self.tokens[j].end)):
                    j += 1
                after_not = j + 1 < len(self.tokens) and self.tokens[j].norm in ("not", "isnt", "arent") and self.tokens[j + 1].norm in _BOOL_MODIFIERS
                if after_not:
                    j += 2
                words = [w for w in normalise(p.name).split() if w not in QUERY_STOP]
                described = _words_of(p.attr.description)
                if len(words) > 1 and not any(_bool_term(forms(t.norm), forms(words[0])) for t in self.tokens[i:j]) \
                        and any(forms(t.norm) & (self.items | self.every) or not forms(t.norm) & described
                                for t in self.tokens[i:j]):
                    # "How many elections …" names no special_election (the collection is "one record
                    # per district and election"), "How many independents won?" no incumbent_won
                    # ("whether the winner was the incumbent"): without its first word, a flag's other
                    # word names it only as its description uses it and the collection's does not
                    # ("with breakfast" of free_breakfast, "Breakfast is included in the room price").
                    continue
                span = self.span(i, j)
                out.append(Mention(p, not (negative_prefix or after_not), span, "boolean", negated=negative_prefix or after_not))
                self.taken.claim(span)
                break
        return out

    # -- 3. embedding similarity --------------------------------------------------------------------
    def similar(self, earlier: Sequence[Mention] = ()) -> list[Mention]:
        """Values linked by meaning; not a yes/no attribute ``earlier`` mentions read by name
        ("not special elections"), nor from the items' own word ("elections")."""
        if self.sim is None:
            return []
        targets: list[tuple[AttrProfile, Scalar, str]] = []
        for p in self.profile.strings():
            if not p.name_like:
                targets.extend((p, v, v) for v in p.values[:200])
        named = {m.attr.name for m in earlier if m.how == "boolean"}
        for p in self.profile.booleans():
            if p.name in named:
                continue
            label = " ".join(normalise(p.name).split())
            targets.append((p, True, label))
            if p.attr.description:
                targets.append((p, True, p.attr.description))
        if not targets:
            return []
        written = self._written_names()
        grams: list[tuple[int, int]] = []
        for i in range(len(self.tokens)):
            for n in (1, 2, 3):
                toks = self.tokens[i : i + n]
                if len(toks) < n or not self.taken.free(self.span(i, i + n)):
                    continue
                if any(a < i + n and i < b for a, b in written):
                    continue  # "contents sum insured": an attribute's name written whole, no value
                if any(t.norm.isdigit() for t in toks) or self.light(toks[0]) or self.light(toks[-1]):
                    continue
                if any(t.norm in NEGATIONS for t in toks) or all(forms(t.norm) & self.items for t in toks):
                    continue
                grams.append((i, i + n))
        if not grams:
            return []
        texts = [self.q[self.span(i, j)[0] : self.span(i, j)[1]].casefold() for i, j in grams]
        sims = self.sim.matrix(texts, [t[2] for t in targets])
        scored: list[tuple[float, tuple[int, int], AttrProfile, Scalar]] = []
        for g, (i, j) in enumerate(grams):
            row = sims[g]
            order = row.argsort()[::-1]
            best = int(order[0])
            p, value, _ = targets[best]
            # The runner-up must be a different value (a boolean's name and description are one value).
            rival = next((float(row[int(o)]) for o in order[1:] if (targets[int(o)][0].name, targets[int(o)][1]) != (p.name, value)), 0.0)
            floor = BOOLEAN_FLOOR if p.attr.type == "boolean" else VALUE_FLOOR
            if row[best] >= floor and row[best] - rival >= MARGIN:
                scored.append((float(row[best]), (i, j), p, value))
        out: list[Mention] = []
        for score, (i, j), p, value in sorted(scored, key=lambda x: -x[0]):
            span = self.span(i, j)
            if not self.taken.free(span) or any(m.attr.name == p.name for m in out):
                continue
            out.append(Mention(p, value, span, f"embedding {score:.2f}"))
            self.taken.claim(span)
        return out

    def _written_names(self) -> list[tuple[int, int]]:
        """The token ranges where the question writes an attribute's name of two words or more
        whole ("contents sum insured" of contents_sum_insured)."""
        found = []
        for p in self.profile.attributes:
            words = [w for w in re.split(r"[_\W]+", p.name.casefold()) if w]
            n = len(words)
            if n < 2:
                continue
            for i in range(len(self.tokens) - n + 1):
                if all(forms(t.norm) & forms(w) for t, w in zip(self.tokens[i:i + n], words, strict=True)):
                    found.append((i, i + n))
        return found

    # -- 4. unknown proper names -----------------------------------------------------------------------
    def names(self, earlier: Sequence[Mention] = ()) -> list[Mention]:
        """Unknown names a cue, the item noun or a list ties to a name-like attribute; ``earlier``
        are the values read before (a name listed after one of them with "or" is one more)."""
        candidates = [p for p in self.profile.strings() if p.name_like]
        if not candidates:
            return []
        out: list[Mention] = []
        k = 0
        while k < len(self.tokens):
            tok = self.tokens[k]
            if not (tok.text[:1].isupper() and self.taken.free((tok.start, tok.end))) or tok.norm in QUERY_STOP or tok.lemma in self.items \
                    or self._names_attribute(tok):
                k += 1
                continue
            cue = self.tokens[k - 1].norm if k > 0 else None
            if self._continues_title(k):
                k += 1  # "Harbour at Dusk": "Dusk" is the title's, not a maker after "at"
                continue
            j = k + 1
            while j < len(self.tokens) and self.taken.free((self.tokens[j].start, self.tokens[j].end)) and (
                self.tokens[j].text[:1].isupper() or (self.tokens[j].norm in _PARTICLES and j + 1 < len(self.tokens) and self.tokens[j + 1].text[:1].isupper())
            ) and self.q[self.tokens[j - 1].end : self.tokens[j].start] in (" ", "-", "'", "’", ". ", ".") and self.tokens[j].lemma not in self.items:
                j += 1
            nxt = self.tokens[j] if j < len(self.tokens) else None
            follows_item = nxt is not None and (nxt.lemma in self.items or plural(nxt))
            # Not an English word ("Fairphone", "Ottolenghi"): a name wherever it stands in a sentence.
            coined = not any(is_word(t.norm) for t in self.tokens[k:j])
            listed = self._listed_after(k, j, [*earlier, *out])
            titled = self._titled(k, candidates)
            named = cue in _NAME_CUES or listed is not None or titled is not None or (follows_item and (coined or k > 0))
            span = self.span(k, j)
            text = self.q[span[0] : span[1]].strip(" .")
            if not named or self._ambiguous_surname(text):
                k = j
                continue
            attr = listed or titled or self._name_attribute(text, cue, candidates)
            if attr is not None and _unlike_values(attr, text) and not _named_by_attribute(self.tokens, Mention(attr, text, span, "")):
                attr = None  # "from Kingsford Central" where the routes are R1, 14 and 62: a place
            if attr is not None:
                out.append(self._known_alias(attr, text, span))
                self.taken.claim(span)
            k = j
        return out

    def _continues_title(self, k: int) -> bool:
        """The capitalised word at token ``k`` goes on a capitalised title that one or two lower-case
        function words join it to ("Harbour at Dusk", "Letters from Home", "Study of a Heron"): a
        cue among them is the title's word, not one naming a maker or a place. The title's first
        word is capitalised where no sentence starts and is read as no value ("Paintings by X" and
        "Ada Brenn at X" are no titles)."""
        i = k - 1
        while i >= 0 and k - i <= 2 and self.tokens[i].text.islower() and self.tokens[i].norm in FUNCTION_WORDS:
            i -= 1
        if i == k - 1 or i < 0:
            return False
        head = self.tokens[i]
        joined = all(self.q[a.end : b.start] == " " for a, b in zip(self.tokens[i:k], self.tokens[i + 1 : k + 1], strict=True))
        sentence_start = i == 0 or self.q[self.tokens[i - 1].end : head.start].strip() in (".", "!", "?", ":", ";")
        return (joined and head.text[:1].isupper() and not sentence_start and head.norm not in QUERY_STOP
                and self.taken.free((self.tokens[i].start, self.tokens[k - 1].end)))  # fmt: skip

    def _titled(self, k: int, candidates: list[AttrProfile]) -> AttrProfile | None:
        """The one attribute whose name is the word right before the name at token ``k``, written
        in lower case ("route Kingsford Express", "director Agnès Varda"); capitalised, the word is
        part of the name ("Route Kingsford Express")."""
        if k == 0 or self.q[self.tokens[k - 1].end : self.tokens[k].start] != " ":
            return None
        word = self.tokens[k - 1]
        if not word.text[:1].islower():
            return None
        hits = [p for p in candidates if term_match(forms(word.norm), p.name_terms)]
        return hits[0] if len(hits) == 1 else None

    def _listed_after(self, k: int, j: int, earlier: Sequence[Mention]) -> AttrProfile | None:
        """The name-like attribute of the value the name at tokens ``k..j`` is listed after ("by
        Greta Gerwig or Agnès Varda", "by Luc Besson, Agnès Varda or Jacques Demy"): the cue before
        a list's first item holds for the rest. A comma alone lists nothing unless the list goes
        on to an "or" ("by Greta Gerwig, Lady Bird above all" names a film, not a director)."""
        start = self.tokens[k].start
        for m in earlier:
            if not m.attr.name_like or m.span[1] > start:
                continue
            joined = re.fullmatch(r"\s*(,?)\s*(or|nor)?\s*", self.q[m.span[1] : start].casefold())
            if joined is None or not (joined.group(1) or joined.group(2)):
                continue
            if joined.group(2) or self._list_goes_on_to_or(j):
                return m.attr
        return None

    def _list_goes_on_to_or(self, j: int) -> bool:
        """Only names (and the commas between them) from token ``j`` up to an "or"/"nor"."""
        for tok in self.tokens[j:]:
            if tok.norm in _OR_WORDS:
                return True
            if not (tok.text[:1].isupper() or tok.norm in _PARTICLES):
                return False
        return False

    def _names_attribute(self, tok: Token) -> bool:
        """"IMDb" in "an IMDb score of 8" names the attribute imdb_score, not a value."""
        return any(term_match(forms(tok.norm), p.name_terms) for p in self.profile.attributes)

    def _ambiguous_surname(self, text: str) -> bool:
        """The last name of several known people ("Coen"): naming one of them would be a guess."""
        folded = normalise(text)
        return any(sum(1 for v in idx.values if normalise(v).split()[-1:] == [folded] and " " in normalise(v)) > 1
                   for _, idx in self.indexes)  # fmt: skip

    def _known_alias(self, attr: AttrProfile, text: str, span: tuple[int, int]) -> Mention:
        """An unknown name that is another way of writing one known value ("NYC"), else kept as written."""
        if self.sim is not None and attr.values:
            row = self.sim.matrix([text], attr.values[:500])[0]
            order = row.argsort()[::-1]
            best = float(row[order[0]])
            rival = float(row[order[1]]) if len(order) > 1 else 0.0
            if best >= NAME_FLOOR and best - rival >= 2 * MARGIN:
                return Mention(attr, attr.values[int(order[0])], span, f"embedding {best:.2f}")
        return Mention(attr, text, span, "unknown name")

    def _name_attribute(self, text: str, cue: str | None, candidates: list[AttrProfile]) -> AttrProfile | None:
        if cue in ("in", "near"):
            places = [p for p in candidates if p.place_like]
            return places[0] if len(places) == 1 else None
        options = [p for p in candidates if not p.place_like] or candidates
        if len(options) == 1:
            return options[0]
        if self.sim is None:
            return None
        scores = []
        for p in options:
            sample = p.values[:50]
            if not sample:
                scores.append((0.0, p))
                continue
            row = self.sim.matrix([text], sample)[0]
            top = sorted(row, reverse=True)[:3]
            scores.append((float(sum(top) / len(top)), p))
        scores.sort(key=lambda x: -x[0])
        return scores[0][1] if scores[0][0] - scores[1][0] >= 0.03 else None


def _unlike_values(attr: AttrProfile, text: str) -> bool:
    """``text`` differs in kind from every known value of ``attr``: words where the values are all
    codes with a digit ("Kingsford Central" for routes R1, 14 and 62), or a code where they are all
    words. An attribute with no known values says nothing against a name."""
    coded = any(c.isdigit() for c in text)
    return bool(attr.values) and all(any(c.isdigit() for c in v) != coded for v in attr.values)


def _words_of(text: str | None) -> frozenset[str]:
    return frozenset().union(*(forms(w) for w in re.findall(r"[a-z]+", (text or "").casefold())))


def _bool_term(f: frozenset[str], terms: frozenset[str]) -> bool:
    if f & terms:
        return True
    return any(len(w) >= 4 and len(t) >= 4 and (t.startswith(w) or w.startswith(t)) and min(len(w), len(t)) >= 0.5 * max(len(w), len(t))
               for w in f for t in terms)  # fmt: skip


def _strip_negative_prefix(word: str) -> str | None:
    for prefix in ("non", "un", "in"):
        if word.startswith(prefix) and len(word) - len(prefix) >= 4:
            return word[len(prefix) :]
    return None


def _negations(question: str, tokens: list[Token], taken: Spans) -> list[tuple[int, int]]:
    cues = [(t.start, t.end) for t in tokens if t.norm in NEGATIONS]
    low = question.casefold()
    for phrase in NEGATION_PHRASES:
        for m in re.finditer(rf"\b{re.escape(phrase)}\b", low):
            cues.append(m.span())
    return sorted(c for c in cues if taken.free(c))


def _negate(question: str, tokens: list[Token], mentions: list[Mention], taken: Spans, items: frozenset[str]) -> list[Mention]:
    """Mark mentions governed by a negation; a negation carries over a list of the same attribute."""
    cues = _negations(question, tokens, taken)
    out: list[Mention] = []
    previous: Mention | None = None
    for m in sorted(mentions, key=lambda m: m.span):
        if m.how == "boolean" and m.negated:
            out.append(m)
            previous = None
            continue
        floor = previous.span[1] if previous else -1
        fresh = [c for c in cues if floor <= c[0] and c[1] <= m.span[0]]
        anchor = fresh[-1][1] if fresh else (floor if previous is not None and previous.attr.name == m.attr.name else None)
        between = [t for t in tokens if anchor is not None and anchor <= t.start and t.end <= m.span[0]]
        bridge = all(t.norm in _GAP_WORDS or t.lemma in items or term_match(forms(t.norm), m.attr.terms) for t in between)
        if anchor is not None and len(between) <= 4 and bridge and "," not in question[anchor : m.span[0]].replace(", or", ""):
            value: Scalar = (not m.value) if isinstance(m.value, bool) else m.value
            out.append(replace(m, value=value, negated=True))
            if fresh:
                taken.claim(fresh[-1])
            previous = out[-1]
        else:
            out.append(m)
            previous = None
    return out


def find_mentions(
    question: str,
    tokens: list[Token],
    profile: SchemaProfile,
    taken: Spans,
    similarity: Similarity | None,
    numbers: Sequence[Number] = (),
    asked: str | None = None,
    full: SchemaProfile | None = None,
) -> list[Mention]:
    """Every value the question names, negation applied; consumed spans are claimed in ``taken``.
    ``numbers`` are the question's numbers (``find_numbers``), those left free by the numeric
    reader: a number may be a known value of a string attribute ("route 62"). ``asked``: the
    attribute the question asks for ("which branch …"), whose value it does not give."""
    finder = _Finder(question, tokens, profile, taken, similarity, profile.item_nouns)
    finder.named = (full or profile).attributes  # a list's name or description too ("documents submitted")
    finder.asked = asked
    mentions = finder.known() + finder.numbered(numbers) + finder.booleans()
    mentions += finder.names(mentions)
    # A word naming an attribute with the word beside it ("documents submitted") is no value by
    # meaning either: held aside while values are linked by meaning.
    naming = [(t.start, t.end) for t in tokens if taken.free((t.start, t.end)) and finder.names_an_attribute((t.start, t.end))]
    # Nor is an attribute's one-word name, written in lower case ("Which berth had the most
    # calls?"): the attribute asked about, not its value "Berth 7" by meaning.
    single = {w for p in finder.named if len(words := [w for w in re.split(r"[_\W]+", p.name.casefold()) if w]) == 1
              for w in forms(words[0])}
    naming += [(t.start, t.end) for t in tokens if t.text.islower() and t.norm in single and taken.free((t.start, t.end))
               and (t.start, t.end) not in naming]
    for span in naming:
        taken.claim(span)
    mentions += finder.similar(mentions)
    for span in naming:
        taken.release(span)
    return _untied_names(question, tokens, _negate(question, tokens, mentions, taken, profile.item_nouns), taken)


_DOTTED = re.compile(r"\d+(?:\.\d+){2,}")
"""A dotted code of three numbers or more ("1.2.3", "2024.2.5"): a version, never a number."""
_VERB_LINKS = frozenset(["to", "by", "for", "with", "under", "from", "of"])
"""Words between a verb and the value it governs ("reports to", "managed by")."""
_LIST_WORDS = frozenset(["and", "or", "nor", "either", "neither", "a", "an", "the"])


def _listed(question: str, tokens: list[Token], a: Mention, b: Mention) -> bool:
    """``a`` and ``b`` are items of one list: only commas, "and"/"or" and name cues between them."""
    (_, lo), (hi, _) = sorted([a.span, b.span])
    gap = [t.norm for t in tokens if lo <= t.start and t.end <= hi]
    joined = "," in question[lo:hi] or any(w in ("and", "or", "nor") for w in gap)
    return joined and all(w in _LIST_WORDS or w in _NAME_CUES for w in gap)


def _named_by_attribute(tokens: list[Token], m: Mention) -> bool:
    """The attribute's own word right before the name, or before its cue ("directed by Agnès Varda")."""
    before = [t for t in tokens if t.end <= m.span[0]][-2:]
    if before and before[-1].norm in _NAME_CUES:
        before = before[:-1]
    return bool(before) and term_match(forms(before[-1].norm), m.attr.terms)


def _untied_names(question: str, tokens: list[Token], mentions: list[Mention], taken: Spans) -> list[Mention]:
    """Unknown names that would join a known value of their attribute in one ``in`` while nothing
    in the question ties them to it, given back to the search text.

    A cue names an origin, a maker or a place, not which attribute: with only one name-like
    attribute (``route``), "from Kingsford Central" lands on it. Alone it is kept as written (the
    catalogue may lack the person); beside route R1, it would widen the filter to a route no
    document has, and the place would be lost from the search.
    """
    tied = [m for m in mentions if m.how != "unknown name" or m.negated]
    known = {m.attr.name for m in tied if not m.negated}
    loose = [m for m in mentions if m not in tied]
    grew = True
    while grew:  # a name listed with a tied one is tied ("by Nolan, by Varda or by Ozon")
        grew = False
        for m in list(loose):
            same = [o for o in tied if o.attr.name == m.attr.name and not o.negated]
            if m.attr.name not in known or _named_by_attribute(tokens, m) or any(_listed(question, tokens, m, o) for o in same):
                tied.append(m)
                loose.remove(m)
                grew = True
    for m in loose:
        taken.release(m.span)
    return [m for m in mentions if m not in loose]
