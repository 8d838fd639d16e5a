"""``eval endpoint`` against a live ``selfrag serve`` (real uvicorn on 127.0.0.1): its
``/v1/answers`` and its OpenAI-compatible ``/v1/chat/completions``, scored like any answers."""

from __future__ import annotations

import json
from pathlib import Path

from eval.endpoints import Endpoint, ask_endpoint
from eval.predictions import Prediction
from eval.scoring import score_predictions
from selfrag.service import KeyFile
from selfrag.settings import Settings
from selfrag.testing import ScriptedJudge
from tests.service.conftest import Live

ROWS = [
    Prediction(id="dino", question="Which movie has dinosaurs?", reference="Scientists bring back dinosaurs"),
    Prediction(id="toys", question="Which movie has toys that come alive?", reference="Toys come alive"),
    Prediction(id="lost", question="Which movie has dinosaurs?", reference="x", collection="nowhere"),
]


def test_answers_endpoint_is_asked_and_scored(live: Live, tmp_path: Path) -> None:
    answers = ask_endpoint(Endpoint(live.url, "answers", collection="movies", concurrency=2), ROWS)
    by_id = {p.id: p for p in answers}
    assert [p.id for p in answers] == ["dino", "toys", "lost"]  # the rows' order, whatever finished first
    assert "dinosaurs" in by_id["dino"].answer and by_id["dino"].outcome == "answered"
    assert by_id["dino"].contexts == ["Scientists bring back dinosaurs and mayhem breaks loose on the island."]
    assert by_id["dino"].latency_s is not None and by_id["dino"].error is None
    assert by_id["lost"].error is not None and by_id["lost"].error.startswith("HTTP 404")  # recorded, the run goes on

    summary, records, manifest = score_predictions(answers, tmp_path / "served", settings=Settings(), judge=ScriptedJudge(),
                                                   source=Endpoint(live.url, "answers").describe(), command=["test"])
    assert summary["cases"] == 3 and summary["errors"] == 1
    assert summary["answer_contains"]["value"] == 1.0 and summary["faithfulness"]["value"] == 1.0
    assert manifest["answers_from"]["url"] == f"{live.url}/v1/answers" and manifest["answers_from"]["key"] is None


def test_an_openai_compatible_chat_endpoint_with_a_key(make_live: object, tmp_path: Path) -> None:
    keys, key = KeyFile().add(key_id="eval", tenant="eval", read=["movies"], write=[])
    live: Live = make_live(keys=keys)  # type: ignore[operator]
    route = f"{live.url}/v1/chat/completions"
    answers = ask_endpoint(Endpoint(route, "chat", key=key, model="movies", concurrency=2), ROWS[:2])
    assert all(p.error is None for p in answers), [p.error for p in answers]
    assert "dinosaurs" in answers[0].answer
    # selfrag's extension field is read: the outcome and the cited passages
    assert answers[0].outcome == "answered" and answers[0].contexts and "dinosaurs" in answers[0].contexts[0]
    refused = ask_endpoint(Endpoint(route, "chat", key="wrong", model="movies"), ROWS[:1])
    assert refused[0].error is not None and refused[0].error.startswith("HTTP 401")
    summary, _, manifest = score_predictions(answers, tmp_path / "chat", settings=Settings(), judge=ScriptedJudge(),
                                             source=Endpoint(route, "chat", key=key, model="movies").describe(),
                                             command=["test"])
    assert summary["answer_contains"]["value"] == 1.0
    assert manifest["answers_from"]["key"] == "<set>" and key not in json.dumps(manifest)
