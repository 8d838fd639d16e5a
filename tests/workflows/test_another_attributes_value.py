"""A reader's answer that is the record's value of another attribute than the one the question names
("Who was the buyer's agent on LST-6003?" read as the listing agent its passage names, of a listing
that never sold) is not signed, however sure the reader is."""

from __future__ import annotations

from typing import Any

from graders import Combine, GraderConfig
from selfrag.schema import CollectionSchema
from selfrag.testing import FakeCollection, FakeStore, ScriptedChatModel, ScriptedJudge, reading_of
from tests.workflows.conftest import FAST
from workflows import Components, Outcome, SelfRagEngine

CRITIC = GraderConfig(retry=FAST, combine=Combine.SIGNAL)
THRESHOLDS = {"reader": 0.6, "relevance": 0.5, "support": 0.5, "usefulness": 0.5}
SCHEMA = CollectionSchema.model_validate({
    "description": "Residential property sale records, one record per listing",
    "attributes": [
        {"name": "listing_id", "type": "string", "kind": "identifier", "description": "listing code"},
        {"name": "listing_agent", "type": "string", "kind": "name", "description": "agent who listed the property"},
        {"name": "buyers_agent", "type": "string", "kind": "name", "description": "agent who represented the buyer"},
    ],
})


def _engine(records: list[dict[str, Any]], answer: str) -> SelfRagEngine:
    judge = ScriptedJudge(lambda *a: 0.9, lambda q, passages: reading_of(answer, passages, probability=0.95),
                          thresholds=THRESHOLDS, name="judge-test-v1")
    return _engine_with(judge, FakeCollection("sales", SCHEMA, records))


def _engine_with(judge: ScriptedJudge, coll: FakeCollection) -> SelfRagEngine:
    components = Components.from_model(ScriptedChatModel.from_rules({}), FakeStore(coll), retry=FAST, self_query_mode="rules",
                                       judge=judge, relevance=CRITIC, groundedness=CRITIC, usefulness=CRITIC,
                                       extractive_only=True, rules_only_text=True)
    return SelfRagEngine(components)


UNSOLD = {"id": "LST-6003", "text": "LST-6003: a flat listed by Ruth Okoye at £275,000. It has not sold.",
          "metadata": {"listing_id": "LST-6003", "listing_agent": "Ruth Okoye"}}
SOLD = {"id": "LST-6004", "text": "LST-6004: a house listed by Ruth Okoye, sold through Tom Hale.",
        "metadata": {"listing_id": "LST-6004", "listing_agent": "Ruth Okoye", "buyers_agent": "Tom Hale"}}
BOTH = {"id": "LST-6005", "text": "LST-6005: listed and sold by Ruth Okoye for both sides.",
        "metadata": {"listing_id": "LST-6005", "listing_agent": "Ruth Okoye", "buyers_agent": "Ruth Okoye"}}


def test_another_attributes_value_is_not_signed() -> None:
    result = _engine([UNSOLD, SOLD], "Ruth Okoye").run("Who was the buyer's agent on LST-6003?", collection="sales")
    assert result.outcome is not Outcome.ANSWERED
    assert any(v["kind"] == "attribute" and "listing_agent" in v["reason"] for v in result.trace.verdicts)


def test_the_asked_attributes_value_is_signed() -> None:
    result = _engine([UNSOLD, SOLD], "Tom Hale").run("Who was the buyer's agent on LST-6004?", collection="sales")
    assert result.outcome is Outcome.ANSWERED and result.short_answer == "Tom Hale"
    # One person in both roles: the asked one's value too.
    both = _engine([BOTH], "Ruth Okoye").run("Who was the buyer's agent on LST-6005?", collection="sales")
    assert both.outcome is Outcome.ANSWERED


def test_a_thing_the_verb_takes_is_no_role_asked() -> None:
    # "who reads the instruments at Frost Hollow" names instruments, what is read; the observer
    # Dev Quill is the answer, and was unsigned as "another attribute's value".
    schema = CollectionSchema.model_validate({"description": "Weather stations", "attributes": [
        {"name": "station", "type": "string", "kind": "name", "description": "station name"},
        {"name": "observer", "type": "string", "kind": "name", "description": "person who reads the instruments"},
        {"name": "instruments", "type": "string[]", "kind": "category", "description": "instruments at the station"}]})
    judge = ScriptedJudge(lambda *a: 0.9, lambda q, passages: reading_of("Dev Quill", passages, probability=0.95),
                          thresholds=THRESHOLDS, name="judge-test-v1")
    coll = FakeCollection("stations", schema, [{"id": "fh", "text": "Frost Hollow is read daily by Dev Quill.",
                                                "metadata": {"station": "Frost Hollow", "observer": "Dev Quill",
                                                             "instruments": ["thermometer"]}}])
    components = Components.from_model(ScriptedChatModel.from_rules({}), FakeStore(coll), retry=FAST, self_query_mode="rules",
                                       judge=judge, relevance=CRITIC, groundedness=CRITIC, usefulness=CRITIC,
                                       extractive_only=True, rules_only_text=True)
    result = SelfRagEngine(components).run("who reads the instruments at Frost Hollow", collection="stations")
    # Nor is the station's stored instrument the answer to "who".
    assert result.outcome is Outcome.ANSWERED and result.short_answer == "Dev Quill"
    assert not any(v["kind"] == "attribute" for v in result.trace.verdicts)


def test_another_attributes_value_is_not_signed_for_a_role_its_verb_names() -> None:
    # "Who presents SC-182?" of a screening with no presenter was signed its director's name: the
    # question names the presenter by the verb it is the doer of, not by its name.
    from selfrag.schema import CollectionSchema

    schema = CollectionSchema.model_validate({"description": "Festival screenings", "attributes": [
        {"name": "screening_code", "type": "string", "kind": "identifier", "description": "code of the screening"},
        {"name": "director", "type": "string", "kind": "name", "description": "person who directed the film"},
        {"name": "presenter", "type": "string", "kind": "name", "description": "person who presents the screening"}]})
    judge = ScriptedJudge(lambda *a: 0.9, lambda q, passages: reading_of("Jonas Brandt", passages, probability=0.95),
                          thresholds=THRESHOLDS, name="judge-test-v1")
    record = {"id": "SC-182", "text": "SC-182: a drama by Jonas Brandt.",
              "metadata": {"screening_code": "SC-182", "director": "Jonas Brandt"}}
    coll = FakeCollection("screenings", schema, [record])
    result = _engine_with(judge, coll).run("Who presents SC-182?", collection="screenings")
    assert result.outcome is not Outcome.ANSWERED
    assert any(v["kind"] == "attribute" and "director" in v["reason"] for v in result.trace.verdicts)
