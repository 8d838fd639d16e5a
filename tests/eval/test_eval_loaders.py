"""Bring your own dataset: CSV, RAGAS JSONL, a Hugging Face dataset on disk, a LangSmith export,
each through the column mapping, with ids generated when missing and one message for foreign columns."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest

from eval.loaders import guess_format, load_cases, load_rows, parse_mapping
from selfrag.errors import DatasetError, UsageError

RAGAS = [
    {"user_input": "Who wrote Hamlet?", "retrieved_contexts": ["Hamlet is a tragedy by William Shakespeare."],
     "response": "William Shakespeare", "reference": "Shakespeare"},
    {"user_input": "What is the capital of Peru?", "retrieved_contexts": ["Lima is the capital of Peru.", "Peru is in South America."],
     "response": "", "reference": "Lima"},
]  # fmt: skip


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_ragas_row_with_a_mapping_for_its_older_column_names(tmp_path: Path) -> None:
    older = [{"question": "Who wrote Hamlet?", "contexts": ["Hamlet is by Shakespeare."], "answer": "Shakespeare",
              "ground_truth": "William Shakespeare"}]
    rows = load_rows(_jsonl(tmp_path / "v1.jsonl", older), fmt="ragas", mapping=parse_mapping(["reference=ground_truth"]))
    assert (rows[0].answer, rows[0].reference, rows[0].contexts) == ("Shakespeare", "William Shakespeare", ["Hamlet is by Shakespeare."])


def test_a_ragas_row_loads_with_generated_ids(tmp_path: Path) -> None:
    rows = load_rows(_jsonl(tmp_path / "ragas.jsonl", RAGAS))
    assert [r.id for r in rows] == ["row-1", "row-2"]
    assert rows[0].question == "Who wrote Hamlet?" and rows[0].answer == "William Shakespeare"
    assert rows[0].reference == "Shakespeare" and rows[1].contexts == ["Lima is the capital of Peru.", "Peru is in South America."]
    cases = load_cases(tmp_path / "ragas.jsonl")
    assert cases[1].documents is not None and [d.id for d in cases[1].documents] == ["row-2-ctx1", "row-2-ctx2"]
    assert cases[1].reference_answer == "Lima" and cases[1].collection is None


def test_a_csv_with_a_mapping_and_a_json_list_column(tmp_path: Path) -> None:
    path = tmp_path / "theirs.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["qid", "prompt", "gold", "passages"])
        w.writerow(["a", "Who wrote Hamlet?", "Shakespeare", json.dumps(["Hamlet is by Shakespeare."])])
        w.writerow(["b", "Capital of Peru?", "Lima", "Lima is the capital of Peru."])
    rows = load_rows(path, mapping=parse_mapping(["id=qid", "question=prompt", "reference=gold", "contexts=passages"]))
    assert [(r.id, r.question, r.reference) for r in rows] == [("a", "Who wrote Hamlet?", "Shakespeare"), ("b", "Capital of Peru?", "Lima")]
    assert rows[0].contexts == ["Hamlet is by Shakespeare."] and rows[1].contexts == ["Lima is the capital of Peru."]


def test_foreign_columns_get_one_message_naming_found_and_expected(tmp_path: Path) -> None:
    path = tmp_path / "odd.csv"
    path.write_text("prompt,gold\nWho?,Me\n", encoding="utf-8")
    with pytest.raises(DatasetError) as info:
        load_rows(path)
    message = str(info.value)
    assert "\n" not in message
    assert "found columns prompt, gold" in message and "user_input" in message and "--map question=COLUMN" in message


def test_mapping_mistakes_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="expected FIELD=COLUMN"):
        parse_mapping(["question"])
    with pytest.raises(UsageError, match="unknown field 'query'"):
        parse_mapping(["query=x"])
    with pytest.raises(DatasetError, match="mapped column"):
        load_rows(_jsonl(tmp_path / "r.jsonl", RAGAS), mapping={"question": "nope"})


def test_a_langsmith_export_reads_inputs_and_outputs(tmp_path: Path) -> None:
    examples = [
        {"id": "ex-1", "inputs": {"question": "Who wrote Hamlet?"}, "outputs": {"answer": "Shakespeare"}, "metadata": {}},
        {"id": "ex-2", "inputs": {"question": "Capital of Peru?"}, "outputs": {"answer": "Lima"}, "metadata": {}},
    ]
    path = tmp_path / "langsmith.json"
    path.write_text(json.dumps(examples), encoding="utf-8")
    assert guess_format(path) == "langsmith"
    rows = load_rows(path)
    assert [(r.id, r.question, r.reference, r.answer) for r in rows] == [
        ("ex-1", "Who wrote Hamlet?", "Shakespeare", ""), ("ex-2", "Capital of Peru?", "Lima", "")]
    with pytest.raises(DatasetError, match="no contexts and no collection"):
        load_cases(path)
    cases = load_cases(_jsonl(tmp_path / "ls.jsonl", [{**e, "collection": "books"} for e in examples]), fmt="langsmith")
    assert [c.collection for c in cases] == ["books", "books"]
    # an export whose keys are its own, mapped by dotted path
    own = [{"id": "e", "inputs": {"prompt": "Who?"}, "outputs": {"expected": "Me"}, "metadata": {"kb": "people"}}]
    rows = load_rows(_jsonl(tmp_path / "own.jsonl", own),
                     mapping=parse_mapping(["question=inputs.prompt", "reference=outputs.expected", "collection=metadata.kb"]))
    assert [(r.question, r.reference, r.collection) for r in rows] == [("Who?", "Me", "people")]


def test_a_hugging_face_dataset_saved_to_disk(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    data = datasets.Dataset.from_list([{"question": r["user_input"], "answer": r["reference"], "contexts": r["retrieved_contexts"]}
                                       for r in RAGAS])
    datasets.DatasetDict({"train": data, "test": data}).save_to_disk(str(tmp_path / "hf"))
    rows = load_rows(tmp_path / "hf", mapping={"reference": "answer", "answer": "question"})
    assert guess_format(tmp_path / "hf") == "hf"
    assert [r.reference for r in rows] == ["Shakespeare", "Lima"] and rows[1].contexts[0] == "Lima is the capital of Peru."


def test_without_the_datasets_package_the_hf_format_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "hf").mkdir()
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(DatasetError, match="needs the 'datasets' package: pip install datasets"):
        load_rows(tmp_path / "hf")


def test_repeated_ids_and_bad_json_are_named(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="repeats ids: a"):
        load_rows(_jsonl(tmp_path / "d.jsonl", [{"id": "a", "question": "q"}, {"id": "a", "question": "r"}]))
    (tmp_path / "bad.jsonl").write_text('{"question": "q"}\nnot json\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"bad.jsonl:2: not valid JSON"):
        load_rows(tmp_path / "bad.jsonl")
