"""Reading examples generated from real sentences (eval.training.generated): the questions each
sentence answers, and the seeded example set built from passages."""

from __future__ import annotations

import random
from collections import Counter

from eval.training.generated import build_generated, questions_from

VOCAB = frozenset({"approve", "move", "open", "stop", "carry", "use", "add", "reach", "plan", "increase"})


def _asked(sentence: str, seed: int = 0) -> dict[str, list[str]]:
    """The questions by kind, lower-cased: the reader's tokenizer is uncased, and a sentence's
    first word keeps its capital unless it is a function word."""
    out: dict[str, list[str]] = {}
    for q in questions_from(sentence, VOCAB, random.Random(seed)):
        out.setdefault(q.kind if q.kind != "span" else q.genre, []).append((q.question if q.kind != "span" else f"{q.question} -> {q.answer}").lower())
    return out


def test_an_auxiliary_moves_to_the_front_and_a_changed_figure_is_answered_no() -> None:
    got = _asked("Refunds are issued within 14 days of the request.")
    assert got["yes"] == ["are refunds issued within 14 days of the request?"]
    (no,) = got["no"]
    assert no.startswith("are refunds issued within ") and "14 days" not in no


def test_has_as_a_main_verb_takes_does_and_a_regular_past_takes_did() -> None:
    assert _asked("The library has 12 reading rooms on two floors.")["yes"] == [
        "does the library have 12 reading rooms on two floors?"]
    assert _asked("The council approved the plan in March after a long debate.")["yes"] == [
        "did the council approve the plan in march after a long debate?"]
    assert _asked("The museum carried the exhibition to three other cities.")["yes"] == [
        "did the museum carry the exhibition to three other cities?"]
    # "has been" is the auxiliary, not possession
    assert _asked("The bridge has been closed to lorries since the flood.")["yes"] == [
        "has the bridge been closed to lorries since the flood?"]


def test_a_name_is_swapped_for_another_of_the_sentence_when_there_is_no_figure() -> None:
    got = _asked("The treaty was signed by Spain and Portugal in the presence of the envoys.")
    assert got["yes"] == ["was the treaty signed by spain and portugal in the presence of the envoys?"]
    (no,) = got["no"]
    assert no != got["yes"][0] and ("spain" not in no or "portugal" not in no)


def test_a_reason_gives_the_why_question_of_its_main_clause() -> None:
    got = _asked("Fees are not refunded after 14 days because the membership card has already been issued.")
    assert got["why"] == ["why are fees not refunded after 14 days? -> the membership card has already been issued"]
    before = _asked("Due to heavy rain in the spring, the festival was moved to August.")
    assert before["why"] == ["why was the festival moved to august? -> heavy rain in the spring"]
    result = _asked("The old hall had no heating, so the concerts were moved to the church.")
    assert result["why"] == ["why were the concerts moved to the church? -> the old hall had no heating"]


def test_a_means_or_a_goal_gives_the_how_question() -> None:
    got = _asked("The city cut its waiting times by opening two new clinics in the suburbs.")
    assert got["how"] == ["how did the city cut its waiting times? -> opening two new clinics in the suburbs"] or \
        got["how"] == ["how the city cut its waiting times -> opening two new clinics in the suburbs"]
    steps = _asked("To freeze a membership, email the front desk and pay the admin fee.")
    (how,) = steps["how"]
    question, answer = how.split(" -> ")
    assert "freeze a membership" in question and answer == "email the front desk and pay the admin fee"


def test_sentences_that_cannot_be_turned_cleanly_are_skipped() -> None:
    assert questions_from("Is the pass valid on night buses?", VOCAB, random.Random(0)) == []
    assert questions_from('The sign says "no entry" after dark.', VOCAB, random.Random(0)) == []
    assert questions_from("Too short.", VOCAB, random.Random(0)) == []
    # a clausal subject is not guessed at
    assert "yes" not in _asked("The woman who founded the club was a teacher from the village.")


def test_the_example_set_is_seeded_balanced_and_points_at_its_sentences() -> None:
    passages = [
        "The Ashford bridge is 420 metres long. It was opened in 1998 by the mayor. Tolls were dropped in 2005 "
        "because traffic had fallen by a third.",
        "Members may bring 2 guests per month. The gym is open from 6 am to 10 pm. Lockers are cleared every "
        "night so that cleaners can disinfect them.",
        "The river floods every spring. Its delta covers 30 square kilometres. Farmers moved inland because the "
        "floods grew worse after 1990.",
    ]
    a = build_generated(passages, 40, seed=3, vocabulary=VOCAB)
    b = build_generated(passages, 40, seed=3, vocabulary=VOCAB)
    assert a == b and a != build_generated(passages, 40, seed=4, vocabulary=VOCAB)
    kinds = Counter(e.kind for e in a)
    assert kinds["yes"] == kinds["no"] > 0 and kinds["span"] >= 2
    for e in a:
        if e.kind == "none":
            assert e.evidence == (0, 0)
            continue
        start, end = e.evidence or (0, 0)
        sentence = e.passage[start:end]
        assert sentence.endswith(".")
        if e.kind == "span":
            assert start <= e.start < e.end <= end and e.passage[e.start:e.end] in sentence
    # a question asked of another passage is labelled none there, never of its own passage
    own = {(e.question, e.passage) for e in a if e.kind != "none"}
    assert all((e.question, e.passage) not in own for e in a if e.kind == "none")
