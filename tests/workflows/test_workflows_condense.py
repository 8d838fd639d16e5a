"""Follow-up condensing: the deterministic slot carry-over, and when the LLM's proposal is kept."""

from __future__ import annotations

import pytest

from selfrag.retry import RetryPolicy
from selfrag.testing import ScriptedChatModel
from workflows.condense import Condenser, carry_over, looks_like_follow_up
from workflows.state import Turn

CATALOGUE = {"company": ["Walmart", "Costco", "Apple"], "doc_type": ["annual report"]}
NO_WAIT = RetryPolicy(attempts=2, initial_wait_s=0.0, max_wait_s=0.0)
WALMART_2023 = "What was Walmart's revenue in fiscal year 2023?"


@pytest.mark.parametrize(
    ("previous", "follow_up", "expected"),
    [
        (WALMART_2023, "and in 2024?", "What was Walmart's revenue in fiscal year 2024?"),
        (WALMART_2023, "and Costco?", "What was Costco's revenue in fiscal year 2023?"),
        (WALMART_2023, "what about costco in 2022", "What was Costco's revenue in fiscal year 2022?"),
        # a year replaces a year, a rating a rating, whatever their order in the follow-up
        ("Movies rated above 8.5 from 1995", "and 2001?", "Movies rated above 8.5 from 2001"),
        ("Movies rated above 8.5 from 1995", "and above 9?", "Movies rated above 9 from 1995"),
        ("Movies rated above 8.5 from 1995", "same but 2001 and 7.5", "Movies rated above 7.5 from 2001"),
        ("Movies from 1995 to 2005", "and 2010?", "Movies from 1995 to 2010"),  # the last year goes
        ("The top 5 movies", "and 10?", "The top 10 movies"),
        # a follow-up that is one prepositional phrase replaces the previous question's last phrase
        # with that preposition (it was appended: "… on weekdays — and on saturdays?")
        ("How often do buses run on route 62 on weekdays?", "and on saturdays?",
         "How often do buses run on route 62 on saturdays?"),
        ("What is the first-day meloxicam dose for dogs?", "and for cats?", "What is the first-day meloxicam dose for cats?"),
        ("When does the library open on Mondays during the summer?", "what about during the winter",
         "When does the library open on Mondays during the winter?"),
    ],
)
def test_carry_over_substitutes_values_of_the_same_kind(previous: str, follow_up: str, expected: str) -> None:
    assert carry_over(previous, follow_up, CATALOGUE) == expected


@pytest.mark.parametrize(
    ("previous", "follow_up"),
    [
        (WALMART_2023, "what about dividends?"),  # nothing to substitute
        ("Movies from 1995", "and above 8?"),  # a rating never replaces a year
        (WALMART_2023, "and Walmart?"),  # the same value: nothing changes
        (WALMART_2023, "and profit in 2023?"),  # the same year: "profit" must not be lost
        ("How often do buses run on weekdays?", "and for cats?"),  # no phrase with that preposition
        ("What is the dose for dogs?", "and for cats with kidney disease?"),  # more than one phrase: no telling
    ],
)
def test_carry_over_appends_what_it_cannot_place(previous: str, follow_up: str) -> None:
    assert carry_over(previous, follow_up, CATALOGUE) == f"{previous.rstrip(' ?')} — {follow_up}"


def test_carry_over_treats_values_as_literal_text() -> None:
    catalogue = {"company": ["Walmart", r"AT\1T"]}
    assert carry_over(WALMART_2023, r"and AT\1T?", catalogue) == r"What was AT\1T's revenue in fiscal year 2023?"


@pytest.mark.parametrize(
    ("question", "follow_up"),
    [
        ("and in 2024?", True),
        ("What about Costco", True),
        ("Costco 2024", True),  # short: probably leans on the history
        ("How many employees did Costco have in 2023?", False),
    ],
)
def test_looks_like_follow_up(question: str, follow_up: bool) -> None:
    assert looks_like_follow_up(question) is follow_up


def history(question: str = WALMART_2023) -> list[Turn]:
    return [Turn(question=question, standalone_question=question, answer="$611 billion [1].", outcome="answered")]


def test_no_history_needs_no_model() -> None:
    model = ScriptedChatModel.from_rules({})
    out = Condenser(model).condense("and in 2024?", [], CATALOGUE)
    assert (out.question, out.source, out.error) == ("and in 2024?", "none", None)
    assert model.calls == []


