"""Imported by the verify workers' fork server, once: runs onnx's shape inference and the
case-reading code on a one-node model, so every worker forked from it starts with onnx's schemas
loaded (the first inference in a process costs tens of milliseconds) rather than each paying it.
Nothing here starts a thread, so forking after it is safe."""

from __future__ import annotations

from .backends import probe_model
from .worker_main import case_elements

case_elements(probe_model())
