"""``/docs``: Swagger UI served from this server, so it works on an air-gapped install.

FastAPI's own page loads Swagger UI from a CDN; here its files come from the ``swagger-ui-bundle-v2``
wheel (Swagger UI 5, which reads the OpenAPI 3.1 schema FastAPI writes), served under
``/docs/assets``. ReDoc has no such wheel, so ``/redoc`` is off rather than blank offline.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

__all__ = ["ASSETS", "install_docs"]

ASSETS = "/docs/assets"


def install_docs(app: FastAPI) -> None:
    """Serve Swagger UI at ``/docs`` (build the app with ``docs_url=None, redoc_url=None``)."""
    app.mount(ASSETS, StaticFiles(directory=str(swagger_ui_path)), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json", title=f"{app.title} API",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js", swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon-32x32.png",
            # The key typed into "Authorize" survives a reload of the page.
            swagger_ui_parameters={"persistAuthorization": True},
        )
