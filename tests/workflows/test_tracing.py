"""OpenTelemetry: one span per graph node when a tracer is given (none otherwise), carrying the
caller's attributes (the service's request id); LangSmith's failures logged on one line."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from selfrag.errors import ConfigError
from selfrag.service import create_app
from selfrag.settings import Settings
from selfrag.testing import ScriptedChatModel, ScriptedJudge
from tests.service.conftest import MOVIES, PLOTS, ThreadedServer
from tests.service.fake_server import lexical_reading, lexical_rules, scripted_store
from workflows import Components, SelfRagEngine
from workflows.tracing import OneLineLogs, otel_tracer, quiet_langsmith, span_attributes


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


def _provider(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[Settings, object]]:
    settings = Settings(home=tmp_path / "home")
    store = scripted_store(settings)
    store.create_collection("movies", MOVIES).add(PLOTS)
    yield settings, store
    store.close()


def _engine(store: object, tracer: object) -> SelfRagEngine:
    components = Components.from_model(ScriptedChatModel.from_rules(lexical_rules()), store,  # type: ignore[arg-type]
                                       self_query_mode="rules", parallel_checks=False,
                                       judge=ScriptedJudge(read=lexical_reading))
    components.tracer = tracer
    return SelfRagEngine(components)


def test_each_node_is_a_span_with_the_callers_attributes(stack: tuple[Settings, object],
                                                         exporter: InMemorySpanExporter) -> None:
    engine = _engine(stack[1], _provider(exporter).get_tracer("test"))
    with span_attributes(request_id="req-42"):
        result = engine.run("Which movie has dinosaurs?", collection="movies")
    spans = exporter.get_finished_spans()
    names = [s.name for s in spans]
    assert names == [f"selfrag.{t['node']}" for t in result.trace.timings]  # one per node run, in order
    assert {s.attributes["selfrag.request_id"] for s in spans} == {"req-42"}  # type: ignore[index]
    assert "selfrag.generate" in names


def test_no_tracer_no_spans(stack: tuple[Settings, object], exporter: InMemorySpanExporter) -> None:
    _provider(exporter)
    _engine(stack[1], None).run("Which movie has dinosaurs?", collection="movies")
    assert exporter.get_finished_spans() == ()


def test_tracing_is_off_by_default_and_on_by_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert Settings(home=tmp_path).tracing.otel is False
    monkeypatch.setenv("SELFRAG_TRACING__OTEL", "1")
    assert Settings(home=tmp_path).tracing.otel is True
    assert otel_tracer() is not None
    monkeypatch.setitem(__import__("sys").modules, "opentelemetry", None)  # not installed
    with pytest.raises(ConfigError, match=r"selfrag\[tracing\]"):
        otel_tracer()


def test_the_service_puts_its_request_id_on_the_spans(stack: tuple[Settings, object],
                                                      exporter: InMemorySpanExporter) -> None:
    settings, store = stack
    app = create_app(settings, engine=_engine(store, _provider(exporter).get_tracer("test")), store=store)  # type: ignore[arg-type]
    with ThreadedServer(app) as server, httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=30) as http:
        reply = http.post("/v1/answers", json={"question": "Which movie has dinosaurs?", "collection": "movies"},
                          headers={"X-Request-ID": "from-the-client-1"})
        assert reply.status_code == 200
    spans = exporter.get_finished_spans()
    assert spans and {s.attributes["selfrag.request_id"] for s in spans} == {"from-the-client-1"}  # type: ignore[index]


def test_langsmith_failures_are_one_line_once_a_minute(caplog: pytest.LogCaptureFixture) -> None:
    quiet_langsmith()
    quiet_langsmith()  # idempotent
    logger = logging.getLogger("langsmith.client")
    assert sum(isinstance(f, OneLineLogs) for f in logger.filters) == 1
    with caplog.at_level(logging.WARNING, logger="langsmith.client"):
        try:
            raise ConnectionError("Max retries exceeded\n  with url: /runs/multipart\n  (Caused by ...)")
        except ConnectionError:
            for _ in range(3):
                logger.warning("Failed to send compressed multipart ingest: %s\nContent-Length: 123", "conn refused",
                               exc_info=True)
    (record,) = [r for r in caplog.records if r.name == "langsmith.client"]
    assert "\n" not in caplog.text.strip() and record.exc_info is None
    assert record.getMessage() == "Failed to send compressed multipart ingest: conn refused Content-Length: 123"
