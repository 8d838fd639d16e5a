"""Query rewriting: the model's proposal is used only when it stays on the question."""

from __future__ import annotations

import pytest

from selfrag.testing import HashEmbeddings, ScriptedChatModel
from workflows.rewrite import QueryRewriter

QUESTION = "Which movie is about toys that come alive?"


@pytest.mark.parametrize("proposal", ["<question>", "Rewritten query: <question>", "{query}", '""', "N/A", "query"])
def test_a_template_artefact_is_never_the_rewrite(proposal: str) -> None:
    model = ScriptedChatModel.from_rules({"rewrite": proposal})
    out = QueryRewriter(model).rewrite(QUESTION, QUESTION, "no retrieved document was relevant")
    assert out.source == "rules" and out.error is not None
    assert "<" not in out.query and "{" not in out.query
    assert "toys" in out.query and "alive" in out.query


@pytest.mark.parametrize("embeddings", [None, HashEmbeddings()])
def test_a_rewrite_on_another_subject_falls_back_to_the_question(embeddings: HashEmbeddings | None) -> None:
    model = ScriptedChatModel.from_rules({"rewrite": "The Magic School Slamdabra"})
    out = QueryRewriter(model, embeddings=embeddings).rewrite(QUESTION, QUESTION, "no retrieved document was relevant")
    assert out.source == "rules" and out.error is not None and "question" in out.error
    assert out.query == "movie toys come alive"


def test_a_reworded_rewrite_is_used() -> None:
    model = ScriptedChatModel.from_rules({"rewrite": "animated film where toys come to life"})
    out = QueryRewriter(model).rewrite(QUESTION, QUESTION, "no retrieved document was relevant")
    assert (out.query, out.source) == ("animated film where toys come to life", "llm")
