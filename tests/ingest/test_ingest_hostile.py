"""A hostile extractor pattern cannot hang ``selfrag ingest``.

The CLI runs in a child process (the real command, with the scripted embeddings patched in as
``tests/cli/conftest.py`` does in-process): under the old backtracking engine the child never
finished, and holding the GIL all the while, it would have taken an in-process test with it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

_CLI_INGEST = """
import json, sys, time
import selfrag.providers
import workflows.factory
from selfrag.testing import HashEmbeddings

workflows.factory.make_embeddings = selfrag.providers.make_embeddings = lambda emb: HashEmbeddings()
from selfrag.cli import app

start = time.perf_counter()
try:
    app(sys.argv[1:], standalone_mode=False)
    code = 0
except SystemExit as exc:
    code = exc.code
print(json.dumps({"seconds": time.perf_counter() - start, "code": code}))
"""


def test_ingest_with_a_catastrophic_pattern_over_40000_characters_finishes(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({
        "attributes": [{"name": "x", "type": "string"}],
        "extractors": [{"attribute": "x", "pattern": "(a+)+$"}],
    }))
    documents = tmp_path / "docs"
    documents.mkdir()
    (documents / "hostile.txt").write_text("a" * 40_000 + "!")
    (documents / "short.txt").write_text("b" + "a" * 28 + "!")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFRAG_")} | {
        "SELFRAG_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO),
    }
    command = ["ingest", str(documents), "-c", "hostile", "--schema", str(schema)]
    try:
        done = subprocess.run([sys.executable, "-c", _CLI_INGEST, *command], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("selfrag ingest with (a+)+$ over 40,000 characters did not finish within 120 s")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["code"] == 0, done.stderr
    # The whole command (open the store, read, extract, split, embed, write) takes about a
    # second on an idle machine; under backtracking it never ended.
    assert out["seconds"] < 30, out
