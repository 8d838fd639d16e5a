"""``dev/scaleout.py``, the one command that starts the whole scale-out locally, works: Chroma,
Postgres, FalkorDB and two instances come up, and a collection written through one is answered
from through the other."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def test_dev_scaleout_starts_everything_and_round_trips(tmp_path: Path) -> None:
    if not (Path(sys.executable).parent / "chroma").exists():
        pytest.skip("the chroma CLI is not installed in this environment")
    port = free_port()
    done = subprocess.run(
        [sys.executable, "dev/scaleout.py", "--instances", "2", "--scripted", "--check", "--port", str(port),
         "--dir", str(tmp_path / "scaleout")],
        cwd=ROOT, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "check passed" in done.stdout
    assert done.stdout.count("instance ") >= 2
