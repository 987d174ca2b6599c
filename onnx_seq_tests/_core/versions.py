"""Versions, read from installed metadata without importing anything heavy: this package's,
the installed onnx's, and the onnx version this package pins.

A leaf: it imports nothing of the package, so every layer (and the package root) may use it.
"""

from __future__ import annotations

import functools
import re

#: The distribution whose metadata gives this package's version and its onnx pin.
DISTRIBUTION = "onnx-seq-tests"


def version_of(distribution: str) -> str | None:
    """The installed version of `distribution`; None when it is not installed."""
    from importlib import metadata  # a twentieth of a second: only when a version is asked

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


@functools.cache
def package_version() -> str:
    """This package's version ("0.0.0" when run from a source tree that is not installed)."""
    return version_of(DISTRIBUTION) or "0.0.0"


def installed_onnx() -> str | None:
    """The version of the installed onnx (as `onnx.__version__` gives it), without importing it;
    None when onnx is not installed."""
    for name in ("onnx", "onnx-weekly"):
        found = version_of(name)
        if found is not None:
            return found
    return None


def pinned_onnx() -> str | None:
    """The onnx version this package pins (`onnx==X` in pyproject.toml, read from the installed
    metadata), or None when it is not installed as a distribution or pins no exact version."""
    from importlib import metadata

    try:
        requirements = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return None
    for requirement in requirements:
        found = re.fullmatch(r"\s*onnx\s*==\s*([^\s;,]+)\s*", requirement)
        if found:
            return found.group(1)
    return None
