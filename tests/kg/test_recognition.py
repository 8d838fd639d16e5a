"""Offline relation recognition over the companies sample's schema and entities (no server, no model)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from selfrag.kg import EntityIndex, GraphLink, recognise_relations


def _found(q: str, link: GraphLink, index: EntityIndex) -> tuple[list[tuple[str, str]], list[str]]:
    rec = recognise_relations(q, link, index)
    rels = [(r.relation, r.match.entity.name if r.match.entity else f"?{r.value}") for r in rec.relations]
    ments = [m.entity.name if m.entity else f"?{m.text}" for m in rec.mentions]
    return rels, ments


@pytest.mark.parametrize(
    ("question", "relations", "mentions"),
    [
        # direction: the entity's place around the cue word decides which end it is
        ("Which companies invested in Graphwise?", [("investors", "Graphwise")], []),
        ("What did Graphwise invest in?", [("invested_in", "Graphwise")], []),
        ("Graphwise's investors", [("investors", "Graphwise")], []),
        ("companies backed by Redwood Ventures", [("invested_in", "Redwood Ventures")], []),
        ("firms that supply Ferrox Steel", [("suppliers", "Ferrox Steel")], []),
        ("firms Ferrox Steel supplies", [("supplies", "Ferrox Steel")], []),
        # a Person or a Country can only filter through a relation
        ("news about companies in Sweden", [("in_country", "Sweden")], []),
        ("Anything on Yuna Park's boards?", [("board_member", "Yuna Park")], []),
        ("companies Yuna Park is chief executive of", [("ceo_of", "Yuna Park")], []),
        # no cue: a plain mention
        ("latest news about Graphwise", [], ["Graphwise"]),
        # two conditions
        ("Dutch suppliers of Mercury Motors", [("in_country", "Netherlands"), ("suppliers", "Mercury Motors")], []),
    ],
)
def test_relations_and_mentions(question: str, relations: list[tuple[str, str]], mentions: list[str],
                                companies_link: GraphLink, companies_index: EntityIndex) -> None:
    assert _found(question, companies_link, companies_index) == (relations, mentions)


def test_an_ambiguous_value_keeps_its_candidates(companies_link: GraphLink, companies_index: EntityIndex) -> None:
    rec = recognise_relations("Who supplies Mercury?", companies_link, companies_index)
    assert [r.relation for r in rec.relations] == ["suppliers"]
    assert rec.relations[0].match.status == "ambiguous"
    assert sorted(c.entity.name for c in rec.relations[0].match.candidates) == ["Mercury Motors", "Mercury Records"]


def test_a_misspelt_name_is_found_fuzzily(companies_link: GraphLink, companies_index: EntityIndex) -> None:
    assert _found("boards of Rod Halversen", companies_link, companies_index) == ([("board_member", "Rod Halverson")], [])


def test_an_embedder_adds_what_the_words_miss(companies_link: GraphLink, companies_index: EntityIndex) -> None:
    question = "Which organisations has Saffron Capital put money into?"
    assert _found(question, companies_link, companies_index) == ([], ["Saffron Capital"])  # no cue word

    def embed(texts: Sequence[str]) -> list[list[float]]:
        # Scripted: the question points the way of the invested_in description, nothing else does.
        return [[1.0, 0.0] if ("money" in t or "invested in: its investments" in t) else [0.0, 1.0] for t in texts]

    rec = recognise_relations(question, companies_link, companies_index, embed=embed)
    assert [(r.relation, r.match.entity and r.match.entity.name) for r in rec.relations] == [("invested_in", "Saffron Capital")]


def test_a_recognised_relation_becomes_a_condition(companies_link: GraphLink, companies_index: EntityIndex) -> None:
    (found,) = recognise_relations("companies that supply ferrox", companies_link, companies_index).relations
    assert found.condition.model_dump() == {"relation": "suppliers", "value": "Ferrox Steel"}
    (ambiguous,) = recognise_relations("Who supplies Mercury?", companies_link, companies_index).relations
    assert ambiguous.condition.value == "Mercury"
