"""Citation attribution and the extractive fallback, on documents small enough to score by hand."""

from __future__ import annotations

import pytest

from workflows.extractive import attribute, extract, split_sentences

COSTCO = {"text": "Costco opened new warehouses. Costco had 316,000 employees at year end.", "metadata": {"company": "Costco"}}
WALMART = {"text": "Walmart employs 2.1 million associates.", "metadata": {"company": "Walmart"}}


def test_split_sentences() -> None:
    # a split needs end punctuation then a capital, digit, quote or bracket, or a paragraph break;
    # a single newline is a wrapped line (markdown), unless a bullet, heading or "(" starts the next
    assert split_sentences("First one. Second one! third? Fourth\n\nFifth") == ["First one.", "Second one! third?", "Fourth", "Fifth"]
    assert split_sentences("Revenue was $611 billion. 2024 was better. (See below.) ok") == [
        "Revenue was $611 billion.", "2024 was better.", "(See below.) ok",
    ]  # fmt: skip
    assert split_sentences("a.\n\nOK\n\nYes") == ["Yes"]  # fragments of two characters or less go
    assert split_sentences("which ended on\nJanuary 31.\n- Walmart U.S. grew") == ["which ended on\nJanuary 31.", "- Walmart U.S. grew"]


# -- attribute -----------------------------------------------------------------------------------
FIGURES = [{"text": "Walmart revenue was $611 billion in fiscal 2023."}, {"text": "Costco had 316,000 employees."}]


def test_attribute_cites_the_document_each_sentence_overlaps_most() -> None:
    # sentence 1 terms {revenue, 611, billion}: 3/3 in doc 1.
    # sentence 2 terms {costco, employ, 316000, people}: costco and 316000 in doc 2 → 2/4 = 0.5.
    answer = "Revenue was $611 billion. Costco employed 316,000 people."
    assert attribute(answer, FIGURES) == [1, 2]
    assert attribute(answer, FIGURES, min_overlap=0.6) == [1]  # 0.5 no longer enough


def test_attribute_reads_metadata() -> None:
    docs = [{"text": "Toys come alive.", "metadata": {"director": "John Lasseter"}}, {"text": "Women are wholesome.", "metadata": {"director": "Greta Gerwig"}}]
    assert attribute("It was directed by Greta Gerwig.", docs) == [2]  # {direct, greta, gerwig}: 2/3 in doc 2


def test_attribute_cites_nothing_without_support() -> None:
    assert attribute("Quantum chromodynamics is hard.", FIGURES) == []
    assert attribute("It is what it is.", FIGURES) == []  # no content terms
    assert attribute("Revenue was $611 billion.", []) == []


# -- extract -------------------------------------------------------------------------------------
def test_extract_quotes_the_sentence_stating_the_figure_asked_for() -> None:
    # "how many" asks for a figure: the sentence stating it, alone, with what it is about (the
    # document's metadata line); a second sentence would only bring other figures.
    answer, cited = extract("How many employees did Costco have?", [COSTCO, WALMART])
    assert answer == "Costco had 316,000 employees at year end. (company: Costco) [1]"
    assert cited == [1]


def test_extract_prefers_the_figure_named_by_the_question_over_a_narrower_one() -> None:
    doc = {"text": "Intelligent Cloud revenue was $88 billion. Microsoft reported revenue of $212 billion.", "metadata": {}}
    answer, _ = extract("What was Microsoft's revenue?", [doc])
    assert answer == "Microsoft reported revenue of $212 billion. [1]"


def test_extract_marks_each_run_of_a_document() -> None:
    # {sell, grocery, toy}: one sentence per document matches; document order, one marker per run
    docs = [{"text": "Costco sells groceries in bulk.", "metadata": {"company": "Costco"}},
            {"text": "Walmart sells toys and games.", "metadata": {"company": "Walmart"}}]
    answer, cited = extract("Who sells groceries or toys?", docs)
    assert answer == "Costco sells groceries in bulk. (company: Costco) [1] Walmart sells toys and games. (company: Walmart) [2]"
    assert cited == [1, 2]


def test_extract_can_answer_from_a_metadata_line() -> None:
    docs = [
        {"text": "A bunch of women are wholesome.", "metadata": {"director": "Greta Gerwig", "title": "Little Women"}},
        {"text": "Toys come alive.", "metadata": {"director": "John Lasseter", "title": "Toy Story"}},
    ]
    answer, cited = extract("Who directed Little Women?", docs)
    assert answer == "director: Greta Gerwig; title: Little Women. [1]"
    assert cited == [1]


def test_extract_ignores_terms_every_document_shares() -> None:
    # company and year are in every document's metadata: "revenue" alone decides
    meta = {"company": "Walmart", "fiscal_year": 2023}
    docs = [
        {"text": "Walmart opened stores in 2023. Revenue reached $611 billion.", "metadata": meta},
        {"text": "Walmart hired staff in 2023.", "metadata": meta},
    ]
    assert extract("What was Walmart's revenue in 2023?", docs) == (
        "Revenue reached $611 billion. (company: Walmart; fiscal_year: 2023) [1]", [1]
    )


def test_extract_without_any_match_quotes_nothing() -> None:
    # quoting an unrelated sentence would look like an answer; an empty quote fails honestly
    assert extract("quantum chromodynamics", [WALMART, COSTCO]) == ("", [])


@pytest.mark.parametrize("docs", [[], [{"text": ""}]])
def test_extract_from_nothing_is_empty(docs: list[dict[str, str]]) -> None:
    assert extract("anything", docs) == ("", [])


def test_headings_and_markup_are_not_quoted() -> None:
    from workflows.extractive import extract

    doc = {"text": "# Walmart Inc. — Annual Report, Fiscal Year 2024\n*Illustrative sample.*\nRevenue was $648 billion in fiscal year 2024.", "metadata": {}}
    answer, cited = extract("What was Walmart's revenue in fiscal year 2024?", [doc])
    assert answer == "Revenue was $648 billion in fiscal year 2024. [1]"
    assert cited == [1]


def test_decoding_loops_are_detected() -> None:
    from workflows.generation import is_degenerate

    assert is_degenerate("Walmart Inc. - Annual Report, Fiscal Year 2023 " * 3)
    assert not is_degenerate("Walmart's revenue was $611 billion in fiscal year 2023 [1].")


def test_verbatim_check_accepts_quotes_and_rejects_inventions() -> None:
    from workflows.extractive import is_verbatim

    docs = [{"text": "Toys come alive and have a blast doing so", "metadata": {"genre": "animated", "year": 1995}}]
    assert is_verbatim("Toys come alive and have a blast doing so. genre: animated; year: 1995. [1]", docs)
    assert not is_verbatim("Toys come alive and fight aliens. [1]", docs)
    assert not is_verbatim("", docs)


def test_no_matching_sentence_means_no_quote() -> None:
    from workflows.extractive import extract

    assert extract("What about quarks?", [{"text": "Toys come alive and have a blast doing so.", "metadata": {}}]) == ("", [])
