"""What session 41's new users found the self-query reading wrong, each a case of a general rule."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query import Plan, SelfQueryPlanner
from selfrag.schema import CollectionSchema

HERE = Path(__file__).parent / "schemas"
PLANNER = SelfQueryPlanner(None, mode="rules")
TODAY = date(2026, 6, 1)

# The thirty-first new user's parking tickets: "City parking tickets, one record per ticket", whose
# identifier is ticket_no.
TICKETS = CollectionSchema.model_validate(json.loads((HERE / "parking.json").read_text()))
TICKET_VALUES = {"officer": ["Dana Whitfield", "Priya Holloway", "Marcus Okafor"], "owner": ["Grace Okafor", "Ben Whitfield"],
                 "street": ["Holloway Road", "Mill Lane"], "zone": ["AB-104", "AB-140", "AB-014", "CD-220"],
                 "ticket_no": ["PT-50412", "PT-51221"], "evidence": ["photo", "chalk mark", "video"]}
# The thirty-second's conference talks: talk_minutes beside qa_minutes, and "talk" also a format.
TALKS = CollectionSchema.model_validate(json.loads((HERE / "talks.json").read_text()))
TALK_VALUES = {"speaker": ["Elena Hartmann", "Tunde Okafor"], "session_chair": ["Paul Hartmann", "Lena Weber"],
               "room": ["Hartmann Hall", "Curie Auditorium", "Garden Pavilion"], "talk_code": ["T-112", "T-121"],
               "keywords": ["proteins", "qubits"]}


def _plan(question: str, schema: CollectionSchema, values: dict[str, list[str]]) -> Plan:
    return PLANNER.plan(question, schema, values, today=TODAY)


@pytest.mark.parametrize("question", [
    "How many unpaid tickets are there?",
    "tickets in zone AB-140",
    "Which tickets were cancelled?",
    "show me the tickets with video evidence",
])
def test_the_items_word_names_the_records_not_an_identifier_named_after_them(question: str) -> None:
    # ticket_no is named "ticket" and a stop word: "tickets" was read as asking ticket_no, which
    # no filter holds, and no count or listing of tickets was ever given.
    plan = _plan(question, TICKETS, TICKET_VALUES)
    assert plan.where is not None and plan.asks == "documents"


@pytest.mark.parametrize("question", [
    "how many talks in the Genomics track",
    "How many talks were held in Curie Auditorium?",
    "Which talks did Elena Hartmann give in Hartmann Hall?",
])
def test_the_items_word_is_no_attribute_named_after_it_and_a_unit(question: str) -> None:
    # talk_minutes is "talk" and a unit: "talks" named it, and nothing was counted.
    plan = _plan(question, TALKS, TALK_VALUES)
    assert plan.where is not None and plan.computed is None
    if question.startswith(("how", "How")):
        assert plan.asks == "documents"


@pytest.mark.parametrize("question", ["How many talks are there in total?", "How many talks in all?"])
def test_how_many_of_the_items_in_total_counts_them_and_sums_nothing(question: str) -> None:
    # Signed "955: the sum of talk_minutes over 40 matching documents".
    plan = _plan(question, TALKS, TALK_VALUES)
    assert plan.computed is None and plan.asks == "documents"


def test_a_filtered_count_in_total_is_the_count() -> None:
    plan = _plan("How many keynotes are there in total?", TALKS, TALK_VALUES)
    assert plan.computed is None and plan.asks == "documents" and plan.where == {"format": {"$eq": "keynote"}}


def test_the_whole_name_still_names_the_attribute() -> None:
    plan = _plan("What is the total length of talk minutes of keynotes?", TALKS, TALK_VALUES)
    assert plan.computed is not None and (plan.computed.op, plan.computed.attribute) == ("total", "talk_minutes")


# The thirty-third's lab samples: "glucose" both an element of tests_ordered and glucose_mg_dl's name.
LAB = CollectionSchema.model_validate(json.loads((HERE / "labsamples.json").read_text()))
LAB_VALUES = {"sample_id": ["LS-3104", "LS-3140", "LS-3410"], "tests_ordered": ["glucose", "creatinine", "CBC", "HbA1c"],
              "site": ["Elm Park Clinic", "Brennan Clinic"], "collected_by": ["Maria Hale", "Sofia Reyes"]}


@pytest.mark.parametrize("question", ["glucose LS-3104", "What was the creatinine of LS-3410?", "ls 3104 creatinine"])
def test_a_value_that_is_also_a_measure_s_name_is_no_condition_the_question_is_known_to_state(question: str) -> None:
    # Read as tests_ordered containing "creatinine", and signed "1 matching document" (a listing
    # for a value asked) or "0 matching documents" (LS-3104's creatinine is 1.1, not ordered).
    plan = _plan(question, LAB, LAB_VALUES)
    assert plan.asks is None and plan.computed is None
    assert any(c.kind == "either_attribute" for c in plan.changes)


@pytest.mark.parametrize("question", ["Which samples had glucose ordered?", "How many samples had a creatinine test?"])
def test_the_list_s_own_words_say_the_value_is_its_element(question: str) -> None:
    plan = _plan(question, LAB, LAB_VALUES)
    assert plan.asks == "documents" and "tests_ordered" in json.dumps(plan.where)


def test_a_flag_s_ing_form_before_another_noun_names_that_noun_not_the_flag() -> None:
    # "What was the towing fee paid for PT-50412?" read towed = true and status = paid, and the
    # ticket's amount_paid (115) was signed as its towing fee, which nothing records.
    plan = _plan("What was the towing fee paid for PT-50412?", TICKETS, TICKET_VALUES)
    assert "towed" not in json.dumps(plan.where)


@pytest.mark.parametrize("question", ["Which tickets involved towing?", "which towed tickets were paid"])
def test_the_flag_s_own_words_still_read_it(question: str) -> None:
    assert '"towed": {"$eq": true}' in json.dumps(_plan(question, TICKETS, TICKET_VALUES).where)


@pytest.mark.parametrize(("question", "role"), [
    ("Which talks did Paul Hartmann give?", "speaker"),  # "person who gives the talk"
    ("how many talks did jonas weber give", "speaker"),
    ("Which talks did Paul Hartmann chair?", "session_chair"),
])
def test_a_person_in_two_roles_is_the_doer_of_the_verb_after_them_even_a_common_one(question: str, role: str) -> None:
    # "give" is a stop word ("give me 5 …"): Paul Hartmann was read as speaker or chair, and his
    # five chaired talks would have been listed as talks he gave.
    values = {**TALK_VALUES, "speaker": [*TALK_VALUES["speaker"], "Paul Hartmann", "Jonas Weber"],
              "session_chair": [*TALK_VALUES["session_chair"], "Jonas Weber"]}
    where = json.dumps(_plan(question, TALKS, values).where)
    assert "$or" not in where and role in where


def test_a_yes_no_question_about_a_person_s_records_asks_whether_any() -> None:
    # "Did Irene Curie give a keynote?": one of her three talks is; "some have, some have not" left
    # it to the reader, unsigned, where the listing of her keynote had been signed "Yes".
    values = {**TALK_VALUES, "speaker": [*TALK_VALUES["speaker"], "Irene Curie"]}
    plan = _plan("Did Irene Curie give a keynote?", TALKS, {**values, "format": ["keynote", "talk"]})
    assert plan.whether is not None and plan.whether.any


def test_a_yes_no_question_about_one_titled_item_asks_it_of_all_its_records() -> None:
    plan = _plan("Was Sparse Attention for Protein Folding a keynote?", TALKS,
                 {**TALK_VALUES, "title": ["Sparse Attention for Protein Folding"], "format": ["keynote", "talk"]})
    assert plan.whether is not None and not plan.whether.any


def test_a_yes_no_question_about_a_person_and_two_records_asks_both() -> None:
    plan = _plan("Did Maria Hale collect LS-3104 and LS-3140?", LAB, LAB_VALUES)
    assert plan.whether is None or not plan.whether.any


@pytest.mark.parametrize("question", ["Which sample was the most expensive?", "Which sample cost the most?",
                                      "What is the cheapest sample?"])
def test_a_price_word_ranks_the_one_money_attribute_that_is_a_price(question: str) -> None:
    # test_price ("price of the tests") beside insurance_covered ("amount covered by insurance"):
    # no superlative of cost was ranked.
    plan = _plan(question, LAB, LAB_VALUES)
    assert plan.computed is not None and plan.computed.attribute == "test_price" and plan.computed.whole


def test_two_prices_stay_unsaid() -> None:
    schema = CollectionSchema.model_validate({"description": "Wine bottles", "attributes": [
        {"name": "bottle_price", "type": "float", "kind": "money", "description": "price of one bottle"},
        {"name": "case_price", "type": "float", "kind": "money", "description": "price of a case of six"}]})
    plan = _plan("Which wine is the most expensive?", schema, {})
    assert plan.computed is not None and not plan.computed.attribute


# The thirty-fourth's festival screenings: premiere_year ("year the film premiered") beside the
# screening's own date, a title "Premiere", and a section "shorts".
SCREENINGS = CollectionSchema.model_validate(json.loads((HERE / "screenings.json").read_text()))
SCREENING_VALUES = {"film_title": ["Premiere", "Copper Sun", "Keller's Garden"], "director": ["Pavel Novak", "Jonas Brandt"],
                    "presenter": ["Clara Novak"], "venue": ["Varga Hall", "Lumen 1"], "screening_code": ["SC-182", "SC-218"]}


@pytest.mark.parametrize("question", ["Which panorama screenings were not in 2024?", "Which panorama screenings were in 2024?"])
def test_a_bare_year_is_the_screening_s_date_not_the_year_its_film_premiered(question: str) -> None:
    # "year the film premiered" is the film's (film_title names it): a negated bare year went to
    # premiere_year, and four 2024 screenings were listed as not in 2024.
    where = json.dumps(_plan(question, SCREENINGS, SCREENING_VALUES).where)
    assert "screening_date" in where and "premiere_year" not in where


def test_the_premiere_year_s_own_words_keep_it() -> None:
    assert "premiere_year" in json.dumps(_plan("Which films premiered in 2024?", SCREENINGS, SCREENING_VALUES).where)


@pytest.mark.parametrize(("question", "absent"), [
    ("What is the premiere year of Copper Sun?", "Premiere"),  # premiere_year's name, not the title "Premiere"
    ("What is the shortest film?", "shorts"),  # a superlative, not the section "shorts"
    ("shortest panorama screening", "shorts"),
])
def test_a_word_of_an_attribute_s_name_or_a_superlative_is_no_value(question: str, absent: str) -> None:
    values = {**SCREENING_VALUES, "section": ["competition", "panorama", "shorts"]}
    assert absent not in json.dumps(_plan(question, SCREENINGS, values).where)


SCHOLARSHIPS = CollectionSchema.model_validate(json.loads((HERE / "scholarships.json").read_text()))


def test_the_head_of_an_attribute_s_description_is_no_value() -> None:
    # "Which award cycle is SA-7118 for?" read status = awarded (cycle_year: "award cycle …") and
    # signed "0 matching documents".
    plan = _plan("Which award cycle is SA-7118 for?", SCHOLARSHIPS, {"application_id": ["SA-7118"]})
    assert "awarded" not in json.dumps(plan.where)
    assert "awarded" in json.dumps(_plan("How many applications were awarded?", SCHOLARSHIPS, {}).where)


def test_a_value_before_a_year_stays_a_condition_of_its_own() -> None:
    # "awarded in 2023" was swallowed whole by cycle_year ("award cycle"), and every 2023-cycle
    # application was counted as awarded.
    where = json.dumps(_plan("How many applications were awarded in 2023?", SCHOLARSHIPS, {}).where)
    assert '"status": {"$eq": "awarded"}' in where and "cycle_year" in where


def test_the_newest_of_a_thing_a_year_is_of_is_not_the_latest_record() -> None:
    # "What is the newest film in the competition?" listed the latest screenings (by screening
    # date) and signed them; the film's own year is premiere_year.
    values = {**SCREENING_VALUES, "section": ["competition", "panorama", "shorts"]}
    plan = _plan("What is the newest film in the competition?", SCREENINGS, values)
    assert plan.asks is None and any(c.kind == "either_attribute" for c in plan.changes)
    assert _plan("latest screenings in the competition", SCREENINGS, values).asks == "documents"


def test_an_attribute_s_description_head_is_no_value_by_meaning_either() -> None:
    # "documents submitted with SA-7037" (documents: "documents submitted with the application")
    # was read, by meaning, as status = submitted and signed "0 matching documents".
    from selfrag.lang import tokenize
    from selfrag.query._profile import SchemaProfile
    from selfrag.query._spans import Spans
    from selfrag.query._values import find_mentions

    question = "documents submitted with SA-7037"
    scalar = SchemaProfile(SCHOLARSHIPS.scalar_view(), {"status": ["submitted", "awarded"]})
    full = SchemaProfile(SCHOLARSHIPS, {})
    mentions = find_mentions(question, tokenize(question), scalar, Spans(), None, full=full)
    assert not any(m.attr.name == "status" for m in mentions)
