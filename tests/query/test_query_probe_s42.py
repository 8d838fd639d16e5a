"""What session 42's new users found the self-query reading wrong, each a case of a general rule."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query import Plan, SelfQueryPlanner
from selfrag.query._numbers import find_numbers
from selfrag.schema import CollectionSchema

HERE = Path(__file__).parent / "schemas"
PLANNER = SelfQueryPlanner(None, mode="rules")
TODAY = date(2026, 6, 1)

# The thirty-seventh new user's exam entries: "GCSE exam entries …, one record per exam entry",
# entry_year ("year the school registered the entry with the board (not the exam year)") beside
# exam_date, written_score beside practical_score, grades "9" to "1" and "U".
EXAMS = CollectionSchema.model_validate(json.loads((HERE / "exams.json").read_text()))
EXAM_VALUES = {"student": ["Liam Okafor", "Owen Fletcher", "Maya Hughes"], "examiner": ["Alan Hughes", "Sarah Okafor"],
               "room": ["Fletcher Hall", "Main Hall", "Lab 2"], "entry_id": ["EX-2210", "EX-2201", "EX-2120"]}
# The thirty-eighth's port calls: "Port calls of ships …", built_year ("year the ship was built")
# beside arrival and departure dates; a berth "Berth 7"; Tomas Dalton a master and an agent.
PORT = CollectionSchema.model_validate(json.loads((HERE / "portcalls.json").read_text()))
PORT_VALUES = {"vessel": ["Nordic Tern", "Kestrel Star", "Ocean Dalton", "Blue Heron"],
               "master": ["Tomas Dalton", "Ingrid Berg"], "agent": ["Tomas Dalton", "Ruth Dalton"],
               "call_no": ["PC-3308", "PC-3380", "PC-3038", "PC-3338"]}
# The thirty-ninth's harvest deliveries: grades "Grade 1" … and depots Hartley and Riverside.
DELIVERIES = CollectionSchema.model_validate(json.loads((HERE / "deliveries.json").read_text()))
DELIVERY_VALUES = {"grower": ["Joan Hartley", "Dale Okafor"], "inspector": ["Anna Miller", "Piotr Kowalski"],
                   "field": ["Miller Field", "Hartley Quarter"], "ticket_id": ["HD-5516", "HD-5561"]}


def _plan(question: str, schema: CollectionSchema, values: dict[str, list[str]]) -> Plan:
    return PLANNER.plan(question, schema, values, today=TODAY)


@pytest.mark.parametrize(("question", "by"), [
    ("Which examiner marked the most entries?", "examiner"),
    ("Which room had the most entries?", "room"),
    ("Which subject had the most entries?", "subject"),
])
def test_the_records_word_counts_records_not_an_attribute_named_after_it(question: str, by: str) -> None:
    # "the most entries" ranked entry_year, whose name but for its unit ("year") is the records'
    # own word: three rankings by registration year were signed as the most entries.
    plan = _plan(question, EXAMS, EXAM_VALUES)
    assert plan.computed is not None and (plan.computed.op, plan.computed.attribute) == ("count_by", by)


@pytest.mark.parametrize("question", ["How many entries did Alan Hughes mark in 2024?",
                                      "entries examined by Sarah Okafor in 2023"])
def test_a_bare_year_after_the_records_word_is_not_an_attribute_named_by_it(question: str) -> None:
    # "entries … in 2024" went to entry_year ("year the school registered the entry"), because
    # "entries" is a word of its name; the exam's date is the records' own.
    where = json.dumps(_plan(question, EXAMS, EXAM_VALUES).where)
    assert "exam_date" in where and "entry_year" not in where


def test_the_year_s_own_verb_keeps_it() -> None:
    assert "entry_year" in json.dumps(_plan("entries registered in 2023", EXAMS, EXAM_VALUES).where)


@pytest.mark.parametrize("question", ["bulk carrier calls in 2024", "How many calls in 2025 were not at Grain Terminal?",
                                      "total pilotage fees in 2024", "which agent handled the Ocean Dalton in 2026?",
                                      "Has the Nordic Tern departed from its 2026 call?"])
def test_a_bare_year_is_not_the_year_the_ship_was_built(question: str) -> None:
    # Six answers were signed on built_year ("year the ship was built"), the year of the ship the
    # calls are of, not of the calls; three said "0 matching documents". The calls have two
    # dates, and which one is not said, so nothing is signed on the year.
    plan = _plan(question, PORT, PORT_VALUES)
    assert "built_year" not in json.dumps(plan.where)
    assert any(c.kind == "unread_bound" for c in plan.changes)
    assert plan.asks is None and (plan.computed is None or not plan.computed.whole)


@pytest.mark.parametrize("question", ["ships built in 2010", "Which ships were built before 2000?"])
def test_the_ship_s_year_is_read_with_its_own_verb(question: str) -> None:
    assert "built_year" in json.dumps(_plan(question, PORT, PORT_VALUES).where)


def test_a_year_before_the_records_word_is_theirs() -> None:
    plan = _plan("the 2024 calls of the Nordic Tern", PORT, PORT_VALUES)
    assert "built_year" not in json.dumps(plan.where) and plan.asks is None


@pytest.mark.parametrize(("question", "schema", "values"), [
    ("Which entries had a written score over 85 or a practical score over 85?", EXAMS, EXAM_VALUES),
    ("Which deliveries were graded Grade 1 or delivered to Riverside in the 2024 season?", DELIVERIES, DELIVERY_VALUES),
    ("deliveries after 3 March 2024 or graded Grade 1", DELIVERIES, DELIVERY_VALUES),
])
def test_conditions_on_two_attributes_joined_by_or_are_not_held_together(question: str, schema: CollectionSchema,
                                                                         values: dict[str, list[str]]) -> None:
    # Both were filtered together and signed: 3 entries of 7, 1 delivery of 5.
    plan = _plan(question, schema, values)
    assert any(c.kind == "ambiguous_coordination" for c in plan.changes)
    assert plan.asks is None


@pytest.mark.parametrize(("question", "where"), [
    ("entries in Fletcher Hall or Main Hall", {"room": {"$in": ["Fletcher Hall", "Main Hall"]}}),
    ("entries graded 9 or U", {"grade": {"$in": ["9", "U"]}}),
])
def test_values_of_one_attribute_joined_by_or_are_alternatives(question: str, where: dict[str, object]) -> None:
    plan = _plan(question, EXAMS, EXAM_VALUES)
    assert plan.where == where and not any(c.kind == "ambiguous_coordination" for c in plan.changes)


@pytest.mark.parametrize("question", ["top 3 written scores", "What are the top 3 written scores?",
                                      "the 3 highest written scores"])
def test_a_number_a_limit_word_leads_or_a_superlative_follows_is_a_limit(question: str) -> None:
    # "top 3 written scores" was signed "0 matching documents: no document has written_score 3";
    # "the 3 highest" read the grade "3".
    plan = _plan(question, EXAMS, EXAM_VALUES)
    assert plan.where is None and plan.query.limit == 3


@pytest.mark.parametrize(("question", "schema", "values"), [
    ("What made Liam Okafor late for EX-2120?", EXAMS, EXAM_VALUES),
    ("What was the last port of call of PC-3038?", PORT, PORT_VALUES),
    ("What was the last port of call of the Kestrel Star on PC-3338?", PORT, PORT_VALUES),
])
def test_a_wh_question_about_one_identified_record_is_not_answered_by_listing_it(
        question: str, schema: CollectionSchema, values: dict[str, list[str]]) -> None:
    # Each was signed "1 matching document": the record, which does not say why or which port.
    assert _plan(question, schema, values).asks is None


def test_the_record_itself_is_still_listed_when_asked_for() -> None:
    assert _plan("What is PC-3038?", PORT, PORT_VALUES).asks == "documents"


def test_how_many_with_words_left_after_the_noun_counts_no_record() -> None:
    # "How many ships are still in port?" was signed 40, every call: "port" is a word the
    # description names the records by ("Port calls"), so nothing seemed left.
    assert _plan("How many ships are still in port?", PORT, PORT_VALUES).asks is None
    assert _plan("How many calls are there in total?", PORT, PORT_VALUES).asks == "documents"
    assert _plan("How many calls do we have?", PORT, PORT_VALUES).asks == "documents"


@pytest.mark.parametrize(("question", "role"), [("Which ships did Tomas Dalton captain?", "master"),
                                                ("Which calls did Tomas Dalton handle?", "agent")])
def test_the_role_s_own_noun_as_its_verb_names_it(question: str, role: str) -> None:
    # "captain" was read as either role: his seven calls as agent were listed too. The master
    # is "master (captain) of the ship".
    assert _plan(question, PORT, PORT_VALUES).where == {role: {"$eq": "Tomas Dalton"}}


def test_an_attribute_s_one_word_name_is_not_its_value_by_meaning() -> None:
    # "Which berth had the most calls?" linked "berth" to the berth "Berth 7" by meaning and
    # counted its five calls only; "Did PC-3803 berth at Dalton Quay?" was signed Yes.
    from tests.query.word_vectors import WordVectors

    vectors = WordVectors([("berth", "7")], {"berth": 0.1, "7": 0.1})
    planner = SelfQueryPlanner(None, mode="rules", today=TODAY, embeddings=vectors)
    plan = planner.plan("Which berth had the most calls?", PORT, PORT_VALUES)
    assert plan.where is None
    assert plan.computed is not None and (plan.computed.op, plan.computed.attribute) == ("count_by", "berth")
    assert planner.plan("calls at Berth 7", PORT, PORT_VALUES).where == {"berth": {"$eq": "Berth 7"}}


def test_an_iso_day_is_no_numbers() -> None:
    # "delivered on 2024-01-18" was read as net_tonnes from 1 to 2,024.
    assert find_numbers("deliveries delivered on 2024-01-18") == []
    where = json.dumps(_plan("deliveries delivered on 2024-01-18", DELIVERIES, DELIVERY_VALUES).where)
    assert "delivery_date" in where and "net_tonnes" not in where


def test_a_day_written_month_first_is_no_list_of_years() -> None:
    # "calls arriving after June 30, 2026" read "30, 2026" as built_year 30 or 2026 as well, and
    # was signed "0 matching documents".
    assert find_numbers("calls arriving after June 30, 2026") == []
    plan = _plan("calls arriving after June 30, 2026", PORT, PORT_VALUES)
    assert plan.where == {"arrival_date": {"$gte": 20260701}}


@pytest.mark.parametrize("question", ["What is the resit fee of EX-2210?", "Which entries have a resit date?"])
def test_a_flag_s_word_before_a_noun_that_spells_another_attribute_is_not_the_flag(question: str) -> None:
    # "resit fee" and "resit date" read resit_required = true as well: an entry with a resit fee
    # and no flag would be hidden.
    assert "resit_required" not in json.dumps(_plan(question, EXAMS, EXAM_VALUES).where)
    assert "resit_required" in json.dumps(_plan("Which entries need a resit?", EXAMS, EXAM_VALUES).where)


# Session 42's later new users: personal training sessions (session_date beside booking_date) and
# animal intakes (intake_date beside release_date, age_weeks "estimated age of the animal at intake").
SESSIONS = CollectionSchema.model_validate(json.loads((HERE / "ptsessions.json").read_text()))
INTAKES = CollectionSchema.model_validate(json.loads((HERE / "intakes.json").read_text()))


@pytest.mark.parametrize(("question", "schema"), [
    ("How many of the 2024 sessions were boxing?", SESSIONS),
    ("show me the 2023 sessions at Northgate Studio", SESSIONS),
    ("How many of the 2024 intakes were hedgehogs?", INTAKES),
])
def test_a_year_before_the_records_word_no_reader_takes_is_no_answer(question: str, schema: CollectionSchema) -> None:
    # Each was signed over every year: the year right before "sessions" was read by nothing, and
    # the filter seemed to hold the rest.
    plan = _plan(question, schema, {"studio": ["Northgate Studio"]})
    assert any(c.kind == "unread_bound" for c in plan.changes) and plan.asks is None


@pytest.mark.parametrize("question", ["Which was older at intake, WR-7307 or WR-7370?", "Which intake is the oldest?"])
def test_older_beside_an_age_and_a_date_is_not_said(question: str) -> None:
    # "older at intake" was ranked by intake_date ("the earliest intake") and named the younger animal.
    plan = _plan(question, INTAKES, {"intake_id": ["WR-7307", "WR-7370"]})
    assert plan.computed is not None and not plan.computed.whole


# The third round: building permits (permit_number, permit_fee), clinic appointments (referral_date
# beside appointment_date), translation jobs (a company called by a contact's surname).
PERMITS = CollectionSchema.model_validate(json.loads((HERE / "permits.json").read_text()))
PERMIT_VALUES = {"ward": ["Carver", "Harbour", "Ashford"], "applicant": ["Grace Lindqvist", "Tom Carver"]}
APPOINTMENTS = CollectionSchema.model_validate(json.loads((HERE / "appointments.json").read_text()))
JOBS = CollectionSchema.model_validate(json.loads((HERE / "tjobs.json").read_text()))
JOB_VALUES = {"client_contact": ["Erik Lindqvist", "Lena Brandt"], "client_company": ["Lindqvist Pharma", "Moreau & Co"],
              "translator": ["Jonas Brandt", "Owen Hartley"], "job_code": ["TJ-3430", "TJ-3304"]}


@pytest.mark.parametrize("question", ["How many appointments were referred in 2023?",
                                      "Which appointments were referred before October 2023?"])
def test_the_records_word_names_no_date_beside_the_verb_s_own(question: str) -> None:
    # Three were signed on appointment_date, named by "appointments"; "referred" is referral_date's
    # ("date the referral was made").
    where = json.dumps(_plan(question, APPOINTMENTS, {}).where)
    assert "referral_date" in where and "appointment_date" not in where
    assert "appointment_date" in json.dumps(_plan("appointments in 2023", APPOINTMENTS, {}).where)


@pytest.mark.parametrize(("question", "schema"), [("How many applicants have more than two permits?", PERMITS),
                                                  ("How many patients had more than one appointment?", APPOINTMENTS)])
def test_a_number_of_the_records_is_no_value_of_an_attribute_named_after_them(question: str, schema: CollectionSchema) -> None:
    # "more than two permits" was read as permit_fee > 2, "more than one appointment" as copay > 1.
    plan = _plan(question, schema, {})
    assert plan.where is None and any(c.kind == "unread_bound" for c in plan.changes)
    assert (plan.computed is None or not plan.computed.whole) and plan.asks is None


def test_number_of_the_records_is_a_count() -> None:
    # "number of refused permits in carver ward" was signed BP-5210, the one match's permit_number.
    from workflows.set_answers import asked_attribute

    plan = _plan("number of refused permits in carver ward", PERMITS, PERMIT_VALUES)
    assert plan.asks == "documents"
    assert asked_attribute("number of refused permits in carver ward", plan.query.query, PERMITS,
                           json.loads(plan.query.filter.model_dump_json())) is None  # type: ignore[union-attr]


@pytest.mark.parametrize("question", ["issued permits 2023", "refused permits 2023"])
def test_a_year_after_the_records_word_no_reader_takes_is_no_answer(question: str) -> None:
    plan = _plan(question, PERMITS, PERMIT_VALUES)
    assert any(c.kind == "unread_bound" for c in plan.changes) and plan.asks is None


def test_a_surname_that_opens_a_company_s_name_is_either() -> None:
    # "how many jobs for Lindqvist" counted Erik Lindqvist's jobs, not Lindqvist Pharma's.
    plan = _plan("how many jobs for Lindqvist", JOBS, JOB_VALUES)
    assert any(c.kind == "ambiguous_name" for c in plan.changes) and plan.asks is None


def test_keywords_asking_a_word_of_one_record_are_not_answered_by_listing_it() -> None:
    # "translater of TJ 3430" (misspelt) was signed "1 matching document", which names no translator.
    assert _plan("translater of TJ 3430", JOBS, JOB_VALUES).asks is None
    assert _plan("TJ-3430", JOBS, JOB_VALUES).asks == "documents"


@pytest.mark.parametrize("question", ["Which appointments have no follow-up recorded?",
                                      "How many appointments have no follow-up status on record?"])
def test_no_value_recorded_asks_for_the_records_without_one(question: str) -> None:
    # "no follow-up recorded" was read as follow_up_needed = false and signed 20 appointments; the
    # question asks for the 8 that record no follow-up either way, which no filter selects.
    plan = _plan(question, APPOINTMENTS, {})
    assert plan.asks is None and any(c.kind == "unrecorded_values" for c in plan.changes)
    plain = _plan("Which appointments need no follow-up?", APPOINTMENTS, {})
    assert not any(c.kind == "unrecorded_values" for c in plain.changes)


def test_a_count_asked_with_a_question_mark_is_no_yes_or_no() -> None:
    # "number of recruiting trials in phase 3?" was signed "Yes": a statement asked as a question
    # reads as yes/no, but "number of" asks how many, as "how many" does.
    from selfrag.lang.questions import asks_yes_or_no

    assert not asks_yes_or_no("number of recruiting trials in phase 3?")
    assert asks_yes_or_no("recruiting trials in phase 3?")