def test_a_proposal_that_keeps_the_specifics_is_used() -> None:
    model = ScriptedChatModel.from_rules({"condense": '"What was Walmart\'s revenue in fiscal year 2024?"'})
    out = Condenser(model).condense("and in 2024?", history(), CATALOGUE)
    assert (out.question, out.source) == ("What was Walmart's revenue in fiscal year 2024?", "llm")
    assert WALMART_2023 in model.calls[0].prompt and "<history>" in model.calls[0].prompt


@pytest.mark.parametrize(
    "proposal",
    [
        "What was Walmart's revenue?",  # dropped the follow-up's year
        "What was the weather in 2024?",  # kept the year, lost the subject
        "and in 2024?",  # repeated the follow-up unresolved
    ],
)
def test_a_bad_proposal_falls_back_to_carry_over(proposal: str) -> None:
    model = ScriptedChatModel.from_rules({"condense": proposal})
    out = Condenser(model).condense("and in 2024?", history(), CATALOGUE)
    assert (out.question, out.source) == ("What was Walmart's revenue in fiscal year 2024?", "rules")
    assert out.error == "proposal dropped the follow-up's specifics or did not resolve it"


def test_a_failing_model_falls_back_to_carry_over() -> None:
    model = ScriptedChatModel.from_rules({"condense": ConnectionError("down")})
    out = Condenser(model, retry=NO_WAIT).condense("and Costco?", history(), CATALOGUE)
    assert (out.question, out.source) == ("What was Costco's revenue in fiscal year 2023?", "rules")
    assert out.error is not None and out.error.startswith("ConnectionError")


def test_a_standalone_question_with_history_is_kept_when_the_model_fails() -> None:
    model = ScriptedChatModel.from_rules({"condense": ConnectionError("down")})
    question = "How many employees did Costco have in 2023?"
    assert Condenser(model, retry=NO_WAIT).condense(question, history(), CATALOGUE).question == question
    assert len(model.calls) == 2  # retried once: a connection error is transient


@pytest.mark.parametrize("proposal", ["<question>", "<question></question>", "{question}", '""', "   ", "N/A"])
@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("and in 2024?", "What was Walmart's revenue in fiscal year 2024?"),  # a follow-up: the carry-over
        ("How many employees did Costco have in 2023?", "How many employees did Costco have in 2023?"),  # as asked
    ],
)
def test_a_template_artefact_or_empty_proposal_is_rejected(proposal: str, question: str, expected: str) -> None:
    model = ScriptedChatModel.from_rules({"condense": proposal})
    out = Condenser(model).condense(question, history(), CATALOGUE)
    assert (out.question, out.source) == (expected, "rules")
    assert out.error is not None


def test_a_proposal_on_another_subject_is_rejected() -> None:
    # Keeps the follow-up's year, so the specifics check alone would let it through.
    model = ScriptedChatModel.from_rules({"condense": "The Magic School Slamdabra 2024"})
    out = Condenser(model).condense("and in 2024?", history(), CATALOGUE)
    assert (out.question, out.source) == ("What was Walmart's revenue in fiscal year 2024?", "rules")


@pytest.mark.parametrize(
    "proposal",
    [
        "<question>What was Walmart's revenue in fiscal year 2024?</question>",
        "{question} What was Walmart's revenue in fiscal year 2024?",
        "Standalone question: <question> What was Walmart's revenue in fiscal year 2024?",
    ],
)
def test_a_proposal_carrying_template_markup_is_rejected(proposal: str) -> None:
    # It keeps every specific, so only the artefact check can catch it.
    model = ScriptedChatModel.from_rules({"condense": proposal})
    out = Condenser(model).condense("and in 2024?", history(), CATALOGUE)
    assert (out.question, out.source) == ("What was Walmart's revenue in fiscal year 2024?", "rules")
    assert out.error is not None and "placeholder" in out.error


def thread(*exchanges: tuple[str, str]) -> list[Turn]:
    """Finished turns, each a standalone question and its answer."""
    return [Turn(question=q, standalone_question=q, answer=a, outcome="answered") for q, a in exchanges]


@pytest.mark.parametrize(
    ("previous", "follow_up", "expected"),
    [
        # "it" is what the previous question named, and the follow-up stays its own question
        ("Who made Iron Bloom?", "how heavy is it?", "How heavy is Iron Bloom?"),
        ("How heavy is Iron Bloom?", "and when did the museum get it?", "When did the museum get Iron Bloom?"),
        ("What's the max message size in Harborlight 3.2?", "what Java version does it need?",
         "What Java version does Harborlight 3.2 need?"),
        ("When did the Kestrel Bridge open?", "what is its length?", "What is Kestrel Bridge's length?"),
        (WALMART_2023, "how many stores did it have?", "How many stores did Walmart have?"),
        ("where is Lake Oru?", "and is it deep?", "Is Lake Oru deep?"),
    ],
)
def test_a_pronoun_follow_up_names_what_the_previous_question_named(previous: str, follow_up: str, expected: str) -> None:
    out = Condenser(None).condense(follow_up, thread((previous, "An answer [1].")), CATALOGUE)
    assert (out.question, out.source) == (expected, "rules")


