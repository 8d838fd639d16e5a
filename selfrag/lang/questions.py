"""What a question's form says it asks for, from English's closed classes alone.

- ``asks_yes_or_no``: a clause fronts an auxiliary or a modal ("Can I bring a friend?", "…, is it
  free?"), or a statement is asked as a question with no wh-word ("A and B are both genera?");
- ``is_request``: no question at all, a noun phrase or an imperative ("News about companies in
  Munich", "Show me flats in Leeds"): it asks for the documents themselves, not a fact in them.

Closed classes (auxiliaries, wh-words, a handful of request verbs) rather than topic words: these
hold in every domain, where a list of topic words holds in the one it was written for.
"""

from __future__ import annotations

import re

__all__ = ["AUXILIARIES", "REQUEST_VERBS", "WH_WORDS", "asks_yes_or_no", "is_request", "wh_words"]

AUXILIARIES = ("is", "are", "was", "were", "am", "do", "does", "did", "can", "could", "will", "would", "should",
               "shall", "has", "have", "had", "may", "might", "must")
WH_WORDS = frozenset(["what", "which", "who", "whom", "whose", "when", "where", "why", "how"])
REQUEST_VERBS = frozenset(["show", "list", "find", "give", "get", "fetch", "name", "tell", "display"])
"""Imperatives that open a request ("show me …", "list …"): they ask for things, not a fact."""

_FRONTED = re.compile(r"(?:^|[,;:—–]\s*|\s[-–]\s*)(?:" + "|".join(AUXILIARIES) + r")\b", re.IGNORECASE)
_WH = re.compile(r"\b(?:" + "|".join(sorted(WH_WORDS)) + r")\b", re.IGNORECASE)


def wh_words(question: str) -> list[str]:
    """The wh-words of ``question``, lower-cased, in order."""
    return [m.group().lower() for m in _WH.finditer(question)]


def asks_yes_or_no(question: str) -> bool:
    """Whether ``question`` can be answered yes or no: a clause of it fronts an auxiliary, or it is
    a statement asked as a question ("A and B are both genera of plants?") with no wh-word.

    A "yes" is never the answer to what, which, who or how many."""
    q = " ".join(question.split())
    if _FRONTED.search(q):
        return True
    return q.endswith("?") and not wh_words(q)


def is_request(question: str) -> bool:
    """Whether ``question`` asks for no fact but for the things themselves: no wh-word, no fronted
    auxiliary and no question mark ("Latest news on Kestrel", "Show me flats in Leeds")."""
    q = " ".join(question.split())
    return bool(q) and not q.endswith("?") and not wh_words(q) and not _FRONTED.search(q)
