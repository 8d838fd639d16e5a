"""Set answers through the engine, over the companies sample in a real Chroma and a real FalkorDB:
a question asking for the entities a relation reaches is answered from the graph; a request whose
filters hold all it asks lists the matching documents; neither asks the model anything, and a
filter the search had to relax is never listed as if it held."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from selfrag.kg import GraphContexts, open_graph_store
from selfrag.retry import RetryPolicy
from selfrag.store import Store
from selfrag.testing import ScriptedChatModel, verdict
from workflows import Components, RunOptions, SelfRagEngine

TODAY = date(2025, 12, 31)
DEVSET = Path(__file__).resolve().parents[2] / "eval" / "sets" / "companies" / "questions.jsonl"


def _dev(qid: str) -> dict[str, Any]:
    return next(r for r in map(json.loads, DEVSET.read_text().splitlines()) if r["id"] == qid)


@pytest.fixture
def engine(companies: Store, falkordb_url: str, tmp_path: Path) -> Callable[[], tuple[SelfRagEngine, ScriptedChatModel]]:
    def build() -> tuple[SelfRagEngine, ScriptedChatModel]:
        model = ScriptedChatModel.from_rules({"RelevanceGrade": verdict("relevant"), "generate": "A model's answer [1].",
                                              "GroundednessGrade": verdict("grounded"),
                                              "UsefulnessGrade": verdict("useful")})
        components = Components.from_model(model, companies, retry=RetryPolicy(attempts=1, initial_wait_s=0.0,
                                           max_wait_s=0.0), self_query_mode="rules", parallel_checks=False)
        components.graphs = GraphContexts(lambda: open_graph_store(tmp_path, falkordb_url))
        return SelfRagEngine(components, defaults=RunOptions(top_k=4), today=lambda: TODAY), model

    return build


@pytest.mark.parametrize("qid", ["c16", "c17", "c44", "c45"])
def test_a_question_for_the_entities_is_answered_by_the_graph(engine: Any, qid: str) -> None:
    row = _dev(qid)
    run, model = engine()
    result = run.run(row["question"], collection="companies")
    assert result.outcome == "answered"
    assert all(name in result.answer for name in row["entities"] if name in result.short_answer)
    assert result.citations and all(c.resource == "graph:companies" for c in result.citations)
    checks = [v for v in result.trace.verdicts if v["kind"] in ("groundedness", "usefulness")]
    assert checks and all(v["model"] == "deterministic" and v["reason"] for v in checks)
    assert "A model's answer" not in result.answer
    assert model.calls_for("generate") == []


def test_the_entity_answer_names_every_entity_the_graph_returns(engine: Any) -> None:
    run, _ = engine()
    result = run.run("Which companies invested in Graphwise?", collection="companies")
    [res] = result.trace.plan["graph"]["resolutions"]
    names = sorted(e["name"] for e in res["entities"])
    assert names and all(n in result.answer for n in names)
    assert sorted(result.short_answer.replace(" and ", ", ").split(", ")) == names


def test_a_request_lists_the_matching_documents_newest_first(engine: Any) -> None:
    run, _ = engine()
    result = run.run("News about companies based in Munich", collection="companies")
    [res] = result.trace.plan["graph"]["resolutions"]
    munich = {e["name"] for e in res["entities"]}
    assert result.outcome == "answered"
    assert result.citations and all(set(c.metadata["organizations"]) & munich for c in result.citations)
    dates = [c.metadata["date"] for c in result.citations]
    assert dates == sorted(dates, reverse=True)
    assert [line.rsplit(" ", 1)[-1] for line in result.answer.splitlines()[1:]] == [
        f"[{n}]" for n in range(1, len(result.citations) + 1)]


def test_an_existence_question_is_answered_yes_with_the_documents(engine: Any) -> None:
    run, _ = engine()
    result = run.run(_dev("c02")["question"], collection="companies")
    assert result.outcome == "answered" and result.short_answer == "Yes" and result.answer.startswith("Yes: ")
    assert all(c.metadata["sentiment"] < -0.5 for c in result.citations)


def test_a_relaxed_filter_is_never_listed_as_a_match(engine: Any) -> None:
    # c40: no positive news about Sakura Robotics in 2024; the search relaxes the filter to find any.
    run, _ = engine()
    result = run.run(_dev("c40")["question"], collection="companies")
    assert result.trace.relaxations
    assert all(g["strategy"] != "listing" for g in result.trace.generations)
    assert result.outcome != "answered" or "matching document" not in result.answer


def test_the_entities_and_then_the_news_about_them(engine: Any) -> None:
    row = _dev("c07")  # "Which companies does Brightcell Batteries supply, and what news is there about them?"
    run, model = engine()
    result = run.run(row["question"], collection="companies")
    assert result.outcome == "answered"
    assert sorted(result.short_answer.replace(" and ", ", ").split(", ")) == sorted(row["entities"])
    graph, *news = result.citations
    assert graph.resource == "graph:companies" and news
    assert all(set(c.metadata["organizations"]) & set(row["entities"]) for c in news)
    assert [c.number for c in result.citations] == list(range(1, len(result.citations) + 1))
    assert model.calls_for("generate") == []


def test_a_news_question_for_what_happened_lists_the_matching_documents(engine: Any) -> None:
    row = _dev("c26")  # "What happened at companies headquartered in the United States in 2024?"
    run, _ = engine()
    result = run.run(row["question"], collection="companies")
    assert result.outcome == "answered" and result.citations
    assert all(str(c.metadata["date"]).startswith("2024") for c in result.citations)
    assert all(set(c.metadata["organizations"]) & set(row["entities"]) for c in result.citations)


def _names(short: str) -> list[str]:
    return sorted(short.replace(" and ", ", ").split(", "))


def test_a_negated_relation_is_taken_out_of_the_entity_set(engine: Any) -> None:
    run, model = engine()
    result = run.run("Which suppliers of Mercury Motors are not based in Japan?", collection="companies")
    assert result.outcome == "answered"
    # Mercury Motors' suppliers less Lumen Optics (Osaka)
    assert _names(result.short_answer) == ["Brightcell Batteries", "Granite Tyres", "Sorel Glass", "Tessellate Chips"]
    assert "Lumen Optics" in result.answer and "not" in result.answer  # the set aside, shown and cited
    assert model.calls_for("generate") == []


def test_an_entity_set_aside_is_not_in_the_answer(engine: Any) -> None:
    run, _ = engine()
    result = run.run("What companies besides Redwood Ventures invested in Graphwise?", collection="companies")
    assert result.outcome == "answered" and result.short_answer == "Atlas Capital"


def test_news_about_a_negated_relation_lists_only_the_rest(engine: Any) -> None:
    run, _ = engine()
    result = run.run("News about suppliers of Mercury Motors that are not based in Japan", collection="companies")
    rest = {"Brightcell Batteries", "Granite Tyres", "Sorel Glass", "Tessellate Chips"}
    assert result.citations and all(set(c.metadata["organizations"]) & rest for c in result.citations)


def test_the_complement_of_a_relation_is_never_answered_with_the_relation(engine: Any) -> None:
    run, model = engine()
    for question in ("Which companies did Graphwise not invest in?", "Companies that Atlas Capital did not invest in"):
        result = run.run(question, collection="companies")
        assert all(g["strategy"] not in ("graph", "listing", "graph_listing") for g in result.trace.generations), question
        assert not result.trace.plan.get("graph", {}).get("where"), question  # no filter on the relation it negates


@pytest.mark.parametrize(("question", "short"), [
    ("Does Brightcell Batteries supply Mercury Motors?", "Yes"),
    ("Does Brightcell Batteries supply Veltro Auto?", "No"),
    ("Is Rod Halverson on the board of Harbor Bank?", "Yes"),
    ("Did Redwood Ventures invest in Orchard Data?", "No"),
])
def test_a_yes_no_question_about_two_related_entities_is_answered_by_the_graph(engine: Any, question: str,
                                                                               short: str) -> None:
    run, model = engine()
    result = run.run(question, collection="companies")
    assert result.outcome == "answered" and result.short_answer == short, result.answer
    assert result.answer.startswith(f"{short}.")
    assert result.citations and all(c.resource == "graph:companies" for c in result.citations)
    assert model.calls_for("generate") == []


def test_alternatives_joined_by_or_are_united(engine: Any) -> None:
    run, _ = engine()
    result = run.run("Which of Tundra Robotics' suppliers are based in Japan or Korea?", collection="companies")
    # Tundra Robotics' suppliers: Dunmore Semiconductors (United States) and Lumen Optics (Japan)
    assert result.outcome == "answered" and result.short_answer == "Lumen Optics"
    both = run.run("Which companies supply both Mercury Motors and Sakura Robotics?", collection="companies")
    assert _names(both.short_answer) == ["Lumen Optics", "Tessellate Chips"]


def test_an_entity_after_other_than_is_left_out(engine: Any) -> None:
    run, _ = engine()
    result = run.run("Which companies has Mercury Motors invested in, other than Lumen Optics?", collection="companies")
    assert result.outcome == "answered" and result.short_answer == "Brightcell Batteries"


@pytest.mark.parametrize(("question", "short", "named"), [
    ("Does Brightcell Batteries supply any German company?", "Yes", "Mercury Motors"),
    ("Does Sorel Glass supply any Korean company?", "No", None),
])
def test_whether_any_related_entity_exists_is_answered_from_the_graph(engine: Any, question: str, short: str,
                                                                      named: str | None) -> None:
    run, _ = engine()
    result = run.run(question, collection="companies")
    assert result.outcome == "answered" and result.short_answer == short
    assert result.answer.startswith(f"{short}:") and (named is None or named in result.answer)
    assert all(c.resource == "graph:companies" for c in result.citations)


@pytest.mark.parametrize(("question", "short"), [
    # Sorel Glass supplies Mercury Motors and Veltro Auto only.
    ("Does Sorel Glass supply Halvard Motors or Kestrel Automotive?", "No"),
    ("Does Sorel Glass supply Halvard Motors or Veltro Auto?", "Yes"),
])
def test_one_relation_read_from_both_ends_with_alternatives_is_answered_from_the_graph(engine: Any, question: str,
                                                                                        short: str) -> None:
    run, _ = engine()
    result = run.run(question, collection="companies")
    assert result.outcome == "answered" and result.short_answer == short, result.answer
    assert all(g["strategy"] != "listing" for g in result.trace.generations)
