"""The self-query's graph-aware terms without a server: named ranges and dates from the schema
alone, latest-first only when asked and no topic is left, a model's relations checked, and a
schema without any of it planned exactly as before."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from selfrag.kg import Entity, EntityIndex, GraphContext, RelationRecogniser, read_nodes
from selfrag.query import SelfQueryPlanner, validate_relations
from selfrag.schema import AttributeInfo, CollectionSchema, NamedRangeSpec, load_schema_file

SAMPLE = Path(__file__).resolve().parents[2] / "selfrag" / "samples" / "companies"
TODAY = date(2025, 12, 31)


def _context() -> tuple[CollectionSchema, GraphContext]:
    schema = load_schema_file(SAMPLE / "schema.json")
    assert schema.graph is not None
    index = EntityIndex(Entity(n.id, n.label, n.name, n.aliases, n.properties) for n in read_nodes(SAMPLE / "graph" / "nodes.jsonl"))
    return schema, GraphContext(schema.graph, index, RelationRecogniser(schema.graph, index))


def test_named_ranges_and_dates_without_a_graph() -> None:
    schema = CollectionSchema(attributes=[
        AttributeInfo(name="published", type="date"),
        AttributeInfo(name="score", type="float", named_ranges=[NamedRangeSpec(words=["glowing", "raving"], comparator="gte", value=0.8)]),
    ])
    plan = SelfQueryPlanner(None, mode="rules").plan("glowing reviews of the espresso machine since March 2025", schema, {}, today=TODAY)
    assert plan.where == {"$and": [{"score": {"$gte": 0.8}}, {"published": {"$gte": 20250301}}]}
    assert not plan.latest and plan.terms == ()
    latest = SelfQueryPlanner(None, mode="rules").plan("the latest glowing reviews", schema, {}, today=TODAY)
    assert latest.latest and latest.where == {"score": {"$gte": 0.8}}


def test_latest_first_needs_the_ask_and_no_topic() -> None:
    schema, ctx = _context()
    planner = SelfQueryPlanner(None, mode="rules")
    assert planner.plan("What is the latest positive news about Graphwise?", schema, {}, today=TODAY, graph=ctx).latest
    assert not planner.plan("Positive news about Graphwise", schema, {}, today=TODAY, graph=ctx).latest
    assert not planner.plan("Latest news about Graphwise's quantum teleportation research", schema, {}, today=TODAY, graph=ctx).latest


def test_entity_names_are_not_read_again_by_the_generic_rules() -> None:
    schema, ctx = _context()
    plan = SelfQueryPlanner(None, mode="rules").plan("News about Graphwise", schema, {"title": ["New round of layoffs at Graphwise"]},
                                                     today=TODAY, graph=ctx)
    assert plan.where is None  # not title = "New round of layoffs at Graphwise"
    [term] = plan.terms
    assert term.kind == "mention" and term.entity is not None and term.entity.name == "Graphwise"


def test_model_relations_are_checked_like_any_condition() -> None:
    _, ctx = _context()
    terms, changes = validate_relations([
        {"relation": "board_member", "value": "Rod Halverson"},
        {"relation": "owns", "value": "Graphwise"},
        {"relation": "supplies", "value": "Nobody' }) MATCH (n) DETACH DELETE n //"},
        {"relation": "invested_in", "value": "Rod Halverson"},  # a Person, not an Organization
        "not an object",
    ], ctx)
    assert [(t.relation, t.entity.name if t.entity else None) for t in terms] == [("board_member", "Rod Halverson")]
    details = [c.detail for c in changes]
    assert any("unknown relation 'owns'" in d for d in details)
    assert any("is no Organization in the graph" in d for d in details)
    assert all(c.kind == "dropped_relation" for c in changes) and len(changes) == 4


def test_a_schema_without_graph_terms_plans_as_before() -> None:
    schema = CollectionSchema(attributes=[AttributeInfo(name="year", type="integer")])
    plan = SelfQueryPlanner(None, mode="rules").plan("films from 1995", schema, {}, today=TODAY)
    assert plan.where == {"year": {"$eq": 1995}} and plan.terms == () and not plan.latest
    assert plan.query.relations == []


def test_the_model_is_shown_the_relations_and_its_relations_are_checked() -> None:
    import json

    from selfrag.testing import ScriptedChatModel

    schema, ctx = _context()
    proposal = {"query": "work-from-home policy", "filter": None, "limit": None,
                "relations": [{"relation": "board_member", "value": "Rod Halverson"}, {"relation": "owns", "value": "Graphwise"}]}
    model = ScriptedChatModel.from_rules({"StructuredQuery": json.dumps(proposal)})
    plan = SelfQueryPlanner(model, mode="llm").plan(
        "Did the boards Rod Halverson sits on change their work-from-home policy?", schema, {}, today=TODAY, graph=ctx)
    assert plan.source == "llm"
    assert [(t.relation, t.entity.name if t.entity else None) for t in plan.terms] == [("board_member", "Rod Halverson")]
    assert plan.query.relations[0].relation == "board_member"
    assert any(c.kind == "dropped_relation" and "'owns'" in c.detail for c in plan.changes)
    [call] = model.calls_for("StructuredQuery")
    assert "- board_member (the value names a Person): Organizations on whose board the person sits" in call.prompt


def test_the_search_text_loses_the_relation_wording_the_graph_filter_holds() -> None:
    # Bug (companies dev set): "companies where Rod Halverson sits on the board" became a graph
    # filter, yet "sits on the board" stayed in the search text, which is also what the critic
    # judges documents against: the board's companies' articles looked off-topic (relevance 0.10
    # against 0.97 without those words).
    schema, ctx = _context()
    planner = SelfQueryPlanner(None, mode="rules")

    def text(question: str) -> str:
        return planner.plan(question, schema, {}, today=TODAY, graph=ctx).query.query.lower()

    assert text("Did any company where Ingrid Solberg is a board member cut jobs?") == "cut jobs"
    assert "director" not in text("Has any company Lucia Moretti is a director of reported a loss?")
    sits = text("Which of the companies where Rod Halverson sits on the board opened a lab?")
    assert "board" not in sits and "sits" not in sits and "opened a lab" in sits
    # only the relation's own wording next to the entity goes: a topic word that is also a cue stays
    assert "supply" in text("Supply shortages at companies that supply Halvard Motors")


def _asks(question: str) -> str | None:
    schema, ctx = _context()
    return SelfQueryPlanner(None, mode="rules").plan(question, schema, {}, today=TODAY, graph=ctx).asks


def test_a_question_headed_by_the_kind_of_thing_a_relation_reaches_asks_for_the_entities() -> None:
    for question in ("Which companies invested in Graphwise?", "What companies did Graphwise invest in?",
                     "Companies where Rod Halverson sits on the board",
                     "Companies in France that Redwood Ventures invested in",
                     "Suppliers of Veltro Auto based in Japan", "Who supplies Mercury Motors?"):
        assert _asks(question) == "entities", question


def test_a_request_or_an_existence_question_with_nothing_beyond_its_filters_asks_for_documents() -> None:
    for question in ("News about companies based in Munich", "Latest news on Kestrel Automotive",
                     "Show me news about organizations headquartered in Sweden",
                     "Are there negative news about companies that Graphwise invested in?",
                     "What is the latest positive news about Graphwise?"):
        assert _asks(question) == "documents", question


def test_a_topic_or_two_questions_in_one_leave_the_question_to_the_reader() -> None:
    for question in ("How happy are employees at Japanese companies?",
                     "Who supplies Mercury Motors, and did they have problems in 2025?",  # a topic: problems
                     "Which companies invested in Graphwise, and which of them are in France?",
                     "Which companies invested in Graphwise, and what news is there about Kestrel Automotive?"):
        assert _asks(question) is None, question


def test_a_news_question_for_the_events_themselves_asks_for_documents() -> None:
    for question in ("What did the investors of Paloma Labs announce?",
                     "What happened at companies headquartered in the United States in 2024?"):
        assert _asks(question) == "documents", question
    assert _asks("What happened to the share price of companies in Germany?") is None  # a topic left


def test_the_entities_then_the_news_about_them_asks_for_both() -> None:
    assert _asks("Which companies does Brightcell Batteries supply, and what news is there about them?") \
        == "entities_and_documents"
    assert _asks("Who supplies Halvard Motors, and are there news about them?") == "entities_and_documents"
    # a request after the question is the second question, not part of the first
    assert _asks("Which companies does Ferrox Steel supply, and show me news about them") == "entities_and_documents"


def test_a_relation_word_used_twice_does_not_head_an_entity_question() -> None:
    # "Supply chain problems …": the first "supply" is the topic's, not the relation's.
    assert _asks("Supply chain problems at companies that supply Halvard Motors?") != "entities"


def test_any_schema_a_request_its_filter_holds_whole_asks_for_documents() -> None:
    schema = CollectionSchema(description="Clubs people can join.", attributes=[
        AttributeInfo(name="activity", type="string", allowed_values=["chess", "rowing", "choir"]),
        AttributeInfo(name="city", type="string"),
        AttributeInfo(name="founded", type="integer", description="the year the club was founded"),
    ])
    catalogue = {"city": ["Boston", "Denver"]}
    planner = SelfQueryPlanner(None, mode="rules")

    def asks(question: str) -> str | None:
        return planner.plan(question, schema, catalogue, today=TODAY).asks

    assert asks("chess clubs in Boston") == "documents"
    assert asks("show me rowing clubs founded before 1950") == "documents"
    assert asks("chess clubs in Boston with a junior section") is None  # a topic left: read it
    # two questions, each held whole by the filter: the matching documents answer both
    assert asks("Are there chess clubs in Boston, and are any of them older than 1950?") == "documents"
    # "were they founded before 1950?" asks about all of them: the ones that were do not answer it
    assert asks("Are there chess clubs in Boston, and were they founded before 1950?") is None
    assert asks("who founded the chess club in Boston?") is None  # a question, not a request
    assert asks("friendly people") is None  # no filter at all


def test_a_models_filter_never_makes_a_listing() -> None:
    # The topic ("layoffs") the rules read into the filter is gone from the model's filter, yet
    # the rules' search text no longer says it: listing what the model's filter selects would
    # list news that is not about layoffs. Only the rules' own filter holds a request whole.
    from selfrag.testing import ScriptedChatModel

    schema, ctx = _context()
    reply = json.dumps({"query": "news", "filter": None, "limit": None, "relations": []})
    planner = SelfQueryPlanner(ScriptedChatModel.from_rules({"StructuredQuery": reply}), mode="llm", wait_initial=0)
    plan = planner.plan("Layoffs at companies based in Munich", schema, {}, today=TODAY, graph=ctx)
    assert plan.source == "llm"
    assert plan.asks != "documents"
    assert SelfQueryPlanner(None, mode="rules").plan("Layoffs at companies based in Munich", schema, {}, today=TODAY,
                                                     graph=ctx).asks == "documents"
    both = "Which companies does Brightcell Batteries supply, and what news is there about them?"
    assert planner.plan(both, schema, {}, today=TODAY, graph=ctx).asks is None
    assert SelfQueryPlanner(None, mode="rules").plan(both, schema, {}, today=TODAY, graph=ctx).asks \
        == "entities_and_documents"


def _plan(question: str):  # type: ignore[no-untyped-def]
    schema, ctx = _context()
    return SelfQueryPlanner(None, mode="rules").plan(question, schema, {}, today=TODAY, graph=ctx)


def _named(plan, *, excluded: bool) -> list[tuple[str | None, str]]:  # type: ignore[no-untyped-def]
    return [(t.relation, t.entity.name) for t in plan.terms if t.excluded is excluded and t.entity is not None]


def test_a_negated_relation_is_set_aside_not_applied() -> None:
    # "not based in Japan": the companies in Japan are taken out of the suppliers, never filtered on.
    for question in ("Which suppliers of Mercury Motors are not based in Japan?",
                     "News about suppliers of Mercury Motors that aren't based in Japan"):
        plan = _plan(question)
        assert _named(plan, excluded=False) == [("suppliers", "Mercury Motors")], question
        assert _named(plan, excluded=True) == [("in_country", "Japan")], question
    assert _plan("Which suppliers of Mercury Motors are not based in Japan?").asks == "entities"


def test_an_entity_set_aside_is_excluded_itself_not_its_relation() -> None:
    # "besides Redwood Ventures": Redwood Ventures is not in the answer; what it invested in is no part of it.
    plan = _plan("What companies besides Redwood Ventures invested in Graphwise?")
    assert _named(plan, excluded=False) == [("investors", "Graphwise")]
    assert _named(plan, excluded=True) == [(None, "Redwood Ventures")]
    assert plan.asks == "entities"
    plan = _plan("Which companies supply Mercury Motors, except Lumen Optics?")
    assert _named(plan, excluded=True) == [(None, "Lumen Optics")] and plan.asks == "entities"


def test_a_negation_with_no_set_to_subtract_from_gives_no_set_answer() -> None:
    # The complement of a relation ("companies Graphwise did not invest in") is no filter the graph
    # holds: the condition is dropped, recorded, and the question goes to the reader.
    for question in ("Which companies did Graphwise not invest in?", "Companies that Atlas Capital did not invest in",
                     "Which companies does Rod Halverson not sit on the board of?",
                     "Which companies never invested in Graphwise?"):
        plan = _plan(question)
        assert plan.asks is None, question
        assert not any(t.kind == "relation" and not t.excluded for t in plan.terms), question
        assert any(c.kind == "dropped_relation" for c in plan.changes), question


def test_a_negation_the_graph_does_not_hold_leaves_no_set_answer() -> None:
    # The "not" is about something no graph term holds: a listing or an entity set would ignore it.
    assert _plan("Which companies that invested in Graphwise are not doing well?").asks is None
    assert _plan("No layoffs at companies based in Munich?").asks is None


def test_a_time_bound_on_a_relation_is_no_entity_question() -> None:
    # The graph's edges carry no dates: "before 2023" cannot be checked against the entity set.
    for question in ("Which companies invested in Graphwise before 2023?", "Which companies did Graphwise invest in after 2023?"):
        assert _plan(question).asks != "entities", question


def test_a_yes_no_question_about_two_related_entities_asks_the_graph() -> None:
    for question in ("Does Brightcell Batteries supply Mercury Motors?", "Is Rod Halverson on the board of Harbor Bank?",
                     "Did Redwood Ventures invest in Cinder Games?", "Does Brightcell Batteries supply Veltro Auto?"):
        assert _plan(question).asks == "membership", question
    # existence of documents, not a relation between two entities: as before
    assert _plan("Are there negative news about companies that Graphwise invested in?").asks == "documents"
    assert _plan("Did Redwood Ventures invest in Cinder Games in 2023?").asks != "membership"  # a date the graph lacks


def test_a_possessive_request_for_the_related_entities_asks_for_them() -> None:
    for question in ("List Atlas Capital's portfolio companies", "Show me Mercury Motors' suppliers",
                     "Graphwise's investors"):
        assert _plan(question).asks == "entities", question
    assert _plan("News about Graphwise's investors").asks == "documents"


def test_the_words_of_a_negation_are_no_topic() -> None:
    assert _plan("Which companies did Graphwise invest in, apart from Paloma Labs?").asks == "entities"
    assert _plan("Which companies did Graphwise invest in other than Paloma Labs?").asks == "entities"


def test_a_yes_no_question_about_all_of_them_is_no_existence_question() -> None:
    # "Are all …?" is not answered by the ones that match: the ones that do not are the answer.
    schema = CollectionSchema(description="Clubs people can join.", attributes=[
        AttributeInfo(name="activity", type="string", allowed_values=["chess", "rowing", "choir"]),
        AttributeInfo(name="city", type="string"),
        AttributeInfo(name="founded", type="integer", description="the year the club was founded"),
    ])
    planner = SelfQueryPlanner(None, mode="rules")

    def asks(question: str) -> str | None:
        return planner.plan(question, schema, {"city": ["Boston", "Denver"]}, today=TODAY).asks

    assert asks("Are there chess clubs in Boston founded before 1950?") == "documents"
    assert asks("Chess clubs in Boston founded before 1950?") == "documents"  # "(Are there) …?"
    for question in ("Are all the chess clubs in Boston founded before 1950?",
                     "Are chess clubs in Boston founded before 1950?",  # about them in general: all
                     "Do chess clubs in Boston date from before 1950?",
                     "Were all chess clubs in Boston founded before 1950?",
                     "Is every chess club in Boston founded before 1950?",
                     "Were chess clubs in Boston always founded before 1950?"):
        assert asks(question) is None, question
    assert _plan("Are all of Mercury Motors' suppliers based in Japan?").asks is None
    assert _plan("Do all of Graphwise's investors have negative news?").asks is None


def test_a_negated_relation_to_an_entity_no_answer_can_be_is_set_aside_as_a_relation() -> None:
    # "not in Japan": Japan is no company, so it is the relation that is negated, not Japan set aside.
    plan = _plan("Which of Sakura Robotics' suppliers are not in Japan?")
    assert _named(plan, excluded=True) == [("in_country", "Japan")] and plan.asks == "entities"
    plan = _plan("Which companies, other than Mercury Motors, does Brightcell Batteries supply?")
    assert _named(plan, excluded=True) == [(None, "Mercury Motors")] and plan.asks == "entities"


def test_an_entity_right_after_the_negation_is_set_aside_even_after_the_relation_word() -> None:
    plan = _plan("Which companies has Mercury Motors invested in, other than Lumen Optics?")
    assert _named(plan, excluded=False) == [("invested_in", "Mercury Motors")]
    assert _named(plan, excluded=True) == [(None, "Lumen Optics")] and plan.asks == "entities"
    # fronted: "Besides X, which companies …"
    plan = _plan("Besides Graphwise, which companies has Atlas Capital invested in?")
    assert _named(plan, excluded=True) == [(None, "Graphwise")] and plan.asks == "entities"


def test_who_or_what_with_a_copula_then_the_relation_word_asks_for_the_entities() -> None:
    for question in ("Who are the investors in Nimbus Cloud?", "Who are Mercury Motors' competitors?"):
        assert _plan(question).asks == "entities", question


def test_a_relations_words_with_no_relation_read_are_the_topic() -> None:
    # No relation term is read here, so "portfolio" is what the question asks about, and the
    # documents that mention Atlas Capital are no answer to it.
    assert _plan("What are the portfolio companies of Atlas Capital?").asks is None


def test_alternatives_joined_by_or_are_united_and_a_bare_and_is_not_read_as_both() -> None:
    plan = _plan("Which of Tundra Robotics' suppliers are based in Japan or Korea?")
    japan, korea = (t for t in plan.terms if t.relation == "in_country")
    assert japan.either is not None and japan.either == korea.either
    assert plan.asks == "entities"
    # "in Japan and Korea": no company is in both, so "and" means either here, and "supply X and Y"
    # may mean both or either: no set answer is given for a bare "and" between two such conditions.
    assert _plan("Suppliers of Mercury Motors based in Japan and Korea").asks is None
    assert _plan("Which companies supply Mercury Motors and Sakura Robotics?").asks is None
    assert _plan("Which companies supply both Mercury Motors and Sakura Robotics?").asks == "entities"


def test_a_yes_no_question_about_related_entities_asks_the_graph_not_the_documents() -> None:
    # Whether any entity is reached: the entity set answers it, yes or no, not documents that
    # happen to mention one of each set.
    assert _plan("Does Brightcell Batteries supply any German company?").asks == "entities"
    assert _plan("Has Graphwise invested in any companies other than Cobalt Analytics?").asks == "entities"
    assert _plan("Are any of Mercury Motors' suppliers Japanese?").asks == "entities"
    # no "any", "a", "some": "Are X's suppliers Japanese?" asks about all of them, which the ones
    # that are do not answer
    assert _plan("Are Mercury Motors' suppliers Japanese?").asks is None
    # one relation read from both ends, with alternatives: whether either is reached
    assert _plan("Does Sorel Glass supply Halvard Motors or Kestrel Automotive?").asks == "membership"
    assert _plan("Is Rod Halverson on the board of Harbor Bank or Graphwise?").asks == "membership"
    # about documents, or with a condition on documents: whether documents exist, as before
    assert _plan("Are there negative news about companies that Graphwise invested in?").asks == "documents"
    assert _plan("Any layoffs at competitors of Nimbus Cloud?").asks == "documents"
    assert _plan("Did any of Nimbus Cloud's competitors have layoffs?").asks == "documents"
    assert _plan("Did Nimbus Cloud's competitors have layoffs?").asks is None  # all of them? some? not signed


def test_a_year_the_generic_readers_read_is_not_a_date_range_too() -> None:
    # "in 2022" was year = 2022 and a reading date within 2022: the 2022 record last read on
    # 2023-01-02 fell out of "Which town had the most rain in 2022?".
    schema = CollectionSchema(attributes=[
        AttributeInfo(name="town", type="string"), AttributeInfo(name="year", type="integer", description="Year of the record"),
        AttributeInfo(name="measured_on", type="date"), AttributeInfo(name="rain_mm", type="float"),
    ])
    planner = SelfQueryPlanner(None, mode="rules")
    assert planner.plan("rain records in 2022", schema, {}, today=TODAY).where == {"year": {"$eq": 2022}}
    # with no year attribute the date holds it, as before
    dated = CollectionSchema(attributes=[AttributeInfo(name="measured_on", type="date")])
    assert planner.plan("rain records in 2022", dated, {}, today=TODAY).where == {
        "$and": [{"measured_on": {"$gte": 20220101}}, {"measured_on": {"$lt": 20230101}}]}
