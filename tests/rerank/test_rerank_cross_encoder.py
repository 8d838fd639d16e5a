"""The ``cross_encoder`` reranker with a tiny BERT cross-encoder built by the test (no downloads)."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfrag.errors import ConfigError, ProviderError
from selfrag.rerank import CrossEncoderReranker

WORDS = ["the", "a", "cat", "sat", "on", "mat", "dinosaurs", "island", "astronauts", "wormhole", "near", "saturn", "travel", "through", "film"]
DOCS = ["the cat sat on the mat", "astronauts travel through a wormhole", "dinosaurs on an island", "a film near saturn"]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    directory = tmp_path_factory.mktemp("tiny-cross-encoder")
    vocab = directory / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    tokenizer = BertTokenizer(str(vocab))
    torch.manual_seed(7)
    config = BertConfig(
        vocab_size=len(WORDS) + 5, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=64, num_labels=1,
    )
    BertForSequenceClassification(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def logits(model_dir: Path, query: str, docs: list[str]) -> list[float]:
    """The model's own relevance logits, computed without sentence-transformers."""
    import torch
    from transformers import AutoTokenizer, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = BertForSequenceClassification.from_pretrained(model_dir).eval()
    batch = tokenizer([query] * len(docs), docs, padding=True, truncation=True, return_tensors="pt")
    with torch.no_grad():
        return [float(x) for x in model(**batch).logits[:, 0]]


def test_scores_are_the_models_and_order_follows_them(tiny_model: Path) -> None:
    query = "astronauts wormhole"
    expected = logits(tiny_model, query, DOCS)
    ranking = CrossEncoderReranker(tiny_model, batch_size=3).rerank(query, DOCS)
    assert sorted(r.index for r in ranking) == [0, 1, 2, 3]
    assert [r.index for r in ranking] == sorted(range(4), key=lambda i: -expected[i])
    # One label: sentence-transformers applies a sigmoid, which keeps the logits' order.
    import math

    assert [r.score for r in ranking] == pytest.approx([1 / (1 + math.exp(-expected[r.index])) for r in ranking], abs=1e-5)
    top = CrossEncoderReranker(tiny_model).rerank(query, DOCS, top_n=2)
    assert [r.index for r in top] == [r.index for r in ranking[:2]]
    assert CrossEncoderReranker(tiny_model).rerank(query, []) == []


def test_missing_or_broken_model_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a model directory"):
        CrossEncoderReranker(tmp_path / "nowhere").rerank("q", ["d"])
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text('{"model_type": "bert"}')
    with pytest.raises(ProviderError) as err:
        CrossEncoderReranker(broken).rerank("q", ["d"])
    assert err.value.code == "provider_unavailable"
