"""The optional libraries of ``kingmaker.envs``, imported with a message that names the extra."""

from __future__ import annotations

import importlib
from types import ModuleType

EXTRA = "envs"


def require(module: str) -> ModuleType:
    """Import ``module``, or fail with one line saying which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"kingmaker.envs needs {module.split('.')[0]}, which comes with the optional extra: "
            f"pip install 'kingmaker[{EXTRA}]' ({error})"
        ) from error
