"""The language layer: how every part of selfrag reads English words, numbers and dates.

The bottom floor: it imports nothing of selfrag, and everything that compares, tokenises, stems,
stops or counts words imports it (the self-query, the knowledge graph, lexical retrieval, the
graders' overlap signals), so two parts never disagree about the same text.

- ``normalise``: the one normaliser (accents and a possessive "'s" folded away, deliberately);
- ``tokens``: a question's tokens with their places and forms;
- ``forms``: lemma (simplemma), a light stem, the indexed ``term``;
- ``stopwords``: one function-word list and the named additions;
- ``terms``: the words a text is counted and matched by (lexical index, overlap signals);
- ``numbers``: number words and scale words;
- ``units``: units written after numbers, by dimension;
- ``wordlists``: the hand-written word lists of the self-query and the kind guesser (``words.toml``);
- ``dates``: months and relative dates, as day ranges or year ranges.
"""

from selfrag.lang.dates import (
    MONTHS,
    DateRange,
    YearSpan,
    find_date_range,
    find_date_ranges,
    find_year_phrases,
    resolve_year_value,
    wants_latest,
)
from selfrag.lang.forms import doer_of, forms, lemma, stem, term
from selfrag.lang.normalise import identifier_words, is_word, normalise, normalise_with_offsets, words
from selfrag.lang.numbers import MAGNITUDES, NUMBER_PHRASES, NUMBER_WORDS
from selfrag.lang.stopwords import DETERMINERS, FILLER, FUNCTION_WORDS, QUERY_STOP, TASK_WORDS
from selfrag.lang.terms import terms
from selfrag.lang.tokens import Token, tokenize
from selfrag.lang.units import UNITS, Unit
from selfrag.lang.wordlists import word_lists, word_map, word_set

__all__ = [
    "DETERMINERS",
    "FILLER",
    "FUNCTION_WORDS",
    "MAGNITUDES",
    "MONTHS",
    "NUMBER_PHRASES",
    "NUMBER_WORDS",
    "QUERY_STOP",
    "TASK_WORDS",
    "UNITS",
    "DateRange",
    "Token",
    "Unit",
    "YearSpan",
    "doer_of",
    "find_date_range",
    "find_date_ranges",
    "find_year_phrases",
    "forms",
    "identifier_words",
    "is_word",
    "lemma",
    "normalise",
    "normalise_with_offsets",
    "resolve_year_value",
    "stem",
    "term",
    "terms",
    "tokenize",
    "wants_latest",
    "word_lists",
    "word_map",
    "word_set",
    "words",
]
