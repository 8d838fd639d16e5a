"""Set answers without a server: the graph's entity set (intersected across relations, cited to
the graph) and the matching documents (newest first, stored YYYYMMDD dates shown as dates)."""

from __future__ import annotations

from typing import Any

from selfrag.schema import CollectionSchema
from workflows import records as rec
from workflows.set_answers import (
    document_listing,
    entities_and_documents,
    entity_answer,
    filter_attributes,
    stated_attribute,
    unasked_words,
)


def _plan(*resolutions: dict[str, Any]) -> rec.ResourcePlan:
    return rec.ResourcePlan(resource="companies", query="", fixed=None, filter=None, k=4, source="rules", error=None,
                            error_code=None, resolutions=list(resolutions))


def _relation(name: str, source: str, *reached: str) -> dict[str, Any]:
    return {"kind": "relation", "relation": name, "entity": {"id": f"id:{source}", "name": source},
            "entities": [{"id": f"id:{n}", "name": n} for n in reached], "attribute": "organizations"}


def _doc(i: int, date: Any, text: str) -> rec.Document:
    return rec.Document(id=f"d{i}", text=text, metadata={"date": date}, score=1.0, resource="news", sources=[])


def test_the_entity_set_is_what_every_relation_reaches_cited_to_the_graph() -> None:
    plan = _plan(_relation("in_country", "France", "Alto Aerospace", "Paloma Labs", "Bellamy & Co"),
                 _relation("invested_in", "Redwood Ventures", "Graphwise", "Paloma Labs"),
                 {"kind": "mention", "entity": {"id": "x", "name": "X"}, "entities": ["X"]})
    got = entity_answer(plan, "companies", {"invested_in": "Organizations the given organization invested in."})
    assert got is not None
    assert got.short_answer == "Paloma Labs" and got.answer.startswith("Paloma Labs.")
    assert [c["resource"] for c in got.citations] == ["graph:companies", "graph:companies"]
    assert got.citations[1]["metadata"]["entities"] == ["Graphwise", "Paloma Labs"]
    assert "Organizations the given organization invested in" in got.citations[1]["text"]
    assert got.answer.endswith("[1] [2]")


def test_relations_that_reach_no_common_entity_answer_none() -> None:
    got = entity_answer(_plan(_relation("a", "A", "P", "Q"), _relation("b", "B", "R")), "g", {})
    assert got is not None and got.short_answer == "None" and got.answer.startswith("None:")


def test_no_relation_no_entity_answer() -> None:
    assert entity_answer(_plan({"kind": "mention", "entity": {"id": "x", "name": "X"}, "entities": ["X"]}), "g", {}) is None


def test_the_listing_is_newest_first_with_each_documents_first_sentence_and_marker() -> None:
    docs = [_doc(1, 20240110, "Old news. Body."), _doc(2, "2025-03-02", "Newer news. Body."), _doc(3, None, "Undated. Body.")]
    got = document_listing(docs, "date", k=10)
    assert got is not None
    assert got.answer.splitlines() == ["3 matching documents, newest first:", "- Newer news (2025-03-02) [1]",
                                       "- Old news (2024-01-10) [2]", "- Undated [3]"]
    assert [c["id"] for c in got.citations] == ["d2", "d1", "d3"]


def test_a_full_page_says_there_may_be_more_and_a_yes_no_question_opens_with_yes() -> None:
    got = document_listing([_doc(1, None, "Only one.")], None, k=1, yes_no=True)
    assert got is not None and got.short_answer == "Yes"
    assert got.answer.splitlines()[0] == "Yes: 1 matching document (there may be more):"


def test_no_documents_no_listing() -> None:
    assert document_listing([], "date", k=4) is None


def test_each_item_shows_the_values_the_filter_tested_and_a_document_counts_once() -> None:
    docs = [rec.Document(id="a#0", text="Boston Knights. A chess club.", metadata={"doc_id": "a", "activity": "chess",
                                                                                  "city": "Boston", "juniors": True},
                         score=1.0, resource="clubs", sources=[]),
            rec.Document(id="a#1", text="More about the Knights.", metadata={"doc_id": "a", "activity": "chess"},
                         score=1.0, resource="clubs", sources=[]),
            rec.Document(id="b", text="Denver Chess Circle.", metadata={"activity": "chess", "juniors": False},
                         score=1.0, resource="clubs", sources=[])]
    filter_dump = {"operator": "and", "arguments": [{"attribute": "activity", "comparator": "eq", "value": "chess"},
                                                    {"attribute": "juniors", "comparator": "eq", "value": True}]}
    shown = filter_attributes(filter_dump)
    assert shown == ["activity", "juniors"]
    got = document_listing(docs, None, k=10, shown=shown)
    assert got is not None
    assert got.answer.splitlines()[1:] == ["- Boston Knights (activity: chess; juniors: yes) [1]",
                                           "- Denver Chess Circle (activity: chess; juniors: no) [2]"]


