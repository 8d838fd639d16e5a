"""The service's routes, one module per resource; each module's ``router`` is mounted by
``selfrag.service.app.create_app``. The modules are the public surface of this package."""

from selfrag.service.routes import answers, chat, collections, documents, graphs, ops, threads

__all__ = ["answers", "chat", "collections", "documents", "graphs", "ops", "threads"]
