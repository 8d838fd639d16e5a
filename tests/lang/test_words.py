"""Every entry of every hand-written word list (selfrag/lang/words.toml) is justified by a phrase.

Each list's ``check`` is filled with each entry and read; where ``control`` is set, the same phrase
with a word the list lacks must read otherwise, so the reading rests on the entry. An entry the
phrase does not fit is named under ``unchecked`` with why (and may have an example of its own).
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from selfrag.kinds import guess_kind
from selfrag.lang import word_lists
from selfrag.query import read_question, to_where
from selfrag.query._match import KnownValues
from selfrag.query._profile import SchemaProfile
from selfrag.schema import AttributeInfo as A
from selfrag.schema import CollectionSchema

CONTROL = "zorp"
TODAY = date(2025, 6, 1)
GEAR = CollectionSchema(description="Outdoor gear", attributes=[
    A(name="brand", type="string", description="The maker"),
    A(name="category", type="string", allowed_values=["tent", "stove", "backpack", "lamp"]),
    A(name="price", type="float", description="Price in dollars"),
    A(name="weight_g", type="integer", description="Weight in grams"),
    A(name="burn_time", type="integer", description="How long it burns, in minutes"),
    A(name="beam", type="integer", description="Beam reach in metres"),
    A(name="floor", type="integer", description="Floor in square feet"),
    A(name="stars", type="float", description="1 to 5 stars"),
    A(name="tester_score", type="float", description="Tester score", minimum=10, maximum=100),
    A(name="release_year", type="integer", description="Year it came out"),
    A(name="energy", type="integer", description="Food energy in kcal"),
    A(name="discount", type="integer", description="Discount in percent"),
    A(name="max_temp", type="float", description="Highest rated air temperature in degrees Celsius"),
    A(name="waterproof", type="boolean", description="Whether it is waterproof"),
    A(name="city", type="string", description="City where it is sold"),
])  # fmt: skip
KNOWN = {"brand": ["Acme", "Vaude"]}


def _lists() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name, table in word_lists().items():
        if "words" in table:
            out.append((name, table))
        else:  # a group of lists ("dimension_words")
            out += [(f"{name}.{sub}", t) for sub, t in table.items() if isinstance(t, dict)]
    return out


LISTS = _lists()


def _entries(table: dict[str, Any]) -> list[tuple[str, str | None]]:
    words = table["words"]
    return list(words.items()) if isinstance(words, dict) else [(w, None) for w in words]


def _fill(template: str, word: str, op: str | None) -> str:
    return template.replace("{word}", word).replace("$OP", f"${op}" if op else "$OP")


def _read(check: dict[str, Any], word: str, op: str | None) -> tuple[Any, Any]:
    """(what the phrase reads as, what it should read as) for one entry."""
    if "priced" in check:
        # Two money attributes, one described by the check: whether any of the questions ranks
        # that one (only a price word over only a price noun chooses it).
        schema = CollectionSchema(description="Items", attributes=[
            A(name="first_amount", type="float", description=_fill(check["priced"], word, op)),
            A(name="second_amount", type="float", description="Amount refunded to the buyer, in dollars"),
            A(name="brand", type="string", description="The maker"),
        ])
        ranked = set()
        for template in check["questions"]:
            extreme = read_question(_fill(template, word, op), schema, KNOWN, today=TODAY).extreme
            ranked.add(extreme.attribute if extreme is not None else None)
        return ("first_amount" if "first_amount" in ranked else None), "first_amount"
    if "question" in check:
        query = read_question(_fill(check["question"], word, None), GEAR, KNOWN, today=TODAY).query
        where = to_where(query.filter)
        if "attribute" in check:
            return (check["attribute"] in json.dumps(where)), True
        if "limit" in check:
            return query.limit, check["limit"]
        if "search" in check:
            return read_question(_fill(check["question"], word, None), GEAR, KNOWN, today=TODAY).residual, check["search"]
        if "aggregate" in check:
            found = read_question(_fill(check["question"], word, None), GEAR, KNOWN, today=TODAY).aggregate
            want = _fill(check["aggregate"], word, op).replace("$", "")
            return (None if found is None else f"{found.attribute} {found.op}"), want
        if "extreme" in check:
            # "attribute max" where the check names the attribute, else "kind max"
            reading = read_question(_fill(check["question"], word, None), GEAR, KNOWN, today=TODAY).extreme
            want = _fill(check["extreme"], word, op).replace("$", "")  # the entry itself, no operator
            if reading is None:
                return None, want
            named = GEAR.attribute(reading.attribute)
            head = reading.attribute if want.split()[0] in GEAR.names else named.kind if named else None
            got = f"{head} {'max' if reading.highest else 'min'}"
            # An entry of several kinds ("year date max") is justified by the one GEAR has.
            kinds, op = want.split()[:-1], want.split()[-1]
            return (want if len(kinds) > 1 and got == f"{head} {op}" and head in kinds else got), want
        if "field" in check:
            from workflows.set_answers import asked_attribute

            question = _fill(check["question"], word, None)
            found = asked_attribute(question, question.replace("Zorblat", ""), GEAR,
                                    {"attribute": "brand", "comparator": "eq", "value": "Zorblat"})
            return (found.kind if found is not None else None), _fill(check["field"], word, op).replace("$", "")
        return where, json.loads(_fill(check["expect"], word, op))
    if "guess" in check:
        type_, name, description = (_fill(x, word, op) for x in check["guess"])
        kind, unit = guess_kind(type_, name, description)
        if "unit" in check:
            return unit, _fill(check["unit"], word, op)
        return kind, (op if check["kind"] == "$OP" else check["kind"])
    if "name_terms" in check:
        schema = CollectionSchema(attributes=[A(name=_fill(check["name_terms"], word, op), type="boolean")])
        terms = SchemaProfile(schema, {}).attributes[0].name_terms
        return sorted(t for t in terms if not t.startswith(check["expect"])), []
    if "known_value" in check:
        found = KnownValues([check["known_value"]]).exact(_fill(check["written"], word, op))
        return (found.value if found else None), check["known_value"]
    raise AssertionError(f"unknown check {check}")


@pytest.mark.parametrize(("name", "table"), LISTS, ids=[n for n, _ in LISTS])
def test_every_entry_is_justified_by_its_phrase(name: str, table: dict[str, Any]) -> None:
    group = name.split(".")[0]
    check = table.get("check") or word_lists()[group].get("check")
    assert check, f"[{name}] has no check"
    assert table.get("about") or word_lists()[group].get("about"), f"[{name}] says not what it is for"
    unchecked: dict[str, str] = table.get("unchecked", {})
    assert all(why.strip() for why in unchecked.values())
    ops = word_lists()["cues"]["words"] if name == "year_only_cues" else {}
    wrong = []
    for word, op in _entries(table):
        if word in unchecked:
            continue
        got, want = _read(check, word, op or ops.get(word))
        if got != want:
            wrong.append((word, got, want))
        elif table.get("control") and op != "eq":
            control, _ = _read(check, CONTROL, op)
            if control == want:
                wrong.append((word, "the control reads the same", want))
    assert not wrong, f"[{name}] entries the phrase does not justify: {wrong}"
    assert set(unchecked) <= {w for w, _ in _entries(table)}, f"[{name}] unchecked names entries it does not have"


@pytest.mark.parametrize(("name", "table"), [(n, t) for n, t in LISTS if t.get("examples")], ids=lambda x: x if isinstance(x, str) else "")
def test_the_examples_read_as_written(name: str, table: dict[str, Any]) -> None:
    for example in table["examples"]:
        assert example["word"] in {w for w, _ in _entries(table)}
        where = to_where(read_question(example["question"], GEAR, KNOWN, today=TODAY).query.filter)
        assert where == json.loads(example["expect"]), example


def test_no_entry_names_an_eval_sets_domain() -> None:
    # The words issue 28 found leaked from the eval sets into lists that claim to be domain-free.
    leaked = {"cook", "cooking", "prep", "salary", "rent", "fare", "served", "directed", "cooked", "asking"}
    for name, table in LISTS:
        if name.startswith(("money_nouns", "price_nouns")):
            continue  # nouns that make an *attribute* money or a price ("salary_usd"): the schema's words, not the question's
        assert not leaked & {w for w, _ in _entries(table)}, name


@pytest.mark.parametrize(("noun", "verb", "does"), [
    ("inspector", "inspected", True), ("reporter", "report", True), ("director", "directs", True),
    ("adjuster", "handled", False), ("report", "report", False), ("or", "o", False),
    # A verb ending in a consonant and "y" writes "i" before the ending: "verifier" of "verified".
    ("verifier", "verified", True), ("supplier", "supplies", True), ("player", "played", True),
    ("verify", "verified", False),
])
def test_a_doer_is_named_by_the_verb_and_an_agent_ending(noun: str, verb: str, does: bool) -> None:
    from selfrag.lang import doer_of

    assert doer_of(noun, verb) is does
