"""The README's curl examples run, in order, against a live server with an API key."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from selfrag.service import KeyFile
from tests.service.conftest import Live

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _curl_block() -> list[str]:
    (block,) = [b for b in re.findall(r"```sh\n(.*?)```", README, re.DOTALL) if "export SELFRAG_URL" in b]
    return [ln for ln in block.splitlines() if ln.startswith("curl ")]


def test_every_endpoint_has_a_curl_example() -> None:
    text = "\n".join(_curl_block())
    for path in ("/v1/answers ", "/v1/answers/stream", "/v1/threads/", "/v1/collections ", "/v1/collections/acme-movies ",
                 "/v1/collections/acme-movies/documents ", "-X DELETE $SELFRAG_URL/v1/collections/acme-movies/documents/",
                 "-X DELETE $SELFRAG_URL/v1/threads/", "/v1/models", "/v1/chat/completions", "/v1/collections/acme-movies/plan", "/healthz", "/readyz", "/metrics"):
        assert path in text, path
    # The listing: a GET of the documents route (no body, no method flag).
    assert any(ln.split("#")[0].strip().endswith('/v1/collections/acme-movies/documents -H "Authorization: Bearer $KEY"')
               for ln in _curl_block())


def test_the_readme_curl_examples_work(make_live: Callable[..., Live]) -> None:
    keys, secret = KeyFile().add(key_id="readme", tenant="acme", read=[], write=["acme-*"])
    live = make_live(keys=keys, seed=False)
    env = {**os.environ, "SELFRAG_URL": live.url, "KEY": secret}
    assert len(_curl_block()) == 17
    for line in _curl_block():
        # --fail-with-body: any HTTP error fails the command (and shows the JSON error).
        command = line.replace("curl ", "curl --fail-with-body --max-time 60 ", 1)
        done = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=90)
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        if "/v1/answers/stream" in line:
            assert "event: result" in done.stdout, done.stdout
        if "/plan" in line:
            assert json.loads(done.stdout)["filter"] is not None, done.stdout
        if "/v1/chat/completions" in line:
            assert '"outcome":"answered"' in done.stdout.replace(" ", ""), done.stdout
            assert '"content":"' in done.stdout.replace(" ", ""), done.stdout
        if line.rstrip().endswith("/v1/answers") or '"thread_id": "chat-1", "filter"' in line:
            assert '"outcome":"answered"' in done.stdout.replace(" ", ""), done.stdout
