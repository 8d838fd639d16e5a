"""Every error class answers with its own HTTP status and code; the table is the API contract."""

from __future__ import annotations

import pytest

from selfrag import errors as e
from selfrag.service.problems import status_for

STATUS = {
    e.SelfRagError: 500, e.UsageError: 400, e.ConfigError: 500, e.CollectionNotFound: 404,
    e.CollectionExists: 409, e.SchemaError: 400, e.InvalidFilter: 422, e.InvalidQuestion: 400,
    e.IngestError: 400, e.DatasetError: 400, e.VariantsError: 400, e.ThreadNotFound: 404,
    e.DocumentNotFound: 404, e.StoreLocked: 400, e.Unauthenticated: 401, e.Forbidden: 403,
    e.PayloadTooLarge: 413, e.RuntimeFailure: 503, e.ProviderError: 503, e.ModelIntegrityError: 503,
    e.StoreError: 503, e.GraderError: 503, e.Overloaded: 429, e.ThreadBusy: 409, e.DeadlineExceeded: 504,
    e.GraphNotFound: 404, e.GraphDataError: 400, e.GraphUnavailable: 503, e.UnsupportedParameter: 400,
    e.DependencyUnavailable: 503, e.ThreadConflict: 409, e.WriteConflict: 409,
}  # fmt: skip


def test_the_table_covers_every_error_class() -> None:
    classes = {c for c in vars(e).values() if isinstance(c, type) and issubclass(c, e.SelfRagError)}
    assert classes == set(STATUS)


@pytest.mark.parametrize(("cls", "status"), STATUS.items(), ids=lambda v: getattr(v, "__name__", str(v)))
def test_each_error_has_its_status(cls: type[e.SelfRagError], status: int) -> None:
    exc = cls("x") if cls is not e.CollectionNotFound else cls("movies")
    assert status_for(exc) == status


def test_a_new_subclass_inherits_its_parents_status() -> None:
    class TooManyCitations(e.InvalidQuestion):
        code = "citations_too_many"

    assert status_for(TooManyCitations("x")) == 400