def test_the_entities_then_the_documents_about_them_numbered_after_the_graph() -> None:
    entities = entity_answer(_plan(_relation("supplies", "Brightcell Batteries", "Kestrel Automotive", "Halvard Motors")),
                             "companies", {})
    assert entities is not None
    docs = [_doc(1, 20240110, "Kestrel recalls cars. Body."), _doc(2, 20250302, "Halvard opens a plant. Body.")]
    got = entities_and_documents(entities, docs, "date", k=10)
    assert got.strategy == "graph_listing" and got.short_answer == "Kestrel Automotive and Halvard Motors"
    assert got.answer.splitlines() == [entities.answer, "2 matching documents, newest first:",
                                       "- Halvard opens a plant (2025-03-02) [2]", "- Kestrel recalls cars (2024-01-10) [3]"]
    assert [(c["number"], c["id"]) for c in got.citations] == [(1, "supplies/id:Brightcell Batteries"), (2, "d2"), (3, "d1")]
    none = entities_and_documents(entities, [], "date", k=10)
    assert none.answer.endswith("No document in the collection matches them.") and len(none.citations) == 1


def test_a_float_attribute_s_whole_value_is_written_as_a_whole_number() -> None:
    # "1599.0. The Lumetra Aero 14 Pro …" answered "How much does the Aero 14 Pro cost?"
    from selfrag.schema import AttributeInfo
    from workflows.set_answers import field_answer

    doc: Any = {"id": "aero", "text": "The Aero 14 Pro adds an OLED screen.", "resource": "laptops",
                "metadata": {"price_usd": 1599.0, "weight_kg": 1.35}}
    assert field_answer(doc, AttributeInfo(name="price_usd", type="float")).short_answer == "1599"  # type: ignore[union-attr]
    assert field_answer(doc, AttributeInfo(name="weight_kg", type="float")).short_answer == "1.35"  # type: ignore[union-attr]


RECALLS = CollectionSchema.model_validate({"attributes": [
    {"name": "product", "type": "string", "kind": "name"},
    {"name": "units_affected", "type": "integer", "description": "number of units recalled", "kind": "count"},
    {"name": "injuries", "type": "integer", "kind": "count"},
    {"name": "price", "type": "float", "kind": "money", "unit": "USD"},
    {"name": "recall_date", "type": "date", "description": "date the recall was announced", "kind": "date"}]})


def test_a_figure_states_the_one_number_attribute_it_equals_to_its_written_precision() -> None:
    meta = {"product": "Quill", "units_affected": 3_100_000, "injuries": 4, "price": 24.5}
    assert stated_attribute("3,100,000", meta, RECALLS).name == "units_affected"
    assert stated_attribute("about 3.1 million", meta, RECALLS).name == "units_affected"
    assert stated_attribute("$24.50", meta, RECALLS).name == "price"
    assert stated_attribute("3.2 million", meta, RECALLS) is None
    assert stated_attribute("4 injuries and 2 fires", meta, RECALLS) is None  # two figures: which one answers?
    assert stated_attribute("Quill", meta, RECALLS) is None
    assert stated_attribute("4 Quill Street", meta, RECALLS) is None  # a name that holds a figure
    assert stated_attribute("4", {"units_affected": 4, "injuries": 4}, RECALLS) is None  # two attributes state it


def test_the_words_an_attribute_does_not_record_are_what_the_question_asks_beside_it() -> None:
    units = RECALLS.attribute("units_affected")
    where = {"attribute": "product", "comparator": "eq", "value": "Quill Hand Mixer"}
    assert unasked_words("units of the were sold", units, where) == {"sell"}
    assert unasked_words("units of the were recalled", units, where) == frozenset()
    assert unasked_words("How many Quill Hand Mixer units were affected", units, where) == frozenset()
    price = RECALLS.attribute("price")
    assert unasked_words("How much does the cost", price, where) == frozenset()  # a measure's word of its kind


def test_a_date_states_the_date_attribute_it_names_to_the_day() -> None:
    meta = {"product": "Quill", "recall_date": 20230402, "units_affected": 4}
    assert stated_attribute("2 April 2023", meta, RECALLS).name == "recall_date"
    assert stated_attribute("April 2, 2023", meta, RECALLS).name == "recall_date"
    assert stated_attribute("on 2023-04-02", meta, RECALLS).name == "recall_date"
    assert stated_attribute("3 April 2023", meta, RECALLS) is None
    assert stated_attribute("2 May 2023", meta, RECALLS) is None
    recall_date = RECALLS.attribute("recall_date")
    assert unasked_words("When was the sold", recall_date, None) == {"sell"}
    assert unasked_words("When was the recall announced", recall_date, None) == frozenset()
