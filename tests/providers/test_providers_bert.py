"""The plain-PyTorch BERT computes what ``transformers`` and sentence-transformers compute, so the
vectors in existing collections and the shipped reader-critic's judgements do not change."""

from __future__ import annotations

import json

import pytest
import torch

from selfrag.providers import embeddings as emb_module
from selfrag.providers._bert import BertEncoder
from selfrag.providers.embeddings import MINILM_SHA256, default_minilm_dir

pytestmark = pytest.mark.integration

TEXTS = [
    "Which movies did Greta Gerwig direct?",
    " ".join(["The quarterly report describes supply chain risk in Europe and Asia."] * 30),  # past 256 tokens
    "x",
    "A bunch of normal-sized women are supremely wholesome and some men pine after them.",
]


def test_the_encoder_equals_transformers_bert_model() -> None:
    from safetensors.torch import load_file
    from transformers import AutoTokenizer, BertModel

    folder = default_minilm_dir()
    reference = BertModel.from_pretrained(str(folder), add_pooling_layer=False).eval()
    mine = BertEncoder(json.loads((folder / "config.json").read_text(encoding="utf-8")))
    missing, unexpected = mine.load_state_dict(load_file(str(folder / "model.safetensors")), strict=False)
    assert missing == [] and set(unexpected) <= {"pooler.dense.weight", "pooler.dense.bias", "embeddings.position_ids"}
    mine.eval()
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    enc = tokenizer(TEXTS, ["a second text"] * len(TEXTS), padding=True, truncation=True, max_length=200, return_tensors="pt")
    with torch.inference_mode():
        want = reference(**enc).last_hidden_state
        got = mine(**enc).last_hidden_state
    real = enc["attention_mask"].bool()
    assert float((want - got).abs()[real].max()) < 1e-5


def test_the_embeddings_equal_sentence_transformers() -> None:
    from sentence_transformers import SentenceTransformer

    folder = default_minilm_dir()
    want = SentenceTransformer(str(folder), device="cpu", local_files_only=True).encode(TEXTS, normalize_embeddings=True)
    model = emb_module._load(folder, MINILM_SHA256).model
    got = model.encode(TEXTS, batch_size=2)
    assert float(abs(want - got).max()) < 1e-5
    by_tokens = emb_module.LocalEmbeddings(max_batch_tokens=64).embed_documents(TEXTS)
    assert max(abs(float(a) - b) for row_a, row_b in zip(want, by_tokens, strict=True)
               for a, b in zip(row_a, row_b, strict=True)) < 1e-5


def test_the_shipped_judge_scores_as_with_transformers() -> None:
    from transformers import BertConfig, BertModel

    from selfrag.reading import default_judge
    from selfrag.reading.encoding import critic_inputs
    from selfrag.reading.network import JudgeNet

    judge = default_judge()
    assert isinstance(judge.net.encoder, BertEncoder)
    reference = JudgeNet(BertModel(BertConfig.from_dict(judge.info.encoder_config), add_pooling_layer=False))
    missing, unexpected = reference.load_state_dict(judge.net.state_dict(), strict=False)
    assert unexpected == [] and all("position_ids" in m for m in missing)
    reference.eval()
    firsts = ["Which movies did Greta Gerwig direct?"] * 2
    seconds = ["Little Women (2019), directed by Greta Gerwig.", "Toys come alive and have a blast doing so."]
    inputs = critic_inputs(judge.tokenizer, "relevance", firsts, seconds, max_length=judge.info.critic_max_length)
    with torch.inference_mode():
        want = reference.judge(**inputs).logits
    got = torch.tensor(judge.raw_scores("relevance", firsts, seconds))
    assert float((want[:, 0] - got).abs().max()) < 1e-4
