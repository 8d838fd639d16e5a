"""What a follow-up's pronouns point at, read from the thread's earlier turns.

"how heavy is it?" after "Who made Iron Bloom?" asks how heavy Iron Bloom is: the condensed
question is the follow-up itself with its pronouns replaced by what they stand for, never the
earlier questions joined to it. English's closed classes and capitalisation are all it reads:

- what a pronoun can stand for is a name (``workflows._names``: a capitalised run or a known
  value, not one that says what is asked, as "Java" in "what Java version");
- "it"/"its" is what the latest turn's standalone question named, else the answer to its "which"
  (or "what movie") question, and never a person: the answer to a "who" question, or a name the
  thread already called "he" or "she" (what a name is, the thread learns once: a name that took
  the place of one called "it", "what about Signal Tower?", is a thing too);
- "he", "she", "him", "her", "his" is the answer to a "who" question, else a name the thread
  called by such a pronoun, else a name the question named that the thread never called "it";
  "they"/"them" stand for a person only when the latest turn names one;
- a turn with nothing of the right kind sends the search one turn further back (up to three);
- "those", "these", "them" (or "they", when no person is meant) stand for the set the thread's
  latest set question asked about, conditions and all: "which of those is the oldest?" after
  "What's in room 6?" is "Which of the ones in room 6 is the oldest?" (``workflows._sets``), so
  the self-query plans the same filter; one such word per question, and never "those" with
  modifiers of its own ("those from 1993");
- a pronoun with an antecedent in its own question ("Who made X and how heavy is it?") is left,
  and so is a dummy "it" that stands for the clause after it ("is it true that …", "how long
  does it take to …").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from selfrag.lang import FUNCTION_WORDS, Token, tokenize
from selfrag.lang.questions import AUXILIARIES, PREPOSITIONS, WH_WORDS, wh_words
from workflows._names import CLOSED, Name, names, subjects
from workflows._sets import AskedSet, asked_set
from workflows.state import Turn

__all__ = ["own_question", "resolve_pronouns"]

_CONJUNCTION_LEAD = re.compile(r"^\s*(?:(?:and|or|also|then|but|so)\s+)+", re.IGNORECASE)

_NEUTER = frozenset(["it", "its"])
_PERSONAL = frozenset(["he", "him", "his", "she", "her", "hers"])
_PLURAL_PERSONAL = frozenset(["they", "them", "their", "theirs"])
_DEMONSTRATIVE = frozenset(["those", "these"])
_SET_REFERENCES = _DEMONSTRATIVE | {"they", "them"}
"""What stands for the previous question's set ("which of those", "how many of them"); "their" is
left, as "the ones in room 6's" says nothing."""
_RELATIVES = frozenset(["that", "which", "who", "whose", "whom"])
_PREPOSITIONS = frozenset(PREPOSITIONS)
_POSSESSIVE = frozenset(["its", "his", "hers", "their", "theirs"])
_ASKS_FOR_PERSON = frozenset(["who", "whom", "whose"])
_SEARCHED_TURNS = 3
_NO_ANSWER = frozenset(["abstained", "needs_clarification"])

Kind = Literal["thing", "person", "unknown"]


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text)}


def _asks_for_one(question: str, asks: str) -> bool:
    """Whether a question asks for one thing by name: "which", or "what" before a noun ("What movie
    has dinosaurs?"), not "what" as a pronoun ("What is …", "What's …")."""
    if asks == "which":
        return True
    after = re.search(r"\bwhat\s+([A-Za-z]+)", question, re.IGNORECASE)  # "What's" has none
    return asks == "what" and after is not None and after.group(1).lower() not in CLOSED


@dataclass(frozen=True)
class _Said:
    """What one turn offers a pronoun."""

    named: list[tuple[str, Kind]]
    """Its standalone question's names, in order, each with what the thread called it."""
    answer: tuple[str, Kind] | None
    """The answer's name, when the question asked for someone ("who": a person) or something
    ("which", "what" before a noun)."""
    asked_who: bool


def _answered(turn: Turn, question: str) -> tuple[str, Kind] | None:
    """The answer's name, when the question asked for someone or something by name."""
    asks = (wh_words(question) or [""])[0]
    if not (asks in _ASKS_FOR_PERSON or _asks_for_one(question, asks)) or turn["outcome"] in _NO_ANSWER:
        return None
    answered = [n for n in names(turn["answer"], {}) if n.text.lower() not in question.lower()]
    return (answered[0].text, "person" if asks in _ASKS_FOR_PERSON else "unknown") if answered else None


def _said_by_turn(history: Sequence[Turn], catalogue: Mapping[str, Sequence[str]]) -> list[_Said]:
    """What each turn offers a pronoun, oldest first. What a name is (a thing, a person) is learnt
    over the whole thread: a turn's "it" or "she" that stood for it, a "who" question it answered,
    or the name whose place it took ("what about Signal Tower?" after "How heavy is it?")."""
    kinds: dict[str, Kind] = {}
    out: list[_Said] = []
    previous: tuple[str, list[Name]] | None = None
    for turn in history:
        question = turn["standalone_question"] or turn["question"]
        asked_as = _words(turn["question"])
        found = subjects(question, catalogue)
        for name in found:
            key = name.text.lower()
            if key not in turn["question"].lower():  # the turn's own pronoun stood for it
                kind: Kind = "thing" if asked_as & _NEUTER else "person" if asked_as & _PERSONAL else "unknown"
                kinds[key] = kind if kind != "unknown" else kinds.get(key, "unknown")
            elif previous is not None and previous[1] and key not in kinds:
                before, (old, *_) = previous
                if question == before[: old.start] + name.text + before[old.end :]:
                    kinds[key] = kinds.get(old.text.lower(), "unknown")
        answer = _answered(turn, question)
        if answer is not None and answer[1] == "person":
            kinds[answer[0].lower()] = "person"
        out.append(_Said([(n.text, kinds.get(n.text.lower(), "unknown")) for n in found], answer,
                         (wh_words(question) or [""])[0] in _ASKS_FOR_PERSON))
        previous = (question, found)
    return out


def _antecedent(pronoun: str, history: Sequence[Turn], catalogue: Mapping[str, Sequence[str]]) -> str | None:
    """The name ``pronoun`` stands for, searching back from the latest turn."""
    for depth, said in enumerate(reversed(_said_by_turn(history, catalogue)[-_SEARCHED_TURNS:])):
        offered = [*said.named, *([said.answer] if said.answer else [])]
        if pronoun in _NEUTER:
            wanted = [n for n, kind in offered if kind != "person"]
        elif said.asked_who:
            # After "Who made X?", "she" is whoever made X: the answer, or nobody known.
            return said.answer[0] if said.answer else None
        elif pronoun in _PERSONAL:
            wanted = [n for n, kind in offered if kind == "person"] + [n for n, kind in offered if kind == "unknown"]
        else:  # singular "they": only someone known to be a person
            wanted = [n for n, kind in offered if kind == "person"]
        if wanted:
            return wanted[0]
        if pronoun in _PLURAL_PERSONAL and depth == 0:
            return None  # "they" is too often someone never named ("when did they buy it?")
    return None


def _possessive(text: str, tok: Token, toks: Sequence[Token], i: int) -> bool:
    word = tok.text.lower()
    if word != "her":
        return word in _POSSESSIVE
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    # "her work", "her best work"; not "who taught her?", "did the museum give her the prize?"
    return nxt is not None and nxt.norm not in FUNCTION_WORDS and text[tok.end : nxt.start].strip() == ""


def _as_question(text: str) -> str:
    text = _CONJUNCTION_LEAD.sub("", text).strip()
    return text[:1].upper() + text[1:]


def own_question(question: str, catalogue: Mapping[str, Sequence[str]]) -> str | None:
    """``question`` as its own question ("and who painted Blue Loom?" → "Who painted Blue Loom?")
    when, past a leading "and"/"but", it opens with a wh-word or an auxiliary and names something;
    None for a fragment ("and Costco?", "what about Signal Tower?", "and how tall?") that leans on
    the previous question."""
    body = _CONJUNCTION_LEAD.sub("", question).strip()
    first = (re.findall(r"[A-Za-z]+", body) or [""])[0].lower()
    if not (first in WH_WORDS or first in AUXILIARIES) or re.match(r"(?:what|how)\s+about\b", body, re.IGNORECASE):
        return None
    return _as_question(body) if names(body, catalogue) else None


def _set_edit(question: str, toks: Sequence[Token], i: int, asked: AskedSet) -> tuple[int, int, str]:
    """The set phrase for the reference at token ``i``: "those"/"them" alone become "the ones in
    room 6"; "those paintings" followed by more of the clause becomes "the paintings in room 6"
    (at the question's end, "are those paintings?", the word is what is asked, not a noun)."""
    tok = toks[i]
    j = i + 1
    while j < len(toks) and toks[j].norm not in CLOSED and question[toks[j - 1].end : toks[j].start] == " ":
        j += 1
    if tok.text.lower() in _DEMONSTRATIVE and j > i + 1 and j < len(toks):
        return tok.start, toks[j - 1].end, asked.phrase(question[toks[i + 1].start : toks[j - 1].end])
    return tok.start, tok.end, asked.phrase()


def _set_reference(toks: Sequence[Token]) -> int | None:
    """The one token that stands for the previous question's set: "those", "these" or "them"
    before "they" ("why did they buy them?"); never "those" with its own modifiers ("those from
    1993", "those that …"), which names a set of its own."""
    found = []
    for i, tok in enumerate(toks):
        word = tok.text.lower()
        nxt = toks[i + 1].norm if i + 1 < len(toks) else ""
        if word in _SET_REFERENCES and not (word in _DEMONSTRATIVE and (nxt in _PREPOSITIONS or nxt in _RELATIVES)):
            found.append(i)
    return next((i for i in found if toks[i].text.lower() != "they"), found[0] if found else None)


def _thread_set(history: Sequence[Turn]) -> AskedSet | None:
    """The set the thread is about: the latest question's, or, where that question was itself about
    a set it referred to ("which of those is the oldest?"), the set it referred to."""
    for turn in reversed(history):
        if turn["standalone_question"] != turn["question"] and _set_reference(tokenize(turn["question"])) is not None:
            continue
        return asked_set(turn["standalone_question"] or turn["question"])
    return None


def resolve_pronouns(question: str, history: Sequence[Turn], catalogue: Mapping[str, Sequence[str]]) -> str | None:
    """``question`` with each pronoun that points back into the thread replaced by the name it
    stands for (a possessive by the name's possessive) or, for "those", "these" and a "they" that
    is no person, by the set the latest question asked about with its conditions
    (``workflows._sets``); a leading "and"/"but" dropped and the first letter capitalised; None
    when no pronoun was resolved."""
    toks = tokenize(question)
    own = subjects(question, catalogue)
    asked = _thread_set(history)
    the_set = _set_reference(toks)
    edits: list[tuple[int, int, str]] = []
    for i, tok in enumerate(toks):
        word = tok.text.lower()
        if word not in _NEUTER | _PERSONAL | _PLURAL_PERSONAL | _DEMONSTRATIVE:
            continue
        if edits and tok.start < edits[-1][1]:
            continue  # inside the noun phrase of "those paintings"
        if any(n.start < tok.start for n in own):
            continue  # its antecedent is in the question itself
        if word == "it" and i + 2 < len(toks) and toks[i + 2].norm in ("to", "that"):
            continue  # a dummy subject for the clause after it: "is it true that …", "does it take to …"
        name = None if word in _DEMONSTRATIVE else _antecedent(word, history, catalogue)
        if name is not None:
            edits.append((tok.start, tok.end, f"{name}'s" if _possessive(question, tok, toks, i) else name))
        elif asked is not None and i == the_set:
            edits.append(_set_edit(question, toks, i, asked))
    if not edits:
        return None
    text = question
    for start, end, name in reversed(edits):
        text = text[:start] + name + text[end:]
    return _as_question(text)
