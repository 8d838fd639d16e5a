"""Real server processes for tests: a free loopback port, start, wait until up, stop.

Output goes to a log file, never a pipe (nothing to drain, no descriptor left open under
``-W error``); a server that dies or never comes up fails the test with the log's tail.
"""

from __future__ import annotations

import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

__all__ = ["ServerProcess", "free_port"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@dataclass
class ServerProcess:
    name: str
    process: subprocess.Popen[bytes]
    log: Path
    url: str

    @classmethod
    def start(
        cls, name: str, cmd: list[str], log: Path, url: str, *, env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> ServerProcess:
        with log.open("wb") as out:  # the child holds its own descriptor; ours closes here
            process = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        return cls(name, process, log, url)

    def wait_until_up(self, path: str, *, timeout_s: float = 60.0) -> None:
        """Poll ``GET url+path`` until it answers 200; fail with the log's tail otherwise."""
        deadline = time.monotonic() + timeout_s
        with httpx.Client(base_url=self.url, timeout=2.0, trust_env=False) as client:  # never via a proxy
            while True:
                try:
                    if client.get(path).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                code = self.process.poll()
                if code is not None or time.monotonic() > deadline:
                    why = f"exited with code {code}" if code is not None else f"not up after {timeout_s:.0f} s"
                    pytest.fail(f"{self.name} ({self.url}) {why}; output tail:\n{tail(self.log)}", pytrace=False)
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
