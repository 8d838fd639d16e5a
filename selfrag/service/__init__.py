"""The HTTP service: a thin face over the engine (FastAPI on uvicorn, ``selfrag serve``).

Like the CLI, it parses, calls ``workflows`` and formats; it decides nothing about answering.
"""

from selfrag.service.app import create_app, keys_file
from selfrag.service.auth import ApiKey, Authenticator, KeyFile, Principal, hash_key
from selfrag.service.server import serve

__all__ = ["ApiKey", "Authenticator", "KeyFile", "Principal", "create_app", "hash_key", "keys_file", "serve"]
