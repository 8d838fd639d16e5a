"""The loaded reader-critic: ``Reader.read`` and ``Critic.score``, batched, calibrated, thread-safe.

One network (``selfrag.reading.network``) serves both; ``load_judge`` loads an artifact once per
process (checksum-verified) and every engine in the process shares it.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import torch

from selfrag.errors import ModelIntegrityError, ProviderError
from selfrag.lang.questions import asks_yes_or_no
from selfrag.reading.artifact import ArtifactInfo, Calibration, load_state
from selfrag.reading.encoding import critic_inputs, reader_windows
from selfrag.reading.network import ANSWER_KINDS, CRITIC_TASKS, JudgeNet
from selfrag.reading.sentences import sentence_spans
from selfrag.reading.types import CriticTask, Reading, answer_key, disagree

__all__ = ["Judge", "Precision", "build_net", "load_judge", "resolve_precision"]

Precision = Literal["float32", "bfloat16"]


def resolve_precision(precision: Precision | Literal["auto"]) -> Precision:
    """``auto``: ``bfloat16`` where oneDNN runs it natively on this CPU (AVX-512 BF16, AMX), else
    ``float32`` (emulated bf16 would be slower than float32)."""
    if precision != "auto":
        return precision
    try:
        native = bool(torch.backends.mkldnn.is_available()  # type: ignore[no-untyped-call]
                      and torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        native = False
    return "bfloat16" if native else "float32"

_MAX_SPAN_TOKENS = 30
_BATCH = 16
_RIVALS = 5
"""How many of the reader's best answers ``read`` looks through for a rival in another passage:
the same forward pass gives them."""


def build_net(encoder_config: dict[str, Any]) -> JudgeNet:
    """The network for inference: the plain-PyTorch BERT (``selfrag.providers._bert``) under the
    heads; a ``BertModel``'s state dict (what training saves) loads into it as is."""
    from selfrag.providers._bert import BertEncoder

    return JudgeNet(BertEncoder(encoder_config))


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1.0 - 1e-6)
    return math.log(p / (1.0 - p))


