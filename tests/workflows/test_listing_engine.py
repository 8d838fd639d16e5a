"""Listings through the engine on a schema without a graph, in a real Chroma: a request its filter
holds whole ("chess clubs in Boston") is answered with the matching records, each satisfying the
filter, without asking any model; a request with a topic left, or whose filter had to be relaxed,
is not listed as a match."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from eval.plan_sets import load_plan_set
from selfrag.testing import ScriptedChatModel
from tests.workflows.conftest import records_engine
from workflows import RunOptions, SelfRagEngine

CLUBS = Path(__file__).resolve().parents[2] / "eval" / "sets" / "clubs"


@pytest.fixture
def engine(chroma_client: Any) -> tuple[SelfRagEngine, ScriptedChatModel]:
    plan_set = load_plan_set(CLUBS)
    return records_engine(chroma_client, "clubs", plan_set.schema_, [CLUBS / "records.jsonl"], "A model's answer [1].",
                          top_k=4, today=lambda: plan_set.today, relevant=False)


def test_a_request_its_filter_holds_is_answered_with_the_matching_records(engine: Any) -> None:
    run, model = engine
    result = run.run("chess clubs in Boston", collection="clubs")
    assert result.outcome == "answered"
    assert result.trace.generations[-1]["strategy"] == "listing"
    assert result.citations and all(c.metadata["activity"] == "chess" and c.metadata["city"] == "Boston"
                                    for c in result.citations)
    assert "(activity: chess; city: Boston)" in result.answer
    assert model.calls_for("generate") == []
    # the relevance grader said "irrelevant" to everything: the filter, which holds the whole
    # request, decided what matches, and the trace says so
    assert all(d["relevant"] for d in result.trace.documents)


def test_a_limit_in_the_request_bounds_the_listing(engine: Any) -> None:
    run, _ = engine
    result = run.run("show me 2 rowing clubs", collection="clubs")
    assert result.outcome == "answered" and len(result.citations) == 2
    assert all(c.metadata["activity"] == "rowing" for c in result.citations)


def test_a_topic_beyond_the_filter_is_not_listed(engine: Any) -> None:
    run, _ = engine
    result = run.run("chess clubs in Boston with a grandmaster coach", collection="clubs")
    assert all(g["strategy"] != "listing" for g in result.trace.generations)


def test_a_filter_nothing_matches_lists_no_looser_search_s_documents(engine: Any) -> None:
    # No chess club was founded before 1700: a relaxed search's clubs are no answer, and that none
    # match is (the filter holds all the request asks).
    run, _ = engine
    result = run.run("chess clubs founded before 1700", collection="clubs")
    assert all(g["strategy"] != "listing" for g in result.trace.generations)
    assert result.outcome == "answered" and result.short_answer == "0 matching documents"
    assert result.citations == [] and "founded before 1700" in result.answer


def test_a_listing_longer_than_its_page_says_how_many_match_in_all(engine: Any) -> None:
    # Three rowing clubs, a page of two: "2 matching documents" was signed as the count, and the
    # short answer a client reads said 2.
    run, _ = engine
    result = run.run("rowing clubs", collection="clubs", options=RunOptions(top_k=2))
    assert result.outcome == "answered" and len(result.citations) == 2
    assert result.answer.splitlines()[0] == "3 matching documents; the first 2:"
    assert result.short_answer == "3 matching documents"
    whole = run.run("rowing clubs", collection="clubs", options=RunOptions(top_k=3))
    assert whole.answer.splitlines()[0] == "3 matching documents:" and whole.short_answer == "3 matching documents"


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("How many members does the Boston Knights Chess Club have?", "85"),
        ("Who is the president of the Boston Knights Chess Club?", "Maria Lopez"),
        ("members boston knights chess club?", "85"),
    ],
)
def test_an_attribute_of_the_one_document_the_filter_selects_is_read_from_its_record(
        engine: Any, question: str, value: str) -> None:
    # A new user's course catalogue: "credits phil 230?" was answered "Yes: 1 matching document",
    # and "How many credits is Coral Reef Ecology?" "Credits.": the record the filter selected
    # holds the value the question names.
    run, model = engine
    result = run.run(question, collection="clubs")
    assert result.outcome == "answered", result.trace.stop_reason
    assert result.short_answer == value and result.answer.startswith(f"{value}.")
    assert [c.metadata["name"] for c in result.citations] == ["Boston Knights Chess Club"]
    assert result.trace.generations[-1]["strategy"] == "field"
    assert model.calls_for("generate") == []


@pytest.mark.parametrize(
    "question",
    [
        "Why does the Boston Knights Chess Club have so many members?",  # asks something else of it
        "How many members do chess clubs have?",  # several records
        "Does the Boston Knights Chess Club accept juniors?",  # yes or no: not a value
    ],
)
def test_no_record_value_answers_what_it_does_not_hold(engine: Any, question: str) -> None:
    run, _ = engine
    result = run.run(question, collection="clubs")
    assert all(g["strategy"] != "field" for g in result.trace.generations)


def test_a_how_many_question_its_filter_holds_is_answered_with_the_count(engine: Any) -> None:
    # A new user's postmortems: "How many search incidents were there?" was read by the reader out
    # of one incident's text ("410,000 searches"); the filter held the whole question.
    run, model = engine
    result = run.run("How many rowing clubs are there?", collection="clubs", options=RunOptions(top_k=2))
    assert result.outcome == "answered" and result.short_answer == "3 matching documents"
    assert result.trace.generations[-1]["strategy"] == "listing"
    assert model.calls_for("generate") == []


@pytest.mark.parametrize("question", ["How many members do rowing clubs have?", "members of rowing clubs?"])
def test_a_question_naming_an_attribute_of_several_records_is_no_listing(engine: Any, question: str) -> None:
    # It asks their values, not whether any exist nor how many there are.
    run, _ = engine
    result = run.run(question, collection="clubs")
    assert all(g["strategy"] not in ("listing", "field") for g in result.trace.generations)


def test_which_items_have_a_list_element_are_listed_from_the_list(chroma_client: Any, tmp_path: Path) -> None:
    # "Which laptops have Thunderbolt 4?" was the reader's: one passage's laptop, of the two that have it.
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "Laptop spec sheets", "attributes": [
        {"name": "model", "type": "string", "kind": "identifier"}, {"name": "ports", "type": "string[]"}]})
    rows = [("aero", "Aero 14", ["HDMI", "Thunderbolt 4"]), ("volt", "Volt 17", ["HDMI"]),
            ("tern", "Tern T2", ["Thunderbolt 4", "USB-C"])]
    path = tmp_path / "laptops.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": f"The {m} has {', '.join(p)} ports.",
                                        "metadata": {"model": m, "ports": p}}) + "\n" for i, m, p in rows))
    run, _ = records_engine(chroma_client, "laptops", schema, [path], "Volt 17 [1].", top_k=4)
    result = run.run("Which laptops have Thunderbolt 4?", collection="laptops")
    assert result.outcome == "answered" and result.trace.generations[-1]["strategy"] == "listing"
    assert sorted(c.id for c in result.citations) == ["aero", "tern"]


def test_a_replayed_turn_keeps_its_short_answer(chroma_client: Any) -> None:
    # An Idempotency-Key retry got the answer and citations back, but no short answer (a probe).
    from langgraph.checkpoint.memory import InMemorySaver

    plan_set = load_plan_set(CLUBS)
    run, _ = records_engine(chroma_client, "clubs", plan_set.schema_, [CLUBS / "records.jsonl"], "A model's answer [1].",
                            top_k=4, today=lambda: plan_set.today, relevant=False, checkpointer=InMemorySaver())
    first = run.run("chess clubs in Boston", collection="clubs", thread_id="t1", options=RunOptions(request_key="k1"))
    again = run.run("chess clubs in Boston", collection="clubs", thread_id="t1", options=RunOptions(request_key="k1"))
    assert again.replayed and first.short_answer is not None
    assert (again.short_answer, again.confidence) == (first.short_answer, first.confidence)


def test_a_field_question_over_several_records_is_still_their_listing(chroma_client: Any, tmp_path: Path) -> None:
    # "Which products were recalled in 2020?" names the product attribute, and "recalled" is what
    # its description records: the field answer took it, found two records, and gave up, where
    # the listing of the two had been signed.
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "Product recall notices", "attributes": [
        {"name": "product", "type": "string", "description": "name of the recalled product", "kind": "name"},
        {"name": "year", "type": "integer", "description": "year the recall was announced", "kind": "year"}]})
    path = tmp_path / "recalls.jsonl"
    rows = [("r1", "Quill Hand Mixer", 2020), ("r2", "Pebble Rattle", 2020), ("r3", "Nova Hair Dryer", 2021)]
    path.write_text("".join(json.dumps({"id": i, "text": f"{p} is recalled.", "metadata": {"product": p, "year": y}}) + "\n"
                            for i, p, y in rows))
    run, _ = records_engine(chroma_client, "recalls", schema, [path], "Pebble Rattle [1].", top_k=4,
                            today=lambda: date(2025, 6, 1))
    several = run.run("Which products were recalled in 2020?", collection="recalls")
    assert several.outcome == "answered" and several.trace.generations[-1]["strategy"] == "listing"
    assert sorted(c.id for c in several.citations) == ["r1", "r2"]
    one = run.run("Which product was recalled in 2021?", collection="recalls")
    assert one.outcome == "answered" and one.short_answer == "Nova Hair Dryer"


def test_an_answer_about_a_known_car_to_a_question_naming_a_longer_unknown_one_is_not_signed(
        chroma_client: Any, tmp_path: Path) -> None:
    # "What's the mileage on the Vesta Aurora Sport?" was signed with the Vesta Aurora's 15200.
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "Used-car listings", "attributes": [
        {"name": "make", "type": "string", "kind": "name"}, {"name": "model", "type": "string", "kind": "name"},
        {"name": "mileage", "type": "integer", "kind": "length", "unit": "mile"}]})
    path = tmp_path / "cars.jsonl"
    rows = [("c1", "Vesta", "Aurora", 15200), ("c2", "Halden", "Corvane 300 Sport", 30100), ("c3", "Vesta", "Lira", 4200)]
    path.write_text("".join(json.dumps({"id": i, "text": f"The {mk} {md} has done {mi} miles.",
                                        "metadata": {"make": mk, "model": md, "mileage": mi}}) + "\n"
                            for i, mk, md, mi in rows))
    run, _ = records_engine(chroma_client, "cars", schema, [path], "15200 miles [1].", top_k=4,
                            today=lambda: date(2025, 6, 1))
    result = run.run("What's the mileage on the Vesta Aurora Sport?", collection="cars")
    assert result.outcome != "answered"
    known = run.run("What's the mileage on the Vesta Aurora?", collection="cars")
    assert known.outcome == "answered" and known.short_answer == "15200"


def test_an_answer_that_is_a_stored_figure_of_another_measure_is_not_signed(chroma_client: Any, tmp_path: Path) -> None:
    # "How many units of the Quill Hand Mixer were sold?" was signed with the 3,100 units the notice
    # recalls (its units_affected): the passage never says how many were sold.
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "Product recall notices", "attributes": [
        {"name": "product", "type": "string", "description": "name of the recalled product", "kind": "name"},
        {"name": "units_affected", "type": "integer", "description": "number of units recalled", "kind": "count"},
        {"name": "recall_date", "type": "string", "description": "date the recall was announced", "kind": "date"}]})
    path = tmp_path / "recalls.jsonl"
    rows = [("r1", "Quill Hand Mixer", 3100, "2023-04-02"), ("r2", "Pebble Rattle", 12000, "2022-01-15")]
    path.write_text("".join(json.dumps({"id": i, "text": f"The maker is recalling about {u:,} {p}s.",
                                        "metadata": {"product": p, "units_affected": u, "recall_date": d}}) + "\n"
                            for i, p, u, d in rows))
    run, _ = records_engine(chroma_client, "recalls", schema, [path], "3,100 [1].", top_k=4,
                            today=lambda: date(2025, 6, 1))
    sold = run.run("How many units of the Quill Hand Mixer were sold?", collection="recalls")
    assert sold.outcome != "answered"
    assert any(v["kind"] == "attribute" and not v["passed"] and "units_affected" in v["reason"]
               for v in sold.trace.verdicts)
    recalled = run.run("How many Quill Hand Mixers are being recalled?", collection="recalls")
    assert recalled.outcome == "answered" and recalled.answer.startswith("3,100")


def test_an_answer_that_is_a_stored_word_of_another_attribute_is_not_signed(chroma_client: Any, tmp_path: Path) -> None:
    # "Where does Tunde Okafor work?" was signed "Garden Pavilion", the room his poster was held in
    # (the passage names his institute beside it): the room records where a talk is held, not work.
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "Conference talks", "attributes": [
        {"name": "speaker", "type": "string", "kind": "name", "description": "person who gives the talk"},
        {"name": "room", "type": "string", "kind": "place", "description": "room or hall where the talk is held"}]})
    path = tmp_path / "talks.jsonl"
    rows = [("t1", "Tunde Okafor", "Garden Pavilion"), ("t2", "Elena Hartmann", "Hartmann Hall")]
    path.write_text("".join(json.dumps({"id": i, "text": f"A poster by {s} (Karolinska Institute), held in {r}.",
                                        "metadata": {"speaker": s, "room": r}}) + "\n" for i, s, r in rows))
    run, _ = records_engine(chroma_client, "talks", schema, [path], "Garden Pavilion [1].", top_k=4,
                            today=lambda: date(2025, 6, 1))
    work = run.run("Where does Tunde Okafor work?", collection="talks")
    assert work.outcome != "answered"
    assert any(v["kind"] == "attribute" and not v["passed"] and "room" in v["reason"] for v in work.trace.verdicts)
    held = run.run("Where is Tunde Okafor's talk held?", collection="talks")
    assert held.outcome == "answered" and held.short_answer == "Garden Pavilion"


def test_a_comparison_with_a_named_item_is_not_that_item_s_field(chroma_client: Any, tmp_path: Path) -> None:
    # "Which cars cost more than the Okapi Dune?" was answered "35200", the Dune's own price, signed.
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "Used-car listings", "attributes": [
        {"name": "make", "type": "string", "kind": "name", "description": "manufacturer of the car"},
        {"name": "model", "type": "string", "kind": "name", "description": "model name of the car"},
        {"name": "price", "type": "integer", "kind": "money", "unit": "USD", "description": "asking price of the car"}]})
    path = tmp_path / "cars.jsonl"
    rows = [("c1", "Okapi", "Dune", 35200), ("c2", "Vesta", "Aurora", 48900), ("c3", "Vesta", "Lira", 14200)]
    path.write_text("".join(json.dumps({"id": i, "text": f"The {mk} {md} is for sale.",
                                        "metadata": {"make": mk, "model": md, "price": p}}) + "\n"
                            for i, mk, md, p in rows))
    run, _ = records_engine(chroma_client, "cars", schema, [path], "35200 [1].", top_k=4, today=lambda: date(2025, 6, 1))
    result = run.run("Which cars cost more than the Okapi Dune?", collection="cars")
    assert not (result.outcome == "answered" and result.short_answer == "35200")
    assert all(g["strategy"] != "field" for g in result.trace.generations)
    own = run.run("How much does the Okapi Dune cost?", collection="cars")
    assert own.outcome == "answered" and own.short_answer == "35200"


def test_how_many_items_named_by_their_identifier_s_word_is_their_count(chroma_client: Any, tmp_path: Path) -> None:
    # "How many recalls did Copperleaf issue?" was signed with the short answer "R16 and R17": the
    # word "recalls" named recall_id, and the listing led with the records' identifiers.
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "Product recall notices", "attributes": [
        {"name": "recall_id", "type": "string", "description": "identifier of the recall notice", "kind": "identifier"},
        {"name": "brand", "type": "string", "description": "brand that issued the recall", "kind": "name"}]})
    path = tmp_path / "recalls.jsonl"
    rows = [("r1", "R16", "Copperleaf"), ("r2", "R17", "Copperleaf"), ("r3", "R18", "Kestrel Home")]
    path.write_text("".join(json.dumps({"id": i, "text": f"{b} is recalling a product.",
                                        "metadata": {"recall_id": r, "brand": b}}) + "\n" for i, r, b in rows))
    run, _ = records_engine(chroma_client, "recalls", schema, [path], "R16 [1].", top_k=4, today=lambda: date(2025, 6, 1))
    result = run.run("How many recalls did Copperleaf issue?", collection="recalls")
    assert result.outcome == "answered" and result.short_answer == "2 matching documents"


def _papers(chroma_client: Any, tmp_path: Path, answer: str) -> SelfRagEngine:
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "Research papers; the text is the abstract", "attributes": [
        {"name": "paper_id", "type": "string", "kind": "identifier", "description": "paper identifier"},
        {"name": "title", "type": "string", "kind": "name", "description": "title of the paper"}]})
    path = tmp_path / "papers.jsonl"
    rows = [("P-116", "Contrastive Sentence Embeddings", "Dropout noise alone is a strong augmentation."),
            ("P-132", "Checking Scientific Claims", "We verify scientific claims against paper abstracts.")]
    path.write_text("".join(json.dumps({"id": i, "text": t, "metadata": {"paper_id": i, "title": ti}}) + "\n"
                            for i, ti, t in rows))
    run, _ = records_engine(chroma_client, "papers", schema, [path], answer, top_k=4, today=lambda: date(2025, 6, 1))
    return run


def test_an_answer_to_which_item_that_names_no_cited_item_is_not_signed(chroma_client: Any, tmp_path: Path) -> None:
    # "Which paper found that dropout noise alone is a strong augmentation?" was signed "Paper
    # abstracts", a phrase of another abstract: the question asks which paper, and that is none.
    wrong = _papers(chroma_client, tmp_path, "Paper abstracts [2].")
    result = wrong.run("Which paper found that dropout noise alone is a strong augmentation?", collection="papers")
    assert result.outcome != "answered"
    assert any(v["kind"] == "attribute" and not v["passed"] for v in result.trace.verdicts)


def test_an_answer_to_which_item_naming_a_cited_item_is_signed(chroma_client: Any, tmp_path: Path) -> None:
    right = _papers(chroma_client, tmp_path, "Contrastive Sentence Embeddings (P-116) [1].")
    result = right.run("Which paper found that dropout noise alone is a strong augmentation?", collection="papers")
    assert result.outcome == "answered"


def test_a_field_of_one_record_asked_of_an_unread_year_is_not_signed(chroma_client: Any, tmp_path: Path) -> None:
    # "What was the removal cost of TR-2051 in 2019?" was signed with the tree's current estimate,
    # the year left unread (planted in 2019, or inspected?): the record holds no 2019 figure.
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "City street trees, one record per tree", "attributes": [
        {"name": "tree_id", "type": "string", "kind": "identifier", "description": "the tree's id, e.g. TR-2051"},
        {"name": "planted_year", "type": "integer", "kind": "year", "description": "year the tree was planted"},
        {"name": "last_inspected", "type": "date", "kind": "date", "description": "date of the tree's last inspection"},
        {"name": "removal_cost", "type": "integer", "kind": "money", "description": "estimated cost of removing the tree in dollars"}]})
    path = tmp_path / "trees.jsonl"
    rows = [("TR-2051", 2019, "2024-05-02", 3300), ("TR-2015", 2023, "2023-08-15", 900)]
    path.write_text("".join(json.dumps({"id": i, "text": f"Tree {i} was planted in {y}.",
                                        "metadata": {"tree_id": i, "planted_year": y, "last_inspected": d,
                                                     "removal_cost": c}}) + "\n" for i, y, d, c in rows))
    run, _ = records_engine(chroma_client, "trees", schema, [path], "3300 [1].", top_k=4,
                            today=lambda: date(2025, 6, 1))
    then = run.run("What was the removal cost of TR-2051 in 2019?", collection="trees")
    assert all(g["strategy"] != "field" for g in then.trace.generations)
    now = run.run("What is the removal cost of TR-2051?", collection="trees")
    assert now.trace.generations[-1]["strategy"] == "field" and now.outcome == "answered"


def test_a_figure_of_an_attribute_that_records_nothing_asked_is_not_signed(chroma_client: Any, tmp_path: Path) -> None:
    # "What's the contents sum insured on Owen Price's policy?" was signed "220000", his buildings
    # sum insured ("sum insured for buildings; missing for contents-only policies"): its
    # description names contents only to say when it is missing.
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "Home insurance policies, one record per policy", "attributes": [
        {"name": "policy_number", "type": "string", "kind": "identifier", "description": "policy number"},
        {"name": "policyholder", "type": "string", "kind": "name", "description": "person who holds the policy"},
        {"name": "buildings_sum_insured", "type": "integer", "kind": "money",
         "description": "sum insured for buildings in pounds; missing for contents-only policies"},
        {"name": "contents_sum_insured", "type": "integer", "kind": "money", "description": "sum insured for contents in pounds"}]})
    path = tmp_path / "policies.jsonl"
    path.write_text(json.dumps({"id": "HP-4417", "text": "Policy HP-4417 is held by Owen Price.",
                                "metadata": {"policy_number": "HP-4417", "policyholder": "Owen Price",
                                             "buildings_sum_insured": 220000}}) + "\n")
    run, _ = records_engine(chroma_client, "policies", schema, [path], "220000 [1].", top_k=4,
                            today=lambda: date(2025, 6, 1))
    result = run.run("What's the contents sum insured on Owen Price's policy?", collection="policies")
    assert result.outcome != "answered"
    assert any(v["kind"] == "attribute" and not v["passed"] and "buildings_sum_insured" in v["reason"]
               for v in result.trace.verdicts)
