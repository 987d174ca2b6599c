"""The standard backend-test layout, as the build writes it:

    <root>/<suite>/test_<name>/model.onnx
    <root>/<suite>/test_<name>/data.json                      {"atol": .., "rtol": ..}
    <root>/<suite>/test_<name>/test_data_set_<k>/input_<j>.pb  by graph-input order
    <root>/<suite>/test_<name>/test_data_set_<k>/output_<j>.pb by graph-output order

Reading a case folder back is `_published/case_folder.py`, above the build.
"""

from __future__ import annotations

import json

from onnx import ModelProto

from .._core.cases import Case
from .._core.suite_forms import SuiteForm
from .codec import encode

#: The folder under the output root that holds the cases:
#: `load_model_tests(data_dir=<root>, kind=SUITE)` loads them.
SUITE = SuiteForm.AS_WRITTEN.folder


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


__all__ = ["SUITE", "case_files", "tolerance_json"]
