"""The case-file examples in the README build, so the reference cannot drift from the loader."""

import re
from pathlib import Path

from onnx_seq_tests._casefile.reader import load_cases
from onnx_seq_tests._suite.build import compile_cases

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_case_examples_build(tmp_path):
    blocks = re.findall(r"```yaml\n(- name: .*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 2
    for i, block in enumerate(blocks):
        (tmp_path / f"example_{i}.yaml").write_text(block)
    cases = load_cases([tmp_path])
    files = compile_cases(cases)
    assert {c.name for c in cases} >= {"sequence_at_negative", "sequence_length_float_opset11"}
    assert "test_sequence_at_negative/model.onnx" in files