def test_a_thread_of_follow_ups_never_joins_its_questions() -> None:
    condenser = Condenser(None)
    turns = thread(("Who made Iron Bloom?", "Ayo Okonkwo-Reyes. Iron Bloom is a sculpture by Ayo Okonkwo-Reyes [1]."))
    for follow_up, expected in [("how heavy is it?", "How heavy is Iron Bloom?"),
                                ("and when did the museum get it?", "When did the museum get Iron Bloom?")]:
        out = condenser.condense(follow_up, turns, CATALOGUE)
        assert out.question == expected
        turns.append(Turn(question=follow_up, standalone_question=out.question, answer="An answer [1].", outcome="answered"))


def test_a_pronoun_whose_antecedent_is_in_the_question_is_left_alone() -> None:
    question = "Who made Signal Tower and how heavy is it?"
    out = Condenser(None).condense(question, thread(("Who made Iron Bloom?", "An answer [1].")), CATALOGUE)
    assert out.question == question


MAKER = ("Who made Iron Bloom?", "Ayo Okonkwo-Reyes. Iron Bloom is a welded steel sculpture by Ayo Okonkwo-Reyes [1].")


@pytest.mark.parametrize(
    ("exchange", "follow_up", "expected"),
    [
        # after a "who" question a personal pronoun is the answer, and "it" still the thing asked about
        (MAKER, "when was she born?", "When was Ayo Okonkwo-Reyes born?"),
        (MAKER, "what is her best-known work?", "What is Ayo Okonkwo-Reyes's best-known work?"),
        (MAKER, "who taught her?", "Who taught Ayo Okonkwo-Reyes?"),
        (MAKER, "how heavy is it?", "How heavy is Iron Bloom?"),
        (("Who wrote The Quiet Orbit?", "The Quiet Orbit was written by Mira Sol in 1988 [1]."),
         "what else did she write?", "What else did Mira Sol write?"),
        (("Who founded Kestrel Labs?", "Ana Ruiz. Kestrel Labs was founded by Ana Ruiz [2]."),
         "where did they study?", "Where did Ana Ruiz study?"),
        # a name the question asked about may be a person too
        (("When was Inger Marsk born?", "1931 [1]."), "where did she study?", "Where did Inger Marsk study?"),
        # "which" asks for a thing: "it" is the answer when the question named nothing else
        (("Which sculpture is the heaviest?", "Iron Bloom. It weighs 410 kg [1]."), "who made it?", "Who made Iron Bloom?"),
        (("What movie has dinosaurs?", "Jurassic Park. Scientists bring back dinosaurs [1]."), "who directed it?",
         "Who directed Jurassic Park?"),  # "what movie" asks for one as "which movie" does
    ],
)
def test_a_personal_pronoun_names_the_person_the_thread_is_about(exchange: tuple[str, str], follow_up: str, expected: str) -> None:
    assert Condenser(None).condense(follow_up, thread(exchange), CATALOGUE).question == expected


def test_a_personal_pronoun_skips_a_thing_the_thread_called_it() -> None:
    turns = thread(MAKER)
    turns.append(Turn(question="how heavy is it?", standalone_question="How heavy is Iron Bloom?", answer="410 kg [1].",
                      outcome="answered"))
    assert Condenser(None).condense("when was she born?", turns, CATALOGUE).question == "When was Ayo Okonkwo-Reyes born?"


@pytest.mark.parametrize(
    ("exchange", "outcome", "follow_up"),
    [
        (MAKER, "abstained", "when was she born?"),  # nobody was named: "she" stays unknown
        (("How heavy is Iron Bloom?", "410 kg [1]."), "answered", "when did they buy it?"),  # "they": the owners
    ],
)
def test_a_pronoun_with_no_person_to_point_at_is_kept(exchange: tuple[str, str], outcome: str, follow_up: str) -> None:
    turns = [Turn(question=exchange[0], standalone_question=exchange[0], answer=exchange[1], outcome=outcome)]
    out = Condenser(None).condense(follow_up, turns, CATALOGUE).question
    assert "she" in out.split() or "they" in out.split()


