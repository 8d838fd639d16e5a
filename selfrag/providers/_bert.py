"""A BERT encoder in plain PyTorch, for inference with MiniLM weights (the embeddings and the reader-critic).

``transformers.BertModel`` computes the same thing, but importing it costs about 3 s of CPU on this
machine (transformers 5 pulls in torch._dynamo, torch.distributed, sympy and scipy through its
generic modelling code), and sentence-transformers adds scikit-learn on top: most of a cold
``selfrag ask``. These ~60 lines load the same tensors, under the same names (a ``BertModel``
state dict loads as is), and give the same hidden states up to float rounding
(``tests/providers/test_providers_bert.py`` compares them with ``BertModel``'s). Training keeps
``transformers`` (``eval/training``): no dropout here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

import torch
from torch import nn
from torch.nn import functional as F

__all__ = ["BertEncoder", "EncoderOutput"]


class EncoderOutput(NamedTuple):
    last_hidden_state: torch.Tensor
    """(batch, seq, hidden)."""


class _Config(NamedTuple):
    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    max_position_embeddings: int
    type_vocab_size: int
    layer_norm_eps: float

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> _Config:
        act = config.get("hidden_act", "gelu")
        if act != "gelu" or config.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(f"unsupported BERT variant: hidden_act={act!r}, "
                             f"position_embedding_type={config.get('position_embedding_type')!r}")
        return cls(int(config["vocab_size"]), int(config["hidden_size"]), int(config["num_hidden_layers"]),
                   int(config["num_attention_heads"]), int(config["intermediate_size"]),
                   int(config.get("max_position_embeddings", 512)), int(config.get("type_vocab_size", 2)),
                   float(config.get("layer_norm_eps", 1e-12)))


class _Embeddings(nn.Module):
    def __init__(self, c: _Config) -> None:
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.hidden_size)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size)
        self.token_type_embeddings = nn.Embedding(c.type_vocab_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids) + self.position_embeddings(positions)
        return self.LayerNorm(x)  # type: ignore[no-any-return]


class _SelfAttention(nn.Module):
    def __init__(self, c: _Config) -> None:
        super().__init__()
        self.heads = c.num_attention_heads
        self.query = nn.Linear(c.hidden_size, c.hidden_size)
        self.key = nn.Linear(c.hidden_size, c.hidden_size)
        self.value = nn.Linear(c.hidden_size, c.hidden_size)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.view(b, n, self.heads, d // self.heads).transpose(1, 2)

        out = F.scaled_dot_product_attention(split(self.query(x)), split(self.key(x)), split(self.value(x)),
                                             attn_mask=mask, scale=1.0 / math.sqrt(d // self.heads))
        return out.transpose(1, 2).reshape(b, n, d)


class _DenseNorm(nn.Module):
    """``dense`` then dropout-free residual ``LayerNorm`` (BERT's ``*Output`` blocks)."""

    def __init__(self, width_in: int, c: _Config) -> None:
        super().__init__()
        self.dense = nn.Linear(width_in, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(self.dense(x) + residual)  # type: ignore[no-any-return]


class _Attention(nn.Module):
    def __init__(self, c: _Config) -> None:
        super().__init__()
        self.self = _SelfAttention(c)
        self.output = _DenseNorm(c.hidden_size, c)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.output(self.self(x, mask), x)  # type: ignore[no-any-return]


class _Intermediate(nn.Module):
    def __init__(self, c: _Config) -> None:
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.intermediate_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.dense(x))  # BERT's "gelu" is the exact (erf) one, torch's default


class _Layer(nn.Module):
    def __init__(self, c: _Config) -> None:
        super().__init__()
        self.attention = _Attention(c)
        self.intermediate = _Intermediate(c)
        self.output = _DenseNorm(c.intermediate_size, c)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.attention(x, mask)
        return self.output(self.intermediate(h), h)  # type: ignore[no-any-return]


class _Stack(nn.Module):
    def __init__(self, c: _Config) -> None:
        super().__init__()
        self.layer = nn.ModuleList(_Layer(c) for _ in range(c.num_hidden_layers))


class BertEncoder(nn.Module):
    """``BertModel(config, add_pooling_layer=False)`` for inference: same parameter names, same outputs."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        super().__init__()
        c = _Config.of(config)
        self.config = c
        self.embeddings = _Embeddings(c)
        self.encoder = _Stack(c)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                token_type_ids: torch.Tensor | None = None) -> EncoderOutput:
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        x = self.embeddings(input_ids, token_type_ids)
        mask = attention_mask.bool()[:, None, None, :]  # (batch, 1, 1, seq): padded keys take no attention
        for layer in self.encoder.layer:
            x = layer(x, mask)
        return EncoderOutput(x)
