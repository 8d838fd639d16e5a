"""Every package's public surface: ``__all__`` is importable, complete, unique and in order.

The order is ruff's RUF022 "isort-style" sort, the one the packages use: SCREAMING_SNAKE_CASE
constants, then CamelCase classes, then everything else, each group alphabetical.
"""

from __future__ import annotations

import importlib
import re
import types
from pathlib import Path

import pytest

import selfrag
from selfrag import errors

ROOTS = ("selfrag", "graders", "workflows", "eval")
"""The installed top-level packages (pyproject ``packages.find``)."""


def _packages() -> list[str]:
    """Every package under the roots: a folder with an ``__init__.py``, found on disk so that a new
    package is checked without anyone remembering to list it."""
    found = []
    for root in ROOTS:
        base = Path(importlib.import_module(root).__file__ or "").parent
        found += [
            ".".join((root, *init.parent.relative_to(base).parts))
            for init in sorted(base.rglob("__init__.py"))
            if "__pycache__" not in init.parts
        ]
    return found


PACKAGES = _packages()

WIRED = {
    "selfrag.cli": {"ask", "collections_app", "config_app", "demo", "documents_app", "eval_app", "graph",
                    "ingest", "keys_app", "kg_app", "plan", "serve"},
}
"""Names a package imports only to wire them up (the CLI registers each command on ``app``; its
surface is ``app`` and ``main``)."""


def test_every_package_is_found() -> None:
    # The floor the issue counted (13 packages besides the roots' subpackages added since).
    assert len(PACKAGES) >= 17
    assert {"selfrag.kg", "selfrag.rerank", "selfrag.retrieval", "selfrag.service.routes", "eval.training"} <= set(PACKAGES)


def _isort_key(name: str) -> tuple[int, str]:
    if name.isupper() or re.fullmatch(r"[A-Z0-9_]+", name):
        return 0, name
    return (1 if name[:1].isupper() else 2), name


def _all(package: str) -> list[str]:
    module = importlib.import_module(package)
    names = module.__dict__.get("__all__")
    assert names is not None, f"{package}/__init__.py defines no __all__: its public surface is undeclared"
    return list(names)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_listed_name_is_importable(package: str) -> None:
    for name in _all(package):
        namespace: dict[str, object] = {}
        exec(f"from {package} import {name}", namespace)  # the form users write
        assert namespace[name] is getattr(importlib.import_module(package), name)


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_sorted_and_unique(package: str) -> None:
    names = _all(package)
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert names == sorted(names, key=_isort_key)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_defined_in_the_package_is_listed(package: str) -> None:
    module = importlib.import_module(package)
    names = set(_all(package))
    # A subpackage answers for what its own modules define; a root for everything of its tree.
    own = package if "." in package else package.split(".")[0]
    public = {
        n
        for n, v in vars(module).items()
        if not n.startswith("_")
        and not isinstance(v, types.ModuleType)
        and ((m := getattr(v, "__module__", None) or "") == own or m.startswith(own + "."))
        and n not in WIRED.get(package, ())
    }
    assert public <= names, sorted(public - names)


def test_the_top_level_package_exports_settings_schema_and_version_and_errors_live_in_one_module() -> None:
    assert {"Settings", "load_settings", "CollectionSchema", "AttributeInfo", "__version__"} <= set(selfrag.__all__)
    error_classes = {n for n in errors.__all__ if isinstance(getattr(errors, n), type)}
    assert error_classes and all(issubclass(getattr(errors, n), errors.SelfRagError) for n in error_classes)
    assert not error_classes & set(selfrag.__all__)  # one place to import an error from
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", selfrag.__version__)
    assert selfrag.__doc__ and "selfrag.errors" in selfrag.__doc__


def test_the_generic_top_level_names_are_ours_alone() -> None:
    # README "Package names": eval, graders and workflows stay top-level while no other installed
    # distribution claims them; this fails the day one does.
    from importlib.metadata import packages_distributions

    owners = packages_distributions()
    for name in ("eval", "graders", "workflows", "selfrag"):
        assert set(owners.get(name, ["selfrag"])) == {"selfrag"}, (name, owners[name])
