"""The reader-critic artifact and its inference code, on a tiny model the tests build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch

from selfrag.errors import ModelIntegrityError, ProviderError
from selfrag.reading import sentence_spans, split_sentences
from selfrag.reading.artifact import (
    INFO_FILE,
    WEIGHTS_FILE,
    ArtifactInfo,
    Calibration,
    artifact_sha256,
    load_state,
    save_artifact,
)
from selfrag.reading.encoding import reader_windows
from selfrag.reading.judge import build_net, load_judge, resolve_precision


def test_weights_are_checked_against_their_record(tiny_judge_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "tampered"
    shutil.copytree(tiny_judge_dir, bad)
    data = bytearray((bad / WEIGHTS_FILE).read_bytes())
    data[-1] ^= 0xFF
    (bad / WEIGHTS_FILE).write_bytes(bytes(data))
    with pytest.raises(ModelIntegrityError, match="refusing to load"):
        load_state(bad)


def test_a_release_pin_refuses_other_weights(tiny_judge_dir: Path) -> None:
    with pytest.raises(ModelIntegrityError, match="this release pins"):
        load_state(tiny_judge_dir, expected_sha256="0" * 64)


def test_a_missing_artifact_is_a_provider_error(tmp_path: Path) -> None:
    with pytest.raises(ProviderError, match="judge.json is missing"):
        load_state(tmp_path)


def test_int8_storage_keeps_the_weights_within_their_row_scale(tiny_judge_dir: Path, tmp_path: Path) -> None:
    info = ArtifactInfo.model_validate_json((tiny_judge_dir / INFO_FILE).read_text())
    torch.manual_seed(1)
    net = build_net(info.encoder_config)
    saved = save_artifact(tmp_path / "again", net.state_dict(), info)
    _, state = load_state(tmp_path / "again")
    original = net.state_dict()
    for name, tensor in state.items():
        ref = original[name].float()
        if ref.dim() == 2 and ref.numel() >= 4096:
            step = ref.abs().amax(dim=1, keepdim=True) / 127
            assert bool(((tensor - ref).abs() <= step / 2 + 1e-7).all()), name
        else:
            assert torch.equal(tensor, ref), name
    assert saved.sha256 == artifact_sha256(tmp_path / "again" / WEIGHTS_FILE)
    assert (tmp_path / "again" / WEIGHTS_FILE).stat().st_size < sum(t.numel() * 4 for t in original.values()) / 2


def test_the_reader_returns_a_span_of_a_passage_with_its_sentence(tiny_judge_dir: Path, tokenizer_dir: Path) -> None:
    judge = load_judge(tiny_judge_dir, base_dir=tokenizer_dir)
    passages = ["Dolorin is taken with water. Adults take two tablets every six hours.",
                "The filter cartridge lasts three months. Replace it when the light turns red."]
    reading = judge.read("How often do adults take Dolorin?", passages)
    assert reading.kind in ("span", "yes", "no")
    assert 0 <= reading.passage < 2 and 0.0 <= reading.probability <= 1.0
    text = passages[reading.passage]
    if reading.kind == "span":
        assert text[reading.start : reading.end].strip() == reading.answer and reading.answer
    assert reading.sentences and all(text[a:b] in text for a, b in reading.sentences)
    assert judge.name == "tiny-judge-v1"


def test_a_long_passage_is_read_in_overlapping_windows(tiny_judge_dir: Path, tokenizer_dir: Path) -> None:
    judge = load_judge(tiny_judge_dir, base_dir=tokenizer_dir)
    long = " ".join(f"Sentence number {i} says the value is {i * 7}." for i in range(60))
    windows = reader_windows(judge.tokenizer, ["What value?"], [long], max_length=64, stride=16)
    assert len(windows.example) > 5 and set(windows.example) == {0}
    spans = [[o for o in row if o is not None] for row in windows.offsets]
    assert spans[-1][-1][1] == len(long)  # the last window reaches the passage's end
    for before, after in zip(spans, spans[1:], strict=False):
        assert after[0][0] < before[-1][1]  # consecutive windows overlap
    reading = judge.read("What value does sentence 55 give?", [long])
    if reading.kind == "span":
        assert long[reading.start : reading.end].strip() == reading.answer


def test_a_long_question_is_read_without_failing(tiny_judge_dir: Path, tokenizer_dir: Path) -> None:
    # A question of 1,000+ characters (a user's preamble, then the ask) left the passage less room
    # in a window than the stride between windows: the tokenizer refused it. The question keeps
    # its start and its end (where the ask usually is), and the passage is read as ever.
    judge = load_judge(tiny_judge_dir, base_dir=tokenizer_dir)
    passage = "Iron Bloom is a steel sculpture. It weighs 410 kg and stands in Room 6."
    question = "I was reading about the museum and its objects and wondered, " * 40 + "how heavy is Iron Bloom?"
    windows = reader_windows(judge.tokenizer, [question], [passage], max_length=64, stride=16)
    assert set(windows.example) == {0}
    assert [o for o in windows.offsets[0] if o is not None][-1][1] == len(passage)  # the whole passage is seen
    reading = judge.read(question, [passage])
    if reading.kind == "span":
        assert passage[reading.start : reading.end].strip() == reading.answer


def test_critic_scores_are_probabilities_in_input_order(tiny_judge_dir: Path, tokenizer_dir: Path) -> None:
    judge = load_judge(tiny_judge_dir, base_dir=tokenizer_dir)
    a = judge.score("relevance", ["q one", "q two"], ["passage one", "passage two"])
    b = judge.score("relevance", ["q two"], ["passage two"])
    assert len(a) == 2 and all(0.0 <= p <= 1.0 for p in a)
    assert a[1] == pytest.approx(b[0], abs=1e-5)  # batching does not change a pair's score
    assert judge.threshold("support") == 0.6 and judge.threshold("unknown", 0.42) == 0.42
    assert json.loads((tiny_judge_dir / INFO_FILE).read_text())["name"] == "tiny-judge-v1"


# -- sentences -----------------------------------------------------------------------------------
def test_sentences_are_not_split_at_abbreviations_or_initials() -> None:
    # Bug: the old splitter cut "the Frank P." and "Roe v." into sentences of their own.
    assert split_sentences("He lived in the Frank P. Smith house. It burned.") == [
        "He lived in the Frank P. Smith house.", "It burned."]
    assert split_sentences("In Roe v. Wade the court ruled. She has an M.A. in history.") == [
        "In Roe v. Wade the court ruled.", "She has an M.A. in history."]
    assert split_sentences("Revenue was $4.5 billion. Dr. Lee agreed.") == ["Revenue was $4.5 billion.", "Dr. Lee agreed."]


def test_sentences_glued_without_a_space_are_split_and_spans_point_into_the_text() -> None:
    text = '"Die 4 U" is on the album "Purple Rain".Purple Rain sold 25 million copies. It won awards.'
    spans = sentence_spans(text)
    assert [s.text for s in spans] == ['"Die 4 U" is on the album "Purple Rain".', "Purple Rain sold 25 million copies.",
                                      "It won awards."]
    assert all(text[s.start : s.end] == s.text for s in spans)


def _yes_saying_judge(tmp_path: Path, calibration: dict[str, Calibration]) -> Path:
    from transformers import BertConfig

    from tests.reading.conftest import TINY

    torch.manual_seed(0)
    config = BertConfig(**TINY).to_dict()
    net = build_net(config)
    with torch.no_grad():
        net.kind[2].bias.copy_(torch.tensor([-20.0, 20.0, -20.0, -20.0]))  # always "yes", surely
    info = ArtifactInfo(name="yes-judge-v1", sha256="", base="tiny", encoder_config=config, max_length=64, stride=16,
                        critic_max_length=64, calibration=calibration, thresholds={"reader": 0.5})
    save_artifact(tmp_path, net.state_dict(), info)
    return tmp_path


def test_yes_no_answers_take_their_own_calibration_when_the_artifact_has_one(tmp_path: Path, tokenizer_dir: Path) -> None:

    passage = ["Dolorin is taken with water. Adults take two tablets every six hours."]
    shared = load_judge(_yes_saying_judge(tmp_path / "a", {"reader": Calibration(a=1.0, b=5.0)}), base_dir=tokenizer_dir)
    own = load_judge(_yes_saying_judge(tmp_path / "b", {"reader": Calibration(a=1.0, b=5.0),
                                                       "reader_yes_no": Calibration(a=0.0, b=-2.0)}),
                     base_dir=tokenizer_dir)
    a, b = shared.read("Is Dolorin taken with water?", passage), own.read("Is Dolorin taken with water?", passage)
    assert a.kind == b.kind == "yes"
    assert a.probability > 0.99
    assert b.probability == pytest.approx(1 / (1 + 2.718281828 ** 2.0), rel=1e-3)  # a flat 0.12: at chance or worse


def test_as_stored_gives_exactly_the_weights_a_saved_artifact_loads(tiny_judge_dir: Path, tmp_path: Path) -> None:
    from selfrag.reading.artifact import as_stored

    info, state = load_state(tiny_judge_dir)
    torch.manual_seed(0)
    fresh = {k: v + 0.01 * torch.randn_like(v) for k, v in state.items()}  # off the int8 grid again
    saved = save_artifact(tmp_path / "again", fresh, info.model_copy(update={"base_tensors": []}))
    _, loaded = load_state(tmp_path / "again", expected_sha256=saved.sha256)
    stored = as_stored(fresh)
    assert stored.keys() == loaded.keys()
    assert all(torch.equal(stored[k], loaded[k]) for k in loaded)
    assert any(not torch.equal(stored[k], fresh[k]) for k in fresh)  # it did round something


def test_candidates_are_distinct_best_first_and_begin_with_what_read_returns(tiny_judge_dir: Path, tokenizer_dir: Path) -> None:
    judge = load_judge(tiny_judge_dir, base_dir=tokenizer_dir)
    passages = ["Dolorin is taken with water. Adults take two tablets every six hours.",
                "The filter cartridge lasts three months. Replace it when the light turns red."]
    question = "How often do adults take Dolorin?"
    found = judge.candidates(question, passages, 4)
    assert 1 <= len(found) <= 4
    first = judge.read(question, passages)
    assert (found[0].answer, found[0].passage, found[0].raw, found[0].probability) == (
        first.answer, first.passage, first.raw, first.probability)
    assert [r.raw for r in found] == sorted((r.raw for r in found), reverse=True)
    keys = [" ".join("".join(c for c in r.answer.lower() if c.isalnum() or c.isspace()).split()) for r in found]
    assert len(set(keys)) == len(keys)
    for r in found:
        if r.kind == "span":
            assert passages[r.passage][r.start : r.end].strip() == r.answer
    assert judge.candidates(question, [], 3) == [] and judge.candidates(question, passages, 0) == []


def test_an_artifact_can_take_its_support_judgement_from_a_pinned_verifier(tiny_judge_dir: Path, tmp_path: Path,
                                                                           tokenizer_dir: Path) -> None:
    from selfrag.reading.artifact import SupportVerifier

    verifier = _verifier(tiny_judge_dir, tmp_path, 7, {"support": 0.77})
    main = _naming_verifier(tiny_judge_dir, tmp_path / "main",
                            support=SupportVerifier(folder="../verifier", sha256=verifier.sha256))
    judge = load_judge(main, base_dir=tokenizer_dir)
    alone = load_judge(tiny_judge_dir, base_dir=tokenizer_dir)
    check = load_judge(tmp_path / "verifier", base_dir=tokenizer_dir)
    pairs = (["q and its answer"], ["the passage"])
    assert judge.score("support", *pairs) == check.score("support", *pairs) != alone.score("support", *pairs)
    assert judge.score("relevance", *pairs) == alone.score("relevance", *pairs)
    assert judge.threshold("support") == 0.77 and judge.threshold("relevance") == alone.threshold("relevance")
    assert judge.name == "tiny-judge-v1+tiny-verifier-v1" and judge.version.endswith("+" + check.version)
    assert judge.read("a question?", ["A passage."]) == alone.read("a question?", ["A passage."])
    # a verifier whose weights are not the pinned ones is refused, like any artifact
    other = _naming_verifier(tiny_judge_dir, tmp_path / "other", support=SupportVerifier(folder="../verifier", sha256="0" * 64))
    with pytest.raises(ModelIntegrityError):
        load_judge(other, base_dir=tokenizer_dir)


def test_a_verified_artifact_reads_the_answer_the_combination_prefers(tiny_judge_dir: Path, tmp_path: Path,
                                                                      tokenizer_dir: Path) -> None:
    from selfrag.reading.artifact import SupportVerifier, Verified

    verifier = _verifier(tiny_judge_dir, tmp_path, 11)
    passages = ["Dolorin is taken with water. Adults take two tablets every six hours.",
                "The filter cartridge lasts three months. Replace it when the light turns red."]
    question = "How often do adults take Dolorin?"

    def judge_with(verified: Verified, folder: str) -> Any:
        main = _naming_verifier(tiny_judge_dir, tmp_path / folder, verified=verified,
                                support=SupportVerifier(folder="../verifier", sha256=verifier.sha256))
        return load_judge(main, base_dir=tokenizer_dir)

    # the support logit alone decides: the candidate the verifier scores highest is read
    by_support = judge_with(Verified(reader=0.0, support=1.0, bias=0.0, candidates=4), "by-support")
    found = by_support.candidates(question, passages, 4)
    scores = by_support.score("support", [f"{question} {r.answer}" for r in found], [passages[r.passage] for r in found])
    best = max(range(len(found)), key=lambda i: scores[i])
    read = by_support.read(question, passages)
    assert (read.answer, read.passage) == (found[best].answer, found[best].passage)
    assert read.probability == pytest.approx(scores[best], abs=1e-6)
    # the reader's logit alone, one candidate: the reader's answer and its own probability
    by_reader = judge_with(Verified(reader=1.0, support=0.0, bias=0.0, candidates=1), "by-reader")
    alone = load_judge(tiny_judge_dir, base_dir=tokenizer_dir).read(question, passages)
    again = by_reader.read(question, passages)
    assert (again.answer, again.passage) == (alone.answer, alone.passage)
    assert again.probability == pytest.approx(alone.probability, abs=1e-6)


def test_a_verifier_of_answers_only_leaves_the_claims_and_the_probability_to_the_artifact(
        tiny_judge_dir: Path, tmp_path: Path, tokenizer_dir: Path) -> None:
    from selfrag.reading.artifact import SupportVerifier, Verified

    verifier = _verifier(tiny_judge_dir, tmp_path, 13, {"support": 0.91})
    main = _naming_verifier(tiny_judge_dir, tmp_path / "main",
                            support=SupportVerifier(folder="../verifier", sha256=verifier.sha256, claims=False),
                            verified=Verified(reader=0.0, support=1.0, bias=0.0, candidates=4, confidence="reader"))
    judge = load_judge(main, base_dir=tokenizer_dir)
    alone = load_judge(tiny_judge_dir, base_dir=tokenizer_dir)
    check = load_judge(tmp_path / "verifier", base_dir=tokenizer_dir)
    pairs = (["q and its answer"], ["the passage"])
    assert judge.score("support", *pairs) == alone.score("support", *pairs)  # the claims: the artifact's own critic
    assert judge.threshold("support") == alone.threshold("support") != 0.91
    passages = ["Dolorin is taken with water. Adults take two tablets every six hours.",
                "The filter cartridge lasts three months. Replace it when the light turns red."]
    question = "How often do adults take Dolorin?"
    found = judge.candidates(question, passages, 4)
    scores = check.score("support", [f"{question} {r.answer}" for r in found], [passages[r.passage] for r in found])
    chosen = found[max(range(len(found)), key=lambda i: scores[i])]
    read = judge.read(question, passages)
    # the verifier chose the answer; it carries the reader's own probability of it
    assert (read.answer, read.passage, read.probability) == (chosen.answer, chosen.passage, chosen.probability)


def _verifier(tiny_judge_dir: Path, tmp_path: Path, seed: int, thresholds: dict[str, float] | None = None) -> ArtifactInfo:
    """A second tiny artifact (other random weights) in ``tmp_path/verifier``; its saved record."""
    torch.manual_seed(seed)
    info = ArtifactInfo.model_validate_json((tiny_judge_dir / INFO_FILE).read_text())
    update: dict[str, Any] = {"name": "tiny-verifier-v1"}
    if thresholds is not None:
        update["thresholds"] = thresholds
    return save_artifact(tmp_path / "verifier", build_net(info.encoder_config).state_dict(), info.model_copy(update=update))


def _naming_verifier(tiny_judge_dir: Path, folder: Path, **update: Any) -> Path:
    """A copy of the tiny artifact in ``folder`` whose record is updated (``support``, ``verified``)."""
    shutil.copytree(tiny_judge_dir, folder)
    info = ArtifactInfo.model_validate_json((tiny_judge_dir / INFO_FILE).read_text())
    (folder / INFO_FILE).write_text(info.model_copy(update=update).model_dump_json())
    return folder


def test_a_span_answer_never_runs_across_a_sentence_boundary(tiny_judge_dir: Path, tokenizer_dir: Path) -> None:
    # Short sentences, random weights: the tiny reader's best spans would often straddle a full
    # stop ("2,380 in 2023. The water board says …"). An answer is a phrase of one sentence.
    judge = load_judge(tiny_judge_dir, base_dir=tokenizer_dir)
    passages = ["Ash is 4. Bel is 9. Cor is 12. Dun is 30. Elm is 7. Fen is 2.",
                "It rose to 2,380 in 2023. The board says the ladder helped. Fish came back. Anglers cheered."]
    seen = 0
    for question in ("What is Dun?", "How many fish in 2023?", "Why did fish come back?", "Who cheered?"):
        for r in judge.candidates(question, passages, 5):
            if r.kind != "span":
                continue
            seen += 1
            inside = [s for s in sentence_spans(passages[r.passage]) if s.start <= r.start and r.end <= s.end]
            assert inside, (question, r.answer)
    assert seen


def test_a_question_that_asks_for_something_is_never_answered_yes(tmp_path: Path, tokenizer_dir: Path) -> None:
    # Bug: asked "price of a monthly pass in kessford", the reader's yes/no head said "Yes".
    judge = load_judge(_yes_saying_judge(tmp_path, {"reader": Calibration(a=1.0, b=0.0)}), base_dir=tokenizer_dir)
    passage = ["A monthly pass costs $72. Passes are sold at every station."]
    assert judge.read("Is a monthly pass sold at stations?", passage).kind == "yes"
    for question in ("price of a monthly pass in kessford", "What does a monthly pass cost?"):
        assert judge.read(question, passage).kind == "span"


def test_bfloat16_is_a_view_of_the_same_weights_named_in_the_version(tiny_judge_dir: Path, tokenizer_dir: Path) -> None:
    judge = load_judge(tiny_judge_dir, base_dir=tokenizer_dir)
    assert judge.with_precision("float32") is judge
    fast = judge.with_precision("bfloat16")
    assert fast.net is judge.net and fast.precision == "bfloat16" and judge.precision == "float32"
    assert fast.version == judge.version + "/bf16"
    firsts, seconds = ["q one", "q two", "q three"], ["a passage", "another passage here", "x"]
    exact, approx = judge.score("relevance", firsts, seconds), fast.score("relevance", firsts, seconds)
    assert all(isinstance(p, float) and 0.0 <= p <= 1.0 for p in approx)
    assert max(abs(a - b) for a, b in zip(exact, approx, strict=True)) < 0.05
    passage = ["Ada Lovelace wrote the first program. She was born in 1815."]
    assert fast.read("When was Ada Lovelace born?", passage).kind == judge.read("When was Ada Lovelace born?", passage).kind


def test_auto_precision_is_one_the_cpu_runs_natively() -> None:
    assert resolve_precision("auto") in ("float32", "bfloat16")
    assert resolve_precision("float32") == "float32" and resolve_precision("bfloat16") == "bfloat16"


def test_an_artifacts_record_carries_no_path_of_the_machine_that_built_it(tiny_judge_dir: Path, tmp_path: Path) -> None:
    # Bug: transformers' config.to_dict() keeps `_name_or_path`, the folder the base model was read
    # from (a venv's site-packages), so every judge.json named the build machine's paths and two
    # builds of the same weights on two machines wrote different records.
    info, state = load_state(tiny_judge_dir)
    built_here = {**info.encoder_config, "_name_or_path": "/home/builder/.venv/lib/python3.11/site-packages/base/model"}
    saved = save_artifact(tmp_path / "built", state, info.model_copy(update={"encoder_config": built_here}))
    record = (tmp_path / "built" / INFO_FILE).read_text()
    assert "/home/builder" not in record
    assert "_name_or_path" not in json.loads(record)["encoder_config"]
    assert saved.encoder_config["hidden_size"] == info.encoder_config["hidden_size"]
    # … and a record written before the fix loads the same, without the path
    legacy = json.loads((tiny_judge_dir / INFO_FILE).read_text())
    legacy["encoder_config"]["_name_or_path"] = "/home/builder/model"
    assert "_name_or_path" not in ArtifactInfo.model_validate(legacy).encoder_config


def test_a_configured_judge_folder_without_an_artifact_is_a_configuration_error(tmp_path: Path) -> None:
    # Bug: `[judge] path` naming a folder with no artifact was reported as a provider outage
    # (provider_unavailable, exit 1, HTTP 503 upstream) although the configuration is what is wrong.
    from selfrag.errors import ConfigError
    from selfrag.reading import default_judge

    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "missing", tmp_path / "empty"):
        with pytest.raises(ConfigError, match=r"\[judge\] path") as caught:
            default_judge(folder)
        assert caught.value.code == "config_invalid"
        assert str(tmp_path) not in str(caught.value)  # names the folder, not the whole machine path


def test_answers_disagree_when_neither_holds_the_other_s_words() -> None:
    from selfrag.reading import disagree

    assert disagree("42 minutes", "46 minutes") and disagree("Yes", "No") and disagree("Delhi", "Mumbai")
    assert not disagree("Gorillaz", "the band Gorillaz") and not disagree("42 Minutes.", "42 minutes")
    assert not disagree("", "anything")


def test_read_names_the_best_answer_of_another_passage_that_says_otherwise(tiny_judge_dir: Path, tokenizer_dir: Path) -> None:
    from selfrag.reading import disagree

    judge = load_judge(tiny_judge_dir, base_dir=tokenizer_dir)
    passages = ["The journey from Kingsford to Millbrook takes 42 minutes.",
                "The journey from Kingsford to Millbrook took 46 minutes.",
                "The first train leaves at 05:48."]
    rivals = 0
    for question in ("How long is the journey from Kingsford to Millbrook?", "When does the first train leave?",
                     "How long did the journey take?", "What takes 42 minutes?"):
        first = judge.read(question, passages)
        found = judge.candidates(question, passages, 5)
        expected = next((r for r in found if r.passage != first.passage and disagree(r.answer, first.answer)), None)
        assert first.rival == expected
        rivals += expected is not None
        assert judge.read(question, passages[:1]).rival is None  # one passage has no rival
    assert rivals  # a random tiny reader: some other passage answers otherwise somewhere


@pytest.mark.parametrize(("passage", "start", "expected"), [
    # Session 36's weather user was given "1.2 °C" for a mean temperature of -1.2 °C: the tokenizer
    # splits the minus sign off, and the span began at the digits.
    ("a mean temperature of -1.2 °C", 23, 22),
    ("the low was −4 C", 13, 12),
    ("(-3.5 °C)", 2, 1),
    # A hyphen between figures or words is no sign: "10-12", "COVID-19".
    ("between 10-12 days", 11, 11),
    ("the COVID-19 trial", 10, 10),
])
def test_a_span_starting_at_a_figure_takes_its_minus_sign(passage: str, start: int, expected: int) -> None:
    from selfrag.reading.judge import signed_start

    assert signed_start(passage, start) == expected
