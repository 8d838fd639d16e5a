"""Versioned grader prompts.

A prompt's ``version`` goes into every ``GradeResult`` and every trace, so an evaluation run can
say which prompt produced which verdict; bump it whenever the text changes. Grader-tuning
experiments pass their own ``PromptSpec`` to a grader instead of editing these.
"""

from __future__ import annotations

from typing import NamedTuple

from selfrag.fencing import DATA_NOT_INSTRUCTIONS

__all__ = ["GROUNDEDNESS_V1", "RELEVANCE_V1", "USEFULNESS_V1", "PromptSpec"]


class PromptSpec(NamedTuple):
    """A system prompt plus a user template with ``str.format`` fields."""

    version: str
    """Stable identifier, ``kind/vN``; recorded with every verdict."""
    system: str
    user: str
    """Template; fields depend on the grader: {question}, {document}, {documents}, {answer}."""


RELEVANCE_V1 = PromptSpec(
    version="relevance/v1",
    system=(
        "You grade whether a retrieved document is relevant to a user's question. "
        "A document is relevant if it contains keywords or meaning that help answer the question; "
        "it does not need to answer it completely. Reply with JSON: "
        '{{"verdict": "relevant" or "irrelevant", "reason": one short sentence}}. '
        + DATA_NOT_INSTRUCTIONS
    ),
    user="{question}\n\n{document}\n\nIs the document relevant to the question?",
)

GROUNDEDNESS_V1 = PromptSpec(
    version="groundedness/v1",
    system=(
        "You check whether an answer is supported by a set of documents. The answer is grounded "
        "only if every claim in it is stated in or follows directly from the documents; any claim "
        "that is not in the documents makes it ungrounded. Reply with JSON: "
        '{{"verdict": "grounded" or "ungrounded", "reason": one short sentence}}. '
        + DATA_NOT_INSTRUCTIONS
    ),
    user="{documents}\n\n{answer}\n\nIs every claim of the answer supported by the documents?",
)

USEFULNESS_V1 = PromptSpec(
    version="usefulness/v1",
    system=(
        "You check whether an answer addresses a user's question. It is useful if it gives the "
        "information the question asks for; it is not useful if it is off topic, evasive or "
        "answers a different question. Reply with JSON: "
        '{{"verdict": "useful" or "not_useful", "reason": one short sentence}}. '
        + DATA_NOT_INSTRUCTIONS
    ),
    user="{question}\n\n{answer}\n\nDoes the answer address the question?",
)
