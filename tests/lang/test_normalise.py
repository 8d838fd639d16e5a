"""One normaliser everywhere: the catalogue, the graph, the question's tokens and the indexed terms agree."""

from __future__ import annotations

import subprocess
import sys

import pytest

from selfrag.kg import Entity, EntityIndex
from selfrag.lang import normalise, normalise_with_offsets, tokenize
from selfrag.query._match import KnownValues
from selfrag.text import content_terms


@pytest.mark.parametrize(
    ("written", "typed"),
    [("Société Générale", "Societe Generale"), ("McDonald's", "McDonald"), ("McDonald’s", "MCDONALD'S")],
)
def test_the_three_former_disagreements_fold_the_same_way(written: str, typed: str) -> None:
    # Accents fold and a possessive "'s" goes, deliberately (see selfrag.lang.normalise).
    assert normalise(written) == normalise(typed)
    assert normalise("McDonald's") == "mcdonald" and normalise("Société Générale") == "societe generale"
    # the question's token, as the self-query reads it
    assert tokenize(written)[0].norm == normalise(written).split()[0]
    # the graph: an entity named with accents is found by the name typed without them
    index = EntityIndex([Entity(id="sg", label="Company", name="Société Générale"), Entity(id="mcd", label="Company", name="McDonald's")])
    assert [(c.entity.id, c.tier) for c in index.match(typed, fuzzy=False).candidates] == [("sg" if "Soc" in written else "mcd", "name")]
    # the catalogue: the same text finds the same value
    known = KnownValues(["Société Générale", "McDonald's"])
    match = known.exact(typed)
    assert match is not None and normalise(match.value) == normalise(written)
    # overlap signals: the possessive leaves no stray "s", accents fold
    assert content_terms("McDonald's revenue") == content_terms("McDonald revenue")
    assert content_terms("Société Générale") == content_terms("Societe Generale")


def test_offsets_point_into_the_original_text() -> None:
    text = "Née à Zürich, McDonald's!"
    norm, offsets = normalise_with_offsets(text)
    assert norm == "nee a zurich mcdonald"
    start = norm.index("zurich")
    assert text[offsets[start] : offsets[start + len("zurich") - 1] + 1] == "Zürich"
    assert text[offsets[norm.index("mcdonald")] :].startswith("McDonald")


def test_the_language_layer_imports_nothing_of_selfrag_above_it() -> None:
    code = (
        "import sys, selfrag.lang\n"
        "above = sorted(m for m in sys.modules if m.startswith(('selfrag.', 'workflows', 'graders', 'eval'))"
        " and not m.startswith('selfrag.lang'))\n"
        "print(above)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_selfrag_text_and_the_query_package_import_in_either_order() -> None:
    for first, second in (("selfrag.text", "selfrag.query"), ("selfrag.query", "selfrag.text")):
        subprocess.run([sys.executable, "-c", f"import {first}, {second}"], check=True)
