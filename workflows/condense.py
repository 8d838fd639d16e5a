"""Condense a follow-up question with the thread's history into a standalone question.

"and in 2022?" after "What was Walmart's revenue in 2023?" must become "What was Walmart's
revenue in 2022?" before self-query and retrieval see it. The LLM proposes; the proposal must
not be a template artefact or empty (``<question>``), must stay on the thread's words
(``selfrag.query.anchor``), must keep the follow-up's specifics (its numbers and known values)
and most of what the rules below write, and may repeat the follow-up only where the rules found
nothing to resolve, or it is rejected and the rules take over:

- a follow-up with a pronoun stays its own question, the pronoun replaced by what it stands for
  ("how heavy is it?" → "How heavy is Iron Bloom?"; "which of those is the oldest?" → "Which of
  the ones in room 6 is the oldest?": ``workflows._references``);
- else a question of its own stands as asked: a long one, or a short one that asks about a name
  it gives ("and who painted Blue Loom?" → "Who painted Blue Loom?");
- else a fragment that leans on the previous question's slots changes them: the previous
  standalone question with the follow-up's values substituted for the values of the same kind (a
  year for a year, a known company for a known company), or, for a follow-up that is one
  qualifier ("and on saturdays?", "what about for cats?"), the previous question's qualifier
  opened by the same preposition replaced by it, or, when it is one name alone ("what about
  Signal Tower?"), the name the previous question asked about replaced by it, or, when it is a
  question word alone or with its noun ("and how tall?"), the previous question's question word
  replaced by it ("How tall is Iron Bloom?"); anything else is appended to the previous question.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from langchain_core.messages import HumanMessage, SystemMessage

from selfrag.errors import describe
from selfrag.fencing import DATA_NOT_INSTRUCTIONS, fence
from selfrag.lang.questions import ANAPHORS, AUXILIARIES, PREPOSITIONS, WH_WORDS
from selfrag.query.anchor import check_text
from selfrag.text import content_terms
from workflows._names import names, subjects
from workflows._references import own_question, resolve_pronouns
from workflows._text_step import TextStep
from workflows.state import Turn

__all__ = ["Condensed", "Condenser", "carry_over", "looks_like_follow_up"]

_SYSTEM = (
    "Rewrite the user's follow-up question as a standalone question, using the conversation history "
    "to fill in what it refers to. Keep every specific value of the follow-up. If it is already "
    "standalone, repeat it unchanged. Reply with the question only. " + DATA_NOT_INSTRUCTIONS
)
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b")
_FOLLOW = re.compile(r"^\s*(and|or|what about|how about|also|same|then|but)\b", re.IGNORECASE)


class _Rejected(Exception):
    """The model's proposal is not a usable question (not raised to callers)."""


@dataclass(frozen=True)
class Condensed:
    question: str
    source: str
    """``none`` (no history), ``llm`` or ``rules``."""
    error: str | None = None


def looks_like_follow_up(question: str) -> bool:
    return bool(_FOLLOW.match(question)) or len(question.split()) <= 4


def _known_hits(text: str, catalogue: Mapping[str, Sequence[str]]) -> list[tuple[str, str]]:
    low = text.lower()
    hits = []
    for attr, values in catalogue.items():
        for v in values:
            if len(v) > 2 and re.search(r"\b" + re.escape(v.lower()) + r"\b", low):
                hits.append((attr, v))
    return hits


def _kind(number: str) -> str:
    return "year" if len(number) == 4 and "." not in number else "decimal" if "." in number else "integer"


def _replaceable(new: str, old_numbers: Sequence[str]) -> list[str]:
    """The previous question's numbers that ``new`` may stand in for.

    A year only replaces a year, and a year is only replaced by a year: "and above 9?" after
    "rated above 8.5 from 1995" changes the rating, never the year. Other figures prefer their
    own kind (integer, decimal) and otherwise take any non-year figure.
    """
    kind = _kind(new)
    same = [o for o in old_numbers if _kind(o) == kind]
    if same or kind == "year":
        return same
    return [o for o in old_numbers if _kind(o) != "year"]


