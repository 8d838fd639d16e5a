"""The synthetic reading examples: answers where they say, unanswerable ones unanswerable, seeded,
and nothing borrowed from the held-out sets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from eval.training import synthetic
from eval.training.synthetic import GENRES, build_synthetic

ROOT = Path(__file__).resolve().parents[2]


def test_the_same_seed_gives_the_same_examples_and_another_seed_others() -> None:
    assert build_synthetic(200, 5) == build_synthetic(200, 5)
    assert build_synthetic(200, 5) != build_synthetic(200, 6)
    assert len(build_synthetic(137, 5)) == 137


@pytest.mark.parametrize("genre", sorted(GENRES))
def test_each_span_lies_inside_its_evidence_sentence(genre: str) -> None:
    examples = build_synthetic(300, 3, genres=(genre,))
    spans = [e for e in examples if e.kind == "span"]
    assert spans and any(e.kind == "none" for e in examples)
    for e in spans:
        answer = e.passage[e.start : e.end]
        assert answer.strip() == answer and answer
        assert e.evidence is not None and e.evidence[0] <= e.start < e.end <= e.evidence[1]


def test_a_series_question_gets_the_figure_of_the_year_it_names() -> None:
    for e in build_synthetic(300, 4, genres=("series",)):
        if e.kind != "span":
            continue
        year = re.search(r"\b(?:19|20)\d\d\b", e.question)
        assert year is not None
        # the figure written right before "in <year>", or after "<year>:" / "In <year> ..."
        stated_after = e.passage[e.end :].startswith(f" in {year.group()}")
        stated_before = re.findall(r"\b(?:19|20)\d\d\b", e.passage[: e.start])[-1:] == [year.group()]
        assert stated_after or stated_before, (e.question, e.passage)


def test_an_unanswerable_question_asks_for_a_year_or_group_the_passage_lacks() -> None:
    for e in build_synthetic(300, 8, genres=("series",)):
        if e.kind == "none":
            year = re.search(r"\b(19|20)\d\d\b", e.question)
            assert year is not None and year.group() not in e.passage
    for e in build_synthetic(300, 8, genres=("doses",)):
        if e.kind == "none":
            group = e.question.split(" for ")[-1].rstrip("?")
            assert group.lower() not in e.passage.lower()


def test_no_name_from_the_held_out_sets_is_ever_made() -> None:
    held_out = ""
    for path in (ROOT / "eval" / "sets").glob("heldout-*/*.jsonl"):
        held_out += path.read_text().lower()
    assert held_out, "the held-out sets were not found"
    names = {onset + coda for onset in synthetic._ONSETS for coda in synthetic._CODAS}
    products = {name + end for name in names for end in synthetic._PRODUCT_ENDINGS}
    borrowed = sorted(n for n in names | products if re.search(rf"\b{n.lower()}\b", held_out))
    assert borrowed == []


def test_support_examples_pair_each_question_with_its_answer_and_with_a_near_miss() -> None:
    import random

    from eval.training.examples import ReaderExample
    from eval.training.synthetic import support_examples

    text = "Ashford population was 4,100 in 2019 and 4,300 in 2020. Its rainfall was 900 mm in 2020."
    at = text.index
    passage = [
        ReaderExample("Ashford population in 2019?", text, "span", at("4,100"), at("4,100") + 5),
        ReaderExample("Ashford population in 2020?", text, "span", at("4,300"), at("4,300") + 5),
        ReaderExample("Ashford rainfall in 2020?", text, "span", at("900 mm"), at("900 mm") + 6),
        ReaderExample("Ashford population in 2023?", text, "none", evidence=(0, 0)),
    ]
    examples = support_examples(passage, random.Random(1))
    assert {e.task for e in examples} == {"support"} and all(e.second == text for e in examples)
    positives = {e.first for e in examples if e.label == 1}
    assert positives == {"Ashford population in 2019? 4,100", "Ashford population in 2020? 4,300",
                         "Ashford rainfall in 2020? 900 mm"}
    negatives = [e.first for e in examples if e.label == 0]
    assert len(negatives) == 4
    # a negative is always an answer the passage states, given to a question it does not answer
    for first in negatives:
        question, answer = first.split("? ")
        assert answer in text and f"{question}? {answer}" not in positives


def test_synthetic_critic_examples_are_seeded_balanced_enough_and_count_as_asked() -> None:
    from eval.training.synthetic import build_synthetic_critic

    examples = build_synthetic_critic(500, 7)
    assert examples == build_synthetic_critic(500, 7) and examples != build_synthetic_critic(500, 8)
    assert len(examples) == 500
    share = sum(e.label for e in examples) / len(examples)
    assert 0.3 < share < 0.7
    # the reader's synthetic stream for the same seed is untouched by the critic's
    assert build_synthetic(50, 7) == build_synthetic(50, 7)


def test_the_default_genres_are_the_ones_v4_was_trained_on() -> None:
    # make weights rebuilds v4 with the default: a new genre must not change its data
    from eval.training.synthetic import DEFAULT_GENRES

    assert DEFAULT_GENRES == ("series", "places", "doses", "steps")
    assert build_synthetic(120, 13) == build_synthetic(120, 13, DEFAULT_GENRES)
    assert not any(" library: " in e.passage or " provides " in e.passage for e in build_synthetic(400, 13))


def test_a_terms_question_gets_the_figure_stated_with_the_item_it_names() -> None:
    examples = build_synthetic(400, 9, genres=("terms",))
    spans = [e for e in examples if e.kind == "span"]
    assert len(spans) > 100
    for e in spans:
        sentence = e.passage[e.evidence[0] : e.evidence[1]] if e.evidence else ""
        # the item the figure belongs to is the nearest item named before it (or, for counts, after it)
        items = [item for _, _, pool, *_ in synthetic._TERMS for item in pool if item in e.question]
        assert items, e.question
        item = max(items, key=len)
        before = e.passage[: e.start].lower().rfind(item.lower())
        after = e.passage[e.end : e.end + len(item) + 1].lower()
        assert before >= e.evidence[0] or after.strip() == item.lower(), (e.question, sentence)
        others = [e.passage[o.start : o.end] for o in spans if o.passage == e.passage and o is not e]
        assert e.passage[e.start : e.end] not in others  # every item has its own figure


def test_a_rules_passage_answers_yes_and_no_from_the_same_sentences() -> None:
    examples = build_synthetic(600, 4, genres=("rules",))
    yes = [e for e in examples if e.kind == "yes"]
    no = [e for e in examples if e.kind == "no"]
    assert yes and no and 0.4 < len(yes) / (len(yes) + len(no)) < 0.6
    for e in yes + no:
        assert e.evidence is not None and e.evidence[1] > e.evidence[0]
    # the sentences that answer a no also answer a yes: shared words never decide the answer
    no_sentences = {(e.passage, e.evidence) for e in no}
    yes_sentences = {(e.passage, e.evidence) for e in yes}
    assert len(no_sentences & yes_sentences) / len(no_sentences) > 0.6


def test_a_how_question_is_answered_by_the_steps_never_by_a_figure_beside_them() -> None:
    examples = build_synthetic(300, 6, genres=("procedures",))
    how = [e for e in examples if e.kind == "span" and not e.question.lower().startswith(("why", "what is the reason"))]
    assert len(how) > 80
    for e in how:
        answer = e.passage[e.start : e.end]
        assert not re.fullmatch(r"[$\d][\d,. ]*\w*", answer), (e.question, answer)
        # the passage states figures beside the steps: the near misses a reader must pass over
        assert re.search(r"\d", e.passage[: e.start] + e.passage[e.end :])
