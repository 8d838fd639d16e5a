"""A tiny reader-critic the tests build themselves: random weights, the real tokenizer and code.

Two layers of width 32: it reads nothing well, but every path (windows, spans, calibration,
checksums, quantized storage) runs exactly as with the shipped weights, in milliseconds.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from selfrag.providers.embeddings import default_minilm_dir
from selfrag.reading.artifact import ArtifactInfo, Calibration, save_artifact
from selfrag.reading.judge import build_net

TINY = {
    "vocab_size": 30522, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
    "intermediate_size": 64, "max_position_embeddings": 512, "type_vocab_size": 2,
}


@pytest.fixture(scope="session")
def tiny_judge_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from transformers import BertConfig

    torch.manual_seed(0)
    config = BertConfig(**TINY).to_dict()
    net = build_net(config)
    folder = tmp_path_factory.mktemp("tiny-judge")
    info = ArtifactInfo(name="tiny-judge-v1", sha256="", base="tiny", encoder_config=config, max_length=64, stride=16,
                        critic_max_length=64, calibration={"reader": Calibration(a=1.0, b=0.0)},
                        thresholds={"reader": 0.5, "relevance": 0.4, "support": 0.6, "usefulness": 0.3})
    save_artifact(folder, net.state_dict(), info)
    return folder


@pytest.fixture(scope="session")
def tokenizer_dir() -> Path:
    return default_minilm_dir()