def test_a_proposal_that_resolves_a_pronoun_is_not_held_to_the_previous_question() -> None:
    # It was measured against the previous question joined to the follow-up, so a right proposal
    # that dropped the previous question's ask (message size) was rejected.
    model = ScriptedChatModel.from_rules({"condense": "Which Java version does Harborlight 3.2 require?"})
    turns = thread(("What's the max message size in Harborlight 3.2?", "16 MB [1]."))
    out = Condenser(model).condense("what Java version does it need?", turns, CATALOGUE)
    assert (out.question, out.source, out.error) == ("Which Java version does Harborlight 3.2 require?", "llm", None)


def test_a_proposal_that_keeps_a_pronoun_unresolved_is_rejected() -> None:
    model = ScriptedChatModel.from_rules({"condense": "What Java version does it need?"})
    turns = thread(("What's the max message size in Harborlight 3.2?", "16 MB [1]."))
    out = Condenser(model).condense("what Java version does it need?", turns, CATALOGUE)
    assert (out.question, out.source) == ("What Java version does Harborlight 3.2 need?", "rules")


@pytest.mark.parametrize(
    ("previous", "follow_up", "expected"),
    [
        # a name alone takes the place of the name the previous question asked about, keeping its ask
        ("How heavy is Iron Bloom?", "what about Signal Tower?", "How heavy is Signal Tower?"),
        ("When did the museum get Iron Bloom?", "and Signal Tower?", "When did the museum get Signal Tower?"),
        ("What's the max message size in Harborlight 3.2?", "how about Tessera 2.1?",
         "What's the max message size in Tessera 2.1?"),
        (WALMART_2023, "what about Target?", "What was Target's revenue in fiscal year 2023?"),
        ("What Java version does Quillnote need?", "what about the Kestrel Bridge?", "What Java version does Kestrel Bridge need?"),
    ],
)
def test_carry_over_puts_a_new_name_in_place_of_the_previous_one(previous: str, follow_up: str, expected: str) -> None:
    assert carry_over(previous, follow_up, CATALOGUE) == expected
    assert Condenser(None).condense(follow_up, thread((previous, "An answer [1].")), CATALOGUE).question == expected


@pytest.mark.parametrize(
    ("previous", "follow_up", "expected"),
    [
        # "those", "these" and "of them" are the previous question's set, with its conditions
        ("What's in room 6?", "which of those is the oldest?", "Which of the ones in room 6 is the oldest?"),
        ("What's in room 6?", "which of those paintings is the oldest?", "Which of the paintings in room 6 is the oldest?"),
        ("Which objects were acquired after 1990?", "how many of them are on loan?",
         "How many of the objects that were acquired after 1990 are on loan?"),
        ("Which films from 1995 have dinosaurs?", "and are any of these animated?",
         "Are any of the films from 1995 that have dinosaurs animated?"),
        ("Show me flats in Leeds under £900", "which of these have a garden?", "Which of the flats in Leeds under £900 have a garden?"),
        ("Are there chess clubs in Boston?", "do any of them meet on Sundays?", "Do any of the chess clubs in Boston meet on Sundays?"),
        ("What clubs are there in Boston?", "where do they meet?", "Where do the clubs in Boston meet?"),
        ("How many hotels in Rome allow pets?", "which of those have a pool?", "Which of the hotels in Rome that allow pets have a pool?"),
        ("Which of the objects in room 6 are on loan?", "when were those made?", "When were the objects in room 6 made?"),
    ],
)
def test_a_set_reference_carries_the_previous_questions_conditions(previous: str, follow_up: str, expected: str) -> None:
    assert Condenser(None).condense(follow_up, thread((previous, "3 matching documents [1][2][3].")), CATALOGUE).question == expected


@pytest.mark.parametrize(
    ("previous", "follow_up", "expected"),
    [
        # one set per question: "them" is the set, so "they" is someone else
        ("Which objects were acquired after 1990?", "why did they buy them?",
         "Why did they buy the objects that were acquired after 1990?"),
        # "those" with its own modifiers names its own set
        ("Which films from 1995 have dinosaurs?", "are there better ones than those from 1993?",
         "are there better ones than those from 1993?"),
    ],
)
def test_a_set_reference_is_read_once_and_not_where_the_question_defines_it(previous: str, follow_up: str, expected: str) -> None:
    assert Condenser(None).condense(follow_up, thread((previous, "3 matching documents [1][2][3].")), CATALOGUE).question == expected


