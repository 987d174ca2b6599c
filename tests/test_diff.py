"""gen-seq-tests diff: cases added, removed and changed between two suites (folders, archives or
manifests), and archives read as untrusted input."""

from __future__ import annotations

import copy
import io
import json
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import manifest_of, small_suite

from onnx_seq_tests._cli import main
from onnx_seq_tests._core.errors import ArchiveError
from onnx_seq_tests._published.archive import read_archive
from onnx_seq_tests._published.pack import pack
from onnx_seq_tests._suite import manifest as manifests

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "generated"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def committed() -> dict:  # as JSON, to edit
    return manifests.read(GENERATED).to_json()


def _sha(fake: str) -> dict:
    return {"sha256": fake * 64, "size": 1}


def test_manifests_show_added_removed_and_what_changed(tmp_path, committed):
    """On a manifest of a few committed cases: the diff's time grows with the suite's size."""
    committed = manifest_of(committed, sorted(committed["cases"])[:12])
    names = sorted(committed["cases"])
    removed, model, data, tolerance = names[0], names[1], names[2], names[3]
    new = copy.deepcopy(committed)
    folder = new["cases"].pop(removed)["folder"]
    new["files"] = {p: e for p, e in new["files"].items() if not p.startswith(folder + "/")}
    new["cases"]["brand_new"] = {**new["cases"][model],
                                 "folder": "sequence_optional/test_brand_new"}
    new["files"]["sequence_optional/test_brand_new/model.onnx"] = _sha("a")
    new["files"][f"{new['cases'][model]['folder']}/model.onnx"] = _sha("b")
    data_folder = new["cases"][data]["folder"]
    new["files"][f"{data_folder}/test_data_set_0/output_0.pb"] = _sha("c")
    new["files"][f"{data_folder}/test_data_set_7/input_0.pb"] = _sha("d")
    new["cases"][tolerance]["atol"] = 0.125
    new["files"][f"{new['cases'][tolerance]['folder']}/data.json"] = _sha("e")
    (tmp_path / "old.json").write_bytes(manifests.dumps(committed))
    (tmp_path / "new.json").write_bytes(manifests.dumps(new))

    done = run("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"))
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[0].startswith(f"old: {tmp_path / 'old.json'} (onnx-seq-tests ")
    assert f"removed  {removed}" in lines
    assert any(line.startswith("added    brand_new (") for line in lines)
    assert f"changed  {model}: model" in lines
    assert (f"changed  {data}: data set 0 (output_0 changed); data set 7 (input_0 added)"
            in lines)
    old_atol = committed["cases"][tolerance]["atol"]
    assert f"changed  {tolerance}: tolerance atol {old_atol} -> 0.125" in lines
    assert lines[-1] == f"1 added, 1 removed, 3 changed, {len(names) - 4} unchanged"

    done = run("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--json",
               "-o", str(tmp_path / "d.json"), "--exit-code")
    assert done.exit_code == 1
    result = json.loads((tmp_path / "d.json").read_text())
    assert result["removed"] == [removed]
    assert [a["case"] for a in result["added"]] == ["brand_new"]
    assert {c["case"]: c["changes"] for c in result["changed"]}[model] == ["model"]


def test_a_folder_and_its_archive_are_the_same_suite(tmp_path, committed):
    names = sorted(committed["cases"])[:3]
    suite = small_suite(tmp_path / "suite", names)
    archive = tmp_path / "suite.tar.gz"
    pack(suite, archive)
    done = run("diff", str(archive), str(suite), "--exit-code")
    assert done.exit_code == 0, done.output
    assert done.output.splitlines()[-1] == "0 added, 0 removed, 0 changed, 3 unchanged"
    # A checkout names its generated/.
    done = run("diff", str(archive), str(ROOT), "--json")
    result = json.loads(done.output)
    assert len(result["added"]) == len(committed["cases"]) - 3 and not result["changed"]


def test_a_damaged_folder_or_archive_is_refused(tmp_path, committed):
    suite = small_suite(tmp_path / "suite", sorted(committed["cases"])[:2])
    archive = tmp_path / "suite.tar.gz"
    pack(suite, archive)
    victim = next(suite.rglob("model.onnx"))
    victim.write_bytes(victim.read_bytes() + b"\0")
    done = run("diff", str(archive), str(suite))
    assert done.exit_code == 2 and "does not match its manifest" in done.output
    files = read_archive(archive)
    files[victim.relative_to(suite).as_posix()] += b"\0"
    damaged = tmp_path / "damaged.tar.gz"
    damaged.write_bytes(_tar({f"top/{name}": data for name, data in files.items()}))
    done = run("diff", str(damaged), str(archive))
    assert done.exit_code == 2 and "the archive is damaged" in done.output
    assert done.output.count("\n") == 1


def _tar(files: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    return data.getvalue()


@pytest.mark.parametrize("files, links, message", [
    ({"top/../../evil": b"x"}, None, "holds '..'"),
    ({"/etc/evil": b"x"}, None, "absolute path"),
    ({"top/manifest.json": b"{}"}, {"top/link": "/etc/passwd"}, "is a link"),
    ({"a/manifest.json": b"{}", "b/manifest.json": b"{}"}, None, "one top folder"),
    ({"top/readme.txt": b"hello"}, None, "no manifest.json"),
    ({"top/manifest.json": b"[1, 2]"}, None, "not a format-1 manifest"),
])
def test_archives_are_untrusted_input(tmp_path, files, links, message):
    bad = tmp_path / "work" / "bad.tar.gz"
    bad.parent.mkdir()
    bad.write_bytes(_tar(files, links))
    done = run("diff", str(bad), str(bad))
    assert done.exit_code == 2, done.output
    assert message in done.output and done.output.count("\n") == 1
    assert "Traceback" not in done.output
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["bad.tar.gz", "work"]


def test_archive_size_is_bounded(tmp_path):
    archive = tmp_path / "big.tar.gz"
    archive.write_bytes(_tar({"top/a": b"0" * 1000, "top/b": b"0" * 1000}))
    with pytest.raises(ArchiveError, match="add up to more than 1500 bytes"):
        read_archive(archive, max_total=1500)
    with pytest.raises(ArchiveError, match="more than 1 entries"):
        read_archive(archive, max_members=1)


def test_two_things_that_are_not_suites(tmp_path):
    for name in ("a.tar.gz", "b.json"):
        (tmp_path / name).write_bytes(b"\x1f\x8b not really")
    done = run("diff", str(tmp_path / "a.tar.gz"), str(tmp_path / "b.json"))
    assert done.exit_code == 2 and done.output.count("\n") == 1
    assert "not a readable tar archive" in done.output
    done = run("diff", str(tmp_path / "b.json"), str(tmp_path / "a.tar.gz"))
    assert done.exit_code == 2 and "not a suite" in done.output
    done = run("diff", str(tmp_path), str(tmp_path / "nope"))
    assert done.exit_code == 2 and "neither a suite" in done.output
