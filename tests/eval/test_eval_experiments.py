"""Grader experiments with scripted models: metrics per variant, shared LLM calls, splits, files.

Each kind has a four-case set built so that the LLM and the signal make different mistakes:

    case  label  signal  LLM says   llm  signal  both  either
    a     yes    1.0     yes        ✓    ✓       ✓     ✓
    b     no     1.0     no         ✓    ✗ fp    ✓     ✗ fp     (the words match, the meaning does not)
    c     no     0.0     yes        ✗ fp ✓       ✓     ✗ fp     (a lenient model)
    d     no     0.0     no         ✓    ✓       ✓     ✓

so ``both`` is right on all four while each part is wrong on one: accuracy 0.75, 0.75, 1.0, 0.5.
The signal is a scripted critic (``CRITIC``, patched in for the shipped one):

* relevance: 1.0 when the document names Gerwig (a and b), else 0.
* groundedness: support 1.0 for the Walmart claims (a, b: b's 700 is in its document, "not"
  and all), 0 for c and d (and c's 254 is not in its document: the figure guard says 0 too).
* usefulness: 1.0 for answers naming Paris or "every country" (a, b), 0 for c and d.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.caches import InMemoryCache
from langchain_core.messages import BaseMessage

from eval.cache import SQLiteLLMCache
from eval.datasets import Document, GraderCase
from eval.experiments import (
    Variant,
    VariantsError,
    choose_and_report,
    default_variants,
    load_variants,
    run_grader_experiment,
    summary_line,
    write_experiment,
)
from graders import Combine, FailurePolicy, GraderConfig, UsefulnessGrader
from selfrag.errors import GraderError, UsageError
from selfrag.retry import RetryPolicy
from selfrag.settings import LLMSettings
from selfrag.testing import ScriptedChatModel, ScriptedJudge

NO_WAIT = RetryPolicy(attempts=1, initial_wait_s=0.0, max_wait_s=0.0)


def _critic_score(task: str, first: str, second: str) -> float:
    if task == "relevance":
        return 1.0 if "Gerwig" in second else 0.0
    if task == "support":
        return 1.0 if "Walmart" in first else 0.0
    if "made Little Women" in second:
        return 0.5
    return 1.0 if any(k in second for k in ("Paris", "every country", "1889")) else 0.0


CRITIC = ScriptedJudge(_critic_score)


@pytest.fixture(autouse=True)
def _scripted_critic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("eval.experiments.default_judge", lambda folder=None: CRITIC)
Q_FILM = "Which films did Greta Gerwig direct?"
Q_FRANCE = "What is the capital of France?"


def _case(kind: str, cid: str, label: bool, split: str = "dev", **fields: Any) -> GraderCase:
    docs = [Document(id=f"{cid}-doc", text=t) for t in fields.pop("docs", [])]
    return GraderCase(id=cid, kind=kind, label=label, split=split, documents=docs, **fields)


SETS: dict[str, tuple[list[GraderCase], str, list[str]]] = {
    # kind: (cases, structured-output task, phrases the scripted LLM says yes to)
    "relevance": (
        [
            _case("relevance", "a", True, question=Q_FILM, docs=["Greta Gerwig directed the film Little Women."]),
            _case("relevance", "b", False, question=Q_FILM, docs=["Greta Gerwig never saw this film, directed by a stranger: Jaws."]),
            _case("relevance", "c", False, question=Q_FILM, docs=["Cooking pasta takes ten minutes."]),
            _case("relevance", "d", False, question=Q_FILM, docs=["Tides follow the moon."]),
        ],
        "RelevanceGrade",
        ["Little Women", "pasta"],
    ),
    "groundedness": (
        [
            _case("groundedness", "a", True, answer="Walmart revenue reached 611 billion.", docs=["Walmart revenue reached 611 billion dollars."]),
            _case("groundedness", "b", False, answer="Walmart revenue reached 700 billion.", docs=["Walmart revenue did not reach 700 billion."]),
            _case("groundedness", "c", False, answer="Costco revenue was 254 billion.", docs=["Costco sells bulk goods."]),
            _case("groundedness", "d", False, answer="Amazon shipped 5 billion parcels.", docs=["Target opened stores."]),
        ],
        "GroundednessGrade",
        ["611", "254"],
    ),
    "usefulness": (
        [
            _case("usefulness", "a", True, question=Q_FRANCE, answer="Paris is the capital of France."),
            _case("usefulness", "b", False, question=Q_FRANCE, answer="France has a capital, as every country does."),
            _case("usefulness", "c", False, question=Q_FRANCE, answer="The capital of France, in France, is the capital."),
            _case("usefulness", "d", False, question=Q_FRANCE, answer="I cannot say."),
        ],
        "UsefulnessGrade",
        ["Paris", "in France, is"],
    ),
}
VERDICTS = {"relevance": ("relevant", "irrelevant"), "groundedness": ("grounded", "ungrounded"), "usefulness": ("useful", "not_useful")}


def scripted(kind: str) -> ScriptedChatModel:
    _, task, yes = SETS[kind]
    pos, neg = VERDICTS[kind]

    def rule(messages: list[BaseMessage]) -> str:
        text = str(messages[-1].content)
        verdict = pos if any(p in text for p in yes) else neg
        return json.dumps({"verdict": verdict, "reason": f"scripted {verdict}"})

    return ScriptedChatModel.from_rules({task: rule})


def run(kind: str, variants: list[Variant] | None = None, **kw: Any) -> tuple[Any, ScriptedChatModel]:
    model = kw.pop("model", None) or scripted(kind)
    kw.setdefault("model_factory", lambda v: model)
    return run_grader_experiment(SETS[kind][0], kind, variants, retry=NO_WAIT, resamples=200, **kw), model


def accuracies(result: Any) -> dict[str, float]:
    return {v.name: v.report.value("accuracy") for v in result.variants}


# -- the combination against its parts, for every kind -------------------------------------------------
@pytest.mark.parametrize("kind", list(SETS))
def test_both_beats_each_part_and_llm_verdicts_are_shared(kind: str) -> None:
    result, model = run(kind)  # the default variants: llm, signal, both, either
    assert accuracies(result) == {"llm": 0.75, "signal": 0.75, "both": 1.0, "either": 0.5}
    ba = {v.name: v.report.value("balanced_accuracy") for v in result.variants}
    assert ba["both"] > max(ba["llm"], ba["signal"])
    assert [o.score for o in result.variant("signal").outcomes] == pytest.approx([1.0, 1.0, 0.0, 0.0])
    assert [o.predicted for o in result.variant("llm").outcomes] == [True, False, True, False]
    # One call per case, shared by llm/both/either; the signal alone made none.
    assert len(model.calls) == 4
    assert [(g.variants, g.cases, g.attempts) for g in result.groups] == [(["llm", "both", "either"], 4, 4)]
    assert result.variant("signal").group is None and result.variant("signal").outcomes[0].llm_label is None


def test_either_beats_each_part_when_the_parts_miss_different_positives() -> None:
    # a: signal high, LLM no; b: signal low (no year written as a figure), LLM yes; c, d: true
    # negatives both agree on.
    q_year = "In what year was the Eiffel Tower completed?"
    cases = [
        _case("usefulness", "a", True, question=q_year, answer="The Eiffel Tower was completed in 1889."),
        _case("usefulness", "b", True, question=q_year, answer="Eighteen eighty-nine."),
        _case("usefulness", "c", False, question=q_year, answer="Bananas are yellow."),
        _case("usefulness", "d", False, question=q_year, answer="I cannot say."),
    ]
    model = ScriptedChatModel.from_rules({"UsefulnessGrade": lambda m: json.dumps(
        {"verdict": "useful" if "Eighteen" in str(m[-1].content) else "not_useful"})})
    result = run_grader_experiment(cases, "usefulness", None, model_factory=lambda v: model, retry=NO_WAIT, resamples=100)
    assert accuracies(result) == {"llm": 0.75, "signal": 0.75, "both": 0.5, "either": 1.0}


# -- decide() reproduces the real grader ------------------------------------------------------------
@pytest.mark.parametrize("reply", ["useful", "not_useful", "not json"])
@pytest.mark.parametrize("policy", [FailurePolicy.FAIL_CLOSED, FailurePolicy.FAIL_OPEN])
def test_shared_verdicts_decide_like_a_standalone_grader(reply: str, policy: FailurePolicy) -> None:
    # The scripted critic says 0.5 for this answer (see _critic_score).
    question, answer = "Which movies did Greta Gerwig direct?", "Greta Gerwig made Little Women"
    text = reply if reply == "not json" else json.dumps({"verdict": reply, "reason": "r"})
    variants = [
        Variant(name=f"{c.value}@{t}", combine=c, threshold=t, policy=policy)
        for c in Combine for t in (0.4, 0.6)
    ]
    case = GraderCase(id="x", kind="usefulness", question=question, answer=answer, label=True)
    model = ScriptedChatModel.from_rules({"UsefulnessGrade": text})
    result = run_grader_experiment([case], "usefulness", variants, model_factory=lambda v: model, retry=NO_WAIT, resamples=10)
    for v in variants:
        alone = UsefulnessGrader(
            ScriptedChatModel.from_rules({"UsefulnessGrade": text}),
            GraderConfig(policy=policy, retry=NO_WAIT, combine=v.combine, threshold=v.threshold), critic=CRITIC,
        ).grade(question, answer)
        outcome = result.variant(v.name).outcomes[0]
        assert (outcome.predicted, outcome.failed) == (alone.passed, alone.failed), v.name
        if v.combine is not Combine.LLM:  # a model-only grader does not ask the critic
            assert outcome.score == alone.score, v.name
    assert len(model.calls) == 1


def test_raise_policy_stops_the_experiment_on_a_grader_failure() -> None:
    case = GraderCase(id="x", kind="usefulness", question=Q_FRANCE, answer="Paris", label=True)
    model = ScriptedChatModel.from_rules({"UsefulnessGrade": "not json"})
    with pytest.raises(GraderError, match="variant 'strict'"):
        run_grader_experiment([case], "usefulness", [Variant(name="strict", policy=FailurePolicy.RAISE)],
                              model_factory=lambda v: model, retry=NO_WAIT)


# -- cost: one call per (model, prompt) -----------------------------------------------------------
PROMPT_V2 = {"version": "relevance/v2", "system": "Grade relevance. Reply with JSON.", "user": "{question}\n{document}"}


def test_calls_are_shared_per_prompt_and_the_cache_is_attached() -> None:
    model = scripted("relevance")
    cache = InMemoryCache()
    seen: list[str] = []
    variants = [
        Variant(name="v1", combine=Combine.LLM),
        Variant(name="v1-both", combine=Combine.BOTH, threshold=0.5),
        Variant(name="v2", prompt=PROMPT_V2),
        Variant(name="v2-either", prompt=PROMPT_V2, combine=Combine.EITHER),
        Variant(name="signal", combine=Combine.SIGNAL),
    ]
    progress: list[tuple[str, int, int]] = []

    def factory(v: Variant) -> ScriptedChatModel:
        seen.append(v.name)
        return model

    result, _ = run("relevance", variants, model=model, model_factory=factory, cache=cache, concurrency=3,
                    progress=lambda *a: progress.append(a))
    assert seen == ["v1", "v2"]  # the factory is asked once per group
    assert len(model.calls) == 8  # 4 cases × 2 prompts, not × 4 LLM variants
    assert [g.prompt_version for g in result.groups] == ["relevance/v1", "relevance/v2"]
    assert [g.variants for g in result.groups] == [["v1", "v1-both"], ["v2", "v2-either"]]
    assert model.cache is cache
    assert sorted(p[1] for p in progress) == [1, 1, 2, 2, 3, 3, 4, 4]
    assert model.calls[-1].prompt.startswith("Grade relevance.")
    # A second run through the same cache asks the model nothing.
    again = scripted("relevance")
    run("relevance", variants, model=again, cache=cache)
    assert again.calls == []


def test_a_sqlite_cache_is_scoped_to_the_model_and_makes_reruns_free(tmp_path: Path) -> None:
    with SQLiteLLMCache(tmp_path / "llm.sqlite") as cache:
        first, model = run("relevance", cache=cache)
        again = scripted("relevance")
        second, _ = run("relevance", model=again, cache=cache)
    assert len(model.calls) == 4 and again.calls == []
    assert summary_line(first) == summary_line(second)


def test_models_come_from_the_settings_once_per_llm_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    import eval.experiments as experiments

    built: list[tuple[str, str]] = []

    def fake_make(settings: Any) -> ScriptedChatModel:
        built.append((settings.provider, settings.model))
        return scripted("relevance")

    monkeypatch.setattr(experiments, "make_chat_model", fake_make)
    variants = [
        Variant(name="a"),
        Variant(name="b", prompt=PROMPT_V2),  # same model, other prompt
        Variant(name="c", llm={"provider": "openai", "model": "gpt-x", "base_url": "http://127.0.0.1:9/v1"}),
    ]
    result = run_grader_experiment(SETS["relevance"][0], "relevance", variants, retry=NO_WAIT, resamples=10)
    assert built == [("local", "gpt-4o-mini"), ("openai", "gpt-x")]
    assert len(result.groups) == 3


def test_signal_only_needs_no_model() -> None:
    result = run_grader_experiment(SETS["relevance"][0], "relevance", [Variant(name="s", combine=Combine.SIGNAL)])
    assert result.groups == [] and accuracies(result) == {"s": 0.75}


# -- sweeps and misses ------------------------------------------------------------------------------
def test_threshold_sweep_and_worst_misses() -> None:
    result, _ = run("relevance")
    assert result.variant("llm").sweep is None  # the threshold plays no part
    sig = result.variant("signal").sweep
    assert sig is not None and len(sig.points) == 21
    assert (sig.points[0].threshold, sig.points[-1].threshold) == (0.0, 1.0)
    assert sig.points[0].metrics["balanced_accuracy"] == 0.5  # at 0 everything passes
    assert sig.best.threshold == 0.05 and sig.best.metrics["balanced_accuracy"] == pytest.approx(5 / 6)
    both = result.variant("both").sweep
    assert both is not None and both.best.metrics["balanced_accuracy"] == 1.0 and both.current == 0.5
    # either's false positives: b (signal 1.0, backs the mistake fully) before c (signal 0.0).
    assert [o.id for o in result.variant("either").misses("fp")] == ["b", "c"]
    assert result.variant("either").misses("fn") == []


# -- splits ---------------------------------------------------------------------------------------
def split_set() -> list[GraderCase]:
    dev = SETS["relevance"][0]
    test = [c.model_copy(update={"id": f"t-{c.id}", "split": "test"}) for c in dev]
    return dev + test


def test_split_selects_cases() -> None:
    cases = split_set()
    dev = run_grader_experiment(cases, "relevance", [Variant(name="s", combine=Combine.SIGNAL)], split="dev")
    assert dev.split == "dev" and dev.case_ids == ["a", "b", "c", "d"]
    both = run_grader_experiment(cases, "relevance", [Variant(name="s", combine=Combine.SIGNAL)])
    assert len(both.case_ids) == 8 and both.split is None
    with pytest.raises(UsageError, match="no relevance cases in split 'test'"):
        run_grader_experiment(SETS["relevance"][0], "relevance", split="test")
    with pytest.raises(UsageError, match="no usefulness cases"):
        run_grader_experiment(SETS["relevance"][0], "usefulness")


def test_choose_on_dev_then_evaluate_once_on_test() -> None:
    cases = split_set()
    model = scripted("relevance")
    kw: dict[str, Any] = {"model_factory": lambda v: model, "retry": NO_WAIT, "resamples": 50}
    dev = run_grader_experiment(cases, "relevance", split="dev", **kw)
    calls_on_dev = len(model.calls)
    choice = choose_and_report(dev, cases, **kw)
    assert choice.chosen.name == "both"
    assert choice.reason.startswith("'both' has the best dev balanced accuracy of 4 candidates: 1.000")
    assert "evaluated once on 4 test cases" in choice.reason
    assert [v.name for v in choice.test.variants] == ["both"] and choice.test.split == "test"
    assert choice.test.case_ids == ["t-a", "t-b", "t-c", "t-d"]
    assert len(model.calls) == calls_on_dev + 4
    assert choice.to_dict()["test"]["name"] == "both"

    tuned = choose_and_report(dev, cases, tune_threshold=True, **kw)
    assert tuned.chosen.name == "both"  # the tie with "both@0.05" goes to the earlier candidate
    assert "tie" in tuned.reason


def test_choose_refuses_test_results_and_shared_ids() -> None:
    cases = split_set()
    on_test = run_grader_experiment(cases, "relevance", [Variant(name="s", combine=Combine.SIGNAL)], split="test")
    with pytest.raises(UsageError, match="choose on the dev split"):
        choose_and_report(on_test, cases)
    on_dev = run_grader_experiment(cases, "relevance", [Variant(name="s", combine=Combine.SIGNAL)], split="dev")
    leaky = [c.model_copy(update={"split": "test"}) for c in SETS["relevance"][0]]
    with pytest.raises(UsageError, match="test cases reuse dev case ids: a, b, c, d"):
        choose_and_report(on_dev, leaky)


# -- variants files ---------------------------------------------------------------------------------
def test_load_variants_from_toml_with_a_prompt_file(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "v2.toml").write_text(
        'version = "relevance/v2"\nsystem = "Grade. Reply {{\\"verdict\\": ...}}."\nuser = "{question} {document}"\n'
    )
    path = tmp_path / "variants.toml"
    path.write_text(
        '[[variants]]\nname = "v2-both"\nprompt_file = "prompts/v2.toml"\ncombine = "both"\nthreshold = 0.3\n'
        'llm = { provider = "openai", model = "gpt-4o-mini", structured_output_method = "function_calling" }\n'
        '[[variants]]\nname = "signal"\ncombine = "signal"\n'
    )
    v2, sig = load_variants(path, kind="relevance")
    assert v2.prompt is not None and v2.prompt.version == "relevance/v2" and v2.combine is Combine.BOTH
    settings = v2.settings(LLMSettings())
    assert (settings.provider, settings.structured_output_method) == ("openai", "function_calling")
    assert sig.combine is Combine.SIGNAL and sig.threshold == 0.5


def test_load_variants_from_json(tmp_path: Path) -> None:
    path = tmp_path / "v.json"
    path.write_text(json.dumps([{"name": "a", "prompt": PROMPT_V2, "llm": {"api_key": "sk-secret"}}]))
    (a,) = load_variants(path)
    assert a.prompt is not None and a.prompt.spec().version == "relevance/v2"
    assert a.public_dict()["llm"] == {"api_key": "***"}


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("v.yaml", "x", "must be a .json or .toml file"),
        ("v.json", "{", "is not valid JSON"),
        ("v.toml", "[[variants]\n", "is not valid TOML"),
        ("v.json", '{"variants": []}', "needs a non-empty 'variants' list"),
        ("v.json", '[{"name": "a", "colour": "red"}]', "variant 1 ('a'): colour: Extra inputs are not permitted"),
        ("v.json", '[{"name": "a", "combine": "maybe"}]', "variant 1 ('a'): combine: Input should be"),
        ("v.json", '[{"name": "a", "threshold": 2}]', "threshold: Input should be less than or equal to 1"),
        ("v.json", '[{"name": "a", "llm": {"modle": "x"}}]', "llm.modle is not an LLM setting"),
        ("v.json", '[{"name": "a", "llm": {"provider": "anthropic"}}]', "llm.provider: no provider profile is registered as 'anthropic' (registered: local, openai)"),
        ("v.json", '[{"name": "a", "prompt_file": "p.toml", "prompt": {"version": "v", "system": "s", "user": "u"}}]', "not both"),
        ("v.json", '[{"name": "a", "prompt_file": "missing.toml"}]', "cannot read prompt file"),
        ("v.json", '[{"name": "a"}, {"name": "a"}]', "repeats names: a"),
        ("v.json", '[{"combine": "llm"}]', "variant 1: name: Field required"),
        ("v.json", '[{"name": "a", "prompt": {"version": "v", "system": "s", "user": "{question} {answer}"}}]',
         "uses {answer}, which the relevance grader does not fill (it fills document, question)"),
        ("v.json", '[{"name": "a", "prompt": {"version": "v", "system": "reply {\\"verdict\\"}", "user": "{question}"}}]',
         "bad template braces"),
    ],
)
def test_variants_file_mistakes_are_one_line_usage_errors(tmp_path: Path, name: str, content: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(VariantsError) as info:
        load_variants(path, kind="relevance")
    err = info.value
    assert isinstance(err, UsageError) and err.code == "variants_invalid"
    assert message in str(err) and "\n" not in str(err)


def test_missing_variants_file(tmp_path: Path) -> None:
    with pytest.raises(VariantsError, match="cannot read variants file"):
        load_variants(tmp_path / "nope.toml")


def test_default_variants_compare_the_model_the_critic_and_both_combinations() -> None:
    # The critic's probabilities are calibrated: 0.5 is where a sweep starts from.
    assert [(v.name, v.combine.value, v.threshold) for v in default_variants("groundedness")] == [
        ("llm", "llm", 0.5), ("signal", "signal", 0.5), ("both", "both", 0.5), ("either", "either", 0.5),
    ]


def test_a_prompt_with_a_foreign_field_fails_before_any_call() -> None:
    bad = Variant(name="bad", prompt={"version": "v", "system": "s", "user": "{answer}"})
    with pytest.raises(VariantsError, match="does not fill"):
        run("relevance", [bad])


# -- files and the summary line ---------------------------------------------------------------------
def test_write_experiment_and_summary_line(tmp_path: Path) -> None:
    cases = split_set()
    model = scripted("relevance")
    kw: dict[str, Any] = {"model_factory": lambda v: model, "retry": NO_WAIT, "resamples": 50}
    dev = run_grader_experiment(cases, "relevance", split="dev", **kw)
    choice = choose_and_report(dev, cases, **kw)
    written = write_experiment(dev, tmp_path / "out", choice=choice)
    out = tmp_path / "out"
    assert {p.name for p in out.iterdir()} == {
        "results.json", "report.md", "sweep-02-signal.png", "sweep-03-both.png", "sweep-04-either.png",
    }
    assert (out / "sweep-03-both.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert written["report"] == out / "report.md"
    data = json.loads((out / "results.json").read_text())
    assert data["kind"] == "relevance" and data["split"] == "dev" and data["cases"] == 4 and data["positives"] == 1
    assert data["choice"]["chosen"]["name"] == "both" and data["plots"]["both"] == "sweep-03-both.png"
    assert data["variants"][2]["confusion"] == {"tp": 1, "fp": 0, "tn": 3, "fn": 0}
    assert [o["id"] for o in data["variants"][3]["worst_misses"]["fp"]] == ["b", "c"]
    report = (out / "report.md").read_text()
    for fragment in ("# Grader experiment: relevance", "| both | both @ 0.5, prompt default | 4 | 1.000 [1.000, 1.000]",
                     "| either | 1 | 2 | 1 | 0 |", "![both](sweep-03-both.png)", "### either: false positives",
                     "## Chosen on dev, evaluated on test"):
        assert fragment in report

    line = summary_line(dev)
    assert list(line) == ["variants"]
    assert line["variants"][2] == {
        "name": "both", "n": 4, "accuracy": 1.0, "balanced_accuracy": 1.0, "precision": 1.0,
        "recall": 1.0, "f1": 1.0, "kappa": 1.0, "mcc": 1.0,
    }
    assert line["variants"][0]["precision"] == 0.5 and line["variants"][0]["mcc"] == pytest.approx(0.5774)
    assert all(type(v) in (str, int, float) for row in line["variants"] for v in row.values())
    json.dumps(line)


def test_unknown_kind_and_duplicate_names() -> None:
    with pytest.raises(UsageError, match="unknown grader kind 'tone'"):
        run_grader_experiment(SETS["relevance"][0], "tone")
    with pytest.raises(VariantsError, match="variant names repeat: x"):
        run("relevance", [Variant(name="x"), Variant(name="x", combine=Combine.SIGNAL)])
