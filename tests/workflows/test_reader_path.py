"""The offline path: the trained reader answers, the critic grades, ``answered`` means checked.

A ``ScriptedJudge`` stands in for the reader-critic: each test scripts what it reads and scores.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from graders import Combine, GraderConfig
from selfrag.reading import Reading, sentence_spans
from selfrag.schema import CollectionSchema
from selfrag.testing import ScriptedChatModel, ScriptedJudge, reading_of
from tests.workflows.conftest import DOCS, FAST, sequence_search
from workflows import Outcome, RunOptions
from workflows.reading import read_answer
from workflows.routing import decide_outcome

CRITIC = GraderConfig(retry=FAST, combine=Combine.SIGNAL)
THRESHOLDS = {"reader": 0.6, "relevance": 0.5, "support": 0.5, "usefulness": 0.5}


def offline(make_engine: Any, judge: ScriptedJudge, **kwargs: Any) -> Any:
    engine, model, coll = make_engine({}, judge=judge, relevance=CRITIC, groundedness=CRITIC, usefulness=CRITIC,
                                      extractive_only=True, rules_only_text=True, **kwargs)
    return engine, model, coll


def judge_reading(answer: str, probability: float = 0.9, **score: float) -> ScriptedJudge:
    return ScriptedJudge(lambda task, first, second: score.get(task, 0.9),
                         lambda q, passages: reading_of(answer, passages, probability=probability),
                         thresholds=THRESHOLDS, name="judge-test-v1")


def test_the_reader_answers_short_first_then_the_quote_and_no_model_is_called(make_engine: Any) -> None:
    engine, model, _ = offline(make_engine, judge_reading("have a blast"), search_fn=sequence_search(["toys"]))
    result = engine.run("What do the toys have?", collection="movies")
    assert result.outcome is Outcome.ANSWERED
    assert result.answer == "Have a blast. Toys come alive and have a blast doing so. [1]"
    assert result.short_answer == "have a blast" and result.confidence == 0.9
    assert [c.id for c in result.citations] == ["toys"] and model.calls == []
    gen = result.trace.generations[0]
    assert (gen["strategy"], gen["citation_source"], gen["verified"]) == ("reader", "reader", True)
    kinds = {v["kind"]: v["model"] for v in result.trace.verdicts}
    assert kinds == {"reader": "judge-test-v1", "groundedness": "judge-test-v1", "usefulness": "judge-test-v1"}


def test_an_unsure_reader_gives_a_flagged_unverified_answer_not_answered(make_engine: Any) -> None:
    engine, _, _ = offline(make_engine, judge_reading("have a blast", probability=0.4), search_fn=sequence_search(["toys"]))
    result = engine.run("What do the toys have?", collection="movies")
    assert result.outcome is Outcome.UNVERIFIED
    assert result.answer.startswith("Have a blast.") and result.confidence == 0.4
    reader = next(v for v in result.trace.verdicts if v["kind"] == "reader")
    assert not reader["passed"] and reader["reason"] == "reader probability 0.40 < threshold 0.60"


def test_an_unsupported_reading_is_not_answered(make_engine: Any) -> None:
    engine, _, _ = offline(make_engine, judge_reading("have a blast", support=0.1), search_fn=sequence_search(["toys"]),
                           options=RunOptions(max_rewrites=0))
    result = engine.run("What do the toys have?", collection="movies")
    assert result.outcome is Outcome.UNGROUNDED
    g = next(v for v in result.trace.verdicts if v["kind"] == "groundedness")
    assert not g["passed"] and g["model"] == "judge-test-v1" and g["reason"].startswith("claim not supported")


def test_a_yes_no_question_is_answered_yes_or_no(make_engine: Any) -> None:
    judge = ScriptedJudge(lambda *a: 0.9, lambda q, passages: reading_of("", passages, kind="no"), thresholds=THRESHOLDS)
    engine, _, _ = offline(make_engine, judge, search_fn=sequence_search(["zone"]))
    result = engine.run("Do four men walk into the Zone?", collection="movies")
    assert result.outcome is Outcome.ANSWERED and result.short_answer == "No"
    assert result.answer == "No. Three men walk into the Zone, three men walk out. [1]"


def test_nothing_read_is_not_an_answer(make_engine: Any) -> None:
    judge = ScriptedJudge(lambda *a: 0.9, thresholds=THRESHOLDS)  # the default reader finds nothing
    engine, _, _ = offline(make_engine, judge, search_fn=sequence_search(["toys"]), options=RunOptions(max_rewrites=0))
    result = engine.run("What do the toys have?", collection="movies")
    assert result.outcome is not Outcome.ANSWERED and result.short_answer is None


def test_filter_selected_documents_are_graded_against_the_search_text(make_engine: Any) -> None:
    # Bug: "an animated movie about toys" filtered genre=animated, and the critic was then asked
    # whether the text of each selected document was about an *animated* movie: it is not, in words.
    asked: list[str] = []

    def score(task: str, first: str, second: str) -> float:
        asked.append(f"{task}:{first}")
        # (support sees the question whole, with the document's metadata line saying "animated")
        return 0.1 if "animated" in first and task != "support" else 0.9

    judge = ScriptedJudge(score, lambda q, passages: reading_of("have a blast", passages), thresholds=THRESHOLDS)
    engine, _, _ = offline(make_engine, judge, search_fn=sequence_search(["toys"]))
    result = engine.run("Which animated movie has toys that come alive?", collection="movies")
    assert result.filter is not None and "animated" in str(result.filter)
    assert result.outcome is Outcome.ANSWERED
    relevance = [a for a in asked if a.startswith("relevance:")]
    usefulness = [a for a in asked if a.startswith("usefulness:")]
    assert relevance and all("animated" not in a for a in relevance)
    assert usefulness and all("animated" not in a for a in usefulness)  # the filter already holds it


def test_a_stop_for_no_progress_has_its_own_outcome() -> None:
    gen = {"grounded": True, "useful": False, "verified": None, "probability": None, "answer": "x"}
    state: Any = {"generations": [gen], "stop_reason": "no_progress: the rewrite repeated an earlier query"}
    outcome, best, stop = decide_outcome(state)
    assert outcome == Outcome.NO_PROGRESS.value and best is gen and stop.startswith("no_progress")
    state = {"generations": [gen], "stop_reason": None}
    assert decide_outcome(state)[0] == Outcome.BUDGET_EXHAUSTED.value


def test_the_quote_never_carries_another_document_s_metadata_line() -> None:
    # Bug: a quote from document 2 came out glued to document 1's "(company: ...)" line, and a
    # PDF's "(pages: 1)" was appended to the answer, which then failed its own figure check.
    docs = [{"id": "a", "text": "Costco opened new warehouses.", "metadata": {"company": "Costco"}},
            {"id": "b", "text": "Walmart employs 2.1 million associates.", "metadata": {"company": "Walmart", "pages": 1}}]
    judge = ScriptedJudge(read=lambda q, passages: reading_of("2.1 million", passages))
    out = read_answer(judge, "How many associates does Walmart employ?", docs)
    assert out.answer == "2.1 million. Walmart employs 2.1 million associates. [2]"
    assert "company" not in out.answer and "pages" not in out.answer and out.citations == [2]


def test_reading_of_none_is_an_empty_answer() -> None:
    judge = ScriptedJudge(read=lambda q, passages: Reading("none", "", -1))
    assert read_answer(judge, "q", [DOCS["toys"]]).answer == ""


def test_a_yes_no_answer_does_not_quote_the_metadata_line_beside_its_sentence() -> None:
    # Bug (the demo): "Yes. Sorel Glass faces a lawsuit ... (date: 2024-07-08; organizations: ...)".
    doc = {"id": "n", "text": "Sorel Glass faces a lawsuit.", "metadata": {"date": "2024-07-08", "sentiment": -0.8}}
    text = "Sorel Glass faces a lawsuit.\n(date: 2024-07-08; sentiment: -0.8)"
    meta_at = text.index("(")
    judge = ScriptedJudge(read=lambda q, passages: Reading("yes", "Yes", 0, -1, -1, ((0, 28), (meta_at, len(text))), 0.0, 0.9))
    out = read_answer(judge, "Is there negative news about Sorel Glass?", [doc])
    assert out.answer == "Yes. Sorel Glass faces a lawsuit. [1]"


TWO_DOCS = [
    {"id": "handbook", "text": "Staff get free membership of the Marrow Street library. Laptops are replaced every three years."},
    {"id": "library", "text": "The Marrow Street library opens at 9 am. Late returns cost 25 cents per day."},
]


def _relevant(words: tuple[str, ...]) -> Any:
    return lambda task, first, second: 0.9 if any(w in second for w in words) else 0.1


def test_a_two_document_question_is_read_across_both_and_cites_both() -> None:
    def read(question: str, passages: list[str]) -> Reading:
        if len(passages) == 1 and "free membership" in passages[0] and "Late returns" in passages[0]:
            return reading_of("25 cents per day", passages, probability=0.8)
        return reading_of("9 am", passages, probability=0.3)  # one document at a time: the wrong figure

    judge = ScriptedJudge(_relevant(("membership", "Late")), read)
    out = read_answer(judge, "What is the daily late fee at the library whose membership staff get free?", TWO_DOCS, judge)
    assert out.short_answer == "25 cents per day" and out.citations == [1, 2] and out.probability == 0.8
    assert out.answer == ("25 cents per day. Staff get free membership of the Marrow Street library [1]. "
                          "Late returns cost 25 cents per day [2].")
    joined = next(q for task, q, n in judge.calls if task == "read" and n == "1")
    assert joined  # the joined passage was read once, as one passage
    # the critic chose each document's two most relevant sentences: all four here, in order
    relevance = [second for task, _, second in judge.calls if task == "relevance"]
    assert len(relevance) == 4


def test_the_answer_read_one_document_at_a_time_stands_when_it_is_surer_or_the_same() -> None:
    def surer(question: str, passages: list[str]) -> Reading:
        return reading_of("25 cents per day", passages, probability=0.9 if len(passages) == 2 else 0.6)

    judge = ScriptedJudge(_relevant(("Late",)), surer)
    out = read_answer(judge, "What is the late fee?", TWO_DOCS, judge)
    assert out.citations == [2] and out.answer == "25 cents per day. Late returns cost 25 cents per day. [2]"

    def same(question: str, passages: list[str]) -> Reading:
        return reading_of("25 cents per day", passages, probability=0.5 if len(passages) == 2 else 0.95)

    judge = ScriptedJudge(_relevant(("Late",)), same)
    assert read_answer(judge, "What is the late fee?", TWO_DOCS, judge).citations == [2]  # one document suffices
    # without a critic nothing is read across
    assert read_answer(ScriptedJudge(read=same), "What is the late fee?", TWO_DOCS).probability == 0.5


def test_chunks_of_one_document_are_one_source_and_cut_edges_are_not_quoted() -> None:
    # Two overlapping chunks of one document are not two documents: an answer read across them
    # would cite the same sentence twice ("A deposit of $250 is held [1]. A deposit of $250 … [2].").
    chunks = [
        {"id": "c1", "text": "A deposit of $250 is held on the card. The car must be returned with a full tank or a",
         "metadata": {"doc_id": "rental"}},
        {"id": "c2", "text": "A deposit of $250 is held on the card. A refuelling fee of $35 applies.",
         "metadata": {"doc_id": "rental"}},
    ]
    judge = ScriptedJudge(lambda *a: 0.9, lambda q, passages: reading_of("$35", passages, probability=0.99 if len(passages) == 1 else 0.2))
    out = read_answer(judge, "What is the refuelling fee?", chunks, judge)
    assert out.probability == 0.2 and out.citations == [2]  # one source: nothing is read across
    relevance = [second for task, _, second in judge.calls if task == "relevance"]
    assert relevance == []
    other = {"id": "h", "text": "Staff renting for client visits use Roadleaf. Laptops are replaced every three years.",
             "metadata": {"doc_id": "handbook"}}
    judge = ScriptedJudge(lambda *a: 0.9, lambda q, passages: reading_of("$35", passages, probability=0.99)
                          if len(passages) == 1 else reading_of("$250", passages, probability=0.2))
    out = read_answer(judge, "What is the refuelling fee at the firm staff rent from?", [*chunks, other], judge)
    relevance = [second for task, _, second in judge.calls if task == "relevance"]
    assert relevance.count("A deposit of $250 is held on the card.") == 1  # the repeated sentence once
    assert not any(r.endswith("or a") for r in relevance)  # the cut edge is not a sentence
    assert out.citations == [2, 3] and "[1]" not in out.answer


def test_an_answer_read_from_the_metadata_line_quotes_the_document_s_own_text_too() -> None:
    # Bug (the README's quickstart with v6): "Which movie has toys?" was answered "1995). (genre:
    # animated; year: 1995) [1]": the span took the line's closing bracket, and the quote was the
    # metadata line alone, so the answer never said what the document is about.
    doc = {"id": "t", "text": "Toys come alive and have a blast doing so", "metadata": {"year": 1995, "genre": "animated"}}
    text = "Toys come alive and have a blast doing so\ngenre: animated.\nyear: 1995."
    at = text.index("1995.")
    meta_at = text.index("year:")
    judge = ScriptedJudge(read=lambda q, passages: Reading("span", "1995.", 0, at, at + 5, ((meta_at, len(text)),), 0.0, 0.9))
    out = read_answer(judge, "Which movie has toys?", [doc])
    assert out.short_answer == "1995"
    assert out.answer == "1995. Toys come alive and have a blast doing so. year: 1995. [1]"


def _read_with_rival(rival_probability: float) -> ScriptedJudge:
    # Bug (a new user's transit notices): the 2024 timetable's "took 46 minutes" was signed
    # `answered` although the 2025 timetable, also retrieved and relevant, says 42 minutes, and
    # the reader gave that answer 0.70.
    def read(question: str, passages: list[str]) -> Reading:
        best = reading_of("have a blast", passages, probability=0.9)
        other = reading_of("dreams within dreams", passages, probability=rival_probability)
        return dataclasses.replace(best, rival=other)

    return ScriptedJudge(lambda *a: 0.9, read, thresholds=THRESHOLDS, name="judge-test-v1")


def test_documents_that_answer_otherwise_keep_an_answer_from_being_signed(make_engine: Any) -> None:
    engine, _, _ = offline(make_engine, _read_with_rival(0.7), search_fn=sequence_search(["toys", "dream"]))
    result = engine.run("What happens?", collection="movies")
    assert result.outcome is Outcome.UNVERIFIED and result.short_answer == "have a blast"
    reader = next(v for v in result.trace.verdicts if v["kind"] == "reader")
    assert not reader["passed"] and reader["label"] == "unverified"
    assert "document [2] answers 'dreams within dreams'" in reader["reason"]
    gen = result.trace.generations[0]
    assert gen["verified"] is False and gen["rival"] == {"answer": "dreams within dreams", "document": 2,
                                                           "probability": 0.7}


def test_a_rival_answer_the_reader_doubts_does_not_stand_in_the_way(make_engine: Any) -> None:
    engine, _, _ = offline(make_engine, _read_with_rival(0.3), search_fn=sequence_search(["toys", "dream"]))
    result = engine.run("What happens?", collection="movies")
    assert result.outcome is Outcome.ANSWERED
    reader = next(v for v in result.trace.verdicts if v["kind"] == "reader")
    assert reader["passed"] and reader["reason"] == "reader probability 0.90 >= threshold 0.60"


def test_quoted_lines_without_a_full_stop_are_not_glued_to_the_next_sentence() -> None:
    # Bug (a new user's leaflets): "No. Mode: bus On Saturdays buses run every 20 minutes." and
    # "No. # Meloxicam oral suspension for dogs The dog suspension contains ...": a heading or a
    # "Field: value" line quoted beside a sentence ran into it.
    text = "# Bus 62 timetable\nMode: bus\n\nOn Saturdays buses run every 20 minutes. There is no Sunday service."
    doc = {"id": "b", "text": text}
    head = (0, text.index("\n"))
    mode = (text.index("Mode"), text.index("Mode") + len("Mode: bus"))
    sat = (text.index("On Sat"), text.index(" There"))
    judge = ScriptedJudge(read=lambda q, passages: Reading("no", "No", 0, -1, -1, (head, mode, sat), 0.0, 0.9))
    out = read_answer(judge, "Do buses run on Sundays?", [doc])
    assert out.answer == "No. Bus 62 timetable. Mode: bus. On Saturdays buses run every 20 minutes. [1]"


def test_an_answer_from_the_metadata_is_one_field_never_parts_of_several() -> None:
    # Bug (a new user's museum catalogue): read from "(artist: Edvard Saltholm; on_loan: False;
    # room: 4; year_acquired: 1958; year_made: 1914)", one sentence to the reader, "When was Two
    # Figures, Winter acquired?" was answered "4; year_acquired: 1958; year" (a span runs within a
    # sentence, and the line was one). Each field is now a sentence of its own for the reader.
    doc = {"id": "w", "text": "Two Figures, Winter is an oil on canvas by Edvard Saltholm.",
           "metadata": {"artist": "Edvard Saltholm", "on_loan": False, "room": 4, "year_acquired": 1958, "year_made": 1914}}
    seen: list[str] = []

    def read(question: str, passages: list[str]) -> Reading:
        seen.extend(passages)
        return reading_of("1958", passages)

    out = read_answer(ScriptedJudge(read=read), "When was Two Figures, Winter acquired?", [doc])
    fields = ["artist: Edvard Saltholm", "on_loan: False", "room: 4", "year_acquired: 1958", "year_made: 1914"]
    for passage in seen:
        for s in sentence_spans(passage):
            assert sum(f in passage[s.start : s.end] for f in fields) <= 1, passage[s.start : s.end]
    assert out.short_answer == "1958"
    assert out.answer == "1958. Two Figures, Winter is an oil on canvas by Edvard Saltholm. year_acquired: 1958. [1]"


def test_a_figure_beside_the_one_the_question_describes_is_not_signed(make_engine: Any) -> None:
    # A new user's paper abstracts: "What Hits@10 do graph-based methods get according to P-108?"
    # was signed 0.472 (reader 0.81, critic support 0.91), the paper's own figure, from the sentence
    # that gives graph-based methods 0.481.
    text = "P-108 completes knowledge bases without a graph. Hits@10 reaches 0.472, close to graph-based methods at 0.481."
    engine = _engine_over({"P-108": text}, judge_reading("0.472"))
    result = engine.run("What Hits@10 do graph-based methods get according to P-108?", collection="papers")
    assert result.outcome is Outcome.UNVERIFIED and result.short_answer == "0.472"
    figure = next(v for v in result.trace.verdicts if v["kind"] == "figure")
    assert not figure["passed"] and "'0.481'" in figure["reason"] and result.trace.stop_reason == figure["reason"]
    asked_right = engine.run("What Hits@10 does P-108 reach?", collection="papers")
    assert asked_right.outcome is Outcome.ANSWERED


def test_a_span_cut_out_of_a_longer_word_is_not_signed(make_engine: Any) -> None:
    # A new user's museum: "How many works were acquired in 1995?" was signed "11-20" (reader 0.81),
    # the month and day of "acquired: 1995-11-20".
    text = "Otto's wife, also called Anna, seated with a grey cat. acquired: 1995-11-20."
    engine = _engine_over({"A05": text}, judge_reading("11-20"))
    result = engine.run("How many works were acquired in 1995?", collection="papers")
    assert result.outcome is Outcome.UNVERIFIED
    cut = next(v for v in result.trace.verdicts if v["kind"] == "span")
    assert not cut["passed"] and "1995-11-20" in cut["reason"]


def test_a_year_read_from_a_date_and_a_whole_word_are_still_signed(make_engine: Any) -> None:
    text = "Otto's wife, also called Anna, seated with a grey cat. acquired: 1995-11-20."
    assert _engine_over({"A05": text}, judge_reading("1995")).run(
        "In which year was it acquired?", collection="papers").outcome is Outcome.ANSWERED
    assert _engine_over({"A05": text}, judge_reading("a grey cat")).run(
        "Who sits with Anna?", collection="papers").outcome is Outcome.ANSWERED


def _engine_over(texts: dict[str, str], judge: ScriptedJudge, schema: Any = None) -> Any:
    """An offline engine over a collection of ``texts`` (id → text), every search finding them all
    (``schema``: the collection's, else the workflow tests' own)."""
    from selfrag.testing import FakeCollection, FakeStore
    from tests.workflows.conftest import FAST as RETRY
    from tests.workflows.conftest import SCHEMA
    from workflows import Components, SelfRagEngine

    coll = FakeCollection("papers", schema or SCHEMA, [{"id": k, "text": v, "metadata": {}} for k, v in texts.items()])
    components = Components.from_model(ScriptedChatModel.from_rules({}), FakeStore(coll), retry=RETRY, self_query_mode="rules",
                                       judge=judge, relevance=CRITIC, groundedness=CRITIC, usefulness=CRITIC,
                                       extractive_only=True, rules_only_text=True)
    return SelfRagEngine(components)


def _rival_judge(best: str, rival: str) -> ScriptedJudge:
    def read(question: str, passages: list[str]) -> Reading:
        return dataclasses.replace(reading_of(best, passages), rival=reading_of(rival, passages, probability=0.7))

    return ScriptedJudge(lambda *a: 0.9, read, thresholds=THRESHOLDS, name="judge-test-v1")


def test_a_rival_from_a_document_that_never_names_what_the_question_asks_about_is_no_disagreement() -> None:
    # HaluEval dev: "Who recorded Friends in Low Places?" read "Garth Brooks" (right) from its document
    # and "Chris Shiflett" from a document about another band, which never names the song: 17 right
    # answers of 18 unsigned on dev rows 1-1000 were such rivals.
    engine = _engine_over({"a": "Friends in Low Places was recorded by Garth Brooks in 1990.",
                           "b": "Chris Shiflett joined the band as its lead guitarist in 1999."},
                          _rival_judge("Garth Brooks", "Chris Shiflett"))
    result = engine.run("Who recorded Friends in Low Places?", collection="papers")
    assert result.outcome is Outcome.ANSWERED and result.short_answer == "Garth Brooks"
    reader = next(v for v in result.trace.verdicts if v["kind"] == "reader")
    assert reader["passed"] and "never names" in reader["reason"] and "'Low Places'" in reader["reason"]


def test_a_rival_that_names_what_the_question_asks_about_still_disagrees() -> None:
    engine = _engine_over({"a": "Friends in Low Places was recorded by Garth Brooks in 1990.",
                           "b": "Friends in Low Places was first recorded by Chris Shiflett in 1989."},
                          _rival_judge("Garth Brooks", "Chris Shiflett"))
    result = engine.run("Who recorded Friends in Low Places?", collection="papers")
    assert result.outcome is Outcome.UNVERIFIED


def test_a_rival_about_something_else_is_no_licence_while_another_document_names_what_is_asked() -> None:
    # The fifth user's handbook: "What time does Northgate Branch open on Saturday?" read 10:30 out of
    # Elmstead's storytime; the reader's best rival ("Sundays") came from a page never naming
    # Northgate Branch, but the branches page, which does, says 10:00. An intermediate commit signed it.
    engine = _engine_over({"a": "Hearing loops are at Northgate Branch. A storytime is held at Elmstead Branch on Saturday at 10:30.",
                           "b": "From 2024 the branches close on Sundays.",
                           "c": "Northgate Branch is open on Saturday from 10:00 to 16:00."},
                          _rival_judge("10:30", "Sundays"))
    result = engine.run("What time does Northgate Branch open on Saturday?", collection="papers")
    assert result.outcome is Outcome.UNVERIFIED


def test_a_figure_with_its_hyphenated_unit_a_missing_space_and_yes_or_no_are_no_cut_spans() -> None:
    # On HaluEval dev: "16" of "16-year-old", "51 Birch Street" of "Collins.51 Birch Street", and
    # the reader's "No", which is no span of "known", had been held as cut.
    from workflows.answer_nodes import cut_from_word

    assert cut_from_word("16", ["a 16-year-old student"]) is None
    assert cut_from_word("51 Birch Street", ["lived with Collins.51 Birch Street"]) is None
    assert cut_from_word("No", ["well known"]) is None
    assert cut_from_word("Irish", ["the British-Irish council"]) == "British-Irish"


def test_a_figure_the_documents_state_for_another_year_is_not_signed() -> None:
    # A new user's monitoring summaries: "What was the KRT2 budget in the year Mount Kelda
    # erupted?" was signed 48,000 dollars (reader 0.81), the 2022 summary's figure; the eruption
    # was in 2024, whose summary gives 55,000 dollars.
    texts = {"s2024": "Mount Kelda erupted on 20 January 2024. The station KRT2 budget for 2024 was 55,000 dollars.",
             "s2022": "The station KRT2 was fully operational throughout 2022. Its budget for 2022 was 48,000 dollars."}
    engine = _engine_over(texts, judge_reading("48,000 dollars"))
    result = engine.run("What was the KRT2 budget in the year Mount Kelda erupted?", collection="papers")
    assert result.outcome is Outcome.UNVERIFIED and result.short_answer == "48,000 dollars"
    figure = next(v for v in result.trace.verdicts if v["kind"] == "figure")
    assert not figure["passed"] and "55,000 dollars" in figure["reason"]
    # With one year's figure only, nothing is guessed.
    alone = _engine_over({"s2022": texts["s2022"]}, judge_reading("48,000 dollars"))
    assert alone.run("What was the KRT2 budget?", collection="papers").outcome is Outcome.ANSWERED


def test_a_figure_stated_for_other_years_than_the_question_asks_is_not_signed() -> None:
    # A new user's carrier contract: "What was the notice period for damage claims with Blue Heron
    # in 2022?" was signed "7 days" (reader 0.81) from "Since 2023 the notice period is 7 days".
    texts = {"contract": "In 2022 a written notice of damage had to reach Blue Heron Lines within 3 days of delivery. "
                         "Since 2023 the notice period is 7 days."}
    engine = _engine_over(texts, judge_reading("7 days"))
    result = engine.run("What was the notice period for damage claims with Blue Heron in 2022?", collection="papers")
    assert result.outcome is Outcome.UNVERIFIED
    figure = next(v for v in result.trace.verdicts if v["kind"] == "figure")
    assert not figure["passed"] and "Since 2023" in figure["reason"]
    assert engine.run("What is the notice period for damage claims with Blue Heron?",
                      collection="papers").outcome is Outcome.ANSWERED


PROSE = CollectionSchema(description="policy documents", attributes=[])


def test_an_answer_whose_quote_states_no_year_the_question_asks_about_is_not_signed() -> None:
    # A new user's pharmacy policies: "What was the early refill threshold in 2022?" was signed "80
    # percent" from "The early refill threshold stayed at 80 percent." of the 2024 section; in 2022
    # it was 75 percent.
    text = ("In 2022 the early refill threshold was 75 percent of the supply. In 2024 the rules changed. "
            "The early refill threshold stayed at 80 percent.")
    result = _engine_over({"p": text}, judge_reading("80 percent"), PROSE).run(
        "What was the early refill threshold in 2022?", collection="papers")
    assert result.outcome is Outcome.UNVERIFIED
    reader = next(v for v in result.trace.verdicts if v["kind"] == "reader")
    assert not reader["passed"] and "2022" in reader["reason"]


def test_an_answer_whose_quote_states_the_year_asked_about_is_still_signed() -> None:
    text = "In 2022 the early refill threshold was 75 percent of the supply. In 2024 it rose to 80 percent."
    result = _engine_over({"p": text}, judge_reading("75 percent"), PROSE).run(
        "What was the early refill threshold in 2022?", collection="papers")
    assert result.outcome is Outcome.ANSWERED


def test_an_answer_the_quote_lists_beside_what_the_question_asks_about_is_not_signed() -> None:
    # A new user's pharmacy policies: "What is the generic name of Harmony?" was signed
    # "Methylphenidate" (reader above its threshold) from "Harmony and brand-name Methylphenidate
    # usually need prior authorization.": two drugs listed side by side, neither the other's name.
    text = "Harmony and brand-name Methylphenidate usually need prior authorization. Refills need a new form."
    result = _engine_over({"p": text}, judge_reading("Methylphenidate"), PROSE).run(
        "What is the generic name of Harmony?", collection="papers")
    assert result.outcome is Outcome.UNVERIFIED
    reader = next(v for v in result.trace.verdicts if v["kind"] == "reader")
    assert not reader["passed"] and "'Harmony'" in reader["reason"]


def test_an_answer_beside_what_the_question_asks_about_is_signed_when_the_question_asks_for_company() -> None:
    text = "Harmony and brand-name Methylphenidate usually need prior authorization. Refills need a new form."
    engine = _engine_over({"p": text}, judge_reading("Methylphenidate"), PROSE)
    assert engine.run("Which drug needs prior authorization along with Harmony?",
                      collection="papers").outcome is Outcome.ANSWERED
    stated = _engine_over({"p": "Harmony is sold as hydroxyzine-ER and needs prior authorization."},
                          judge_reading("hydroxyzine-ER"), PROSE)
    assert stated.run("What is the generic name of Harmony?", collection="papers").outcome is Outcome.ANSWERED


def test_a_figure_stated_of_an_earlier_time_is_not_signed_for_a_question_of_now(make_engine: Any) -> None:
    # "How much does a replacement key fob cost?" was signed "$12" from "Before 1 April 2024 … a key
    # fob was $12.", the passage's old price beside the current $15.
    text = "A replacement key fob costs $15. Before 1 April 2024 the lock-out call-out was $75, and a key fob was $12."
    engine = _engine_over({"fees": text}, judge_reading("$12"))
    result = engine.run("How much does a replacement key fob cost?", collection="papers")
    assert result.outcome is Outcome.UNVERIFIED and result.short_answer == "$12"
    reader = next(v for v in result.trace.verdicts if v["kind"] == "reader")
    assert not reader["passed"] and "Before 1 April 2024" in reader["reason"]
    then = engine.run("How much was a key fob previously?", collection="papers")
    assert next(v for v in then.trace.verdicts if v["kind"] == "reader")["passed"]


def test_an_answer_whose_quote_lacks_the_question_s_qualifier_is_not_signed(make_engine: Any) -> None:
    # "How much is a priority review of marking?" was signed "£42.00" from "a review of marking
    # costs £42.00", beside "A priority review of marking … costs £48.00." in the same documents:
    # the quote states the plain review's fee, the other sentence the one the question qualifies.
    texts = {"appeals": "A clerical re-check costs £12.50; a review of marking costs £42.00.",
             "priority": "A priority review of marking must be requested by 15 August and costs £48.00."}
    engine = _engine_over(texts, judge_reading("£42.00"))
    result = engine.run("How much is a priority review of marking?", collection="papers")
    assert result.outcome is Outcome.UNVERIFIED and result.short_answer == "£42.00"
    reader = next(v for v in result.trace.verdicts if v["kind"] == "reader")
    assert not reader["passed"] and "'priority'" in reader["reason"]
    plain = engine.run("How much is a review of marking?", collection="papers")
    assert next(v for v in plain.trace.verdicts if v["kind"] == "reader")["passed"]


def test_a_quote_s_context_and_a_name_s_other_names_are_no_qualified_rival(make_engine: Any) -> None:
    # HaluEval test rows signed right: a quote that goes on from the sentence naming what the
    # question asks about ("It was released on …"), beside another row's passage about another
    # album with the same words and another date, and a name read from a quote of the war's
    # other name ("Red Cloud's War" for "the Powder River War").
    song = ('"Complicated" is a song by recording artist Rihanna from her album "Loud" (2010). '
            "It was released on November 12, 2010, by Def Jam Recordings.")
    other = "Her debut album was released on 30 August 2005 by Def Jam Recordings."
    engine = _engine_over({"song": song, "other": other}, judge_reading("November 12, 2010"))
    result = engine.run('"Complicated" is a song by recording artist Rihanna from her album "Loud", released on which date?',
                        collection="papers")
    assert next(v for v in result.trace.verdicts if v["kind"] == "reader")["passed"]
    war = ("Henry Carrington was an officer in the Old West during Red Cloud's War. "
           "Red Cloud's War (also called the Powder River War) was an armed conflict in Wyoming from 1866.")
    engine = _engine_over({"war": war}, judge_reading("Henry Carrington"))
    result = engine.run("Who did Red Cloud defeat in the Powder River War?", collection="papers")
    assert next(v for v in result.trace.verdicts if v["kind"] == "reader")["passed"]


def test_a_figure_of_another_measure_than_asked_is_not_signed(make_engine: Any) -> None:
    # "How tall can a fence be without a permit?" was signed "15 square metres", the shed rule's area.
    engine = _engine_over({"sheds": "A shed needs no permit up to 15 square metres of floor area."},
                          judge_reading("15 square metres"))
    result = engine.run("How tall can a fence be without a permit?", collection="papers")
    reader = next(v for v in result.trace.verdicts if v["kind"] == "reader")
    assert result.outcome is Outcome.UNVERIFIED and "asks a length" in reader["reason"]
    big = engine.run("How big can a shed be without a permit?", collection="papers")
    assert next(v for v in big.trace.verdicts if v["kind"] == "reader")["passed"]


def test_a_figure_stated_of_one_coded_case_is_not_signed_for_the_general_question(make_engine: Any) -> None:
    # "How long can disabled badge holders park at a meter?" was signed "3 hours" from "In zone
    # AB-140, where the normal maximum stay is 1 hour, badge holders may stay 3 hours.", the
    # exception beside the rule's 4 hours: a figure the quote states of a case the question does
    # not name.
    text = ("They may park free of charge at any meter for up to 4 hours. In zone AB-140, where the normal "
            "maximum stay is 1 hour, badge holders may stay 3 hours.")
    engine = _engine_over({"badges": text}, judge_reading("3 hours"))
    result = engine.run("How long can disabled badge holders park at a meter?", collection="papers")
    reader = next(v for v in result.trace.verdicts if v["kind"] == "reader")
    assert result.outcome is Outcome.UNVERIFIED and "In zone AB-140" in reader["reason"]
    # The run says why it stopped short: the case, not a probability it passed.
    assert "In zone AB-140" in result.trace.stop_reason
    named = engine.run("How long can badge holders park in zone AB-140?", collection="papers")
    assert next(v for v in named.trace.verdicts if v["kind"] == "reader")["passed"]
    dated = _engine_over({"ship": "On April 21, 1946, the destroyer was named after him, a World War II hero."},
                         judge_reading("World War II"))
    result = dated.run("The destroyer was named after a recipient of which war's medal?", collection="papers")
    assert next(v for v in result.trace.verdicts if v["kind"] == "reader")["passed"]


def test_a_figure_stated_in_place_of_the_asked_thing_is_not_signed(make_engine: Any) -> None:
    # "What is the retail documentation fee?" was signed "$95" from the trade page's "The
    # documentation fee is $95 instead of the retail fee.": the figure the quote sets against the
    # thing the question asks about.
    engine = _engine_over({"trade": "For trade sales the documentation fee is $95 instead of the retail fee."},
                          judge_reading("$95"))
    result = engine.run("What is the retail documentation fee?", collection="papers")
    reader = next(v for v in result.trace.verdicts if v["kind"] == "reader")
    assert result.outcome is Outcome.UNVERIFIED and "'retail'" in reader["reason"]
    # Only the head noun after "instead of" ("the standard rate"): the figure is what is asked.
    rate = _engine_over({"drying": "Organic loads are charged $6.00 per tonne instead of the standard rate."},
                        judge_reading("$6.00 per tonne"))
    result = rate.run("What drying rate do organic loads pay?", collection="papers")
    assert next(v for v in result.trace.verdicts if v["kind"] == "reader")["passed"]


def test_a_short_answer_of_another_numbered_case_is_not_signed(make_engine: Any) -> None:
    # "How much does Smile Plus pay for Band 3 treatment?" was signed "80% of Band 2", the figure
    # beside "only 30% of Band 3" in the same sentence.
    text = "Smile Plus pays 80% of Band 2 but only 30% of Band 3 treatment costs."
    engine = _engine_over({"insurers": text}, judge_reading("80% of Band 2"))
    result = engine.run("How much does Smile Plus pay for Band 3 treatment?", collection="papers")
    reader = next(v for v in result.trace.verdicts if v["kind"] == "reader")
    assert result.outcome is Outcome.UNVERIFIED and "'Band 2'" in reader["reason"]
    right = _engine_over({"insurers": text}, judge_reading("30% of Band 3"))
    result = right.run("How much does Smile Plus pay for Band 3 treatment?", collection="papers")
    assert next(v for v in result.trace.verdicts if v["kind"] == "reader")["passed"]
