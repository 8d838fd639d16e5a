"""Superlatives through the engine, in a real Chroma: "the chess club with the most members" is
every chess club ranked by its stored member count, in code, and signed; a ranking the filter does
not hold whole (a topic left, a relaxed filter) is never a passage's answer signed."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from eval.plan_sets import load_plan_set
from selfrag.testing import ScriptedChatModel
from tests.workflows.conftest import records_engine
from workflows import SelfRagEngine

CLUBS = Path(__file__).resolve().parents[2] / "eval" / "sets" / "clubs"


@pytest.fixture
def engine(chroma_client: Any) -> tuple[SelfRagEngine, ScriptedChatModel]:
    plan_set = load_plan_set(CLUBS)
    # The model's answer names the smallest chess club and every grader passes it: what a passage
    # about one club would be signed as, were the ranking left to a reader.
    return records_engine(chroma_client, "clubs", plan_set.schema_, [CLUBS / "records.jsonl"],
                          "Chicago Gambit Society [1].", top_k=2, today=lambda: plan_set.today)


def test_the_most_is_the_largest_stored_value_among_every_match(engine: Any) -> None:
    run, model = engine
    # Three chess clubs and a page of two: the ranking reads every match, not the page.
    result = run.run("Which chess club has the most members?", collection="clubs")
    assert result.outcome == "answered"
    assert result.trace.generations[-1]["strategy"] == "ranking"
    assert result.short_answer == "Boston Knights Chess Club (members: 85)"
    assert result.answer.startswith("Boston Knights Chess Club: the highest members (85) of 3 matching documents.")
    assert [c.id for c in result.citations] == ["boston-knights"]
    assert model.calls_for("generate") == []


def test_a_superlative_naming_its_own_measure_ranks_by_the_one_attribute_of_that_kind(engine: Any) -> None:
    run, _ = engine
    oldest = run.run("the oldest hiking club", collection="clubs")
    assert oldest.outcome == "answered" and oldest.short_answer == "Cascade Trail Club (founded: 1906)"
    cheapest = run.run("the 2 cheapest rowing clubs", collection="clubs")
    assert cheapest.outcome == "answered"
    assert [c.id for c in cheapest.citations] == ["emerald-rowers", "portland-rowing"]
    assert cheapest.answer.splitlines()[0] == "The 2 with the lowest yearly_fee, of 3 matching documents:"


def test_documents_tied_for_first_are_all_named(engine: Any) -> None:
    run, _ = engine
    result = run.run("Which club has the lowest yearly fee?", collection="clubs")
    assert result.outcome == "answered"
    assert sorted(c.id for c in result.citations) == ["boston-cyclists", "chicago-gambit"]
    assert result.answer.startswith("2 share the lowest yearly_fee, of 30 matching documents:")


def test_a_superlative_with_a_topic_beyond_the_filter_is_never_a_passage_signed(engine: Any) -> None:
    run, _ = engine
    result = run.run("Which chess club with a grandmaster coach has the most members?", collection="clubs")
    assert all(g["strategy"] != "ranking" for g in result.trace.generations)
    assert result.outcome != "answered"
    ranking = [v for v in result.trace.verdicts if v["kind"] == "ranking"]
    assert ranking and not ranking[-1]["passed"] and "highest members" in ranking[-1]["reason"]


def test_a_relaxed_filter_is_not_ranked(engine: Any) -> None:
    run, _ = engine
    result = run.run("Which chess club founded before 1700 has the most members?", collection="clubs")
    assert result.trace.relaxations
    assert all(g["strategy"] != "ranking" for g in result.trace.generations)
    assert result.outcome != "answered"


def test_a_superlative_whose_measure_fits_two_attributes_is_not_signed(chroma_client: Any) -> None:
    hotels = CLUBS.parent / "hotels"
    plan_set = load_plan_set(hotels)
    run, _ = records_engine(chroma_client, "hotels", plan_set.schema_, [hotels / "records.jsonl"], "Hotel Hassler [1].",
                            top_k=4, today=lambda: plan_set.today)
    result = run.run("the best rated hotel in Rome", collection="hotels")
    assert result.outcome != "answered"
    ranking = [v for v in result.trace.verdicts if v["kind"] == "ranking"]
    assert ranking and "stars or guest_score: which one is not said" in ranking[-1]["reason"]


def test_items_named_in_the_plural_ask_for_a_ranked_page(engine: Any) -> None:
    # "top rated Japanese recipes" was answered with the one first: the plural asks for several.
    run, _ = engine
    result = run.run("the cheapest rowing clubs", collection="clubs")
    assert result.outcome == "answered"
    assert [c.id for c in result.citations] == ["emerald-rowers", "portland-rowing"]  # the page (top_k 2)


def test_an_average_is_computed_over_every_match_and_signed(engine: Any) -> None:
    # "$45 a year" (one club's fee) was read as the average at reader probability 0.81.
    run, model = engine
    result = run.run("What is the average yearly fee of chess clubs?", collection="clubs")
    assert result.outcome == "answered" and result.trace.generations[-1]["strategy"] == "average"
    assert result.short_answer == "55"  # (120 + 0 + 45) / 3
    assert sorted(c.id for c in result.citations) == ["boston-knights", "chicago-gambit", "denver-chess"]
    assert model.calls_for("generate") == []


def test_a_total_sums_every_match(engine: Any) -> None:
    run, _ = engine
    result = run.run("How many members do chess clubs have in total?", collection="clubs")
    assert result.outcome == "answered" and result.short_answer == "170"  # 85 + 27 + 58
    assert result.answer.startswith("170: the sum of members over 3 matching documents:")


def test_an_aggregate_with_a_topic_beyond_the_filter_is_never_a_passage_signed(engine: Any) -> None:
    run, _ = engine
    result = run.run("What is the average yearly fee of chess clubs with a grandmaster coach?", collection="clubs")
    assert result.outcome != "answered"
    assert [v for v in result.trace.verdicts if v["kind"] == "aggregate"]


def test_a_document_is_named_by_its_heading_not_its_heading_and_fields_run_together() -> None:
    from workflows.set_answers import first_sentence

    text = "# Adrexin trial ADX-101\n\nDrug: Adrexin\nPhase: 1\n\nThis is the summary of ADX-101. It enrolled 48 adults."
    assert first_sentence(text) == "Adrexin trial ADX-101"
    assert first_sentence("Boston Knights Chess Club is a chess club in Boston.  It has 85 members.") == \
        "Boston Knights Chess Club is a chess club in Boston"


INSPECTIONS = {
    "description": "Site inspections: which site was inspected, when, and the score it got.",
    "attributes": [
        {"name": "site", "type": "string", "description": "The inspected site's name"},
        {"name": "region", "type": "string", "description": "Region of the site", "allowed_values": ["north", "south"]},
        {"name": "inspected_on", "type": "date", "description": "Day of the inspection"},
        {"name": "score", "type": "integer", "description": "Inspection score out of 100", "minimum": 0, "maximum": 100},
    ],
    "extractors": [],
}


@pytest.fixture
def inspections(chroma_client: Any, tmp_path: Path) -> SelfRagEngine:
    from selfrag.schema import CollectionSchema

    rows = [("alder", "Alder Yard", "north", "2023-05-02", 71), ("birch", "Birch Depot", "north", "2021-11-30", 88),
            ("cedar", "Cedar Works", "north", "2024-02-14", 64), ("dune", "Dune Quay", "south", "2020-03-09", 90)]
    path = tmp_path / "inspections.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": f"{site} was inspected on {day}, scoring {score} of 100.",
                                        "metadata": {"site": site, "region": region, "inspected_on": day, "score": score}})
                            + "\n" for i, site, region, day, score in rows))
    # Every grader passes the model's answer, which names the newest northern site: what a passage
    # would be signed as, were the oldest left to a reader.
    run, _ = records_engine(chroma_client, "inspections", CollectionSchema.model_validate(INSPECTIONS), [path],
                            "Cedar Works [1].", top_k=2, today=lambda: date(2025, 6, 1))
    return run


def test_the_oldest_ranks_by_the_one_date_attribute(inspections: SelfRagEngine) -> None:
    # "the oldest" over a date attribute was left to the reader, unguarded: any passage signed.
    oldest = inspections.run("Which site in the north had the earliest inspection?", collection="inspections")
    assert oldest.outcome == "answered" and oldest.trace.generations[-1]["strategy"] == "ranking"
    assert oldest.short_answer == "Birch Depot (inspected_on: 2021-11-30)"
    # The newest is the matches newest first, read from every match's date, as it was.
    newest = inspections.run("the most recent inspection in the north", collection="inspections")
    assert newest.outcome == "answered" and [c.id for c in newest.citations][:1] == ["cedar"]
    assert newest.answer.startswith("3 matching documents; the 2 newest:")


def test_a_date_superlative_the_filter_does_not_hold_whole_is_not_signed(inspections: SelfRagEngine) -> None:
    result = inspections.run("Which site in the north had the earliest inspection with a fire alarm fault?",
                             collection="inspections")
    assert result.outcome != "answered"
    ranking = [v for v in result.trace.verdicts if v["kind"] == "ranking"]
    assert ranking and "lowest inspected_on" in ranking[-1]["reason"]


@pytest.mark.parametrize("question", ["Which chess club is the most popular?", "the friendliest rowing club",
                                      "Which rowing club is the best?"])
def test_a_superlative_no_stored_value_measures_is_not_a_passage_signed(engine: Any, question: str) -> None:
    # "the friendliest rowing club" compares every rowing club by something no attribute holds:
    # one passage calling itself friendly does not show that no other club is friendlier.
    run, _ = engine
    result = run.run(question, collection="clubs")
    assert result.outcome != "answered"
    ranking = [v for v in result.trace.verdicts if v["kind"] == "ranking"]
    assert ranking and "no stored attribute" in ranking[-1]["reason"]


def test_a_superlative_within_the_one_named_document_is_the_reader_s(engine: Any) -> None:
    run, _ = engine
    result = run.run("What is the best thing about the Boston Knights Chess Club?", collection="clubs")
    assert not [v for v in result.trace.verdicts if v["kind"] == "ranking"]


@pytest.fixture
def rainfall(chroma_client: Any, tmp_path: Path) -> SelfRagEngine:
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "Yearly rainfall records per town", "attributes": [
        {"name": "town", "type": "string", "description": "The town's name", "kind": "name"},
        {"name": "year", "type": "integer", "description": "Year of the record"},
        {"name": "rain_mm", "type": "float", "description": "Total rainfall in millimetres"},
        {"name": "stations", "type": "string[]", "description": "Weather stations in the town"}]})
    rows = [("kel-21", "Kelbridge", 2021, 812.0, ["Harrow Fen"]), ("kel-22", "Kelbridge", 2022, 760.0, ["Harrow Fen"]),
            ("ost-22", "Ostby", 2022, 880.0, ["Ostby Pier"]), ("mar-22", "Marlow Cross", 2022, 610.0, ["Harrow Fen"])]
    path = tmp_path / "rain.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": f"In {y} {t} recorded {mm:g} mm of rain.",
                                        "metadata": {"town": t, "year": y, "rain_mm": mm, "stations": st}}) + "\n"
                            for i, t, y, mm, st in rows))
    run, _ = records_engine(chroma_client, "rain", schema, [path], "Marlow Cross [1].", top_k=4,
                            today=lambda: date(2025, 6, 1))
    return run


def test_which_attribute_a_ranking_asks_for_names_each_document(rainfall: SelfRagEngine) -> None:
    # "Which town had the most rain in 2022?" named ``town``, which no filter tested: never ranked.
    result = rainfall.run("Which town had the most rain in 2022?", collection="rain")
    assert result.outcome == "answered" and result.trace.generations[-1]["strategy"] == "ranking"
    assert result.short_answer == "Ostby (rain_mm: 880)"


def test_which_attribute_a_listing_asks_for_is_shown_for_each_document(rainfall: SelfRagEngine) -> None:
    result = rainfall.run("Which towns have the Harrow Fen station?", collection="rain")
    assert result.outcome == "answered" and result.trace.generations[-1]["strategy"] == "listing"
    assert sorted(c.id for c in result.citations) == ["kel-21", "kel-22", "mar-22"]
    assert "town: Marlow Cross" in result.answer
    # the towns themselves, from every match (not only the page shown), lead the answer
    assert result.short_answer == "Kelbridge and Marlow Cross"
    assert result.answer.startswith("Kelbridge and Marlow Cross (town). 3 matching documents")


@pytest.mark.parametrize(("question", "short"), [
    ("Which had more rain in 2022, Ostby or Kelbridge?", "Ostby (rain_mm: 880)"),
    ("Which town got less rain in 2022, Ostby or Marlow Cross?", "Marlow Cross (rain_mm: 610)"),
])
def test_a_comparison_of_two_named_records_is_computed_from_their_values(rainfall: SelfRagEngine, question: str,
                                                                         short: str) -> None:
    # Two records, one stored value each: which is larger is arithmetic, never a passage's word.
    result = rainfall.run(question, collection="rain")
    assert result.outcome == "answered" and result.trace.generations[-1]["strategy"] == "ranking"
    assert result.short_answer == short
    assert result.answer.startswith(short.split(" (")[0] + ": the ")
    assert "of 2 matching documents" in result.answer


def test_a_comparison_over_more_than_the_two_named_is_not_computed(rainfall: SelfRagEngine) -> None:
    # Kelbridge has two years on record: "more rain than Ostby" compares which one's?
    result = rainfall.run("Which had more rain, Ostby or Kelbridge?", collection="rain")
    assert result.outcome != "answered"


@pytest.mark.parametrize(("question", "short", "first"), [
    ("Did Ostby get more rain than Kelbridge in 2022?", "Yes", "ost-22"),
    ("Did Kelbridge get more rain than Ostby in 2022?", "No", "kel-22"),
    ("Did Ostby get less rain than Kelbridge in 2022?", "No", "ost-22"),
    ("Was there less rain in Marlow Cross than in Ostby in 2022?", "Yes", "mar-22"),
])
def test_a_yes_no_comparison_of_two_named_records_is_computed_from_their_values(
        rainfall: SelfRagEngine, question: str, short: str, first: str) -> None:
    # "Did A get more rain than B?" asks whether A's stored value beats B's: arithmetic on the two
    # records the filter selects, both cited, the one asked about first.
    result = rainfall.run(question, collection="rain")
    assert result.outcome == "answered" and result.trace.generations[-1]["strategy"] == "ranking"
    assert result.short_answer == short
    assert [c.id for c in result.citations][0] == first and len(result.citations) == 2
    assert result.answer.startswith(f"{short}: ")
    assert "880" in result.answer and ("760" in result.answer or "610" in result.answer)


def test_a_choice_between_two_named_records_asked_with_did_is_the_larger_one(rainfall: SelfRagEngine) -> None:
    # "Did Ostby or Kelbridge get more rain?" asks which, not whether: never "Yes".
    result = rainfall.run("Did Ostby or Kelbridge get more rain in 2022?", collection="rain")
    assert result.outcome == "answered" and result.short_answer == "Ostby (rain_mm: 880)"


def test_a_yes_no_comparison_over_more_than_the_two_named_is_not_computed(rainfall: SelfRagEngine) -> None:
    # Kelbridge has two years on record: which one's rain is compared is not said.
    result = rainfall.run("Did Ostby get more rain than Kelbridge?", collection="rain")
    assert result.outcome != "answered"


@pytest.mark.parametrize(("question", "short"), [
    ("Were there any records from Ostby in 2021?", "No"),
    ("Are there records from Marlow Cross in 2021?", "No"),
    ("How many records are from Ostby in 2021?", "0 matching documents"),
])
def test_a_question_its_filter_holds_whole_that_nothing_matches_is_answered_none(
        rainfall: SelfRagEngine, question: str, short: str) -> None:
    # The store counted no record of Ostby in 2021: that is the answer, not a relaxed search's
    # record of another year read as if it were one.
    result = rainfall.run(question, collection="rain")
    assert result.outcome == "answered" and result.trace.generations[-1]["strategy"] == "none"
    assert result.short_answer == short
    assert result.citations == [] and not result.trace.relaxations
    assert "town" in result.answer and "2021" in result.answer


def test_a_question_its_filter_holds_whole_that_something_matches_is_still_listed(rainfall: SelfRagEngine) -> None:
    result = rainfall.run("Were there any records from Ostby in 2022?", collection="rain")
    assert result.outcome == "answered" and result.short_answer == "Yes"
    assert [c.id for c in result.citations] == ["ost-22"]


def test_which_items_got_more_than_a_bound_are_listed(rainfall: SelfRagEngine) -> None:
    # "got" was a word of the question's own left over, so the filter that holds it whole was
    # only a search's and the reader answered "Harrow Fen".
    result = rainfall.run("Which towns got more than 800 mm of rain?", collection="rain")
    assert result.outcome == "answered" and result.short_answer == "Kelbridge and Ostby"
    assert sorted(c.id for c in result.citations) == ["kel-21", "ost-22"]


@pytest.mark.parametrize(("question", "short", "cited"), [
    ("Did any town get more than 850 mm of rain in 2022?", "Yes", ["ost-22"]),
    ("Did any town get more than 2000 mm of rain?", "No", []),
])
def test_whether_any_item_got_more_than_a_bound_is_what_the_filter_selects(
        rainfall: SelfRagEngine, question: str, short: str, cited: list[str]) -> None:
    result = rainfall.run(question, collection="rain")
    assert result.outcome == "answered" and result.short_answer == short
    assert [c.id for c in result.citations] == cited
    if cited:
        assert result.answer.startswith("Yes: Ostby (town).")


@pytest.mark.parametrize(("question", "short", "cited"), [
    ("Did Ostby get more than 850 mm of rain in 2022?", "Yes", ["ost-22"]),
    ("Did Kelbridge get more than 850 mm of rain in 2022?", "No", ["kel-22"]),
    ("Did Kelbridge ever get more than 800 mm of rain?", "Yes", ["kel-21"]),
    ("Does Marlow Cross have the Harrow Fen station?", "Yes", ["mar-22"]),
    ("Does Ostby have the Harrow Fen station?", "No", ["ost-22"]),
])
def test_a_yes_no_question_about_a_named_record_s_stored_values_is_computed(
        rainfall: SelfRagEngine, question: str, short: str, cited: list[str]) -> None:
    # What a question asks of the record it names is in that record's metadata: the store counts
    # the named records and those of them that have it. The reader said "No" to a "Yes" here.
    result = rainfall.run(question, collection="rain")
    assert result.outcome == "answered" and result.trace.generations[-1]["strategy"] == "whether"
    assert result.short_answer == short
    assert [c.id for c in result.citations] == cited


def test_a_yes_no_question_some_of_a_named_item_s_records_answer_each_way_is_not_computed(
        rainfall: SelfRagEngine) -> None:
    # Kelbridge got 812 mm in 2021 and 760 mm in 2022: "more than 800 mm" is yes for one year and
    # no for the other, and the question says neither "ever" nor which year.
    result = rainfall.run("Did Kelbridge get more than 800 mm of rain?", collection="rain")
    assert all(g["strategy"] != "whether" for g in result.trace.generations)


def test_a_listing_page_a_search_found_is_not_called_the_newest(inspections: SelfRagEngine) -> None:
    # A page of two of the three northern inspections, found by similarity: "the 2 newest" was
    # signed whichever two the search found.
    result = inspections.run("inspections in the north", collection="inspections")
    assert result.outcome == "answered" and result.trace.generations[-1]["strategy"] == "listing"
    assert result.answer.startswith("3 matching documents; 2 of them, newest first:")


def test_no_is_not_said_of_an_item_whose_record_states_no_value_for_what_is_asked() -> None:
    # "Was the Aurel Curling Iron sold in Italy?" of a notice listing no countries was signed "No".
    from types import SimpleNamespace

    from selfrag.schema import CollectionSchema
    from workflows.set_answers import whether_answer

    schema = CollectionSchema.model_validate({"attributes": [
        {"name": "product", "type": "string", "kind": "name"}, {"name": "countries", "type": "string[]"}]})
    asked = {"subject": {"attribute": "product", "comparator": "eq", "value": "Aurel Curling Iron"},
             "predicate": {"attribute": "countries", "comparator": "contains", "value": "Italy"}, "any": False}
    bare = SimpleNamespace(id="r1", text="Aurel is recalling curling irons.", metadata={"product": "Aurel Curling Iron"})
    assert whether_answer([bare], "recalls", asked, named=1, having=0, schema=schema, k=4) is None
    listed = SimpleNamespace(id="r1", text="Aurel is recalling curling irons.",
                             metadata={"product": "Aurel Curling Iron", "countries": ["France"]})
    said = whether_answer([listed], "recalls", asked, named=1, having=0, schema=schema, k=4)
    assert said is not None and said.short_answer == "No" and "countries: France" in said.answer


def test_none_is_not_said_while_a_record_states_no_value_for_a_condition(chroma_client: Any, tmp_path: Path) -> None:
    # A notice listing no countries may have been sold in Italy: "No" was signed over it.
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "Product recall notices", "attributes": [
        {"name": "product", "type": "string", "kind": "name"}, {"name": "year", "type": "integer", "kind": "year"},
        {"name": "countries", "type": "string[]"}]})
    path = tmp_path / "recalls.jsonl"
    rows = [("r1", "Nova Hair Dryer", 2021, ["France"]), ("r2", "Aurel Curling Iron", 2020, None),
            ("r3", "Quill Hand Mixer", 2020, ["Spain"])]
    path.write_text("".join(json.dumps({"id": i, "text": f"{p} is recalled.", "metadata": {
        "product": p, "year": y, **({"countries": c} if c else {})}}) + "\n" for i, p, y, c in rows))
    run, _ = records_engine(chroma_client, "recalls", schema, [path], "No [1].", top_k=4,
                            today=lambda: date(2025, 6, 1))
    unknown = run.run("Were there any recalls in France in 2020?", collection="recalls")
    assert all(g["strategy"] != "none" for g in unknown.trace.generations)
    known = run.run("Were there any recalls in Spain in 2021?", collection="recalls")
    assert known.short_answer == "No" and known.trace.generations[-1]["strategy"] == "none"


def test_a_record_called_by_its_identifier_is_named_by_its_name_too() -> None:
    # "Which recall affected the most units?" was answered "R07 (units_affected: 310000); R08 (…)":
    # right, and of no use to someone who asked which products.
    from types import SimpleNamespace

    from selfrag.schema import CollectionSchema
    from workflows.set_answers import ranked_answer

    schema = CollectionSchema.model_validate({"attributes": [
        {"name": "recall_id", "type": "string", "kind": "identifier"},
        {"name": "product", "type": "string", "kind": "name"}, {"name": "brand", "type": "string", "kind": "name"},
        {"name": "units", "type": "integer", "kind": "count"}]})
    rows = [("R07", "VoltEdge 65W Charger", 310000), ("R08", "VoltEdge 30W Charger", 310000), ("R01", "Pebble Rattle", 51000)]
    chunks = [SimpleNamespace(id=i, text=f"{p} is recalled.", metadata={"recall_id": i, "product": p, "brand": "VoltEdge",
                                                                        "units": u}) for i, p, u in rows]
    tied = ranked_answer(chunks, "recalls", schema, {"attribute": "units", "highest": True, "n": 1}, page=4)
    assert tied is not None
    assert tied.short_answer == "R07, VoltEdge 65W Charger (units: 310000); R08, VoltEdge 30W Charger (units: 310000)"
    one = ranked_answer(chunks, "recalls", schema, {"attribute": "units", "highest": False, "n": 1}, page=4)
    assert one is not None and one.short_answer == "R01, Pebble Rattle (units: 51000)"
    # The attribute the question asks for ("Which product …?") names it alone.
    asked = ranked_answer(chunks, "recalls", schema, {"attribute": "units", "highest": False, "n": 1}, page=4,
                          label="product")
    assert asked is not None and asked.short_answer == "Pebble Rattle (units: 51000)"
    # "Which recall …" headed by the identifier itself ("recall" of recall_id) is named so too.
    by_id = ranked_answer(chunks, "recalls", schema, {"attribute": "units", "highest": False, "n": 1}, page=4,
                          label="recall_id")
    assert by_id is not None and by_id.short_answer == "R01, Pebble Rattle (units: 51000)"


def test_names_of_two_roles_are_kept_apart() -> None:
    # "lightest shipment?" was answered "SHP-30688, Nordhavn Shipping Sofie Jansen": a carrier and
    # a broker read as one name.
    from types import SimpleNamespace

    from selfrag.schema import CollectionSchema
    from workflows.set_answers import ranked_answer

    schema = CollectionSchema.model_validate({"attributes": [
        {"name": "shipment_id", "type": "string", "kind": "identifier"},
        {"name": "carrier", "type": "string", "kind": "name"}, {"name": "broker", "type": "string", "kind": "name"},
        {"name": "weight_kg", "type": "integer", "kind": "weight"}]})
    rows = [("SHP-1", "Nordhavn Shipping", "Sofie Jansen", 4900), ("SHP-2", "Nordhavn Shipping", "Ingrid Hale", 9000)]
    chunks = [SimpleNamespace(id=i, text=f"{i} was shipped.", metadata={"shipment_id": i, "carrier": c, "broker": b,
                                                                       "weight_kg": w}) for i, c, b, w in rows]
    light = ranked_answer(chunks, "shipments", schema, {"attribute": "weight_kg", "highest": False, "n": 1}, page=4)
    # The second role's name is no part of the record's (it read "CLM-20650, Ben Carter, Derek
    # Mills": a policyholder and the adjuster).
    assert light is not None and light.short_answer == "SHP-1, Nordhavn Shipping (weight_kg: 4900)"


@pytest.mark.parametrize(("question", "short", "cited"), [
    # Kelbridge has two records with the station, Marlow Cross one: three records, two towns.
    ("How many towns have the Harrow Fen station?", "2: Kelbridge, Marlow Cross", ["kel-21", "mar-22"]),
    ("How many towns got more than 700 mm of rain?", "2: Kelbridge, Ostby", ["kel-21", "ost-22"]),
])
def test_how_many_of_an_attribute_s_values_counts_the_distinct_values(
        rainfall: SelfRagEngine, question: str, short: str, cited: list[str]) -> None:
    # A count of the records ("3 matching documents") is no count of towns when a town has a record a year.
    result = rainfall.run(question, collection="rain")
    assert result.outcome == "answered" and result.trace.generations[-1]["strategy"] == "distinct"
    assert result.short_answer == short
    assert [c.id for c in result.citations] == cited


def test_how_many_records_is_still_the_count_of_records(rainfall: SelfRagEngine) -> None:
    result = rainfall.run("How many records are there for 2022?", collection="rain")
    assert result.outcome == "answered" and result.short_answer == "3 matching documents"


def test_a_record_whose_first_name_others_share_is_named_by_its_next_name_too() -> None:
    # "Which is cheaper, the Okapi Dune or the Vesta Aurora?" was answered "L1034, Okapi (price:
    # 35200)": the stock has several Okapis, and the make alone does not say which car.
    from types import SimpleNamespace

    from selfrag.schema import CollectionSchema
    from workflows.set_answers import ranked_answer

    schema = CollectionSchema.model_validate({"attributes": [
        {"name": "listing_id", "type": "string", "kind": "identifier"},
        {"name": "make", "type": "string", "kind": "name"}, {"name": "model", "type": "string", "kind": "name"},
        {"name": "price", "type": "integer", "kind": "money"}]})
    rows = [("L1", "Okapi", "Dune", 35200), ("L2", "Okapi", "Zephyr", 8900), ("L3", "Vesta", "Aurora", 48900)]
    chunks = [SimpleNamespace(id=i, text=f"The {mk} {md}.", metadata={"listing_id": i, "make": mk, "model": md, "price": p})
              for i, mk, md, p in rows]
    top = ranked_answer(chunks, "cars", schema, {"attribute": "price", "highest": True, "n": 2}, page=4)
    assert top is not None and top.short_answer == "L3, Vesta (price: 48900); L1, Okapi Dune (price: 35200)"


def test_a_label_every_match_shares_names_the_records_by_their_own_label() -> None:
    # "Which of Judge Grace Kim's cases had the highest amount claimed?" was signed "Grace Kim: the
    # highest amount_claimed (250000) of 8 matching documents; 2 of its documents state it": the
    # judge the filter holds names every match, so none of the two tied cases was named.
    from types import SimpleNamespace

    from selfrag.schema import CollectionSchema
    from workflows.set_answers import ranked_answer

    schema = CollectionSchema.model_validate({"attributes": [
        {"name": "case_number", "type": "string", "kind": "identifier"},
        {"name": "judge", "type": "string", "kind": "name"}, {"name": "plaintiff", "type": "string", "kind": "name"},
        {"name": "amount_claimed", "type": "integer", "kind": "money"}]})
    rows = [("CV-215", "Ann Lee", 250000), ("CV-401", "Bo Chen", 250000), ("CV-104", "Cy Dunn", 90000)]
    chunks = [SimpleNamespace(id=i, text=f"Case {i} was filed.", metadata={"case_number": i, "judge": "Grace Kim",
                                                                          "plaintiff": p, "amount_claimed": a})
              for i, p, a in rows]
    tied = ranked_answer(chunks, "docket", schema, {"attribute": "amount_claimed", "highest": True, "n": 1}, page=4,
                         label="judge")
    assert tied is not None and "CV-215" in tied.short_answer and "CV-401" in tied.short_answer
    assert not tied.answer.startswith("Grace Kim")