def carry_over(previous: str, follow_up: str, catalogue: Mapping[str, Sequence[str]]) -> str:
    """The previous question with the follow-up's values substituted for same-kind values."""
    if (renamed := _renamed(previous, follow_up, catalogue)) is not None:
        return renamed
    result = previous
    changed = False
    new_numbers = _NUMBER.findall(follow_up)
    old_numbers = _NUMBER.findall(previous)
    for new in new_numbers:
        same_kind = _replaceable(new, old_numbers)
        if same_kind:
            old = same_kind[-1]
            result = re.sub(r"\b" + re.escape(old) + r"\b", new, result, count=1)
            old_numbers.remove(old)
            changed = changed or old != new  # restating a value changes nothing
    old_hits = _known_hits(previous, catalogue)
    for attr, value in _known_hits(follow_up, catalogue):
        for old_attr, old_value in old_hits:
            if old_attr == attr and old_value.lower() != value.lower():
                literal = value.replace("\\", "\\\\")  # a value is text, never a regex template
                result = re.sub(re.escape(old_value), literal, result, count=1, flags=re.IGNORECASE)
                changed = True
                break
    if not changed and (reasked := _reasked(previous, follow_up)) is not None:
        return reasked
    if not changed and (phrased := _rephrased(previous, follow_up)) is not None:
        return phrased
    return result if changed else f"{previous.rstrip(' ?')} — {follow_up.strip()}"


_PREP = r"\b(?:" + "|".join(PREPOSITIONS) + r")\b"
_LEAD = re.compile(r"^\s*(?:(?:and|or|also|then|but)\s+|(?:what|how) about\s+|same(?:\s+but)?\s+)+", re.IGNORECASE)


_WORD = re.compile(r"[\w'-]+")


def _reasked(previous: str, follow_up: str) -> str | None:
    """The previous question asking the follow-up's question word of the same thing, when the
    follow-up is only a question word and at most two words after it ("and how tall?", "why?",
    "and how many credits?"); None otherwise.

    After a question word and its auxiliary ("How heavy is Iron Bloom?", "When did the service
    stop?") the follow-up's words take the place of the previous ones: "How tall is Iron Bloom?".
    After "Who" and a verb ("Who teaches Linear Algebra?") a question word with its noun asks it
    of what follows the verb ("How many credits for Linear Algebra?"); a bare one ("and when?")
    would need that verb rewritten, and is left to be appended. Appending would keep the first
    ask, which is the one a reader answers.
    """
    body = _LEAD.sub("", follow_up).strip().rstrip("?.! ").strip()
    asked = _WORD.findall(body)
    if not asked or asked[0].lower() not in WH_WORDS or len(asked) > 3:
        return None
    if any(w.lower() in AUXILIARIES or w.lower() in ANAPHORS or w.lower() in WH_WORDS for w in asked[1:]):
        return None  # more than a question word: a clause of its own
    words = list(_WORD.finditer(previous))
    if not words or words[0].group().lower() not in WH_WORDS:
        return None
    new = body[:1].upper() + body[1:]
    tail = previous.rstrip(" ?")
    aux = next((i for i, w in enumerate(words[:5]) if i and w.group().lower() in AUXILIARIES), None)
    if aux is not None:
        return f"{new} {tail[words[aux].start():]}?"
    if words[0].group().lower() == "who" and len(words) > 2 and len(asked) > 1:
        return f"{new} for {tail[words[2].start():]}?"
    return None


def _rephrased(previous: str, follow_up: str) -> str | None:
    """The previous question with its last phrase opened by the follow-up's preposition replaced
    by the follow-up's ("… run on weekdays?" + "and on saturdays?" → "… run on saturdays?"); None
    unless the follow-up is one prepositional phrase and the previous question has one like it."""
    body = _LEAD.sub("", follow_up).strip().rstrip("?.! ").strip()
    m = re.fullmatch(r"(?P<prep>" + _PREP + r")\s+(?P<rest>[^?,;.!]+)", body, re.IGNORECASE)
    if m is None or re.search(_PREP, m.group("rest"), re.IGNORECASE):
        return None  # not one phrase ("and profit in 2023?", "for cats with kidney disease")
    opened = list(re.finditer(r"\b" + re.escape(m.group("prep")) + r"\s+", previous, re.IGNORECASE))
    if not opened:
        return None
    start = opened[-1].start()
    end = re.compile(r"\s+" + _PREP + r"|[?,;.!]").search(previous, opened[-1].end())
    stop = end.start() if end is not None else len(previous)
    return previous[:start] + body + previous[stop:]


