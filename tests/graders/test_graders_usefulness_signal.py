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


@pytest.mark.parametrize(
    ("question", "answer", "useful"),
    [
        ("Which magazine was started first Arthur's Magazine or First for Women?", "Arthur's Magazine", True),
        ("Which magazine was started first Arthur's Magazine or First for Women?", "A magazine.", False),
        # a comparison answered with one side's fact alone does not answer it
        ("Which had more employees in 2024, Microsoft or Costco?", "Microsoft had 228,000 employees. [1]", False),
        ("Which had more employees in 2024, Microsoft or Costco?", "Costco had 316,000 employees; Microsoft had 228,000.", True),
        ("Were both Joseph Roth and Cid Corman authors?", "yes", True),
        ("How many acts are in the opera?", "five", True),  # a number written as a word
        ("Between the Lime and the Exochorda, which has more variety?", "Exochorda", True),  # picks a name the question gives
        ("What network did the show air on?", "FX", True),
    ],
)
def test_choices_yes_no_and_short_answers(question: str, answer: str, useful: bool) -> None:
    assert (states_answer(question, answer) >= 0.5) is useful


def test_a_sentence_sharing_no_word_with_what_was_asked_is_not_useful() -> None:
    quote = "Bergen had a population of 285,000 in 2020, and its port handled 6.2 million passengers."
    assert states_answer("What was Bergen's unemployment rate?", quote) == 0.0
    assert states_answer("What was Bergen's population?", quote) >= 0.5
