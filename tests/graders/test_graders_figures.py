"""The figure guard and how an answer is cut into claims, worked by hand."""

from __future__ import annotations

import pytest

from graders import answer_claims, unsupported_figures
from graders.figures import figures, other_year, parallel_year


def test_a_figure_is_supported_at_the_precision_it_was_written() -> None:
    doc = ["Revenue was $611.2 billion; net income was $11.7 billion."]
    assert unsupported_figures("Revenue was $611 billion.", doc) == []  # rounded: fine
    assert unsupported_figures("Revenue was $611.24 billion.", doc) == ["$611.24 billion"]  # more precise than stated
    assert unsupported_figures("Revenue was $616 billion.", doc) == ["$616 billion"]
    assert unsupported_figures("It employs 2.1 million people.", ["It employs 2,100,000 people."]) == []
    assert unsupported_figures("Growth was 5%.", ["Growth was 5 percent."]) == []
    assert unsupported_figures("Growth was 5%.", ["Growth was 5 points."]) == ["5%"]  # a percentage is not a count


def test_citation_markers_are_not_figures() -> None:
    assert [f.text for f in figures("Paris [1] had 2 million people [2].")] == ["2 million"]


def test_claims_take_the_markers_of_their_run_of_sentences() -> None:
    claims = answer_claims("Toys come alive. They have a blast [1]. Dinosaurs return [2]. Unmarked.", 2)
    assert claims == [("Toys come alive.", (1,)), ("They have a blast.", (1,)), ("Dinosaurs return.", (2,)),
                      ("Unmarked.", (1, 2))]


def test_the_short_answer_becomes_one_claim_with_its_question() -> None:
    claims = answer_claims("Yes. Adults may take two tablets [1].", 1, question="Can adults take two?", short_answer="Yes")
    assert claims == [("Can adults take two? Yes", (1,)), ("Adults may take two tablets.", (1,))]


# A new user's paper abstracts: "What Hits@10 do graph-based methods get according to P-108?" was
# signed 0.472, the paper's own figure, from "Hits@10 reaches 0.472, close to graph-based methods at
# 0.481." (reader probability 0.81, critic support 0.91): the other figure's clause is the one the
# question describes.
SENTENCE = "Hits@10 reaches 0.472, close to graph-based methods at 0.481."


def test_a_figure_from_another_clause_than_the_one_the_question_describes_is_found() -> None:
    from graders.figures import nearer_figure

    found = nearer_figure("What Hits@10 do graph-based methods get according to P-108?", "0.472", SENTENCE)
    assert found is not None and found.text == "0.481"


@pytest.mark.parametrize(("question", "answer", "sentence"), [
    ("What Hits@10 does P-108 reach?", "0.472", SENTENCE),
    ("What Hits@10 do graph-based methods get according to P-108?", "0.481", SENTENCE),
    # Another kind of figure (a year beside a count) is no rival; nor a figure the question itself states.
    ("How many people lived in Tarnby in 2020?", "5,200", "In 2020, 5,200 people lived in Tarnby, up from 4,100 in 2010."),
    ("How many visitors came in 2019?", "41,000", "The museum had 41,000 visitors in 2019 and 38,500 in 2018."),
    ("How long is the Aldwen line?", "38 kilometres", "The Aldwen line is 38 kilometres long."),
])
def test_the_answer_s_own_clause_or_no_rival_leaves_no_nearer_figure(question: str, answer: str, sentence: str) -> None:
    from graders.figures import nearer_figure

    assert nearer_figure(question, answer, sentence) is None


def test_the_other_year_s_clause_is_nearer_when_the_question_names_that_year() -> None:
    from graders.figures import nearer_figure

    found = nearer_figure("How many visitors came in 2018?", "41,000",
                          "The museum had 41,000 visitors in 2019, and 38,500 in 2018.")
    assert found is not None and found.text == "38,500"


@pytest.mark.parametrize(("question", "answer", "sentence"), [
    # HaluEval dev: a rank is no figure, and a height is no count.
    ("The landmark 47-storey mixed use skyscraper is how tall?", "554 ft",
     "At a height of 554 ft, it is the tallest building in the United Kingdom outside London and 10th tallest building "
     "in the United Kingdom."),
    ("How long does the tallest building in the kingdom take to climb?", "554 ft",
     "The tallest building in the kingdom takes 12 minutes to climb, and it stands 554 ft high."),
])
def test_a_rank_or_a_figure_of_another_unit_is_no_near_miss(question: str, answer: str, sentence: str) -> None:
    from graders.figures import nearer_figure

    assert nearer_figure(question, answer, sentence) is None


