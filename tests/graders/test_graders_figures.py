"""The figure guard and how an answer is cut into claims, worked by hand."""

from __future__ import annotations

from graders import answer_claims, unsupported_figures
from graders.figures import figures


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
