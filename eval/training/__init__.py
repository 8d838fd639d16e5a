"""Training the reader and critic (``python -m eval.training``): sources, examples, fit, calibration.

Import the modules themselves (``eval.training.fit``...): the package exports no names, so that
``eval.training.sources`` can be read without loading torch, which ``fit`` needs.
"""

__all__: list[str] = []
