"""Binary classification metrics, worked out by hand, and their degenerate cases."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eval.classification import (
    METRICS,
    Confusion,
    accuracy,
    balanced_accuracy,
    bootstrap_interval,
    classify,
    cohen_kappa,
    f1,
    mcc,
    precision,
    recall,
)


def pairs(c: Confusion) -> tuple[list[bool], list[bool]]:
    """Labels and predictions that produce exactly ``c``."""
    labels = [True] * c.tp + [False] * c.fp + [False] * c.tn + [True] * c.fn
    preds = [True] * c.tp + [True] * c.fp + [False] * c.tn + [False] * c.fn
    return labels, preds


def test_confusion_from_pairs() -> None:
    labels = [True, True, False, False, True, False]
    preds = [True, False, True, False, True, False]
    assert Confusion.from_pairs(labels, preds) == Confusion(tp=2, fp=1, tn=2, fn=1)
    assert Confusion(2, 1, 2, 1).n == 6
    with pytest.raises(ValueError):
        Confusion.from_pairs([True], [True, False])


def test_hand_worked_example() -> None:
    # tp=3, fp=1, tn=4, fn=2 (n=10; 5 positive labels, 4 positive predictions):
    #   accuracy  (3+4)/10 = 0.7           precision 3/(3+1) = 0.75      recall 3/(3+2) = 0.6
    #   F1        2·3/(2·3+1+2) = 6/9      balanced  (3/5 + 4/5)/2 = 0.7 (TNR = tn/(tn+fp) = 4/5)
    #   kappa     p_o = 0.7, p_e = 0.5·0.4 + 0.5·0.6 = 0.5 → (0.7-0.5)/(1-0.5) = 0.4
    #   MCC       (3·4 - 1·2)/√(4·5·5·6) = 10/√600 ≈ 0.4082
    c = Confusion(tp=3, fp=1, tn=4, fn=2)
    assert accuracy(c) == pytest.approx(0.7)
    assert precision(c) == pytest.approx(0.75)
    assert recall(c) == pytest.approx(0.6)
    assert f1(c) == pytest.approx(2 / 3)
    assert balanced_accuracy(c) == pytest.approx(0.7)
    assert cohen_kappa(c) == pytest.approx(0.4)
    assert mcc(c) == pytest.approx(0.408248, abs=1e-6)


def test_a_second_example_with_negative_agreement() -> None:
    # tp=1, fp=3, tn=1, fn=3: worse than chance.
    #   accuracy 2/8 = 0.25; balanced (1/4 + 1/4)/2 = 0.25; precision 1/4; recall 1/4; F1 2/(2+6) = 0.25
    #   kappa p_o = 0.25, p_e = 0.5·0.5 + 0.5·0.5 = 0.5 → -0.25/0.5 = -0.5
    #   MCC (1 - 9)/√(4·4·4·4) = -8/16 = -0.5
    c = Confusion(tp=1, fp=3, tn=1, fn=3)
    assert [METRICS[m](c) for m in METRICS] == pytest.approx([0.25, 0.25, 0.25, 0.25, 0.25, -0.5, -0.5])


def test_constant_yes_grader() -> None:
    # What a lenient small model does: says "relevant" to all 10 cases, 8 of which are relevant.
    #   precision 0.8, recall 1, F1 16/18; balanced (1 + 0)/2 = 0.5
    #   kappa p_o = 0.8 = p_e = 0.8·1 + 0.2·0 → 0: no agreement beyond chance
    #   MCC: the "predicted negative" margin is empty → 0 by convention
    c = Confusion(tp=8, fp=2, tn=0, fn=0)
    assert accuracy(c) == pytest.approx(0.8)
    assert precision(c) == pytest.approx(0.8)
    assert recall(c) == 1.0
    assert f1(c) == pytest.approx(16 / 18)
    assert balanced_accuracy(c) == pytest.approx(0.5)
    assert cohen_kappa(c) == pytest.approx(0.0)
    assert mcc(c) == 0.0


def test_no_positive_labels() -> None:
    # 10 negatives, 2 wrongly passed: recall is undefined (None), precision 0/2 = 0, F1 0/(0+2+0) = 0;
    # balanced accuracy is the one class's recall, 8/10; kappa p_o = 0.8 = p_e → 0; MCC margin empty → 0.
    c = Confusion(tp=0, fp=2, tn=8, fn=0)
    assert recall(c) is None
    assert precision(c) == 0.0
    assert f1(c) == 0.0
    assert balanced_accuracy(c) == pytest.approx(0.8)
    assert cohen_kappa(c) == pytest.approx(0.0)
    assert mcc(c) == 0.0


def test_all_one_class_and_all_agreed() -> None:
    c = Confusion(tp=0, fp=0, tn=5, fn=0)
    assert (accuracy(c), balanced_accuracy(c)) == (1.0, 1.0)
    assert (precision(c), recall(c), f1(c), cohen_kappa(c)) == (None, None, None, None)
    assert mcc(c) == 0.0


def test_empty_set_is_all_none_without_dividing_by_zero() -> None:
    c = Confusion(0, 0, 0, 0)
    assert all(fn(c) is None for fn in METRICS.values())
    report = classify([], [])
    assert report.n == 0 and report.accuracy_wilson is None
    assert all(e == (None, None, None) for e in report.metrics.values())


def test_classify_is_seeded_and_brackets_the_point_value() -> None:
    labels, preds = pairs(Confusion(tp=30, fp=10, tn=40, fn=20))
    a = classify(labels, preds, seed=7)
    assert a == classify(labels, preds, seed=7)
    assert a.metrics["accuracy"].value == pytest.approx(0.7)
    for name, est in a.metrics.items():
        assert est.value is not None and est.low is not None and est.high is not None, name
        assert est.low <= est.value <= est.high, name
        assert est.high - est.low > 0.01, name
    # With 100 cases, the bootstrap and Wilson intervals of accuracy nearly agree.
    assert a.accuracy_wilson is not None
    assert a.metrics["accuracy"].low == pytest.approx(a.accuracy_wilson[0], abs=0.04)
    assert a.metrics["accuracy"].high == pytest.approx(a.accuracy_wilson[1], abs=0.04)


def test_wilson_interval_of_seven_out_of_ten() -> None:
    report = classify(*pairs(Confusion(3, 1, 4, 2)))
    assert report.accuracy_wilson == pytest.approx((0.3968, 0.8922), abs=1e-4)


def test_stratified_bootstrap_keeps_a_perfect_grader_perfect() -> None:
    # On 4 cases an unstratified resample often has no positive, where MCC is 0 by convention;
    # keeping the class counts fixed, every resample is still perfect.
    report = classify([True, False, False, False], [True, False, False, False])
    assert all(e == (1.0, 1.0, 1.0) for e in report.metrics.values())


def test_bootstrap_interval_ignores_undefined_resamples() -> None:
    samples = [Confusion(0, 0, 3, 0), Confusion(1, 0, 2, 0), Confusion(1, 1, 1, 0)]
    assert bootstrap_interval(precision, samples) == pytest.approx((0.5, 1.0), abs=0.03)
    assert bootstrap_interval(precision, [Confusion(0, 0, 3, 0)]) is None


def test_report_to_dict_is_plain_json() -> None:
    d = classify(*pairs(Confusion(3, 1, 4, 2)), resamples=50).to_dict()
    assert d["n"] == 10 and d["confusion"] == {"tp": 3, "fp": 1, "tn": 4, "fn": 2}
    assert d["metrics"].keys() == METRICS.keys()  # type: ignore[attr-defined]
    assert d["bootstrap"] == {"resamples": 50, "seed": 0, "confidence": 0.95}


counts = st.integers(min_value=0, max_value=30)


@given(counts, counts, counts, counts)
def test_every_metric_is_finite_and_in_range(tp: int, fp: int, tn: int, fn: int) -> None:
    c = Confusion(tp, fp, tn, fn)
    for name, metric in METRICS.items():
        value = metric(c)
        if value is None:
            continue
        assert math.isfinite(value)
        lo = -1.0 if name in ("kappa", "mcc") else 0.0
        assert lo - 1e-9 <= value <= 1.0 + 1e-9, (name, c, value)
