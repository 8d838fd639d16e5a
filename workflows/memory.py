"""Questions about the conversation itself, answered from the thread's memory without retrieval.

"What did I just ask you?" is not a question for the documents: searching for it finds nothing,
and two rewrites later the engine abstains on the easiest question of the session. The condense
step recognises such questions and answers them from the thread's history (the turns the
checkpointer keeps), quoting it; no model is asked, so nothing can be invented.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from workflows.state import Turn

__all__ = ["recall"]

_ORDINAL = r"(?:just|last|previous|previously|latest|earlier|before|first|recent|most recent)"
_MY_QUESTION = re.compile(
    rf"\bwhat (?:did|was it|is it|was that) i (?:{_ORDINAL} )?(?:ask|asked|say|said|want to know|wanted to know|question)"
    rf"|\bwhat (?:was|were|is|are) my (?:{_ORDINAL} )?(?:question|questions|query|request)"
    rf"|\b(?:repeat|remind me (?:of|what)) (?:my|what i) (?:{_ORDINAL} )?(?:question|asked)"
    rf"|\bwhat (?:have|had) i (?:{_ORDINAL} )?asked",
    re.IGNORECASE,
)
_YOUR_ANSWER = re.compile(
    rf"\bwhat (?:did|was it) you (?:{_ORDINAL} )?(?:say|said|answer|answered|reply|replied|tell me|told me)"
    rf"|\bwhat (?:was|is) your (?:{_ORDINAL} )?(?:answer|reply|response)"
    rf"|\brepeat (?:your|that) (?:{_ORDINAL} )?(?:answer|reply|response)",
    re.IGNORECASE,
)
_FIRST = re.compile(r"\bfirst\b", re.IGNORECASE)
_CONVERSATION = re.compile(
    r"\bwhat (?:have|did) we (?:talk|talked|discuss|discussed|cover|covered)\b|\bsummari[sz]e (?:our|this|the) (?:conversation|chat|thread)",
    re.IGNORECASE,
)


def _quote(text: str) -> str:
    return "“" + " ".join(text.split()) + "”"


def recall(question: str, history: Sequence[Turn]) -> str | None:
    """The answer to a question about this conversation, or None when ``question`` is not one."""
    asks_question = bool(_MY_QUESTION.search(question))
    asks_answer = bool(_YOUR_ANSWER.search(question))
    asks_all = bool(_CONVERSATION.search(question))
    if not (asks_question or asks_answer or asks_all):
        return None
    if not history:
        return "This conversation has no earlier question yet: this is its first turn."
    if asks_all:
        asked = "; ".join(_quote(t["question"]) for t in history)
        return f"So far in this conversation you asked: {asked}."
    turn = history[0] if _FIRST.search(question) else history[-1]
    parts = []
    if asks_question:
        parts.append(f"You asked: {_quote(turn['question'])}.")
    if asks_answer:
        # The answer as it was given: one that ended flagged is recalled flagged, or the quote
        # would pass for a checked answer under this turn's own outcome.
        flag = "" if turn.get("outcome") in ("answered", None) else f" ({turn['outcome']}, not checked)"
        parts.append(f"I answered{flag}: {_quote(turn['answer'])}")
    return " ".join(parts)
