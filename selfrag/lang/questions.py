"""What a question's form says it asks for, from English's closed classes alone.

- ``asks_yes_or_no``: a clause fronts an auxiliary or a modal ("Can I bring a friend?", "…, is it
  free?"), or a statement is asked as a question with no wh-word ("A and B are both genera?");
- ``is_request``: no question at all, a noun phrase or an imperative ("News about companies in
  Munich", "Show me flats in Leeds"): it asks for the documents themselves, not a fact in them;
- ``coordinated``: two questions joined in one ("Which companies does X supply, and what news is
  there about them?"), and whether the second points back at the first's answer;
- ``asks_about_any``: a yes/no question about whether at least one exists ("Does X supply any
  German company?");
- ``asks_in_general``: a yes/no question about a kind of thing with no word for "at least one"
  ("Are Berlin hotels pet friendly?");
- ``asks_about_all``: a yes/no question about every one of them ("Are all the hotels in Rome over
  €100?"): the ones that match do not answer it, the ones that do not match do.

Closed classes (auxiliaries, wh-words, a handful of request verbs) rather than topic words: these
hold in every domain, where a list of topic words holds in the one it was written for.
"""

from __future__ import annotations

import re

__all__ = ["ANAPHORS", "AUXILIARIES", "COUNT_OPENING", "EXISTENTIALS", "PREPOSITIONS", "REQUEST_VERBS", "UNIVERSALS", "WH_WORDS",
           "asks_about_all",
           "asks_about_any", "asks_in_general", "asks_yes_or_no", "coordinated", "is_request", "positive_question", "wh_words"]

AUXILIARIES = ("is", "are", "was", "were", "am", "do", "does", "did", "can", "could", "will", "would", "should",
               "shall", "has", "have", "had", "may", "might", "must")
WH_WORDS = frozenset(["what", "which", "who", "whom", "whose", "when", "where", "why", "how"])
REQUEST_VERBS = frozenset(["show", "list", "find", "give", "get", "fetch", "name", "tell", "display"])
"""Imperatives that open a request ("show me …", "list …"): they ask for things, not a fact."""

COUNT_OPENING = re.compile(r"\s*(?:the\s+|total\s+|the\s+total\s+)?(?:number|count)\s+of\s+", re.IGNORECASE)
"""A count's opening words ("the number of refused permits …"): "how many", as keywords."""

PREPOSITIONS = ("in", "on", "at", "for", "from", "during", "before", "after", "by", "with", "without", "under",
                "over", "near", "since", "until", "between", "among", "per")
"""The prepositions that open a qualifier ("on weekdays", "for cats", "during the winter"), so a
follow-up's phrase can replace the previous question's and a set keeps its conditions."""

ANAPHORS = frozenset(["they", "them", "their", "theirs", "these", "those", "it", "its"])
"""Pronouns by which a second question points back at the first one's answer."""

UNIVERSALS = frozenset(["all", "every", "each", "always", "only"])
"""Quantifiers over every one of a set ("Are all …", "Is every …", "Do only …")."""

EXISTENTIALS = frozenset(["any", "some", "a", "an", "anyone", "anybody", "anything", "there", "either"])
"""Words by which a yes/no question asks whether at least one exists ("Does X supply any German
company?"); without one, "Are X's suppliers Japanese?" asks about all of them."""

_FRONTED = re.compile(r"(?:^|[,;:—–]\s*|\s[-–]\s*)(?:" + "|".join(AUXILIARIES) + r")\b", re.IGNORECASE)
_WH = re.compile(r"\b(?:" + "|".join(sorted(WH_WORDS)) + r")\b", re.IGNORECASE)


_OPENING_NEGATION = re.compile(
    r"^(\s*)(?:(?P<contracted>(?:" + "|".join(a for a in AUXILIARIES if a not in ("am", "can", "will", "shall", "may"))
    + r")n['’]?t|can['’]?t|cannot|won['’]?t|shan['’]?t)|(?P<aux>" + "|".join(AUXILIARIES) + r")(?P<not>\s+not))\b",
    re.IGNORECASE)


