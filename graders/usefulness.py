"""Usefulness: does the answer state what the question asks for?"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from graders.base import CaseInputs, StructuredGrader
from graders.claims import FILLER, figures, measured, names
from graders.prompts import USEFULNESS_V1
from graders.registry import register
from graders.signals import term_overlap
from graders.verdicts import GradeResult, UsefulnessGrade
from selfrag.fencing import fence
from selfrag.text import content_terms

__all__ = ["UsefulnessGrader", "choice_options", "expected_answer", "states_answer"]

_ASKS_YEAR = re.compile(r"\b(?:when|what year|which year|in what year|what date|which date)\b", re.IGNORECASE)
_ASKS_AMOUNT = re.compile(
    r"\b(?:how (?:many|much|long|old|far|big|large|tall|high|often|fast)|what (?:percentage|percent|share|number|"
    r"amount|proportion|fraction)|what is the (?:number|amount|population|size)|what was the (?:number|amount|population|size))\b",
    re.IGNORECASE,
)
_ASKS_NAME = re.compile(r"^\s*(?:who|whom|whose|where)\b|\b(?:which|what) (?:city|country|state|town|person|company|team|band)\b", re.IGNORECASE)
_YES_NO = re.compile(r"^\s*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b", re.IGNORECASE)
_MARKERS = re.compile(r"\[\d{1,3}\]")
_YES_OR_NO = re.compile(r"^\s*(?:yes|no)\b", re.IGNORECASE)
_SELECTING = re.compile(r"^\s*(?:which|who|whom|whose)\b|\b(?:which|who) (?:of|is|was|were|are)\b|\bbetween\b", re.IGNORECASE)
_NUMBER_WORD = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|"
    r"billion|dozen|single|none|zero)\b",
    re.IGNORECASE,
)
_NON_ANSWER = re.compile(
    r"\b(?:(?:does|do|did) not (?:say|state|mention|specify|provide|contain|include)|no information|not (?:stated|mentioned|"
    r"specified|provided)|cannot (?:be )?(?:determined|answered|found|say|tell)|unable to|i don'?t know)\b",
    re.IGNORECASE,
)


_NAME = r"[A-Z0-9][\w'’.&\-]*(?:\s+(?:(?:of|for|the|and|de|la|le|in|on|at|to|a)\s+)*[A-Z0-9][\w'’.&\-]*)*"
_CHOICE = re.compile(rf"(?P<a>{_NAME}),?\s+or\s+(?P<b>{_NAME})\s*\??\s*$")
_COMPARATIVE = re.compile(
    r"\b(?:more|most|less|least|fewer|fewest|larger|largest|bigger|biggest|higher|highest|lower|lowest|"
    r"older|oldest|younger|youngest|earlier|earliest|later|latest|first|longer|longest|shorter|shortest)\b",
    re.IGNORECASE,
)


def choice_options(question: str) -> list[str]:
    """The named options of a choice question ("..., Microsoft or Costco?"), else an empty list."""
    m = _CHOICE.search(question.strip())
    if m is None:
        return []
    options = [m.group("a").strip(), m.group("b").strip()]
    return options if all(content_terms(o) for o in options) else []


def expected_answer(question: str, documents: Sequence[Mapping[str, Any]] = ()) -> str | None:
    """What kind of statement answers ``question``: ``year``, ``amount``, ``name`` or None (anything).

    Besides the wording ("how many", "when", "who"), the evidence decides: a question about a
    measure the documents state as a figure ("What was Walmart's revenue?" over a sentence saying
    "revenues of $611 billion") is answered by a figure, whatever its wording.
    """
    if _YES_NO.match(question):
        return None
    if _ASKS_AMOUNT.search(question):
        return "amount"
    if _ASKS_YEAR.search(question):
        return "year"
    if _ASKS_NAME.search(question):
        return "name"
    measure = frozenset(content_terms(question) - names(question) - FILLER)
    measure = frozenset(t for t in measure if not t[0].isdigit())
    if measure and documents:
        for doc in documents:
            for f in figures(str(doc.get("text", ""))):
                if f.kind != "year" and measure & f.context:
                    return "amount"
    return None


def states_answer(question: str, answer: str, documents: Sequence[Mapping[str, Any]] = ()) -> float:
    """A score in [0, 1]: 0 when the answer cannot be an answer (it says nothing new, says it does
    not know, or lacks the figure, year or name the question asks for); otherwise 0.5 plus half
    the share of the question's terms it takes up."""
    text = " ".join(_MARKERS.sub(" ", answer).split())  # the whole answer: "FX" and "no" are answers too
    if not text or _NON_ANSWER.search(text):
        return 0.0
    if _YES_NO.match(question) and _YES_OR_NO.match(text):
        return 0.5 + 0.5 * term_overlap(question, text)
    q_terms = content_terms(question)
    new_terms = content_terms(text) - q_terms - FILLER
    q_figures = figures(question)
    new_figures = [f for f in figures(text) if not any(f.same(g) for g in q_figures)]
    options = choice_options(question)
    if options:
        named = [o for o in options if content_terms(o) <= content_terms(text)]
        # A choice is answered by naming an option ("Arthur's Magazine"), or, for a comparison,
        # by what each option has; naming neither, or one side's fact alone, answers nothing.
        if not named or (_COMPARATIVE.search(question) and len(named) < len(options) and not wanted_one(text, named)):
            return 0.0
        return 0.5 + 0.5 * term_overlap(question, text)
    selection = _SELECTING.search(question) and len(text.split()) <= 6
    if not new_terms and not new_figures and not selection:
        return 0.0  # it restates the question (a "which/who" answer may pick a name the question gives)
    measure = frozenset(t for t in q_terms - names(question) - FILLER if not t[0].isdigit())
    if len(text.split()) >= 6 and measure and not measure & content_terms(text):
        return 0.0  # a whole sentence sharing no word with what was asked about does not address it
    wanted = expected_answer(question, documents)
    if wanted == "amount":
        amounts = [f for f in new_figures if f.kind in ("amount", "percent")]
        if not amounts:
            return 0.5 + 0.5 * term_overlap(question, text) if _NUMBER_WORD.search(text) else 0.0
        stated = [g for d in documents for g in figures(str(d.get("text", "")))]
        if stated and measure and all(measured(f, [measure], stated) is not None for f in amounts):
            return 0.0  # its figures are what the documents state for something else
    if wanted == "year" and not any(f.kind == "year" for f in new_figures):
        return 0.0
    if wanted == "name" and not (names(text, initial=True) - content_terms(question)):
        return 0.0
    return 0.5 + 0.5 * term_overlap(question, text)