def _renamed(previous: str, follow_up: str, catalogue: Mapping[str, Sequence[str]]) -> str | None:
    """The previous question with the name it asked about replaced by the follow-up's, when the
    follow-up is that one name ("what about Signal Tower?" after "How heavy is Iron Bloom?" →
    "How heavy is Signal Tower?"); None otherwise."""
    body = _LEAD.sub("", follow_up).strip().rstrip("?.! ").strip()
    found = names(body, catalogue)
    if len(found) != 1 or body[: found[0].start].strip().lower() not in ("", "the") or body[found[0].end :].strip():
        return None
    asked = subjects(previous, catalogue)
    if not asked or asked[0].text.lower() == found[0].text.lower():
        return None  # nothing to replace, or the same name again
    return previous[: asked[0].start] + found[0].text + previous[asked[0].end :]


def _specifics(text: str, catalogue: Mapping[str, Sequence[str]]) -> set[str]:
    return set(_NUMBER.findall(text)) | {v.lower() for _, v in _known_hits(text, catalogue)}


class Condenser(TextStep):
    """Turns a follow-up into a standalone question (the model, else the deterministic carry-over)."""

    def condense(self, question: str, history: Sequence[Turn], catalogue: Mapping[str, Sequence[str]]) -> Condensed:
        if not history:
            return Condensed(question, "none")
        rules = _by_rules(question, history, catalogue)
        error = None
        if self.model is not None:
            lines = "\n".join(f"user: {t['standalone_question'] or t['question']}\nassistant: {t['answer'][:300]}" for t in history[-3:])
            msgs = [SystemMessage(_SYSTEM), HumanMessage(f"{fence('history', lines)}\n{fence('question', question)}\nStandalone question:")]
            try:
                proposal = " ".join(self.ask("condense", msgs, max_tokens=64).split()).strip("\"'` ")
                # Never a template artefact, never another subject: it must stay on the thread's words.
                previous = history[-1]["standalone_question"] or history[-1]["question"]
                check = check_text(proposal, f"{previous} {question}", embeddings=self.embeddings)
                if not check.ok:
                    raise _Rejected(f"unusable proposal: {check.reason}")
                wanted = _specifics(question, catalogue)
                # A condensed follow-up must keep what the rules keep (the subject a pronoun stands
                # for, the previous question's slots), allowing for rewording; it may repeat the
                # question only where the rules found nothing to resolve.
                expected = content_terms(rules)
                kept = len(expected & content_terms(proposal)) / max(1, len(expected))
                if 3 <= len(proposal) <= 500 and wanted <= _specifics(proposal, catalogue) and kept >= 0.75:
                    if proposal.lower() != question.lower() or rules == question:
                        return Condensed(proposal, "llm")
                error = "proposal dropped the follow-up's specifics or did not resolve it"
            except _Rejected as exc:
                error = str(exc)
            except Exception as exc:  # noqa: BLE001 - the deterministic carry-over takes over
                error = describe(exc, 200)
        return Condensed(rules, "rules", error)


def _by_rules(question: str, history: Sequence[Turn], catalogue: Mapping[str, Sequence[str]]) -> str:
    """The follow-up with its pronouns resolved; else the question as asked, when it is long or
    asks about something it names; else, for a fragment that leans on the previous question's
    slots, the carry-over."""
    resolved = resolve_pronouns(question, history, catalogue)
    if resolved is not None:
        return resolved
    if not looks_like_follow_up(question):
        return question
    if (own := own_question(question, catalogue)) is not None:
        return own  # short, but it asks about something it names itself
    return carry_over(history[-1]["standalone_question"] or history[-1]["question"], question, catalogue)
