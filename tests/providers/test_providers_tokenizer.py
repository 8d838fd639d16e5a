"""``WordPieceTokenizer`` gives what transformers' fast tokenizer gives, for every way selfrag calls it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from selfrag.providers._tokenizer import WordPieceTokenizer
from selfrag.providers.embeddings import default_minilm_dir

pytestmark = pytest.mark.integration

SAMPLES = Path(__file__).resolve().parents[2] / "selfrag" / "samples"


@pytest.fixture(scope="module")
def pair() -> tuple[object, WordPieceTokenizer]:
    from transformers import AutoTokenizer

    folder = default_minilm_dir()
    return AutoTokenizer.from_pretrained(str(folder), use_fast=True), WordPieceTokenizer(folder)


def _texts() -> list[str]:
    movies = [json.loads(line)["text"] for line in (SAMPLES / "movies" / "movies.jsonl").read_text().splitlines()]
    filings = [p.read_text(encoding="utf-8") for p in sorted((SAMPLES / "filings").rglob("*.md"))]
    return [*movies, *filings, "x", "Ünïcödé café — naïve façade ½ 東京 emoji 🙂", ""]


def _same(want: object, got: object, keys: list[str]) -> None:
    for key in keys:
        a, b = want[key], got[key]  # type: ignore[index]
        if isinstance(a, torch.Tensor):
            assert torch.equal(a, b), key
        else:
            assert a == b, key


def test_single_texts_truncated_as_the_encoder_asks(pair: tuple[object, WordPieceTokenizer]) -> None:
    hf, mine = pair
    texts = _texts()
    _same(hf(texts, truncation=True, max_length=256), mine(texts, truncation=True, max_length=256), ["input_ids"])  # type: ignore[operator]
    ids = [i[:40] for i in mine(texts, truncation=True, max_length=256)["input_ids"]]
    _same(hf.pad({"input_ids": ids}, return_tensors="pt"), mine.pad({"input_ids": ids}, return_tensors="pt"),  # type: ignore[attr-defined]
          ["input_ids", "attention_mask"])


def test_reader_windows_and_critic_pairs(pair: tuple[object, WordPieceTokenizer]) -> None:
    hf, mine = pair
    passages = _texts()
    questions = [("Which movies did Greta Gerwig direct?", "What was Walmart's revenue in fiscal year 2023?")[i % 2]
                 for i in range(len(passages))]
    for max_length, stride in ((384, 128), (64, 16)):
        kwargs = {"truncation": "only_second", "max_length": max_length, "stride": stride, "return_overflowing_tokens": True,
                  "return_offsets_mapping": True, "padding": True, "return_tensors": "pt"}
        want, got = hf(questions, passages, **kwargs), mine(questions, passages, **kwargs)  # type: ignore[operator]
        _same(want, got, ["input_ids", "token_type_ids", "attention_mask", "offset_mapping", "overflow_to_sample_mapping"])
        assert all(want.sequence_ids(w) == got.sequence_ids(w) for w in range(want["input_ids"].shape[0]))
    firsts = [f"support: {q}" for q in questions]
    kwargs = {"truncation": "longest_first", "max_length": 256, "padding": True, "return_tensors": "pt"}
    _same(hf(firsts, passages, **kwargs), mine(firsts, passages, **kwargs), ["input_ids", "token_type_ids", "attention_mask"])  # type: ignore[operator]


def test_an_input_the_library_panics_on_is_an_ordinary_error(pair: tuple[object, WordPieceTokenizer]) -> None:
    # The Rust library panics (pyo3's PanicException derives from BaseException, not Exception)
    # when a pair leaves the truncated text less room than the stride. Nothing above catches a
    # BaseException: the CLI printed a traceback and the HTTP service a plain-text 500.
    _, ours = pair
    with pytest.raises(ValueError, match="the tokenizer refused this input"):
        ours(["word " * 45], ["passage text here " * 50], truncation="only_second", max_length=64, stride=16,
             return_overflowing_tokens=True)
    assert ours("still usable")["input_ids"]