_SUMMARIES = [
    "Mount Kelda erupted on 20 January 2024, and its alert level was raised to Red for 6 days. "
    "The station KRT2 budget for 2024 was 55,000 dollars.",
    "The station KRT2 was installed in 2021 and was fully operational throughout 2022. Its budget for 2022 was 48,000 dollars.",
    "The station KRT2 budget for 2023 was 52,000 dollars. The station PLX was offline for 19 days in March 2023.",
]
_QUOTE = ("48,000 dollars. Mount Kelda erupted on 20 January 2024, and its alert level was raised to Red for 6 days [1]. "
          "Its budget for 2022 was 48,000 dollars [2].")


def test_a_figure_the_documents_state_for_other_years_is_the_readers_guess_of_the_year() -> None:
    # Signed "48,000 dollars" (2022's) for the year Mount Kelda erupted (2024).
    q = "What was the KRT2 budget in the year Mount Kelda erupted?"
    assert parallel_year(q, "48,000 dollars", _QUOTE, _SUMMARIES) is not None
    assert "2024" in (parallel_year(q, "48,000 dollars", _QUOTE, _SUMMARIES) or "")
    # the question writing another year than the quoted sentence's
    assert parallel_year("What was the KRT2 budget in 2024?", "48,000 dollars", _QUOTE, _SUMMARIES) is not None


def test_a_figure_of_the_year_the_question_writes_is_no_guess() -> None:
    assert parallel_year("What was the KRT2 budget in 2022?", "48,000 dollars", _QUOTE, _SUMMARIES) is None


def test_a_sentence_about_another_thing_is_no_parallel() -> None:
    # The PLX outage states days for 2023; it is no budget, and the question's "Kelda" is not in it.
    quote = "6 days. Mount Kelda erupted on 20 January 2024, and its alert level was raised to Red for 6 days [1]."
    others = ["Mount Arlo erupted on 3 May 2023, and its alert level was raised to Red for 4 days."]
    assert parallel_year("How many days was the alert at Red after the Kelda eruption?", "6 days", quote, others) is None
    # no year in the quoted sentence: nothing to guess
    assert parallel_year("What is the budget?", "48,000 dollars", "48,000 dollars. The budget is 48,000 dollars [1].",
                         _SUMMARIES) is None
    # the same figure for another year is no other answer
    assert parallel_year("What was the KRT2 budget?", "48,000 dollars", _QUOTE,
                         ["The station KRT2 budget for 2021 was 48,000 dollars."]) is None


@pytest.mark.parametrize(("question", "short", "quote", "stated"), [
    # A new user's carrier contract: "the notice period … in 2022" signed "7 days" from "Since 2023
    # the notice period is 7 days"; 2022's was 3 days.
    ("What was the notice period with Blue Heron in 2022?", "7 days", "7 days. Since 2023 the notice period is 7 days [1].",
     "Since 2023 the notice period is 7 days."),
    ("What was the notice period in 2022?", "7 days", "7 days. From 2019 to 2021 the notice period was 7 days [1].",
     "From 2019 to 2021 the notice period was 7 days."),
    ("How many people lived in Ostby in 2010?", "5,000", "5,000. The 2000 census counted 5,000 people [1].",
     "The 2000 census counted 5,000 people."),
])
def test_a_figure_stated_for_other_years_than_asked(question: str, short: str, quote: str, stated: str) -> None:
    assert other_year(question, short, quote) == stated


@pytest.mark.parametrize(("question", "short", "quote"), [
    ("What was the notice period in 2022?", "3 days", "3 days. In 2022 notice had to reach the carrier within 3 days [1]."),
    ("What was the notice period in 2022?", "7 days", "7 days. Since 2020 the notice period is 7 days [1]."),
    ("What was the notice period in 2022?", "7 days", "7 days. Before 2023 the notice period was 7 days [1]."),
    ("What was the notice period in 2022?", "7 days", "7 days. From 2019 to 2023 the notice period was 7 days [1]."),
    ("What was the notice period?", "7 days", "7 days. Since 2023 the notice period is 7 days [1]."),  # no year asked
    ("In what year was the band that formed in 1990 signed?", "1993", "1993. The band was signed in 1993 [1]."),
])
def test_a_figure_of_a_year_asked_or_of_no_year(question: str, short: str, quote: str) -> None:
    assert other_year(question, short, quote) is None
