"""The usefulness signal: an answer must state something new, of the kind the question asks for."""

from __future__ import annotations

import pytest

from graders.usefulness import expected_answer, states_answer

REPORT = {"text": "Walmart's total revenues were $611 billion. Net income was $11.7 billion.", "metadata": {}}


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many employees did Costco have?", "amount"),
        ("When was the Eiffel Tower completed?", "year"),
        ("Who directed Little Women?", "name"),
        ("Which city hosts the head office?", "name"),
        ("Is Paris the capital of France?", None),
        ("Which movie is about toys?", None),
    ],
)
def test_the_wording_says_what_kind_of_answer_is_wanted(question: str, kind: str | None) -> None:
    assert expected_answer(question) == kind


def test_the_evidence_says_a_figure_is_wanted_when_the_wording_does_not() -> None:
    question = "What was Walmart's revenue?"
    assert expected_answer(question) is None
    assert expected_answer(question, [REPORT]) == "amount"  # the documents state revenue as a figure


@pytest.mark.parametrize(
    ("answer", "useful"),
    [
        ("Walmart's total revenues were $611 billion. [1]", True),
        ("The document cites the company as the source of its figures.", False),  # a non-answer
        ("Net income was $11.7 billion. [1]", False),  # a figure, but the one for something else
        ("The documents do not mention revenue.", False),
        ("Walmart's revenue was Walmart's revenue.", False),  # restates the question
    ],
)
def test_an_answer_without_what_was_asked_is_not_useful(answer: str, useful: bool) -> None:
    assert (states_answer("What was Walmart's revenue?", answer, [REPORT]) >= 0.5) is useful


def test_a_short_answer_naming_something_new_is_useful() -> None:
    assert states_answer("The Oberoi family's hotel company has its head office in what city?", "Delhi") >= 0.5
    assert states_answer("Who directed Little Women?", "little women") == 0.0  # no name the question lacks
