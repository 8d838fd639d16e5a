"""BERT's WordPiece tokenizer on the ``tokenizers`` library directly, called as transformers' fast
tokenizer is called by selfrag (the encoder, the reader's windows, the critic's pairs).

transformers' ``AutoTokenizer`` drives the same Rust tokenizer from the same ``tokenizer.json``;
importing it cost a cold ``selfrag ask`` most of a second. The calls here set the Rust tokenizer's
truncation and padding as transformers sets them and flatten overflowing windows as it does, so
the ids, masks, offsets and window mapping are the same
(``tests/providers/test_providers_tokenizer.py`` compares them).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["Encoded", "WordPieceTokenizer"]


class Encoded(dict[str, Any]):
    """transformers' ``BatchEncoding`` as far as selfrag reads it: the fields, and ``sequence_ids``."""

    def __init__(self, fields: dict[str, Any], encodings: list[Any]) -> None:
        super().__init__(fields)
        self._encodings = encodings

    def sequence_ids(self, index: int) -> list[int | None]:
        return list(self._encodings[index].sequence_ids)


class WordPieceTokenizer:
    """The tokenizer in ``folder`` (``tokenizer.json``); one call at a time (callers hold a lock anyway)."""

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        self.pad_token = str(config.get("pad_token", "[PAD]"))
        pad_id = self._tok.token_to_id(self.pad_token)
        if pad_id is None:
            raise ValueError(f"{folder}: the pad token {self.pad_token!r} is not in the vocabulary")
        self.pad_token_id = int(pad_id)
        self.model_max_length = int(config.get("model_max_length", 512))
        self._lock = threading.Lock()

    def __call__(
        self,
        text: str | Sequence[str],
        text_pair: Sequence[str] | None = None,
        *,
        truncation: bool | str = False,
        max_length: int | None = None,
        stride: int = 0,
        return_overflowing_tokens: bool = False,
        return_offsets_mapping: bool = False,
        padding: bool = False,
        return_tensors: str | None = None,
    ) -> Encoded:
        texts = [text] if isinstance(text, str) else list(text)
        inputs: list[Any] = list(zip(texts, text_pair, strict=True)) if text_pair is not None else texts
        strategy = "longest_first" if truncation is True else truncation or None
        with self._lock:
            if strategy:
                self._tok.enable_truncation(max_length or self.model_max_length, stride=stride, strategy=strategy)
            else:
                self._tok.no_truncation()
            if padding:
                self._tok.enable_padding(pad_id=self.pad_token_id, pad_token=self.pad_token)
            else:
                self._tok.no_padding()
            try:
                batch = self._tok.encode_batch(inputs)
            except BaseException as exc:
                # The library panics on some inputs (a pair leaving the text less room than the
                # stride), as pyo3's PanicException: a BaseException, which no error handler above
                # catches. It is an input this call cannot take, so it is said as one.
                if type(exc).__name__ != "PanicException":
                    raise
                raise ValueError("the tokenizer refused this input") from exc
        encodings: list[Any] = []
        mapping: list[int] = []
        for i, encoding in enumerate(batch):
            for window in [encoding, *(encoding.overflowing if return_overflowing_tokens else [])]:
                encodings.append(window)
                mapping.append(i)
        fields: dict[str, Any] = {
            "input_ids": [e.ids for e in encodings],
            "token_type_ids": [e.type_ids for e in encodings],
            "attention_mask": [e.attention_mask for e in encodings],
        }
        if return_offsets_mapping:
            fields["offset_mapping"] = [[list(o) for o in e.offsets] for e in encodings]
        if return_overflowing_tokens:
            fields["overflow_to_sample_mapping"] = mapping
        return Encoded(_tensors(fields) if return_tensors == "pt" else fields, encodings)

    def pad(self, features: dict[str, Sequence[Sequence[int]]], return_tensors: str | None = None) -> Encoded:
        """Right-pad ``input_ids`` to the longest, with the attention mask (``tokenizer.pad``'s result)."""
        rows = [list(ids) for ids in features["input_ids"]]
        width = max((len(r) for r in rows), default=0)
        fields: dict[str, Any] = {
            "input_ids": [r + [self.pad_token_id] * (width - len(r)) for r in rows],
            "attention_mask": [[1] * len(r) + [0] * (width - len(r)) for r in rows],
        }
        return Encoded(_tensors(fields) if return_tensors == "pt" else fields, [])


def _tensors(fields: dict[str, Any]) -> dict[str, Any]:
    import torch

    return {k: torch.tensor(v, dtype=torch.long) for k, v in fields.items()}