def _logistic(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def _platt(c: Calibration | None, raw: float) -> float:
    if c is None:
        return 1.0 / (1.0 + math.exp(-raw)) if raw > -50 else 0.0
    z = c.a * raw + c.b
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


class Judge:
    """A loaded artifact: the network, its tokenizer, its record."""

    def __init__(self, net: JudgeNet, tokenizer: Any, info: ArtifactInfo, *, support: Judge | None = None,
                 precision: Precision = "float32", lock: threading.Lock | None = None) -> None:
        self.net = net.eval()
        self.tokenizer = tokenizer
        self.info = info
        self.support = support
        """The verifier that judges support in this artifact's place (``ArtifactInfo.support``)."""
        self.precision: Precision = precision
        """The arithmetic of a forward pass: ``bfloat16`` (autocast) is about a third faster on a CPU
        with native bf16 and moves a probability by about 0.002 (``bench/results/judge/precision``)."""
        self._lock = lock or threading.Lock()  # one forward at a time: the fast tokenizer is not reentrant

    def with_precision(self, precision: Precision | Literal["auto"]) -> Judge:
        """This judge computing in ``precision`` (``auto``: ``bfloat16`` where the CPU has it natively,
        else ``float32``); the weights, the tokenizer and the lock are shared."""
        chosen = resolve_precision(precision)
        if chosen == self.precision:
            return self
        support = self.support.with_precision(chosen) if self.support is not None else None
        return Judge(self.net, self.tokenizer, self.info, support=support, precision=chosen, lock=self._lock)

    def _forward(self) -> contextlib.AbstractContextManager[Any]:
        stack = contextlib.ExitStack()
        stack.enter_context(torch.inference_mode())
        if self.precision == "bfloat16":
            stack.enter_context(torch.autocast("cpu", dtype=torch.bfloat16))
        return stack

    @property
    def name(self) -> str:
        return self.info.name if self.support is None else f"{self.info.name}+{self.support.name}"

    @property
    def version(self) -> str:
        own = f"{self.info.name}@{self.info.sha256[:12]}" + ("/bf16" if self.precision == "bfloat16" else "")
        return own if self.support is None else f"{own}+{self.support.version}"

    @property
    def _claims_verifier(self) -> Judge | None:
        """The verifier when it judges support claims in this artifact's place."""
        return self.support if self.support is not None and self.info.support is not None and self.info.support.claims else None

    def threshold(self, key: str, default: float = 0.5) -> float:
        if key == "support" and self._claims_verifier is not None:
            return self._claims_verifier.threshold(key, default)
        return self.info.thresholds.get(key, default)

    # -- critic ---------------------------------------------------------------------------------
    def raw_scores(self, task: CriticTask, firsts: Sequence[str], seconds: Sequence[str]) -> list[float]:
        if task == "support" and self._claims_verifier is not None:
            return self._claims_verifier.raw_scores(task, firsts, seconds)
        if len(firsts) != len(seconds):
            raise ValueError("firsts and seconds differ in length")
        column = CRITIC_TASKS.index(task)
        out: list[float] = []
        with self._lock, self._forward():
            for i in range(0, len(firsts), _BATCH):
                inputs = critic_inputs(self.tokenizer, task, firsts[i : i + _BATCH], seconds[i : i + _BATCH],
                                       max_length=self.info.critic_max_length)
                out.extend(float(x) for x in self.net.judge(**inputs).logits[:, column].float().tolist())
        return out

    def score(self, task: CriticTask, firsts: Sequence[str], seconds: Sequence[str]) -> list[float]:
        """Calibrated probabilities of the judgement ``task`` for each pair."""
        if task == "support" and self._claims_verifier is not None:
            return self._claims_verifier.score(task, firsts, seconds)
        cal = self.info.calibration.get(task)
        return [_platt(cal, r) for r in self.raw_scores(task, firsts, seconds)]

    # -- reader ---------------------------------------------------------------------------------
    def read(self, question: str, passages: Sequence[str], *, yes_no: bool | None = None) -> Reading:
        """The best answer to ``question`` in ``passages`` (a ``none`` reading when there is none).

        With a support verifier and its combination (``ArtifactInfo.verified``), the reader's best
        answers are each scored by the verifier ("question answer" against the passage it was read
        in) and the best by the combined probability is returned with that probability.
        Its ``rival`` is the best answer read in another passage that says otherwise, if any.
        """
        verified = self.info.verified if self.support is not None else None
        found = self.candidates(question, passages, max(verified.candidates if verified is not None else 1, _RIVALS),
                                yes_no=yes_no)
        if not found:
            return Reading("none", "", -1)
        if verified is None or self.support is None:
            return _with_rival(found[0], found)
        ranked = found[: verified.candidates]
        support = self.support.score("support", [f"{question} {r.answer}" for r in ranked],
                                     [passages[r.passage] for r in ranked])
        combined = [_logistic(verified.reader * _logit(r.probability) + verified.support * _logit(s) + verified.bias)
                    for r, s in zip(ranked, support, strict=True)]
        best = max(range(len(ranked)), key=lambda i: combined[i])  # the first wins a tie: the reader's order
        if verified.confidence == "reader":
            return _with_rival(ranked[best], found)
        return _with_rival(dataclasses.replace(ranked[best], probability=combined[best]), found)

    def candidates(self, question: str, passages: Sequence[str], n: int = 5, *,
                   yes_no: bool | None = None) -> list[Reading]:
        """The reader's ``n`` best distinct answers, best first, each with its calibrated probability.

        Every window answers with the kind its head prefers (a span, yes or no); a span window
        offers its best spans. Answers that differ only in case and punctuation count once (the
        best-scored). ``read`` is the first of these; the others are the near misses a verifier
        learns from (``eval.training``) and the second readings a comparison falls back on.
        ``yes_no``: whether a window may answer yes or no (None: when the question asks one,
        ``asks_yes_or_no``; False for a question that names its alternatives).
        """
        if not passages or n < 1:
            return []
        with self._lock, self._forward():
            windows = reader_windows(self.tokenizer, [question] * len(passages), list(passages),
                                     max_length=self.info.max_length, stride=self.info.stride)
            count = windows.tensors["input_ids"].shape[0]
            outs = []
            for i in range(0, count, _BATCH):
                part = {k: v[i : i + _BATCH] for k, v in windows.tensors.items()}
                outs.append(self.net.read(**part))
        yes_no = asks_yes_or_no(question)
        # float32 from here on, whatever the forward computed in: log-softmax over a window's tokens
        # needs the precision.
        start = torch.cat([o.start for o in outs]).float()
        end = torch.cat([o.end for o in outs]).float()
        kinds = torch.softmax(torch.cat([o.kind for o in outs]).float(), dim=-1)
        evidence = torch.sigmoid(torch.cat([o.evidence for o in outs]).float())
        found: list[Reading] = []
        for w in range(count):
            p_idx = windows.example[w]
            probs = {k: float(kinds[w, j]) for j, k in enumerate(ANSWER_KINDS)}
            p_answer = 1.0 - probs["none"]
            kind = max(("span", "yes", "no") if yes_no else ("span",), key=lambda k: probs[k])
            offsets = windows.offsets[w]
            passage = passages[p_idx]
            sents = self._sentence_scores(passage, offsets, evidence[w])
            if kind == "span":
                for s_tok, e_tok, span_lp in self._best_spans(start[w], end[w], n, _token_sentences(passage, offsets)):
                    a, b = offsets[s_tok], offsets[e_tok]
                    assert a is not None and b is not None
                    raw = math.log(max(p_answer, 1e-9)) + span_lp
                    support = tuple(s for s, _ in sents if s[0] <= a[0] < s[1])[:1] or tuple(s for s, _ in sents[:1])
                    first = signed_start(passage, a[0])
                    found.append(Reading("span", passage[first : b[1]].strip(), p_idx, first, b[1], support, raw,
                                         kind_probabilities=probs))
            else:
                raw = math.log(max(p_answer, 1e-9)) + math.log(max(probs[kind] / max(p_answer, 1e-9), 1e-9))
                found.append(Reading("yes" if kind == "yes" else "no", "Yes" if kind == "yes" else "No", p_idx, -1, -1,
                                     tuple(s for s, _ in sents[:2]), raw, kind_probabilities=probs))
        found.sort(key=lambda r: -r.raw)  # stable: the earlier window wins a tie, as it always has
        distinct: list[Reading] = []
        seen: set[str] = set()
        for r in found:
            key = answer_key(r.answer)
            if key in seen:
                continue
            seen.add(key)
            distinct.append(self._calibrated(r))
            if len(distinct) == n:
                break
        return distinct

    def _calibrated(self, r: Reading) -> Reading:
        # Yes/no answers have their own calibration when the artifact has one: their raw scores
        # are on another scale from spans' (no span term), and on HaluEval they are right far
        # less often at the same raw score.
        cal = self.info.calibration.get("reader_yes_no") if r.kind in ("yes", "no") else None
        probability = _platt(cal or self.info.calibration.get("reader"), r.raw)
        return Reading(r.kind, r.answer, r.passage, r.start, r.end, tuple(sorted(r.sentences)), r.raw, probability,
                       r.kind_probabilities)

    @staticmethod
    def _best_spans(start: torch.Tensor, end: torch.Tensor, n: int,
                    sentence_of: Sequence[int]) -> list[tuple[int, int, float]]:
        """The ``n`` best (start, end, log-probability) spans of one window, best first, each
        within one sentence (``sentence_of``: each token's sentence): an answer is a phrase, and
        a span across a full stop ("2,380 in 2023. The board says …") answers nothing."""
        ls, le = torch.log_softmax(start, -1), torch.log_softmax(end, -1)
        k = min(20, int(torch.isfinite(ls).sum()))
        if k == 0:
            return []
        top_s = torch.topk(ls, k).indices.tolist()
        top_e = torch.topk(le, k).indices.tolist()
        spans = [(s, e, float(ls[s] + le[e])) for s in top_s for e in top_e
                 if s <= e < s + _MAX_SPAN_TOKENS and sentence_of[s] == sentence_of[e] >= 0]
        spans.sort(key=lambda x: -x[2])
        return spans[:n]

    @staticmethod
    def _sentence_scores(passage: str, offsets: list[tuple[int, int] | None],
                         evidence: torch.Tensor) -> list[tuple[tuple[int, int], float]]:
        """The passage's sentences seen in this window, best evidence first."""
        scored: list[tuple[tuple[int, int], float]] = []
        for s in sentence_spans(passage):
            vals = [float(evidence[t]) for t, o in enumerate(offsets) if o is not None and s.start <= o[0] < s.end]
            if vals:
                scored.append(((s.start, s.end), sum(vals) / len(vals)))
        scored.sort(key=lambda x: -x[1])
        return scored


def _with_rival(best: Reading, found: Sequence[Reading]) -> Reading:
    """``best`` with its rival: the best of ``found`` read in another passage that says otherwise."""
    rival = next((r for r in found if r.passage != best.passage and disagree(r.answer, best.answer)), None)
    return dataclasses.replace(best, rival=rival)


def signed_start(passage: str, start: int) -> int:
    """Where a span starting at ``start`` starts with the minus sign of the figure there: the
    tokenizer splits "-1.2" into "-" and "1.2", and a span from the digits reads −1.2 °C as 1.2 °C.
    A hyphen after a word or a figure ("COVID-19", "10-12") is no sign."""
    if 0 < start < len(passage) and passage[start].isdigit() and passage[start - 1] in "-−" \
            and (start == 1 or passage[start - 2].isspace() or passage[start - 2] in "([:=~≈<>"):
        return start - 1
    return start


def _token_sentences(passage: str, offsets: Sequence[tuple[int, int] | None]) -> list[int]:
    """Each token's sentence in ``passage`` (its index), -1 for a token of the question, padding or
    a gap between sentences."""
    spans = sentence_spans(passage)
    starts = [sp.start for sp in spans]
    out: list[int] = []
    for o in offsets:
        i = bisect.bisect_right(starts, o[0]) - 1 if o is not None else -1
        out.append(i if i >= 0 and o is not None and o[0] < spans[i].end else -1)
    return out


_LOADED: dict[str, Judge] = {}
_LOAD_LOCK = threading.Lock()


def load_judge(folder: Path, *, expected_sha256: str | None = None, base_dir: Path | None = None) -> Judge:
    """The artifact in ``folder``, loaded once per process and verified by checksum.

    Raises:
        ModelIntegrityError: its weights (or the base model's) fail their checksum.
        ProviderError: the artifact or the base model is missing or unreadable.
    """
    key = str(folder.resolve())
    with _LOAD_LOCK:
        if key in _LOADED:
            loaded = _LOADED[key]
            if expected_sha256 is not None and loaded.info.sha256 != expected_sha256:  # a pin holds on every load
                raise ModelIntegrityError(f"reader-critic {loaded.info.name} has sha256 {loaded.info.sha256[:12]}…, "
                                          f"{expected_sha256[:12]}… is pinned")
            return loaded
        info, state = load_state(folder, expected_sha256=expected_sha256)
        net = build_net(info.encoder_config)
        tokenizer_dir = base_dir
        if info.base_tensors or tokenizer_dir is None:
            from selfrag.providers.embeddings import default_minilm_dir, verify_sha256

            tokenizer_dir = base_dir or default_minilm_dir()
            if info.base_tensors:
                if info.base_sha256 is None:
                    raise ProviderError(f"reader-critic {info.name} takes tensors from its base but pins no base checksum")
                verify_sha256(tokenizer_dir / "model.safetensors", info.base_sha256)
                from safetensors.torch import load_file

                base = load_file(str(tokenizer_dir / "model.safetensors"))
                for name in info.base_tensors:
                    state[name] = base[name.removeprefix("encoder.")]
        missing, unexpected = net.load_state_dict(state, strict=False)
        if missing or unexpected:
            raise ProviderError(f"reader-critic {info.name} does not fit its network ({len(missing)} missing, "
                                f"{len(unexpected)} unexpected tensors)")
        from selfrag.providers._tokenizer import WordPieceTokenizer

        tokenizer = WordPieceTokenizer(tokenizer_dir)
    # the verifier loads (and is checked) like any artifact, outside the lock it takes itself
    support = None
    if info.support is not None:
        verifier = (folder / info.support.folder).resolve()
        if verifier == folder.resolve():
            raise ProviderError(f"reader-critic {info.name} names itself as its support verifier")
        support = load_judge(verifier, expected_sha256=info.support.sha256, base_dir=base_dir)
        if support.support is not None:
            raise ProviderError(f"support verifier {support.info.name} names a verifier of its own")
    judge = Judge(net, tokenizer, info, support=support)
    with _LOAD_LOCK:
        return _LOADED.setdefault(key, judge)
