"""Runtimes with planted faults for bench_verify.py: onnxruntime's CPU backend that crashes its
process on every case, or hangs on the cases named in $BENCH_HANG_CASES (comma-separated)."""

from __future__ import annotations

import os
import time

import onnxruntime.backend
from onnx.backend.base import Backend


class CrashEveryCase(Backend):
    """Aborts (SIGABRT) on every model but the verifier's one-node check model."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if model.graph.name != "probe":
            os.abort()
        return onnxruntime.backend.prepare(model, device, **kwargs)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"


class HangOnSome(Backend):
    """Never returns on the cases named in $BENCH_HANG_CASES; onnxruntime on the others."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if model.graph.name in os.environ.get("BENCH_HANG_CASES", "").split(","):
            while True:
                time.sleep(1)
        return onnxruntime.backend.prepare(model, device, **kwargs)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"
