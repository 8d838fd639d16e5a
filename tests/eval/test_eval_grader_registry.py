"""Adding a grader is one module: a registered class is found by the cases, variants, harness and CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Literal

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from eval.datasets import GraderCase
from eval.experiments import run_grader_experiment
from eval.variants import PromptFields
from graders import GRADERS, CaseInputs, GradeResult, PromptSpec, StructuredGrader, grader_kinds, register
from graders.verdicts import _Grade
from selfrag.errors import VariantsError
from selfrag.fencing import fence
from selfrag.retry import RetryPolicy
from selfrag.testing import ScriptedChatModel

NO_WAIT = RetryPolicy(attempts=1, initial_wait_s=0.0, max_wait_s=0.0)


class ConcisenessGrade(_Grade):
    verdict: Literal["concise", "verbose"]


class ConcisenessGrader(StructuredGrader):
    """A fourth grader, declared in one place: is the answer short enough?"""

    kind = "conciseness"
    schema = ConcisenessGrade
    positive = "concise"
    negative = "verbose"
    default_prompt = PromptSpec("conciseness/v1", "Is the answer concise?", "{answer}")
    fields = frozenset({"answer"})
    profiles = {"local": "signal"}

    def grade_case(self, case: CaseInputs) -> GradeResult:
        return self._grade({"answer": fence("answer", case.answer)}, {"answer": case.answer})

    @classmethod
    def case_problem(cls, case: CaseInputs) -> str | None:
        return None if case.answer else "a conciseness case needs an answer"

    def _signal(self, raw: Mapping[str, Any]) -> float | None:
        return 1.0 if len(str(raw["answer"]).split()) <= 5 else 0.0


@pytest.fixture
def conciseness() -> Iterator[type[ConcisenessGrader]]:
    register(ConcisenessGrader)
    yield ConcisenessGrader
    del GRADERS["conciseness"]


def test_a_registered_grader_is_picked_up_by_the_harness(conciseness: type[ConcisenessGrader]) -> None:
    assert grader_kinds()[-1] == "conciseness" and {"relevance", "groundedness", "usefulness"} < set(grader_kinds())
    cases = [
        GraderCase(id="short", kind="conciseness", answer="Paris.", label=True),
        GraderCase(id="long", kind="conciseness", answer="Well, it is a long story, but the answer is Paris.", label=False),
    ]
    model = ScriptedChatModel.from_rules({"ConcisenessGrade": lambda m: json.dumps(
        {"verdict": "concise" if "Paris." in str(m[-1].content) and "story" not in str(m[-1].content) else "verbose"})})
    result = run_grader_experiment(cases, "conciseness", None, model_factory=lambda v: model, retry=NO_WAIT, resamples=10)
    assert {v.name: v.report.value("accuracy") for v in result.variants} == {
        "llm": 1.0, "signal": 1.0, "both": 1.0, "either": 1.0,
    }
    assert [v.variant.threshold for v in result.variants if v.name != "llm"] == [0.5, 0.5, 0.5]


def test_its_cases_and_prompts_are_checked_by_its_own_declaration(conciseness: type[ConcisenessGrader]) -> None:
    with pytest.raises(ValidationError, match="a conciseness case needs an answer"):
        GraderCase(id="x", kind="conciseness", label=True)
    PromptFields(version="c/2", system="Be brief.", user="{answer}").check("conciseness")
    with pytest.raises(VariantsError):
        PromptFields(version="c/2", system="Be brief.", user="{question}").check("conciseness")


def test_an_unregistered_kind_is_refused() -> None:
    with pytest.raises(ValidationError, match="unknown grader kind 'conciseness'"):
        GraderCase(id="x", kind="conciseness", answer="a", label=True)


def test_the_cli_offers_the_registered_graders(conciseness: type[ConcisenessGrader], tmp_path: Any) -> None:
    from selfrag.cli import app

    out = CliRunner().invoke(app, ["eval", "graders", "--dataset", str(tmp_path / "none.jsonl"), "--grader", "nope"])
    assert out.exit_code != 0 and "conciseness" in out.output


def test_settings_and_the_factory_find_a_registered_grader(
    conciseness: type[ConcisenessGrader], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from selfrag.errors import ConfigError
    from selfrag.settings import Settings
    from workflows.factory import _grader_configs

    monkeypatch.setenv("SELFRAG_GRADERS__CONCISENESS__POLICY", "fail_open")
    settings = Settings(home=tmp_path)
    configs = _grader_configs(settings, "json_schema", NO_WAIT)
    assert configs["conciseness"].policy.value == "fail_open"
    assert (configs["conciseness"].combine.value, configs["conciseness"].threshold) == ("signal", None)  # its local profile
    typo = Settings(home=tmp_path, graders={"concisenes": {"policy": "fail_open"}})
    with pytest.raises(ConfigError, match="'concisenes'"):
        _grader_configs(typo, "json_schema", NO_WAIT)