def test_a_set_stays_the_same_over_a_thread_of_set_references() -> None:
    condenser = Condenser(None)
    turns = thread(("What's in room 6?", "3 matching documents [1][2][3]."))
    for follow_up, expected in [("which of those is the oldest?", "Which of the ones in room 6 is the oldest?"),
                                ("and are any of them on loan?", "Are any of the ones in room 6 on loan?"),
                                ("how many of these were made before 1950?", "How many of the ones in room 6 were made before 1950?")]:
        out = condenser.condense(follow_up, turns, CATALOGUE)
        assert out.question == expected
        turns.append(Turn(question=follow_up, standalone_question=out.question, answer="No [1].", outcome="answered"))


@pytest.mark.parametrize(
    ("previous", "follow_up", "expected"),
    [
        # a short question that names its own subject is its own question, not the previous one's tail
        ("How heavy is Iron Bloom?", "who painted Blue Loom?", "Who painted Blue Loom?"),
        ("Which movie has toys?", "and is Alien scary?", "Is Alien scary?"),
    ],
)
def test_a_short_question_of_its_own_stands_alone(previous: str, follow_up: str, expected: str) -> None:
    assert Condenser(None).condense(follow_up, thread((previous, "An answer [1].")), CATALOGUE).question == expected


@pytest.mark.parametrize(
    ("previous", "follow_up", "expected"),
    [
        # a follow-up that is only a question word (and its noun) asks that of the same thing: it
        # takes the place of the previous question's, never joins it (the reader would answer the first ask)
        ("How heavy is Iron Bloom?", "and how tall?", "How tall is Iron Bloom?"),
        ("When did the ferry service stop?", "and why?", "Why did the ferry service stop?"),
        ("When was Iron Bloom acquired?", "where?", "Where was Iron Bloom acquired?"),
        ("Who teaches Linear Algebra?", "and how many credits?", "How many credits for Linear Algebra?"),
        ("Who made Iron Bloom?", "what material?", "What material for Iron Bloom?"),
        # a question word that needs the previous one's verb cannot be placed: appended as before
        ("Who made Iron Bloom?", "and when?", "Who made Iron Bloom — and when?"),
        # a follow-up with a verb of its own is more than a question word: appended as before
        ("How heavy is Iron Bloom?", "and how many people can lift it alone?", None),
    ],
)
def test_a_question_word_follow_up_asks_it_of_the_same_thing(previous: str, follow_up: str, expected: str | None) -> None:
    got = Condenser(None).condense(follow_up, thread((previous, "An answer [1].")), CATALOGUE).question
    assert got == (expected if expected is not None else got)
    assert "—" not in got or expected is None or "—" in expected


@pytest.mark.parametrize(
    ("exchange", "follow_up", "expected"),
    [
        # a dummy "it" stands for the clause after it, not for anything the thread named
        (MAKER, "How long does it take to install Harborlight?", "How long does it take to install Harborlight?"),
        (MAKER, "Is it true that Signal Tower is on loan?", "Is it true that Signal Tower is on loan?"),
        (MAKER, "is it on loan to another museum?", "Is Iron Bloom on loan to another museum?"),
        # an imperative's verb opens the question, it is no part of the name after it
        (("Describe Iron Bloom", "A welded steel sculpture [1]."), "how heavy is it?", "How heavy is Iron Bloom?"),
        (("Compare Harborlight 2.0 with Tessera 1.4", "An answer [1]."), "when was it released?", "When was Harborlight 2.0 released?"),
    ],
)
def test_what_is_no_reference_or_no_name_is_left_out(exchange: tuple[str, str], follow_up: str, expected: str) -> None:
    assert Condenser(None).condense(follow_up, thread(exchange), CATALOGUE).question == expected


def test_a_name_put_in_place_of_a_thing_is_a_thing_too() -> None:
    # "what about Signal Tower?" put Signal Tower where "it" (Iron Bloom) was: "she" is no sculpture
    turns = thread(MAKER)
    for question, standalone in [("how heavy is it?", "How heavy is Iron Bloom?"),
                                 ("what about Signal Tower?", "How heavy is Signal Tower?")]:
        turns.append(Turn(question=question, standalone_question=standalone, answer="180 kg [1].", outcome="answered"))
    condenser = Condenser(None)
    assert condenser.condense("when was she born?", turns, CATALOGUE).question == "When was Ayo Okonkwo-Reyes born?"
    assert condenser.condense("who made it?", turns, CATALOGUE).question == "Who made Signal Tower?"
