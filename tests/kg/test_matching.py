"""Entity mentions in texts, name matching with the unique/ambiguous rule, and clarification replies."""

from __future__ import annotations

import pytest

from selfrag.kg import Entity, EntityIndex, MentionMatcher, resolve_reply

MOTORS = Entity("o1", "Organization", "Mercury Motors", ("Mercury",), {"industry": "automotive", "country": "Germany"})
RECORDS = Entity("o2", "Organization", "Mercury Records", ("Mercury",), {"industry": "record label", "country": "United Kingdom"})
GRAPHWISE = Entity("o3", "Organization", "Graphwise", ("Graphwise Inc.",), {"industry": "software", "country": "Sweden"})
MALMO = Entity("c1", "City", "Malmö")
SKODA = Entity("o4", "Organization", "Škoda Works", ("Škoda",))
FREDDIE = Entity("p1", "Person", "Mercury Lane")
ALL = [MOTORS, RECORDS, GRAPHWISE, MALMO, SKODA, FREDDIE]


def test_mentions_are_whole_words_longest_first_and_unicode_aware() -> None:
    m = MentionMatcher(ALL)
    hits = m.find("Mercury Records signed a band; Graphwise's office in MALMÖ; Škoda shares rose; Mercurys and graphwiser not.")
    assert [(h.text, [e.name for e in h.entities]) for h in hits] == [
        ("Mercury Records", ["Mercury Records"]),
        ("Graphwise", ["Graphwise"]),
        ("MALMÖ", ["Malmö"]),
        ("Škoda", ["Škoda Works"]),
    ]
    assert m.find("Graphwise, Inc. and Mercury")[0].text == "Graphwise, Inc"  # punctuation folds like spaces
    assert m.find("Mercury")[0].ambiguous


def test_extract_keeps_only_unambiguous_mentions_of_the_label() -> None:
    m = MentionMatcher(ALL)
    assert m.extract("Mercury and Mercury Motors and Graphwise and Mercury Motors, in Malmö", "Organization") == [
        "Mercury Motors", "Graphwise",
    ]
    assert MentionMatcher([]).find("anything") == []


def test_match_tiers_name_then_alias_then_fuzzy() -> None:
    index = EntityIndex(ALL)
    assert index.match("graphwise").candidates[0].tier == "name"
    assert index.match("Graphwise Inc").candidates[0].tier == "alias"
    fuzzy = index.match("Grapwise")
    assert fuzzy.status == "unique" and fuzzy.entity == GRAPHWISE and fuzzy.candidates[0].tier == "fuzzy"
    assert index.match("Grapwise", fuzzy=False).status == "none"
    assert index.match("Zebra Holdings").status == "none"


def test_an_alias_of_two_entities_is_ambiguous_with_what_tells_them_apart() -> None:
    match = EntityIndex(ALL).match("Mercury")
    assert match.status == "ambiguous" and match.entity is None
    by_name = {c.entity.name: c for c in match.candidates}
    assert by_name["Mercury Motors"].differences == {"industry": "automotive", "country": "Germany"}
    assert by_name["Mercury Records"].describe() == "Mercury Records (Organization; industry: record label, country: United Kingdom)"


def test_a_known_label_narrows_the_candidates() -> None:
    index = EntityIndex([*ALL, Entity("c9", "City", "Mercury")])
    assert index.match("Mercury").status == "unique"  # the City's *name* beats the organizations' aliases
    assert index.match("Mercury", label="Organization").status == "ambiguous"
    assert index.match("Mercury", label="Country").status == "none"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("the second one", "Mercury Records"),
        ("2", "Mercury Records"),
        ("#1", "Mercury Motors"),
        ("first", "Mercury Motors"),
        ("the last one", "Mercury Records"),
        ("Mercury Records", "Mercury Records"),
        ("I meant mercury motors", "Mercury Motors"),
        ("the record label", "Mercury Records"),
        ("the one in Germany", "Mercury Motors"),
        ("the automotive one", "Mercury Motors"),
        ("the third one", None),
        ("Mercury", None),
        ("no idea", None),
    ],
)
def test_a_clarification_reply_picks_a_candidate_or_none(reply: str, expected: str | None) -> None:
    candidates = EntityIndex(ALL).match("Mercury").candidates
    assert [c.entity.name for c in candidates] == ["Mercury Motors", "Mercury Records"]
    picked = resolve_reply(reply, candidates)
    assert (picked.entity.name if picked else None) == expected
    assert resolve_reply("first", ()) is None
