"""The spec oracle as an onnx backend (`fuzz -b oracle`): runs a model's graph with
`_core.oracle.run_model`. It agrees with every expectation the generator writes, so a campaign
on it measures the generator, builder and judge alone (bench_fuzz.py), and any disagreement on
it is a bug of this project."""

from __future__ import annotations

from onnx.backend.base import Backend, BackendRep

from .._oracle import oracle

#: The spec `verify` loads for `-b oracle`.
SPEC = "onnx_seq_tests._fuzz.oracle_backend:OracleBackend"


class OracleRep(BackendRep):
    def __init__(self, model):
        self.model = model

    def run(self, inputs, **kwargs):
        return oracle.run_model(self.model, list(inputs))


class OracleBackend(Backend):
    @classmethod
    def prepare(cls, model, device: str = "CPU", **kwargs) -> OracleRep:
        return OracleRep(model)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"
