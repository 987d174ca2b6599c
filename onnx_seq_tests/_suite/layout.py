"""The standard backend-test layout, written and read back like any consumer reads it.

    <root>/<suite>/test_<name>/model.onnx
    <root>/<suite>/test_<name>/data.json                      {"atol": .., "rtol": ..}
    <root>/<suite>/test_<name>/test_data_set_<k>/input_<j>.pb  by graph-input order
    <root>/<suite>/test_<name>/test_data_set_<k>/output_<j>.pb by graph-output order
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import onnx
from onnx import ModelProto

from .._core.cases import Case
from .._core.value_types import ValueType, boundary_types
from .codec import decode, encode, parse

#: The folder under the output root that holds the cases:
#: `load_model_tests(data_dir=<root>, kind=SUITE)` loads them.
SUITE = "sequence_optional"


def case_files(case: Case, model: ModelProto, empty_optional: str = "undefined") -> dict:
    """Every file of one case folder, relative path -> bytes, in a fixed order."""
    files = {"model.onnx": model.SerializeToString(deterministic=True),
             "data.json": tolerance_json(case.atol, case.rtol)}
    inputs, outputs = case.graph.inputs, case.graph.outputs
    for k, data_set in enumerate(case.data_sets):
        folder = f"test_data_set_{k}"
        for side, decls, values in (("input", inputs, data_set.inputs),
                                    ("output", outputs, data_set.outputs)):
            for j, (decl, value) in enumerate(zip(decls, values, strict=False)):
                proto = encode(value, decl.type, decl.name, empty_optional)
                files[f"{folder}/{side}_{j}.pb"] = proto.SerializeToString(deterministic=True)
    return files


def tolerance_json(atol: float, rtol: float) -> bytes:
    return (json.dumps({"atol": atol, "rtol": rtol}, sort_keys=True) + "\n").encode()


@dataclass
class CaseFolder:
    """A case folder as a consumer sees it: the model, its data sets decoded, its tolerance."""

    path: Path
    model: ModelProto
    input_types: list[ValueType]
    output_types: list[ValueType]
    data_sets: list[tuple[list, list]]
    atol: float | None
    rtol: float | None

    @property
    def name(self) -> str:
        return self.path.name


def read_case_folder(path: Path) -> CaseFolder:
    """Read a `test_<name>` folder: .pb files decoded by the model's graph types."""
    path = Path(path)
    model = onnx.load(str(path / "model.onnx"))
    input_types, output_types = boundary_types(model)
    data_sets = []
    for folder in sorted(path.glob("test_data_set_*"), key=lambda p: int(p.name.rsplit("_", 1)[1])):
        inputs = [_read(folder / f"input_{j}.pb", t) for j, t in enumerate(input_types)]
        outputs = [_read(folder / f"output_{j}.pb", t) for j, t in enumerate(output_types)]
        data_sets.append((inputs, outputs))
    atol, rtol = read_tolerance(path)
    return CaseFolder(path, model, input_types, output_types, data_sets, atol, rtol)


def read_tolerance(path: Path) -> tuple[float | None, float | None]:
    """(atol, rtol) from a case folder's data.json; None for what it does not give."""
    tolerance_file = Path(path) / "data.json"
    if not tolerance_file.exists():
        return None, None
    tolerance = json.loads(tolerance_file.read_text())
    return tolerance.get("atol"), tolerance.get("rtol")


def _read(path: Path, value_type: ValueType):
    return decode(parse(path.read_bytes(), value_type))


def case_folders(root: Path) -> list[Path]:
    """Every `test_*` folder holding a model.onnx under `root`, at any depth, sorted; folders
    below a hidden one (a build's staging area, for one) are not cases."""
    root = Path(root)
    return sorted(p.parent for p in root.rglob("model.onnx")
                  if p.parent.name.startswith("test_") and not any(
                      part.startswith(".") for part in p.parent.relative_to(root).parts))
