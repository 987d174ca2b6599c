"""The build's cache.json as a typed record: the same bytes back, anything else refused."""

from __future__ import annotations

import json

import pytest

from onnx_seq_tests._core.errors import CacheError
from onnx_seq_tests._suite.build_cache import BuildCache
from onnx_seq_tests._suite.publish import CACHE, work_dir

GOOD = {"key": "k", "manifest_sha256": "m", "sources": {"h": ["a", "a__x"]},
        "fingerprints": {"a": "f", "a__x": "g"}, "mtimes": [1, 2], "folders": {"": 3, "s": 4}}


def test_a_cache_written_by_a_build_reads_back_to_its_own_bytes(tmp_path, root):
    from onnx_seq_tests._suite.build import build

    out = tmp_path / "out"
    build([root / "cases" / "nan_payloads.yaml"], out)
    data = (work_dir(out) / CACHE).read_bytes()
    cache = BuildCache.from_json(data, CACHE)
    assert cache.to_json() == data
    assert cache.belongs_to(cache.key, (out / "manifest.json").read_bytes())
    assert not cache.belongs_to(cache.key, b"{}")
    assert len(cache.mtimes) == len(json.loads((out / "manifest.json").read_bytes())["files"])


@pytest.mark.parametrize("change", [
    {"key": 1}, {"sources": {"h": "a"}}, {"sources": []}, {"fingerprints": {"a": 1}},
    {"mtimes": [1.5]}, {"mtimes": [True]}, {"folders": {"": "3"}}, {"manifest_sha256": None}])
def test_a_field_of_the_wrong_type_is_refused_in_one_line(change):
    with pytest.raises(CacheError, match=r"^cache.json: '") as error:
        BuildCache.from_json(json.dumps({**GOOD, **change}).encode(), "cache.json")
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("data", [b"[]", b"{", json.dumps({**GOOD, "mtimes": None}).encode(),
                                  json.dumps({k: v for k, v in GOOD.items() if k != "folders"})
                                  .encode()])
def test_a_broken_cache_is_refused(data):
    with pytest.raises(CacheError):
        BuildCache.from_json(data, "cache.json")