def wanted_one(answer: str, named: list[str]) -> bool:
    """Whether an answer naming one option states the choice itself ("Costco had more") rather
    than one side's fact ("Microsoft had 228,000 employees")."""
    return bool(_COMPARATIVE.search(answer)) or (not figures(answer) and len(content_terms(answer) - FILLER) <= 4)


@register
class UsefulnessGrader(StructuredGrader):
    """Signal: ``states_answer`` — the answer says something new, of the kind asked for."""

    kind = "usefulness"
    schema = UsefulnessGrade
    positive = "useful"
    negative = "not_useful"
    default_prompt = USEFULNESS_V1
    fields = frozenset({"question", "answer"})
    # Locally, question-term overlap decides; with an API model, both must agree.
    profiles = {"local": ("signal", 0.5), "openai": ("both", 0.5)}

    def grade_case(self, case: CaseInputs) -> GradeResult:
        return self.grade(case.question, case.answer, case.documents)

    @classmethod
    def case_problem(cls, case: CaseInputs) -> str | None:
        return None if case.question and case.answer else "a usefulness case needs a question and an answer"

    def grade(self, question: str, answer: str, documents: Sequence[Mapping[str, Any]] = ()) -> GradeResult:
        """``documents`` (the answer's evidence) tell a figure question from its wording alone."""
        fields = {"question": fence("question", question), "answer": fence("answer", answer)}
        return self._grade(fields, {"question": question, "answer": answer, "documents": documents})

    def _signal(self, raw: Mapping[str, Any]) -> float | None:
        return states_answer(str(raw["question"]), str(raw["answer"]), raw.get("documents") or ())
