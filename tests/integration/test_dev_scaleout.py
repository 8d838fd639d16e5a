"""``dev/scaleout.py``, the one command that starts the whole scale-out locally, works: Chroma,
Postgres, FalkorDB and two instances come up, and a collection written through one is answered
from through the other."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def test_dev_scaleout_starts_everything_and_round_trips(tmp_path: Path) -> None:
    if not (Path(sys.executable).parent / "chroma").exists():
        pytest.skip("the chroma CLI is not installed in this environment")
    done = subprocess.run(
        [sys.executable, "dev/scaleout.py", "--instances", "2", "--scripted", "--check", "--port", "0",
         "--dir", str(tmp_path / "scaleout")],
        cwd=ROOT, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "check passed" in done.stdout
    assert done.stdout.count("instance ") >= 2


def test_plan_ports_never_hands_an_instance_port_to_chroma_or_falkordb() -> None:
    from dev.scaleout import plan_ports

    # The OS may call the first instance's port free again; the plan must skip it.
    offered = iter([9000, 9001, 7000, 9000, 7001])
    assert plan_ports(2, 9000, lambda: next(offered)) == ([9000, 9001], 7000, 7001)
    offered = iter([5000, 5000, 5001, 5000, 5002, 5003])
    assert plan_ports(2, 0, lambda: next(offered)) == ([5000, 5001], 5002, 5003)
