"""Questions about a thing named by a relative clause ("the library whose membership the company
pays for") are read in two hops: the thing first, then the question about it."""

from __future__ import annotations

import pytest

from selfrag.reading import Reading
from selfrag.testing import ScriptedJudge, reading_of
from workflows.bridge import parse_bridge, read_bridge
from workflows.reading import read_answer

DOCS = [
    "Staff benefits at Kettle & Co. The company pays for an annual card at the Elm Row Library for every employee.",
    "Elm Row Library: borrowing rules. Books are lent for 3 weeks. Late returns cost 20 cents per day.",
]


@pytest.mark.parametrize(("question", "first", "then"), [
    ("What is the daily late fee at the library whose card Kettle & Co pays for?",
     "What is the library whose card Kettle & Co pays for?", "What is the daily late fee at {}?"),
    ("How long is the bridge designed by a former pupil of Fenwick School?",
     "What is the bridge designed by a former pupil of Fenwick School?", "How long is {}?"),
    ("who designed the first ship that the rope works made ropes for",
     "What is the first ship that the rope works made ropes for?", "who designed {}?"),
    ("How much per year is the permit that tenants with a car have to buy?",
     "What is the permit that tenants with a car have to buy?", "How much per year is {}?"),
])
def test_a_thing_named_by_a_relative_clause_is_asked_for_first(question: str, first: str, then: str) -> None:
    bridge = parse_bridge(question)
    assert bridge is not None and (bridge.first, bridge.then) == (first, then)


@pytest.mark.parametrize("question", [
    "The Oberoi family is part of a hotel company that has a head office in what city?",  # the wh-word is in the clause
    "How many visitors did the museum that hosts the workshop receive in 2022?",  # the main verb after the clause
    "Which bridge was designed by Edith Marlowe?",  # no relative clause on a thing asked about
    "What is the late fee?",
    "Who is the person that founded the club?",  # the clause names what is asked: a one-hop question
])
def test_other_questions_have_no_bridge(question: str) -> None:
    assert parse_bridge(question) is None


def _judge(answers: dict[str, tuple[str, float]]) -> ScriptedJudge:
    def read(question: str, passages: list[str]) -> Reading:
        if question in answers:
            text, p = answers[question]
            return reading_of(text, passages, probability=p)
        return Reading("none", "", -1)

    return ScriptedJudge(read=read)


def test_the_answer_is_read_about_the_thing_the_first_hop_found_and_cites_both_documents() -> None:
    judge = _judge({"What is the library whose card Kettle & Co pays for?": ("Elm Row Library", 0.9),
                    "What is the daily late fee at Elm Row Library?": ("20 cents per day", 0.8)})
    question = "What is the daily late fee at the library whose card Kettle & Co pays for?"
    hops = read_bridge(judge, question, DOCS)
    assert hops is not None
    assert (hops.thing.answer, hops.answer.answer) == ("Elm Row Library", "20 cents per day")
    assert hops.probability == pytest.approx(0.72)  # both hops must be right
    assert hops.surety == pytest.approx(0.8)  # the weaker hop: weighed against the question read whole
    out = read_answer(judge, question, [{"text": t} for t in DOCS])
    assert out.short_answer == "20 cents per day" and out.citations == [1, 2]
    assert out.answer == ("20 cents per day. Late returns cost 20 cents per day [2]. The company pays for an annual "
                          "card at the Elm Row Library for every employee [1].")


def test_a_hop_that_reads_nothing_gives_no_bridge_answer() -> None:
    judge = _judge({"What is the library whose card Kettle & Co pays for?": ("Elm Row Library", 0.9)})
    assert read_bridge(judge, "What is the daily late fee at the library whose card Kettle & Co pays for?", DOCS) is None
    judge = _judge({"What is the daily late fee at Elm Row Library?": ("20 cents per day", 0.8)})
    assert read_bridge(judge, "What is the daily late fee at the library whose card Kettle & Co pays for?", DOCS) is None
    echo = _judge({"What is the library whose card Kettle & Co pays for?": ("Elm Row Library", 0.9),
                   "What is the daily late fee at Elm Row Library?": ("the Elm Row Library", 0.8)})
    assert read_bridge(echo, "What is the daily late fee at the library whose card Kettle & Co pays for?", DOCS) is None


def test_read_answer_prefers_the_two_hop_reading_when_it_is_surer() -> None:
    question = "What is the daily late fee at the library whose card Kettle & Co pays for?"
    judge = _judge({question: ("an annual card", 0.3),
                    "What is the library whose card Kettle & Co pays for?": ("Elm Row Library", 0.9),
                    "What is the daily late fee at Elm Row Library?": ("20 cents per day", 0.8)})
    out = read_answer(judge, question, [{"text": t} for t in DOCS])
    assert out.short_answer == "20 cents per day" and out.citations == [1, 2]
    assert out.probability == pytest.approx(0.72)
    unsure = _judge({question: ("an annual card", 0.3),
                     "What is the library whose card Kettle & Co pays for?": ("Elm Row Library", 0.2),
                     "What is the daily late fee at Elm Row Library?": ("20 cents per day", 0.8)})
    assert read_answer(unsure, question, [{"text": t} for t in DOCS]).short_answer == "an annual card"


def test_a_two_hop_answer_quotes_no_metadata_line() -> None:
    # A hop's sentence that runs into the document's metadata ("kind: rules.") is cut where the
    # text ends, as the one-hop answer's is.
    docs = [{"text": DOCS[0], "metadata": {"kind": "handbook"}},
            {"text": "Elm Row Library: borrowing rules. Late returns cost 20 cents per day", "metadata": {"kind": "rules"}}]
    question = "What is the daily late fee at the library whose card Kettle & Co pays for?"
    judge = _judge({"What is the library whose card Kettle & Co pays for?": ("Elm Row Library", 0.9),
                    "What is the daily late fee at Elm Row Library?": ("20 cents per day", 0.8)})
    out = read_answer(judge, question, docs)
    assert out.short_answer == "20 cents per day"
    assert "kind" not in out.answer and "(" not in out.answer
