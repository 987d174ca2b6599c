"""Each finding of docs/conformance-notes.yaml still holds: its backend, run on a case the note
explains, still disagrees with the suite there and the note is the one that explains it; and the
claims corrected in issue 13 are checked one by one (what passes, what fails, which version's
wording the quoted sentence is).

Only the cases named here run (one witness per note and a few more), on the real backends.
"""

from __future__ import annotations

import re
from pathlib import Path

import onnx.defs
import pytest

from onnx_seq_tests._core.suite_forms import SuiteForm
from onnx_seq_tests._published.case_folder import read_case_folder
from onnx_seq_tests._reports.notes import attach_notes, load_notes
from onnx_seq_tests._run.verifier import Result
from onnx_seq_tests._run.worker_main import run_on

ROOT = Path(__file__).resolve().parent.parent
NOTES = ROOT / "docs" / "conformance-notes.yaml"
SUITE = ROOT / "generated" / "sequence_optional"
TENSOR_IO = SuiteForm.TENSOR_BOUNDARY.folder
CONSTANT = SuiteForm.CONSTANT.folder

# One case each note explains, as it was when the note was written (see docs/conformance.md);
# "sequence_optional_tensor_io/<name>" names a case of the tensor-boundary form,
# "sequence_optional_constant/<name>" one of the constant form.
WITNESSES = {
    "complex64 and complex128, every operator": "test_concat_from_sequence_v11_complex128",
    "CastMap gives a 2-D tensor": "test_castmap_output_is_1d",
    "onnxruntime's Python API feeds maps of float values only, and no empty map":
        "test_dictvectorizer_doc_example_string_int64",
    "The reference evaluator has no ZipMap and no CastMap": "test_zipmap_zero_rows",
    "DictVectorizer's element type follows numpy's guess, not the map's value type":
        "test_dictvectorizer_int64_float",
    "Optional at opset 28": "test_optional_v28_tensor_float4e2m1",
    "OptionalHasElement at opset 28": "test_optional_has_element_v28_no_input",
    "OptionalGetElement at opset 28": "test_optional_get_element_v28_optional_seq_bfloat16",
    "SplitToSequence, integer types other than int32 and int64, and bfloat16":
        "test_split_to_sequence_bfloat16_default_axis_1",
    "SplitToSequence applies keepdims with a 'split' input":
        "test_split_to_sequence_scalar_split_2_keepdims_ignored",
    "Optional returns a list": "test_if_v16_optional_either_branch",
    "Optional with both an input and a type attribute": "test_optional_with_input_and_type",
    "Optional returns a list (tensor-boundary variants)":
        f"{TENSOR_IO}/test_optional_has_element_v18_optional_tensor_float__none",
    "Optional returns a list (an empty sequence taken out of an optional)":
        "test_hidden_empty_sequence_type_through_optional",
    "Optional returns a list (constant variants)":
        f"{CONSTANT}/test_optional_get_element_v15_optional_seq_float__constant0",
    "complex64 and complex128 initializers (constant form)":
        f"{CONSTANT}/test_optional_has_element_v18_tensor_complex64__constant",
    "SequenceInsert into an empty sequence": "test_sequence_empty_then_insert",
    "SequenceInsert at position n": "test_sequence_insert_at_length_append",
    "SequenceMap does not zip two or more additional inputs, and fails on an empty input":
        "test_sequence_map_three_sequences",
    "SequenceMap's body cannot read a value of the enclosing graph":
        "test_sequence_map_body_reads_outer_scope",
    "Identity cannot return an empty optional": "test_identity_v16_optional_tensor",
    "Loop refuses an empty optional as a loop-carried value":
        "test_loop_v16_optional_sequence_starts_empty",
    "Loop stacks 0-d scan outputs into shape [N, 1]": "test_loop_v25_sequence_trip_count_and_cond",
    "Loop with the condition omitted runs no iteration": "test_loop_v13_carries_sequence",
    "Identity of packed sub-byte tensors": "test_identity_packed_odd_float4e2m1_opset23",
    "OptionalGetElement-28 with packed sub-byte types":
        "test_optional_get_element_packed_odd_sequence_int4_opset28",
}

