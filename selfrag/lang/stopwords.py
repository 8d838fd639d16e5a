"""Stop words: one list of English function words, and the few additions each use names.

Every reader stops ``FUNCTION_WORDS``; what it adds says what it is for. The lexical index stops
function words only, because a content word ("name", "top", "type") may be exactly what a chunk is
found by (its terms are stored, so this list is part of ``selfrag.retrieval.terms.TERMS_VERSION``).
"""

from __future__ import annotations

__all__ = ["DETERMINERS", "FILLER", "FUNCTION_WORDS", "QUERY_STOP", "TASK_WORDS"]

FUNCTION_WORDS = frozenset([
    "a", "an", "the", "and", "or", "but", "if", "nor", "of", "to", "in", "on", "at", "by", "for", "with", "from",
    "into", "onto", "about", "as", "than", "then", "so", "is", "are", "was", "were", "be", "been", "being", "am",
    "do", "does", "did", "doing", "done", "has", "have", "had", "having", "it", "its", "this", "that", "these",
    "those", "there", "here", "which", "who", "whom", "whose", "what", "when", "where", "why", "how", "i", "me",
    "my", "we", "our", "us", "you", "your", "he", "him", "his", "she", "her", "they", "them", "their", "can",
    "could", "should", "would", "will", "shall", "may", "might", "must", "not", "no",
])  # fmt: skip
"""Articles, prepositions, conjunctions, pronouns, auxiliaries and the two plain negations."""

DETERMINERS = frozenset([
    "all", "any", "some", "each", "every", "both", "either", "neither", "few", "many", "much", "more", "most",
    "other", "own",
    "same", "such", "only", "also", "just", "very", "too", "once", "ours", "yours", "still", "yet", "already",
    "ever", "again", "now", "currently", "presently",
])  # fmt: skip
"""Quantifiers, intensifiers and adverbs of time ("still", "currently"): never a topic nor an ask
of their own ("Is X still on loan?" asks whether X is on loan), but a search may still be found by
them, so the lexical index keeps them."""

TASK_WORDS = frozenset(["document", "documents", "answer", "question", "according", "based"])
"""Words about the asking itself ("according to the documents"): no evidence for an answer."""

FILLER = frozenset([
    "it's", "i'm", "im", "whats", "what's", "yes", "please", "thanks", "want", "wanna", "need", "needs", "like",
    "looking", "look", "find", "show", "give", "get", "got", "tell", "list", "name", "recommend", "suggest",
    "search", "see", "watch", "read", "make", "let", "lets", "let's", "id", "i'd", "ill", "i'll", "ive", "i've",
    "one", "ones", "something", "anything", "thing", "things", "kind", "type", "sort", "good", "great", "nice",
    "best", "top", "preferably", "ideally", "perhaps", "maybe", "possibly", "especially", "particularly",
    "mostly", "around", "approximately", "roughly", "say", "e.g.", "eg", "etc", "really", "quite", "over", "under",
])  # fmt: skip
"""Conversational filler of a request ("please show me something good"): never a filter value."""

QUERY_STOP = FUNCTION_WORDS | DETERMINERS | FILLER
"""What the self-query never takes for a value or a topic on its own."""
