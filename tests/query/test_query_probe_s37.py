"""What session 37's own questions to earlier users' collections found left unread in the self-query."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query import Comparison, SelfQueryPlanner, read_question
from selfrag.schema import CollectionSchema

HERE = Path(__file__).parent / "schemas"
# The seventeenth new user's incidents (session 36): one money, one duration, one count.
INCIDENTS = CollectionSchema.model_validate(json.loads((HERE / "incidents.json").read_text()))
VALUES = {"incident_id": ["INC-2014", "INC-2028", "INC-2041"], "severity": ["SEV1", "SEV2", "SEV3"],
          "engineer": ["Chase Morgan", "Marcus Hill"]}
PLANNER = SelfQueryPlanner(None, mode="rules")
TODAY = date(2026, 6, 1)


@pytest.mark.parametrize(("question", "attribute", "highest"), [
    # "Which incident cost the most?" was no ranking: "most" named nothing after it, and "cost"
    # was left to search. The verb names the measure, as "most expensive" does.
    ("Which incident cost the most?", "cost_usd", True),
    ("Which SEV2 incident cost the least?", "cost_usd", False),
    ("Which incident lasted the longest?", "duration_minutes", True),
    ("which incident lasts the shortest", "duration_minutes", False),
])
def test_a_verb_naming_a_measure_ranks_by_it(question: str, attribute: str, highest: bool) -> None:
    reading = read_question(question, INCIDENTS, VALUES, today=TODAY)
    assert reading.extreme is not None
    assert (reading.extreme.attribute, reading.extreme.highest) == (attribute, highest)
    assert reading.residual == ""
    plan = PLANNER.plan(question, INCIDENTS, VALUES, today=TODAY)
    assert plan.computed is not None and plan.computed.whole


@pytest.mark.parametrize(("question", "attribute", "highest"), [
    ("Which cost more, INC-2014 or INC-2028?", "cost_usd", True),
    ("Which incident lasted longer, INC-2014 or INC-2041?", "duration_minutes", True),
    ("Which one cost less: INC-2014 or INC-2041?", "cost_usd", False),
])
def test_a_verb_naming_a_measure_compares_two_named_records(question: str, attribute: str, highest: bool) -> None:
    plan = PLANNER.plan(question, INCIDENTS, VALUES, today=TODAY)
    assert plan.computed is not None
    assert (plan.computed.attribute, plan.computed.highest, plan.computed.n) == (attribute, highest, 1)
    assert plan.computed.whole and plan.computed.compared == "incident_id"


@pytest.mark.parametrize("question", [
    "Which incidents cost more than $5000?",         # a bound, not a comparison
    "How much did INC-2014 cost?",                  # one record's value
    "Which incident was the last to be resolved?",  # "last" no verb here
])
def test_a_measure_verb_without_a_superlative_ranks_nothing(question: str) -> None:
    plan = PLANNER.plan(question, INCIDENTS, VALUES, today=TODAY)
    assert plan.computed is None or plan.computed.op != "rank" or plan.computed.attribute not in ("cost_usd", "duration_minutes")


def test_a_verb_fitting_two_attributes_ranks_by_neither() -> None:
    schema = CollectionSchema.model_validate({"attributes": [
        {"name": "entry_fee", "type": "float", "kind": "money", "description": "entry fee"},
        {"name": "late_fee", "type": "float", "kind": "money", "description": "fee for a late entry"},
    ]})
    reading = read_question("Which race cost the most?", schema, {}, today=TODAY)
    assert reading.extreme is not None and reading.extreme.attribute == ""
    assert set(reading.extreme.candidates) == {"entry_fee", "late_fee"}


def test_what_a_thing_costs_is_its_one_price_not_other_money() -> None:
    # Of a fee and prize money, "cost" is the fee (session 41: test_price beside insurance_covered).
    schema = CollectionSchema.model_validate({"attributes": [
        {"name": "fee", "type": "float", "kind": "money", "description": "entry fee"},
        {"name": "prize", "type": "float", "kind": "money", "description": "prize money"},
    ]})
    reading = read_question("Which race cost the most?", schema, {}, today=TODAY)
    assert reading.extreme is not None and reading.extreme.attribute == "fee"


@pytest.mark.parametrize(("question", "where"), [
    # "Which one cost the most?" was read as cost_usd = 1: "one" after "which" is a pronoun.
    ("Which one cost the most?", None),
    ("which one costs 310000 dollars", {"cost_usd": {"$eq": 310000.0}}),
    ("Is INC-2014 one of the SEV1 incidents?", {"incident_id": {"$eq": "INC-2014"}}),
    # a figure still
    ("incidents that affected one customer", {"customers_affected": {"$eq": 1}}),
    ("How many incidents cost one hundred thousand dollars?", {"cost_usd": {"$eq": 100000.0}}),
])
def test_one_after_which_or_the_is_a_pronoun(question: str, where: object) -> None:
    assert PLANNER.plan(question, INCIDENTS, VALUES, today=TODAY).where == where


# The twenty-second new user's seismic events (session 37): items called "events", and an
# attribute event_type whose second word is too generic to be a name term.
EVENTS = CollectionSchema.model_validate(json.loads((HERE / "events.json").read_text()))
EVENT_VALUES = {"event_id": ["EQ-2023-0412", "EQ-2022-0101"], "event_type": ["tectonic", "volcanic"],
                "nearest_town": ["Hope", "Hopewell"], "stations": ["KRT", "KRT2", "MNT"],
                "analyst": ["Maria Okafor", "Daniel Okafor"]}


@pytest.mark.parametrize("question", [
    # Signed "1: tectonic": the number of event types among the matches, not of events.
    "How many events had a tsunami warning?",
    "How many volcanic events are there?",
    "how many events did station KRT2 detect",
    "How many events happened in 2022?",
])
def test_how_many_of_the_items_counts_them_not_an_attribute_their_word_begins(question: str) -> None:
    plan = PLANNER.plan(question, EVENTS, EVENT_VALUES, today=TODAY)
    assert plan.computed is None
    assert plan.asks == "documents"


def test_how_many_of_an_attribute_named_whole_counts_its_values() -> None:
    plan = PLANNER.plan("How many regions had a tsunami warning?", EVENTS, EVENT_VALUES, today=TODAY)
    assert plan.computed is not None and (plan.computed.op, plan.computed.attribute) == ("distinct", "region")


@pytest.mark.parametrize(("question", "attribute", "subject", "highest"), [
    # "Did INC-2014 last longer than INC-2041?" was read as a property asked of INC-2014 alone,
    # INC-2041 searched for, and the reader's "No" shown (it lasted 240 minutes, INC-2041 140).
    ("Did INC-2014 last longer than INC-2041?", "duration_minutes", "INC-2014", True),
    ("Was INC-2041 cheaper than INC-2014?", "cost_usd", "INC-2041", False),
    ("Did INC-2028 affect more customers than INC-2014?", "customers_affected", "INC-2028", True),
    ("Is INC-2014 or INC-2041 cheaper?", "cost_usd", "", False),
])
def test_a_yes_no_question_setting_two_records_side_by_side_compares_them(
        question: str, attribute: str, subject: str, highest: bool) -> None:
    plan = PLANNER.plan(question, INCIDENTS, VALUES, today=TODAY)
    assert plan.computed is not None and plan.computed.whole
    assert (plan.computed.attribute, plan.computed.subject, plan.computed.highest) == (attribute, subject, highest)
    assert plan.computed.compared == "incident_id"


def test_a_property_asked_of_one_record_is_still_asked_of_it() -> None:
    plan = PLANNER.plan("Were INC-2014 and INC-2041 both SEV1?", INCIDENTS, VALUES, today=TODAY)
    assert plan.computed is None and plan.whether is None
    assert plan.where == {"incident_id": {"$eq": "INC-2014"}}


# The twenty-first new user's election results (session 37): a party for the winner and one for
# the runner-up, booleans named incumbent_won and special_election.
ELECTIONS = CollectionSchema.model_validate(json.loads((HERE / "elections.json").read_text()))
ELECTION_VALUES = {"district_id": ["D-1", "D-14", "D-41"], "district": ["Bayfront", "Quarry"],
                   "winner": ["Jordan Green", "Victor Hale", "Nadia Fors"], "runner_up": ["Amy Fox", "Ben Ortiz"],
                   "party": ["Civic Union", "Green", "Independent", "Labor"],
                   "runner_up_party": ["Civic Union", "Green", "Independent", "Labor"]}


def _election(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, ELECTIONS, ELECTION_VALUES, today=TODAY)


@pytest.mark.parametrize("question", [
    # Each was signed over "party or runner_up_party": "Yes" of a Labor winner whose runner-up was
    # Green, "13" Labor winners with 7 Labor runners-up among them.
    "Is Victor Hale a Green?",
    "Is Nadia Fors Labor?",
    "How many Labor winners were there in 2021?",
    "How many Green winners had turnout over 45%?",
    "How many independents won in 2021?",
])
def test_a_value_of_a_record_s_own_attribute_and_a_second_role_s_is_either_and_not_whole(question: str) -> None:
    plan = _election(question)
    assert any(c.kind == "either_attribute" for c in plan.changes)
    assert plan.whether is None and plan.asks is None and (plan.computed is None or not plan.computed.whole)


def test_the_plain_attribute_named_by_its_word_is_chosen() -> None:
    plan = _election("Is Jordan Green in the Green party?")
    assert plan.where == {"$and": [{"winner": {"$eq": "Jordan Green"}}, {"party": {"$eq": "Green"}}]}


@pytest.mark.parametrize(("question", "where"), [
    # "elections" named special_election, "won" incumbent_won: the last word of the name alone.
    ("How many elections had turnout under 30 percent?", {"turnout_pct": {"$lt": 30.0}}),
    ("How many special elections were there?", {"special_election": {"$eq": True}}),
    ("In which races did the incumbent win?", {"incumbent_won": {"$eq": True}}),
])
def test_a_boolean_of_several_words_is_named_by_its_first(question: str, where: object) -> None:
    assert _election(question).where == where


def test_a_word_beginning_an_attribute_s_name_sums_nothing() -> None:
    # "How many Green party wins were there in total?" was signed 70171, the sum of winner_votes.
    plan = _election("How many Green party wins were there in total?")
    assert plan.computed is None or plan.computed.attribute != "winner_votes"


# The twentieth new user's freight shipments (session 37): two ports, a carrier and a broker.
SHIPMENTS = CollectionSchema.model_validate(json.loads((HERE / "shipments.json").read_text()))
PORTS = ["Antwerp", "Genoa", "Hamburg", "Split"]
SHIPMENT_VALUES = {"shipment_id": ["SHP-30417", "SHP-30471", "SHP-30147"], "origin_port": PORTS, "destination_port": PORTS,
                   "carrier": ["Nordhavn Shipping", "Blue Heron Lines"], "container_type": ["reefer", "20ft dry"],
                   "broker": ["Ingrid Hale", "Tomas Hale"]}


def _shipment(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, SHIPMENTS, SHIPMENT_VALUES, today=TODAY)


@pytest.mark.parametrize(("question", "where"), [
    # "went to Split" was origin or destination: "the port the shipment was sent to" says which.
    ("Which shipments went to Split?", {"destination_port": {"$eq": "Split"}}),
    ("How many shipments came from Hamburg?", {"origin_port": {"$eq": "Hamburg"}}),
    ("shipments from Genoa to Split", {"$and": [{"origin_port": {"$eq": "Genoa"}}, {"destination_port": {"$eq": "Split"}}]}),
    ("Which shipments involved Hamburg?", {"$or": [{"origin_port": {"$eq": "Hamburg"}}, {"destination_port": {"$eq": "Hamburg"}}]}),
])
def test_a_preposition_an_attribute_s_description_has_names_it(question: str, where: object) -> None:
    plan = _shipment(question)
    assert plan.where == where
    if "$or" not in where:  # type: ignore[operator]
        assert plan.asks == "documents"


@pytest.mark.parametrize(("question", "attribute", "highest"), [
    # "lightest shipment?" ranked nothing: "shipment" was read as naming ship_date, and the bare
    # noun phrase with a question mark as asking whether one exists.
    ("lightest shipment?", "weight_kg", False),
    ("What was the cheapest shipment?", "declared_value_eur", False),
    ("heaviest reefer shipment?", "weight_kg", True),
])
def test_the_items_word_after_a_superlative_names_no_attribute_it_begins(question: str, attribute: str, highest: bool) -> None:
    plan = _shipment(question)
    assert plan.computed is not None and plan.computed.whole
    assert (plan.computed.attribute, plan.computed.highest) == (attribute, highest)


def test_what_was_in_a_record_asks_its_text() -> None:
    # Signed as the one-document listing of SHP-30471, which never says what it carried.
    assert _shipment("What was in shipment SHP-30471?").asks is None
    assert _shipment("What is SHP-30471?").asks == "documents"


@pytest.mark.parametrize(("question", "op", "attribute"), [
    # "district" names district and district_id: the one called by the word alone heads it.
    ("Which district had the highest turnout in 2023?", "rank", "turnout_pct"),
    ("How many districts had a recount in 2023?", "distinct", "district"),
])
def test_the_attribute_called_by_the_word_alone_heads_the_question(question: str, op: str, attribute: str) -> None:
    plan = _election(question)
    assert plan.computed is not None and plan.computed.whole
    assert (plan.computed.op, plan.computed.attribute) == (op, attribute)


def test_caused_before_a_condition_is_the_condition_s_verb() -> None:
    # "Which events caused more than 1 million dollars of damage?" left "caused" to search: no listing.
    plan = PLANNER.plan("Which events caused more than 1 million dollars of damage?", EVENTS, EVENT_VALUES, today=TODAY)
    assert plan.where == {"damage_usd": {"$gt": 1000000}} and plan.asks == "documents"


@pytest.mark.parametrize("question", ["Which carrier moved the heaviest shipment?", "Which broker cleared the cheapest shipment?"])
def test_a_verb_between_the_asked_attribute_and_the_ranked_item_is_no_topic(question: str) -> None:
    # Flagged "Castell Maritime": "moved the shipment" was left to search, so no ranking was whole.
    plan = _shipment(question)
    assert plan.computed is not None and plan.computed.whole


# The twenty-third new user's library catalogue (session 37): a flag reference_only beside a
# subject "reference", a count borrowed_last_year, a title and a branch both "Riverside".
CATALOGUE = CollectionSchema.model_validate(json.loads((HERE / "catalogue.json").read_text()))
CATALOGUE_VALUES = {"id": ["BK-11004", "BK-10452", "BK-10425"], "title": ["Riverside", "Harbor Lights"],
                    "author": ["Ana Lindqvist", "Erik Lindqvist"], "format": ["book", "ebook", "audiobook", "DVD"],
                    "branch": ["Central", "Riverside", "Oakmont"], "subjects": ["reference", "history", "poetry"]}


def _catalogue(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, CATALOGUE, CATALOGUE_VALUES, today=TODAY)


@pytest.mark.parametrize(("question", "where"), [
    # "not reference only" was "subjects does not contain reference", and signed.
    ("Which items at Central are not reference only?",
     {"$and": [{"branch": {"$eq": "Central"}}, {"reference_only": {"$eq": False}}]}),
    ("Which reference items are at Central?",
     {"$and": [{"subjects": {"$contains": "reference"}}, {"branch": {"$eq": "Central"}}]}),
    # "last year" of borrowed_last_year was also read as pub_year 2025: "0 matching documents".
    ("Which items were borrowed more than 100 times last year?", {"borrowed_last_year": {"$gt": 100}}),
    ("Which Oakmont items were borrowed fewer than 20 times last year?",
     {"$and": [{"branch": {"$eq": "Oakmont"}}, {"borrowed_last_year": {"$lt": 20}}]}),
    ("Which items about poetry were published last year?",
     {"$and": [{"subjects": {"$contains": "poetry"}}, {"pub_year": {"$eq": TODAY.year - 1}}]}),
    # "which branch has the book Riverside?" listed the Riverside branch's books.
    ("which branch has the book Riverside?", {"$and": [{"format": {"$eq": "book"}}, {"title": {"$eq": "Riverside"}}]}),
])
def test_the_catalogue_s_traps(question: str, where: object) -> None:
    assert _catalogue(question).where == where


def test_a_flag_s_name_written_whole_is_the_flag() -> None:
    plan = _catalogue("Is BK-11004 reference only?")
    assert plan.whether is not None
    assert plan.whether.predicate == Comparison(attribute="reference_only", comparator="eq", value=True)


# The twenty-fourth new user's flights (session 37): seats_sold, "number of seats sold".
FLIGHTS = CollectionSchema.model_validate(json.loads((HERE / "flights.json").read_text()))
FLIGHT_VALUES = {"flight_number": ["SK114", "SK121", "SK163"], "captain": ["Helen Ruiz", "Maria Okafor"]}


@pytest.mark.parametrize("question", ["Did SK114 sell more seats than SK121?", "Which flight sold more seats, SK114 or SK121?"])
def test_the_verb_an_attribute_s_description_uses_is_the_comparison_s(question: str) -> None:
    # Flagged "No" (168 against 153): "sell" was left to search, so the comparison was not whole.
    plan = PLANNER.plan(question, FLIGHTS, FLIGHT_VALUES, today=TODAY)
    assert plan.computed is not None and plan.computed.whole and plan.computed.attribute == "seats_sold"


@pytest.mark.parametrize(("schema", "question", "attribute", "highest"), [
    # "Which item was borrowed the most last year?" was flagged "10-01": "most" named nothing.
    (CATALOGUE, "Which item was borrowed the most last year?", "borrowed_last_year", True),
    (CATALOGUE, "Which item was borrowed the least?", "borrowed_last_year", False),
    (FLIGHTS, "Which flight was delayed the most?", "delay_minutes", True),
    (FLIGHTS, "Which flight sold the fewest seats?", "seats_sold", False),
])
def test_a_verb_of_an_attribute_s_name_ranks_by_it(schema: CollectionSchema, question: str, attribute: str, highest: bool) -> None:
    plan = PLANNER.plan(question, schema, {}, today=TODAY)
    assert plan.computed is not None and plan.computed.whole
    assert (plan.computed.attribute, plan.computed.highest) == (attribute, highest)


def test_the_items_word_is_no_flag_by_meaning() -> None:
    # "How many elections were not special elections?" was not counted: "elections", the items'
    # own word, was also linked by meaning to special_election (a guess, so nothing signed).
    from tests.query.word_vectors import WordVectors

    vectors = WordVectors([("elections", "special election", "whether it was a special election")],
                          {"elections": 0.3})
    planner = SelfQueryPlanner(None, mode="rules", today=TODAY, embeddings=vectors)
    plan = planner.plan("How many elections were not special elections?", ELECTIONS, ELECTION_VALUES)
    assert plan.where == {"special_election": {"$eq": False}}
    assert not any(c.kind == "guessed_value" for c in plan.changes)
    assert plan.asks == "documents"


def test_a_word_another_attribute_s_description_has_names_neither() -> None:
    # "Which flight had the most seats?" was ranked by seats_sold; capacity is "number of seats on
    # the aircraft", the likelier reading. Which one is not said, so nothing is ranked.
    plan = PLANNER.plan("Which flight had the most seats?", FLIGHTS, FLIGHT_VALUES, today=TODAY)
    assert plan.computed is not None and not plan.computed.whole
    assert set(plan.computed.candidates) == {"seats_sold", "capacity"}
    sold = PLANNER.plan("Which flight sold the most seats?", FLIGHTS, FLIGHT_VALUES, today=TODAY)
    assert sold.computed is not None and sold.computed.whole and sold.computed.attribute == "seats_sold"


# The twenty-fifth new user's restaurant inspections (session 37): a district "Market" beside a
# restaurant "The Market Table"; a restaurant and an inspector, both names.
INSPECTIONS = CollectionSchema.model_validate(json.loads((HERE / "inspections.json").read_text()))
INSPECTION_VALUES = {"inspection_id": ["INS-5521", "INS-5611"], "restaurant": ["The Market Table", "Golden Dragon"],
                     "district": ["Harbor", "Market", "Old Town"], "inspector": ["Maria Lopez", "Grace Okoye"]}


@pytest.mark.parametrize("question", ["How many inspections were in the Market?",
                                      "How many inspections were in the Market district?"])
def test_a_value_written_whole_beats_a_part_of_a_longer_name(question: str) -> None:
    # Counted The Market Table's inspections ("3 matching documents"), signed; the district has 5.
    plan = PLANNER.plan(question, INSPECTIONS, INSPECTION_VALUES, today=TODAY)
    assert plan.where == {"district": {"$eq": "Market"}}


@pytest.mark.parametrize(("question", "attribute"), [
    # "Who inspected INS-5611?" was signed with the restaurant, "the inspected restaurant".
    ("Who inspected INS-5611?", "inspector"),
    ("Which restaurant was inspected in INS-5611?", "restaurant"),
])
def test_who_asks_the_doer_of_its_verb(question: str, attribute: str) -> None:
    from workflows.set_answers import asked_attribute

    plan = PLANNER.plan(question, INSPECTIONS, INSPECTION_VALUES, today=TODAY)
    where = plan.query.filter.model_dump(mode="json") if plan.query.filter is not None else None
    found = asked_attribute(question, plan.query.query, INSPECTIONS, where)
    assert found is not None and found.name == attribute


def test_what_caused_asks_the_cause() -> None:
    # "What caused the delay of SHP-30581?" was signed as the one-document listing: "caused" was
    # read as the verb of the filter's condition, as in "Which events caused … damage?".
    values = {**SHIPMENT_VALUES, "shipment_id": ["SHP-30581", "SHP-30417"], "status": ["delayed", "delivered", "lost"]}
    plan = PLANNER.plan("What caused the delay of SHP-30581?", SHIPMENTS, values, today=TODAY)
    assert plan.asks is None
    assert PLANNER.plan("Which shipments caused a delay?", SHIPMENTS, values, today=TODAY).where == {"status": {"$eq": "delayed"}}