_CACHE: dict[tuple[str, str], tuple[str, str]] = {}


def outcome(name: str, backend: str) -> tuple[str, str]:
    """(outcome, message) of one case folder on one backend, run once per session;
    `name` is a case of the original form, or "<suite folder>/<case>"."""
    key = (name, backend)
    if key not in _CACHE:
        folder = SUITE.parent / name if "/" in name else SUITE / name
        _CACHE[key] = run_on(read_case_folder(folder), backend)
    return _CACHE[key]


@pytest.fixture(scope="module")
def notes():
    return load_notes(NOTES)


#: Backends whose notes are re-checked here, live. The third-party runtimes' notes are checked
#: against the recorded run behind docs/conformance.md (every note must match a case there), and
#: their verdicts by `make verify-runtimes` (each runtime's xfail file).
LIVE = ("onnxruntime", "reference")


def test_every_note_has_a_witness(notes):
    assert sorted(n.title for n in notes if set(n.backends) & set(LIVE)) == sorted(WITNESSES)


@pytest.mark.parametrize("title", sorted(WITNESSES))
def test_note_still_explains_its_witness(notes, title):
    note = next(n for n in notes if n.title == title)
    witness = WITNESSES[title]
    case = witness if "/" in witness else f"sequence_optional/{witness}"
    name = case.rsplit("/", 1)[1]
    backend = next(b for b in note.backends if b in LIVE)
    status, message = outcome(witness, backend)
    assert status != "pass", f"{backend} now passes {witness}: the note '{title}' is stale"
    result = Result(case, name, backend, status, message, (), "", 0)
    explained = attach_notes([result], notes)
    assert explained.get(0) is note, (
        f"{name} on {backend} ({status}: {message[:200]}) is no longer explained by "
        f"'{title}'")


# -- the three claims corrected in issue 13 -------------------------------------------------------

@pytest.mark.parametrize("name", ["test_sequence_map_v17_float",  # a sequence and a tensor
                                  "test_sequence_map_tensor_of_other_type",
                                  "test_sequence_map_shape_of_each"])
def test_reference_sequence_map_one_additional_input_passes(name):
    assert outcome(name, "reference") == ("pass", "")


@pytest.mark.parametrize("name", ["test_sequence_map_three_sequences",
                                  "test_sequence_map_two_sequences_and_tensor",
                                  "test_sequence_map_empty_sequence"])
def test_reference_sequence_map_two_additional_inputs_or_empty_fails(name):
    assert outcome(name, "reference")[0] != "pass"


def test_loop_note_quotes_the_version_its_cases_use(notes):
    note = next(n for n in notes if n.title.startswith("Loop refuses an empty optional"))
    opset = int(re.search(r"_v(\d+)_", WITNESSES[note.title]).group(1))
    schema = onnx.defs.get_schema("Loop", opset)
    texts = [" ".join(c.description.split()) for c in schema.type_constraints]
    assert any(note.spec in t for t in texts), (note.spec, schema.since_version, texts)


def test_optional_note_versions_and_float4e2m1(notes):
    note = next(n for n in notes if n.title == "Optional at opset 28")
    versions = sorted({s.since_version for s in onnx.defs.get_all_schemas_with_history()
                       if s.name == "Optional" and s.domain == ""})
    assert versions == [15, 28]
    assert "versions 15 and 28 only" in note.finding
    # the same operator passes its cases at opset 15
    assert outcome("test_optional_then_get_element", "onnxruntime") == ("pass", "")
    # float4e2m1: the optional form is not registered ...
    status, message = outcome("test_optional_v28_tensor_float4e2m1", "onnxruntime")
    assert status == "refused" and "optional(tensor(float4e2m1))" in message
    # ... a plain tensor(float4e2m1) is: the model is read and only the kernel is missing
    # (still a refusal: the session is not created)
    status, message = outcome("test_identity_packed_odd_float4e2m1_opset23", "onnxruntime")
    assert status == "refused" and "MLDataType" not in message and "Identity" in message
