"""rule_based_query: LangChain's self-query guide examples, then one test per phrase family."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from selfrag.query import StructuredQuery, rule_based_query, to_where
from selfrag.schema import AttributeInfo, CollectionSchema


def where_of(sq: StructuredQuery) -> Any:
    return to_where(sq.filter)


def conditions(sq: StructuredQuery) -> list[dict[str, Any]]:
    """The ANDed conditions as a list of one-key dicts, order-free comparisons made easy."""
    where = where_of(sq)
    if where is None:
        return []
    return where["$and"] if set(where) == {"$and"} else [where]


@pytest.fixture
def ask(schema, catalogue, today):
    def _ask(question: str) -> StructuredQuery:
        return rule_based_query(question, schema, catalogue, today=today)

    return _ask


# --- the guide's examples ---------------------------------------------------------------------


def test_guide_no_filter(ask):
    sq = ask("What are some movies about dinosaurs")
    assert sq.filter is None and sq.limit is None
    assert sq.query == "dinosaurs"


def test_guide_rating(ask):
    assert where_of(ask("I want to watch a movie rated higher than 8.5")) == {"rating": {"$gt": 8.5}}


def test_guide_director(ask):
    sq = ask("Has Greta Gerwig directed any movies about women")
    assert where_of(sq) == {"director": {"$eq": "Greta Gerwig"}}
    assert sq.query == "women"


def test_guide_rating_and_genre(ask):
    sq = ask("What's a highly rated (above 8.5) science fiction film?")
    assert sorted(map(str, conditions(sq))) == sorted(map(str, [{"genre": {"$eq": "science fiction"}}, {"rating": {"$gt": 8.5}}]))
    # "highly" says how the film is rated, a condition the filter holds: it is no topic to search
    # for (searched "highly film", the documents the filter selected were graded off-topic).
    assert "highly" not in sq.query


def test_guide_year_range_and_genre(ask):
    sq = ask("What's a movie after 1990 but before 2005 that's all about toys, and preferably is animated")
    found = conditions(sq)
    assert {"year": {"$gt": 1990}} in found and {"year": {"$lt": 2005}} in found
    assert all(c in ({"year": {"$gt": 1990}}, {"year": {"$lt": 2005}}, {"genre": {"$eq": "animated"}}) for c in found)
    assert sq.query == "toys"


def test_guide_limit(ask):
    sq = ask("two movies about dinosaurs")
    assert sq.limit == 2 and sq.filter is None and sq.query == "dinosaurs"


# --- numeric phrases ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("movies rated above 7", {"rating": {"$gt": 7.0}}),
        ("movies rated over 7", {"rating": {"$gt": 7.0}}),
        ("movies with a rating of more than 7", {"rating": {"$gt": 7.0}}),
        ("movies rated greater than 7", {"rating": {"$gt": 7.0}}),
        ("movies rated at least 7", {"rating": {"$gte": 7.0}}),
        ("movies rated 7 or higher", {"rating": {"$gte": 7.0}}),
        ("movies rated 7+", {"rating": {"$gte": 7.0}}),
        ("movies rated under 5", {"rating": {"$lt": 5.0}}),
        ("movies rated below 5", {"rating": {"$lt": 5.0}}),
        ("movies with a rating less than 5", {"rating": {"$lt": 5.0}}),
        ("movies rated at most 5", {"rating": {"$lte": 5.0}}),
        ("a movie scoring 4 or lower", {"rating": {"$lte": 4.0}}),
        ("movies after 2010", {"year": {"$gt": 2010}}),
        ("movies before 1980", {"year": {"$lt": 1980}}),
        ("movies since 2010", {"year": {"$gte": 2010}}),
        ("movies made in 1999", {"year": {"$eq": 1999}}),
        ("a 1994 movie about prison", {"year": {"$eq": 1994}}),
        ("movies from 2001 onwards", {"year": {"$gte": 2001}}),
        ("movies from last year", {"year": {"$eq": 2024}}),
        ("a film from this year", {"year": {"$eq": 2025}}),
        ("movies from the last 5 years", {"year": {"$gte": 2020}}),
        ("movies from the past two years", {"year": {"$gte": 2023}}),
        ("movies before the 90s", {"year": {"$lt": 1990}}),
        ("movies after the 1980s", {"year": {"$gt": 1989}}),
    ],
)
def test_single_numeric_phrases(ask, question, expected):
    assert where_of(ask(question)) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("movies between 1990 and 2000", [{"year": {"$gte": 1990}}, {"year": {"$lte": 2000}}]),
        ("films from 1990 to 2000", [{"year": {"$gte": 1990}}, {"year": {"$lte": 2000}}]),
        ("films 1990-2000", [{"year": {"$gte": 1990}}, {"year": {"$lte": 2000}}]),
        ("movies rated between 7 and 9", [{"rating": {"$gte": 7.0}}, {"rating": {"$lte": 9.0}}]),
        ("movies from the 90s", [{"year": {"$gte": 1990}}, {"year": {"$lte": 1999}}]),
        ("movies from the 1990s", [{"year": {"$gte": 1990}}, {"year": {"$lte": 1999}}]),
        ("movies from the nineties", [{"year": {"$gte": 1990}}, {"year": {"$lte": 1999}}]),
        (
            "movies between 1990 and 2000 rated between 7 and 9",
            [{"year": {"$gte": 1990}}, {"year": {"$lte": 2000}}, {"rating": {"$gte": 7.0}}, {"rating": {"$lte": 9.0}}],
        ),
    ],
)
def test_ranges(ask, question, expected):
    assert conditions(ask(question)) == expected


def test_the_only_fitting_numeric_attribute_is_used(ask):
    # No "rated" word, but 8.5 cannot be a year: rating is the one numeric attribute that fits.
    assert where_of(ask("anything above 8.5")) == {"rating": {"$gt": 8.5}}


def test_numbers_that_fit_no_attribute_are_left_alone(ask):
    sq = ask("movies with more than 300 explosions")
    assert sq.filter is None
    assert "300 explosions" in sq.query
    # 2 would fit the rating, but "hours" says it measures something the schema does not have
    assert ask("movies over 2 hours long").filter is None


def test_general_over_other_schemas(today):
    schema = CollectionSchema(
        attributes=[
            AttributeInfo(name="pages", type="integer", description="Number of pages"),
            AttributeInfo(name="published", type="integer", description="Year of publication"),
            AttributeInfo(name="price", type="float", description="Price in euros"),
            AttributeInfo(name="in_print", type="boolean"),
            AttributeInfo(name="author", type="string"),
        ]
    )
    catalogue = {"author": ["Ursula K. Le Guin", "Terry Pratchett"]}
    sq = rule_based_query("books by Pratchett with more than 300 pages published before 1990 under 20 euros", schema, catalogue, today=today)
    assert conditions(sq) == [
        {"author": {"$eq": "Terry Pratchett"}},
        {"pages": {"$gt": 300}},
        {"published": {"$lt": 1990}},
        {"price": {"$lt": 20.0}},
    ]
    sq = rule_based_query("fantasy books that are not in print from the 80s", schema, catalogue, today=today)
    assert conditions(sq) == [{"in_print": {"$eq": False}}, {"published": {"$gte": 1980}}, {"published": {"$lte": 1989}}]
    assert sq.query.startswith("fantasy") and "print" not in sq.query and "80" not in sq.query


# --- categorical values -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("a good comedy", {"genre": {"$eq": "comedy"}}),
        ("some comedies", {"genre": {"$eq": "comedy"}}),
        ("THRILLERS please", {"genre": {"$eq": "thriller"}}),
        ("a sci-fi movie", {"genre": {"$eq": "science fiction"}}),
        ("an animation about toys", {"genre": {"$eq": "animated"}}),
        ("films by Satoshi Kon", {"director": {"$eq": "Satoshi Kon"}}),
        ("films by satoshi kon", {"director": {"$eq": "Satoshi Kon"}}),
        ("Nolan's movies about dreams", {"director": {"$eq": "Christopher Nolan"}}),
        ("something by Tarkovsky", {"director": {"$eq": "Andrei Tarkovsky"}}),
        ("movies by Cristopher Nolan", {"director": {"$eq": "Christopher Nolan"}}),
    ],
)
def test_known_values(ask, question, expected):
    assert where_of(ask(question)) == expected


@pytest.mark.parametrize("question", ["a movie by greta", "movies about nolan cats", "acting lessons"])
def test_common_words_are_not_matched(ask, question):
    assert ask(question).filter is None


@pytest.mark.parametrize(("question", "name"), [("films by Greta Garbo", "Greta Garbo"), ("films by Luc Bessonne", "Luc Bessonne"),
                                               ("films by Agnès Varda", "Agnès Varda")])  # fmt: skip
def test_another_person_is_kept_as_written_not_snapped_to_a_known_one(ask, question, name):
    # A name-like attribute, a name clearly given after "by": the filter names that person, never
    # the known director who happens to share a first name or most letters.
    assert where_of(ask(question)) == {"director": {"$eq": name}}


@pytest.mark.parametrize(
    "question",
    [
        "What is Solaris about?",
        "Which movie features the Nostromo?",
        "What does Ripley do on the Nostromo?",
        "Which film has a character named Deckard?",
        "What did HAL 9000 do?",
        "What is the rating of Parasite?",
        "Is there a sequel for Alien?",
        "movies with Keanu Reeves",
    ],
)
def test_an_unknown_name_that_no_cue_ties_to_a_person_stays_in_the_search_text(ask, question):
    # A title, a ship, a character, an actor: nothing says the name is a director's ("of", "for"
    # and "with" tie it to the question, not to an attribute), and a filter on a value the
    # collection does not know would select nothing; the name is what the search looks for.
    sq = ask(question)
    assert sq.filter is None
    names = ("Solaris", "Nostromo", "Deckard", "HAL", "Parasite", "Alien", "Keanu Reeves")
    assert all(name in sq.query for name in names if name in question)


def test_an_actor_is_not_taken_for_the_director_but_the_other_constraints_stay(ask):
    sq = ask("films with Tom Hanks from the 90s")
    assert where_of(sq) == {"$and": [{"year": {"$gte": 1990}}, {"year": {"$lte": 1999}}]}
    assert "Tom Hanks" in sq.query


@pytest.mark.parametrize(("question", "name"), [("films from Villeneuve", "Villeneuve"),
                                               ("movies directed by Denis Villeneuve", "Denis Villeneuve")])  # fmt: skip
def test_an_unknown_name_after_a_cue_is_still_a_value(ask, question, name):
    assert where_of(ask(question)) == {"director": {"$eq": name}}


def test_ambiguous_surname_is_not_matched(schema, today):
    catalogue = {"director": ["Joel Coen", "Ethan Coen", "Sofia Coppola"]}
    assert rule_based_query("a Coen movie", schema, catalogue, today=today).filter is None
    sq = rule_based_query("a Coppola movie", schema, catalogue, today=today)
    assert to_where(sq.filter) == {"director": {"$eq": "Sofia Coppola"}}


def test_or_of_known_values_becomes_in(ask):
    assert where_of(ask("a comedy or a drama")) == {"genre": {"$in": ["comedy", "drama"]}}
    assert where_of(ask("films by Nolan or Besson")) == {"director": {"$in": ["Christopher Nolan", "Luc Besson"]}}


# --- negation -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "a movie that is not a comedy",
        "movies excluding comedies",
        "anything except comedy",
        "movies other than comedies",
        "a non-comedy film",
        "no comedies please",
    ],
)
def test_negation_gives_ne(ask, question):
    assert where_of(ask(question)) == {"genre": {"$ne": "comedy"}}


def test_negated_list_gives_nin(ask):
    assert where_of(ask("movies excluding comedies and dramas")) == {"genre": {"$nin": ["comedy", "drama"]}}
    assert where_of(ask("not a comedy or a romance")) == {"genre": {"$nin": ["comedy", "romance"]}}


def test_negation_does_not_leak_to_later_values(ask):
    sq = ask("a thriller, not a comedy, by Luc Besson")
    assert conditions(sq) == [{"genre": {"$eq": "thriller"}}, {"genre": {"$ne": "comedy"}}, {"director": {"$eq": "Luc Besson"}}]


def test_negated_person(ask):
    assert where_of(ask("action movies not directed by John Lasseter")) == {
        "$and": [{"genre": {"$eq": "action"}}, {"director": {"$ne": "John Lasseter"}}]
    }


# --- limits, combinations, query text -----------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "limit"),
    [("two movies about dinosaurs", 2), ("top 3 space movies", 3), ("5 films about space", 5), ("give me 4 about cats", 4),
     ("a couple of movies about dogs", 2), ("movies about dinosaurs", None)],
)  # fmt: skip
def test_limits(ask, question, limit):
    assert ask(question).limit == limit


def test_many_constraints_are_anded_in_order(ask):
    sq = ask("top 3 sci-fi movies by Nolan from the last 15 years rated at least 8, not thrillers")
    assert sq.limit == 3
    assert conditions(sq) == [
        {"genre": {"$eq": "science fiction"}},
        {"director": {"$eq": "Christopher Nolan"}},
        {"year": {"$gte": 2010}},
        {"rating": {"$gte": 8.0}},
        {"genre": {"$ne": "thriller"}},
    ]


def test_query_text_is_never_empty(ask):
    sq = ask("comedies from 1999")
    assert sq.query == "comedies from 1999"
    assert ask("   ").query == ""  # nothing to fall back to: validation marks it unusable


def test_today_is_respected(schema, catalogue):
    sq = rule_based_query("movies from last year", schema, catalogue, today=date(2030, 1, 1))
    assert to_where(sq.filter) == {"year": {"$eq": 2029}}


@pytest.mark.parametrize(("question", "expected"), [
    ("hotels in Paris that don't have free breakfast", {"free_breakfast": {"$eq": False}}),
    ("hotels that do not have a pool", {"has_pool": {"$eq": False}}),
    ("hotels that don't offer free breakfast", {"free_breakfast": {"$eq": False}}),
    ("hotels in Paris with free breakfast", {"free_breakfast": {"$eq": True}}),
])
def test_a_feature_the_question_says_it_does_not_have_is_false(today, question, expected):
    schema = CollectionSchema(attributes=[
        AttributeInfo(name="city", type="string"),
        AttributeInfo(name="has_pool", type="boolean"),
        AttributeInfo(name="free_breakfast", type="boolean"),
    ])
    sq = rule_based_query(question, schema, {"city": ["Paris", "Rome"]}, today=today)
    assert expected in conditions(sq)
