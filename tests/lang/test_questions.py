"""Question forms from closed classes: a request asks for the things themselves, not a fact."""

from __future__ import annotations

import pytest

from selfrag.lang.questions import asks_in_general, asks_yes_or_no, coordinated, is_request, wh_words


@pytest.mark.parametrize(("text", "wanted"), [
    ("News about companies based in Munich", True),
    ("Show me flats in Leeds with a garden", True),
    ("Latest news on Kestrel", True),
    ("  Suppliers of Veltro Auto based in Japan  ", True),
    ("What did the investors of Paloma Labs announce?", False),
    ("Is the pool open on Sundays", False),  # a fronted auxiliary, even without "?"
    ("Any layoffs at Italian companies?", False),  # asked: a yes/no question
    ("how much does a monthly pass cost", False),
    ("", False),
])
def test_a_request_has_no_wh_word_no_fronted_auxiliary_and_no_question_mark(text: str, wanted: bool) -> None:
    assert is_request(text) is wanted


def test_wh_words_are_found_in_order_and_only_as_words() -> None:
    assert wh_words("Which companies does X supply, and what news is there?") == ["which", "what"]
    assert wh_words("Somewhat whole showhow") == []


@pytest.mark.parametrize(("text", "yes_no"), [
    ("Can I bring a friend to Ironleaf without paying for them?", True),
    ("am I allowed a cat in my flat at Linden Court", True),
    ("I'm 23 - do I pay extra to rent a car?", True),
    ("My flat is in Linden Court, is a cat allowed?", True),
    ("Morning glory and Sorbus are both a genus of plants?", True),
    ("price of a monthly pass in kessford", False),
    ("What does Ironleaf Fitness charge to join?", False),
    ("How many books can I borrow?", False),
    ("The executive, who was the CEO of which company?", False),
    ("Are there negative news about companies that Graphwise invested in?", True),
    ("Supply chain problems at companies that supply Halvard Motors?", True),
    ("News about companies based in Munich", False),
    ("Which companies invested in Graphwise?", False),
    # an auxiliary after a parenthetical is the wh-question's own
    ("Which companies, other than Mercury Motors, does Brightcell Batteries supply?", False),
    ("Flats in Leeds, are they cheap?", True),
])
def test_yes_or_no_questions(text: str, yes_no: bool) -> None:
    assert asks_yes_or_no(text) is yes_no


@pytest.mark.parametrize(("text", "parts"), [
    ("Which companies does Brightcell Batteries supply, and what news is there about them?",
     ("Which companies does Brightcell Batteries supply?", "what news is there about them?", True)),
    ("Who supplies Mercury Motors, and did they have problems in 2025?",
     ("Who supplies Mercury Motors?", "did they have problems in 2025?", True)),
    ("What is the adult dose; how often is it taken?", ("What is the adult dose?", "how often is it taken?", True)),
    ("When was the bridge built, and where is the museum", ("When was the bridge built?", "where is the museum", False)),
    ("Which companies does Ferrox Steel supply, and show me news about them",
     ("Which companies does Ferrox Steel supply?", "show me news about them", True)),
    ("Which is larger, the sun or the moon?", None),  # one question with its alternatives
    ("Is it free, or do I pay?", None),
    ("How old is the oldest member?", None),
    ("Flats in Leeds, which are cheapest?", None),  # a request before the question: not two questions
    # a parenthetical between two commas: one question
    ("Which companies, other than Mercury Motors, does Brightcell Batteries supply?", None),
    ("Which hotels, apart from the Hilton, are in Rome?", None),
    ("Who founded the club, in what year, and who runs it now?",
     ("Who founded the club, in what year?", "who runs it now?", True)),
])
def test_two_questions_in_one_are_split_and_a_pronoun_points_back(text: str, parts: tuple[str, str, bool] | None) -> None:
    assert coordinated(text) == parts


@pytest.mark.parametrize(("text", "generic"), [
    ("Are Berlin hotels pet friendly?", True),
    ("Do chess clubs in Boston accept juniors?", True),
    ("Are there pet friendly hotels in Berlin?", False),
    ("Is any hotel in Berlin pet friendly?", False),
    ("Does a hotel in Berlin allow pets?", False),
    ("Pet friendly hotels in Berlin?", False),  # no auxiliary: "(are there) …?"
    ("Which hotels in Berlin allow pets?", False),
])
def test_a_yes_no_question_about_a_kind_of_thing_in_general(text: str, generic: bool) -> None:
    assert asks_in_general(text) is generic
