"""Relations are declared as data, compiled to Cypher whose only non-parameter words are checked identifiers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from selfrag.errors import SchemaError
from selfrag.kg import GraphLink, Relation, compile_relation, load_graph_link
from selfrag.kg.cypher import quote

HOSTILE = [
    "Org`) DETACH DELETE (n",
    "Org {id: 1}",
    "Org // comment",
    "Org/* x */",
    "Org'; MATCH (n) DETACH DELETE n; //",
    'Org"',
    "Org\nDELETE",
    "",
    "1Org",
    "Örg",
]


def _relation(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "supplies", "description": "customers of the organization", "start": "Organization",
        "path": [{"type": "SUPPLIES", "direction": "out", "label": "Organization"}],
    }
    base.update(over)
    return base


@pytest.mark.parametrize("bad", HOSTILE)
def test_schema_fields_that_are_not_identifiers_are_refused(bad: str) -> None:
    for over in (
        {"start": bad},
        {"name": bad},
        {"path": [{"type": bad, "direction": "out", "label": "Organization"}]},
        {"path": [{"type": "SUPPLIES", "direction": "out", "label": bad}]},
    ):
        with pytest.raises(ValidationError, match="must be an identifier"):
            Relation.model_validate(_relation(**over))
    with pytest.raises(ValueError, match="must be an identifier"):
        quote(bad)


def test_one_hop_template_holds_quoted_identifiers_and_the_value_only_as_a_parameter() -> None:
    hostile_id = "x'}) DETACH DELETE n //"
    q = compile_relation(Relation.model_validate(_relation()), hostile_id)
    assert q.template == (
        "MATCH (s:`Entity`:`Organization` {id: $entity})-[:`SUPPLIES`]->(t:`Organization`) "
        "WHERE t <> s RETURN DISTINCT t.id AS id, t.name AS name ORDER BY name LIMIT $limit"
    )
    assert q.params == {"entity": hostile_id, "limit": 10_000}
    assert "DETACH" not in q.template


def test_two_hops_and_both_directions_compile_in_order() -> None:
    rel = Relation.model_validate(_relation(
        name="in_country", start="Country",
        path=[{"type": "IN_COUNTRY", "direction": "in", "label": "City"},
              {"type": "LOCATED_IN", "direction": "in", "label": "Organization"}],
    ))
    assert compile_relation(rel, "c").template.startswith(
        "MATCH (s:`Entity`:`Country` {id: $entity})<-[:`IN_COUNTRY`]-(:`City`)<-[:`LOCATED_IN`]-(t:`Organization`) "
    )
    assert rel.describe_path() == "(Country)<-[IN_COUNTRY]-(City)<-[LOCATED_IN]-(Organization)"
    both = Relation.model_validate(_relation(path=[{"type": "COMPETES_WITH", "direction": "both", "label": "Organization"}]))
    assert "-[:`COMPETES_WITH`]-(t:`Organization`)" in compile_relation(both, "c").template


def test_a_link_checks_its_relations_against_its_mention_attributes() -> None:
    mentions = [{"attribute": "organizations", "label": "Organization"}]
    GraphLink.model_validate({"graph": "g", "mentions": mentions, "relations": [_relation()]})
    with pytest.raises(ValidationError, match="which no mention attribute holds"):
        GraphLink.model_validate({"graph": "g", "mentions": mentions, "relations": [_relation(
            path=[{"type": "LOCATED_IN", "direction": "out", "label": "City"}])]})
    with pytest.raises(ValidationError, match="duplicate relation"):
        GraphLink.model_validate({"graph": "g", "mentions": mentions, "relations": [_relation(), _relation()]})
    with pytest.raises(ValidationError, match="graph name"):
        GraphLink.model_validate({"graph": "g`) DELETE", "mentions": mentions})


def test_load_graph_link_names_the_file_and_place_of_an_error(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps({"graph": "g", "mentions": [{"attribute": "orgs", "label": "Org"}],
                                "relations": [_relation(start="A B")]}))
    with pytest.raises(SchemaError, match=r"graph\.json.*relations\.0\.start"):
        load_graph_link(path)
    path.write_text("{")
    with pytest.raises(SchemaError, match="not JSON"):
        load_graph_link(path)


def test_the_companies_link_loads(companies_link: GraphLink) -> None:
    assert {r.name for r in companies_link.relations} >= {"board_member", "invested_in", "supplies", "in_country"}
    assert companies_link.mention_for("Organization") is not None
