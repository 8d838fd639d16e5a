"""What a yes/no question asks of the one thing it names: the conditions of its predicate.

"Is Portrait of Clara Vinter a watercolour?" names one thing and asks whether it has a property.
A filter on that property presumes the answer: when the answer is no it hides the very document
asked about, and a loosely linked value ("watercolour" → "watercolour on paper") may hide it even
when the answer is yes. The property is what the document must tell; it belongs in the search text.

So in a question that opens with an auxiliary ("Is", "Was", "Does") whose subject, right after
it, is a capitalised name the reader left in the search text (a title: no value it knows), and
whose predicate holds nothing but conditions, words naming attributes and function words, the
conditions read after that name are set aside. A predicate with words of its own asks something
else, which the conditions locate: "Is TLS 1.0 enabled by default in Harborlight 2.1?" asks
whether TLS 1.0 is enabled, in the release the filter names. Values before the name locate the thing and stay
("Is Ada Brenn's Lighthouse on loan?" keeps the artist). A subject that is itself a value ("Did
Ada Brenn paint …?") names documents, not one thing, and nothing is set aside, unless its
attribute identifies one document (kind ``identifier``: a course code, an ISBN): "Is PHIL 340
cross-listed with Linguistics?" asks of that one course, whatever words its predicate has, and
every condition after the code is set aside; the code stays, as a filter. Nor is it where
the predicate asks whether some exist, by a quantifier ("Does North Hall have any watercolours?")
or by a plural or the collection's item noun ("Does North Hall show objects made before 1900?"):
there the conditions describe what is looked for, and the documents that match answer it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from selfrag.lang import FUNCTION_WORDS, QUERY_STOP, Token, forms
from selfrag.lang.questions import AUXILIARIES, EXISTENTIALS
from selfrag.query._lexicon import NEGATIONS
from selfrag.query._profile import SchemaProfile
from selfrag.query._spans import Spans
from selfrag.query._text import plural, term_match

__all__ = ["Subject", "named_subject"]

_EXISTS = EXISTENTIALS - {"a", "an", "either"}
"""Words by which a predicate asks whether some exist. Not the articles nor "either": they also
open a property ("Is X a watercolour?", "Is X either oil or tempera?")."""
_DETERMINERS = frozenset(["the", "this", "that"])
_JOIN_MAX = 2
"""Lower-case function words that may join the capitalised words of one title ("Study of a Heron")."""


@dataclass(frozen=True)
class Subject:
    """The one thing a yes/no question names, and where what it asks of it begins."""

    text: str
    """The name as written ("Portrait of Clara Vinter")."""
    end: int
    """Where the name ends: conditions read from here on are what the question asks."""


def _capitalised(tok: Token) -> bool:
    return tok.text[:1].isupper() and tok.norm not in QUERY_STOP


def _free(taken: Spans, tok: Token) -> bool:
    return taken.free((tok.start, tok.end))


def _attribute_or_function_word(tok: Token, profile: SchemaProfile) -> bool:
    f = forms(tok.norm)
    return tok.norm in QUERY_STOP or tok.norm in NEGATIONS or any(term_match(f, p.terms) for p in profile.attributes)


def named_subject(question: str, tokens: list[Token], taken: Spans, profile: SchemaProfile,
                  identifying: Sequence[tuple[int, int]] = ()) -> Subject | None:
    """The name a yes/no question asks about, when what follows it asks whether that one thing has
    a property (see the module docstring); None for any other question. ``taken``: what the value
    readers claimed; ``identifying``: the spans of values that name one document each."""
    if not tokens or tokens[0].norm not in AUXILIARIES:
        return None
    i = 1
    while i < len(tokens) and tokens[i].text.islower() and tokens[i].norm in _DETERMINERS:
        i += 1
    starts = {span[0]: span for span in identifying}
    while i < len(tokens) and (tokens[i].start in starts or (_capitalised(tokens[i]) and not _free(taken, tokens[i]))):
        if tokens[i].start in starts:  # "Is PHIL 340 ...": one document, all that follows is asked of it
            start, end = starts[tokens[i].start]
            return Subject(question[start:end], end)
        i += 1  # values that locate the thing ("Ada Brenn's Lighthouse")
    first, last = i, None
    j = i
    while j < len(tokens) and question[tokens[j - 1].end : tokens[j].start].strip() == "":
        if _capitalised(tokens[j]) and _free(taken, tokens[j]):
            last, j = j, j + 1
            continue
        k = j
        while k < len(tokens) and k - j < _JOIN_MAX and tokens[k].text.islower() and tokens[k].norm in FUNCTION_WORDS:
            k += 1
        if last is None or k == j or k >= len(tokens) or not (_capitalised(tokens[k]) and _free(taken, tokens[k])):
            break
        j = k
    if last is None:
        return None
    predicate = tokens[last + 1 :]
    if any(t.norm in _EXISTS or t.lemma in profile.item_nouns or plural(t) for t in predicate):
        return None
    if any(_free(taken, t) and not _attribute_or_function_word(t, profile) for t in predicate):
        return None
    return Subject(question[tokens[first].start : tokens[last].end], tokens[last].end)