def positive_question(question: str) -> str:
    """``question`` with the negation of its opening verb blanked out, same length (offsets into it
    stay valid): "Isn't X remote?" asks what "Is X remote?" asks, and its "n't" negates no
    condition (read as one, it selected everyone but X). A negation anywhere else stays."""
    m = _OPENING_NEGATION.match(question)
    if m is None:
        return question
    if m.group("aux"):
        start, end = m.span("not")
        return question[:start] + " " * (end - start) + question[end:]
    start, end = m.span("contracted")
    word = m.group("contracted")
    low = word.casefold()
    positive = word[:3] if low.startswith("can") else "will" if low.startswith("won") else "shall" if low.startswith("shan") \
        else re.sub(r"n['’]?t$", "", word, flags=re.IGNORECASE)
    return question[:start] + positive.ljust(end - start) + question[end:]


def wh_words(question: str) -> list[str]:
    """The wh-words of ``question``, lower-cased, in order."""
    return [m.group().lower() for m in _WH.finditer(question)]


def _fronts_auxiliary(q: str) -> bool:
    for m in _FRONTED.finditer(q):
        before = q[: m.start()]
        # "Which companies, other than X, does Y supply?": the comma closes a parenthetical inside
        # a wh-question, and the auxiliary is that question's own.
        if not (q[m.start()] == "," and "," in before and wh_words(before)):
            return True
    return False


def asks_yes_or_no(question: str) -> bool:
    """Whether ``question`` can be answered yes or no: a clause of it fronts an auxiliary, or it is
    a statement asked as a question ("A and B are both genera of plants?") with no wh-word.

    A "yes" is never the answer to what, which, who or how many ("number of … ?" too)."""
    q = " ".join(question.split())
    return _fronts_auxiliary(q) or (q.endswith("?") and not wh_words(q) and COUNT_OPENING.match(q) is None)


def asks_about_all(question: str) -> bool:
    """Whether ``question`` is a yes/no question quantified over every one of a set ("Are all the
    hotels in Rome over €100?", "Is every club open to juniors?"): what matches a filter shows that
    some are, never that all are."""
    return asks_yes_or_no(question) and any(w.lower() in UNIVERSALS for w in re.findall(r"[A-Za-z]+", question))


def asks_about_any(question: str) -> bool:
    """Whether ``question`` is a yes/no question about whether at least one exists ("Does X supply
    any German company?", "Is there a …"): an existential word (``EXISTENTIALS``), no universal."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", question)}
    return asks_yes_or_no(question) and bool(words & EXISTENTIALS) and not words & UNIVERSALS


def asks_in_general(question: str) -> bool:
    """Whether ``question`` fronts an auxiliary to ask about a kind of thing in general, with no
    word for "at least one" (``EXISTENTIALS``): "Are Berlin hotels pet friendly?" asks whether
    they are, all or most of them, which the ones that match a filter do not show. "Are there …",
    "Is any …" and a noun phrase with a question mark ("Pet friendly hotels in Berlin?") ask
    whether one exists."""
    q = " ".join(question.split())
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", q)}
    return _fronts_auxiliary(q) and not words & EXISTENTIALS


def is_request(question: str) -> bool:
    """Whether ``question`` asks for no fact but for the things themselves: no wh-word, no fronted
    auxiliary and no question mark ("Latest news on Kestrel", "Show me flats in Leeds")."""
    q = " ".join(question.split())
    return bool(q) and not q.endswith("?") and not wh_words(q) and not _FRONTED.search(q)


# A clause boundary (", and", "; and", ", then", ";") right before a wh-word, a fronted auxiliary
# or a request verb ("…, and show me the news about them").
_JOIN = re.compile(r"\s*(?:,\s*(?:and|then)|;\s*(?:and)?|,)\s+(?=(?:"
                   + "|".join(sorted(WH_WORDS | set(AUXILIARIES) | REQUEST_VERBS)) + r")\b)", re.IGNORECASE)


def coordinated(question: str) -> tuple[str, str, bool] | None:
    """The two questions of a question that joins two ("Which companies does X supply, and what
    news is there about them?"), the first ending in a question mark, the second as written (a
    request stays one: "…, and show me news about them"), and whether the second points back at
    the first one's answer (a pronoun: ``ANAPHORS``); None for a single question."""
    q = " ".join(question.split())
    for match in _JOIN.finditer(q):
        first, second = q[: match.start()].strip(), q[match.end():].strip()
        if not first or not second or not (wh_words(first) or _FRONTED.search(first)):
            continue
        if match.group().strip() == "," and "," in first:
            continue  # the comma closes a parenthetical: "Which companies, other than X, does Y supply?"
        words = {w.lower() for w in re.findall(r"[A-Za-z]+", second)}
        return first.rstrip("?") + "?", second, bool(words & ANAPHORS)
    return None
