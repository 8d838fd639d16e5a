"""A code the question names (a course, a part, a model: "CHEM 210", "SR-71") must be in what the
answer cites, or the answer is about something else.

Bug (a new user's course catalogue): "What are the prerequisites for CHEM 210?" has no answer (no
such course); the reader read "MATH 220" out of ASTR 330's "Prerequisites are ASTR 210 and MATH
220" at 0.80, a hair under its threshold, and the figure guard was no guard: 210 is stated there,
as ASTR 210. A passage that never names the code cannot answer a question about it.
"""

from __future__ import annotations

from typing import Any

import pytest

from graders import Combine, GraderConfig
from graders.figures import codes, unnamed_codes
from selfrag.store import Hit
from selfrag.testing import ScriptedJudge, reading_of
from tests.workflows.conftest import FAST
from workflows import Outcome, RunOptions

CRITIC = GraderConfig(retry=FAST, combine=Combine.SIGNAL)
THRESHOLDS = {"reader": 0.6, "relevance": 0.5, "support": 0.5, "usefulness": 0.5}
# Its 81 is the AB 81's: the figure guard passes a claim about a ZX 81.
TOYS = Hit(id="toys", text="Toys come alive in the AB 81 edition and have a blast doing so",
           metadata={"genre": "animated", "year": 1995}, score=0.9)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What are the prerequisites for CHEM 210?", ["CHEM 210"]),
        ("Who flew the SR-71 and the A320?", ["SR-71", "A320"]),
        ("Is MBIO330 taught in Spring?", ["MBIO330"]),
        # a year, a currency or a unit, and a plain number are no codes
        ("What was revenue in FY 2023?", []),
        ("Does it cost USD 500 or 20 KG?", []),
        ("How many people lived there in 1990?", []),
    ],
)
def test_the_codes_a_question_names(question: str, expected: list[str]) -> None:
    assert codes(question) == expected


def test_a_code_is_found_however_it_is_spaced_in_text_or_metadata() -> None:
    passages = [("Prerequisites are ASTR 210 and MATH 220.", {"code": "ASTR 330"}),
                ("The SR71 flew fastest.", {})]
    assert unnamed_codes("prerequisites for astr 330 and SR-71 and CHEM 210?", passages) == ["CHEM 210"]


def _engine(make_engine: Any) -> Any:
    judge = ScriptedJudge(lambda task, first, second: 0.9, lambda q, passages: reading_of("have a blast", passages),
                          thresholds=THRESHOLDS)
    engine, _, _ = make_engine({}, judge=judge, relevance=CRITIC, groundedness=CRITIC, usefulness=CRITIC,
                               extractive_only=True, rules_only_text=True, search_fn=lambda q, w, k: [TOYS],
                               options=RunOptions(max_rewrites=0))
    return engine


def test_an_answer_from_documents_that_never_name_the_asked_code_is_not_signed(make_engine: Any) -> None:
    result = _engine(make_engine).run("Which toys come alive in the ZX 81 edition?", collection="movies")
    assert result.outcome is Outcome.UNVERIFIED and result.answer
    named = [v for v in result.trace.verdicts if v["kind"] == "names"]
    assert named and not named[-1]["passed"] and named[-1]["model"] == "deterministic"
    assert "ZX 81" in named[-1]["reason"] and "ZX 81" in result.trace.stop_reason


def test_the_same_question_without_a_code_is_signed(make_engine: Any) -> None:
    result = _engine(make_engine).run("Which toys come alive and have a blast?", collection="movies")
    assert result.outcome is Outcome.ANSWERED
    assert not [v for v in result.trace.verdicts if v["kind"] == "names"]
