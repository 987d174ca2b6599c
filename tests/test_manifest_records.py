"""The manifest's entries as records: every entry of the committed manifest decodes and
encodes back to itself, and a damaged entry decodes leniently (None), never raises."""

from __future__ import annotations

import json

import pytest
from conftest import GENERATED

from onnx_seq_tests._core.suite_forms import SuiteForm
from onnx_seq_tests._published.discovery import read_manifest
from onnx_seq_tests._suite import manifest as manifests
from onnx_seq_tests._suite.manifest import CaseEntry, ExpandedFrom, FileEntry, case_entries


@pytest.fixture(scope="module")
def committed() -> dict:
    return json.loads((GENERATED / manifests.MANIFEST).read_bytes())


def test_every_committed_entry_round_trips(committed):
    cases = case_entries(committed["cases"])
    assert len(cases) == len(committed["cases"])
    assert {n: e.to_json() for n, e in cases.items()} == committed["cases"]
    assert all(FileEntry.from_json(e).to_json() == e for e in committed["files"].values())
    rebuilt = {**committed, "cases": {n: e.to_json() for n, e in cases.items()}}
    assert manifests.dumps(rebuilt) == (GENERATED / manifests.MANIFEST).read_bytes()


def test_the_variant_keys_are_the_derived_forms(committed):
    assert (manifests.TENSOR_IO, manifests.CONSTANT) == tuple(
        form.manifest_form for form in SuiteForm.derived())
    entries = case_entries(committed["cases"])
    variants = [e for e in entries.values() if e.derived_from]
    assert {e.form for e in variants} == {manifests.TENSOR_IO, manifests.CONSTANT}
    assert all(e.tensor_io is None and e.constant is None for e in variants)
    for form in SuiteForm.derived():  # each variant listed by its original, under its form
        listed = {n for e in entries.values() for n in e.variants(form) or ()}
        assert listed == {n for n, e in entries.items() if e.form == form.manifest_form}
        assert all(entries[n].folder.startswith(f"{form.folder}/") for n in listed)


def test_discovery_reads_the_same_records(committed):
    suite = read_manifest(GENERATED)
    assert suite.by_name == case_entries(committed["cases"])
    assert all(isinstance(e, CaseEntry) for e in suite.by_folder.values())


@pytest.mark.parametrize("value", [None, [], "x", 3, {}, {"folder": 3}, {"operators": ["A"]}])
def test_an_entry_that_is_not_one_decodes_to_none(value):
    assert CaseEntry.from_json(value) is None


def test_a_field_of_the_wrong_type_reads_as_none():
    entry = CaseEntry.from_json({"folder": "s/test_x", "operators": ["A", 1], "opset": True,
                                 "atol": "0", "source": 5, "expanded_from": {"type": "int8"},
                                 "derived_from": "x"})
    assert entry == CaseEntry("s/test_x", derived_from="x")
    assert entry.to_json() == {"folder": "s/test_x", "derived_from": "x"}


def test_file_entries_are_exactly_sha256_and_size():
    good = {"sha256": "ab", "size": 2}
    assert FileEntry.from_json(good) == FileEntry("ab", 2)
    assert FileEntry.of(b"xy").to_json() == {"sha256": FileEntry.of(b"xy").sha256, "size": 2}
    assert FileEntry.of(b"xy").size == 2 and len(FileEntry.of(b"xy").sha256) == 64
    for bad in ({**good, "more": 1}, {"sha256": "ab", "size": "2"}, {"sha256": 1, "size": 2},
                {"sha256": "ab", "size": False}, ["ab", 2]):
        assert FileEntry.from_json(bad) is None


def test_expanded_from_round_trips():
    value = {"for_each": "cases/a.yaml:3", "type": "int8", "opset": 18}
    assert ExpandedFrom.from_json(value).to_json() == value
    assert ExpandedFrom.from_json({**value, "opset": "18"}) is None
