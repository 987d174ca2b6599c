"""The workflows: this repository's own (.github/workflows/suite.yml, the nightly fuzz campaigns)
and the examples for a runtime's repository (docs/examples/runtime-ci.yml, fuzz-nightly.yml);
their steps are in order and every command they run is one the CLI accepts."""

from __future__ import annotations

import json
import re
import shlex
from importlib.metadata import metadata
from pathlib import Path

import click
import yaml
from click.testing import CliRunner

from onnx_seq_tests._cli import main
from onnx_seq_tests._reports import refresh
from onnx_seq_tests._transforms import TRANSFORMS

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "suite.yml"
RUNTIME_CI = ROOT / "docs" / "examples" / "runtime-ci.yml"
TRANSFORM_CI = ROOT / "docs" / "examples" / "ci-transform.yml"
SCOREBOARD = ROOT / ".github" / "workflows" / "scoreboard.yml"


def load(path: Path = WORKFLOW) -> dict:
    return yaml.safe_load(path.read_text())


def steps(path: Path = WORKFLOW) -> list[dict]:
    (job,) = load(path)["jobs"].values()
    return job["steps"]


def commands(step: dict) -> list[list[str]]:
    """The gen-seq-tests command lines of a step, split like a shell splits them, up to a pipe,
    a list operator or a redirection."""
    lines = step.get("run", "").splitlines()
    found = []
    for line in lines:
        if line.strip().startswith("gen-seq-tests "):
            words = shlex.split(line, comments=True)
            ends = [i for i, w in enumerate(words) if w in ("|", "||", "&&", ";", ">", "2>")]
            found.append(words[:ends[0]] if ends else words)
    return found


def parse(argv: list[str]) -> click.Context:
    """Parse a command line with the real CLI without running it; click raises on a mistake."""
    assert argv[0] == "gen-seq-tests"
    command = main.commands.get(argv[1])
    assert command is not None, f"no command {argv[1]!r}"
    return command.make_context(argv[1], list(argv[2:]), parent=click.Context(main))


def test_workflow_triggers_and_runner():
    for path in (WORKFLOW, RUNTIME_CI, TRANSFORM_CI):
        workflow = load(path)
        triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as True
        assert {"push", "pull_request"} <= set(triggers)
        (job,) = workflow["jobs"].values()
        assert job["runs-on"].startswith("ubuntu-")
        assert 0 < job["timeout-minutes"] <= 60
        assert workflow["permissions"] == {"contents": "read"}


def test_steps_install_check_verify_pack_upload_in_order():
    found = steps()
    uses = [s.get("uses", "") for s in found]
    assert uses[0].startswith("actions/checkout@")
    assert uses[1].startswith("actions/setup-python@")
    assert all(re.fullmatch(r"[\w-]+/[\w-]+@v\d+", u) for u in uses if u)
    project = metadata("onnx-seq-tests")
    python = found[1]["with"]["python-version"]
    requires = project["Requires-Python"]
    assert tuple(map(int, python.split("."))) >= tuple(map(int, requires.lstrip(">=").split(".")))

    install = found[2]["run"]
    extra = re.fullmatch(r"python -m pip install -e '\.\[(\w+)\]'", install.strip()).group(1)
    assert any(d.startswith("onnxruntime") and f'extra == "{extra}"' in d
               for d in project.get_all("Requires-Dist"))

    lines = [(i, argv) for i, step in enumerate(found) for argv in commands(step)]
    kinds = [argv[1] for _, argv in lines]
    assert kinds == ["build", "verify", "pack"]
    (check_at, check), (verify_at, verify), (pack_at, pack) = lines
    assert "--check" in check
    verify_context = parse(verify)
    assert verify_context.params["backends"] == ("onnxruntime",)
    (xfail_path,) = verify_context.params["xfail_paths"]
    assert (ROOT / xfail_path).is_file()
    junit = verify_context.params["junit_xml_path"]
    archive = parse(pack).params["archive"]
    assert parse(check).params["check"] is True
    assert check_at < verify_at < pack_at

    uploads = [(i, s) for i, s in enumerate(found) if s.get("uses", "").startswith(
        "actions/upload-artifact@")]
    paths = {Path(s["with"]["path"]): (i, s) for i, s in uploads}
    assert archive in paths and junit in paths
    archive_at, archive_step = paths[archive]
    assert archive_at > pack_at and archive_step["with"]["if-no-files-found"] == "error"
    junit_at, junit_step = paths[junit]
    assert junit_at > verify_at and "!cancelled()" in junit_step["if"]
    # the archive is packed and uploaded only when the drift check passed, even if verify failed
    check_id = found[check_at]["id"]
    for step in (found[pack_at], archive_step):
        assert f"steps.{check_id}.outcome == 'success'" in step["if"]


def test_every_command_line_is_accepted_by_the_cli():
    for path in (WORKFLOW, RUNTIME_CI, TRANSFORM_CI):
        for step in steps(path):
            for argv in commands(step):
                parse(argv)


def test_the_published_identity_is_the_one_pack_prints():
    """The step summary gets pack's own lines (the suite's identity), not a .tar.gz hash."""
    for path in (WORKFLOW, RUNTIME_CI, TRANSFORM_CI):
        (step,) = [s for s in steps(path) if any(a[1] == "pack" for a in commands(s))]
        assert "sha256sum" not in step["run"]
        assert "| tee -a \"$GITHUB_STEP_SUMMARY\"" in step["run"]
        assert "set -o pipefail" in step["run"]


def test_runtime_ci_installs_the_release_and_verifies_with_a_name():
    """The example for a runtime's repository: no checkout of this repository, the released
    package installed, verify with the installed known failures (a name, not a path), a time
    limit, all CPUs, JUnit and the HTML page uploaded even when verify failed."""
    found = steps(RUNTIME_CI)
    assert not [s for s in found if s.get("uses", "").startswith("actions/checkout@")]
    (install,) = [s["run"] for s in found if "pip install" in s.get("run", "")]
    assert re.fullmatch(r"python -m pip install 'onnx-seq-tests\[verify\]'", install.strip())
    lines = [(i, argv) for i, step in enumerate(found) for argv in commands(step)]
    assert [argv[1] for _, argv in lines] == ["pack", "verify"]
    (_, verify) = lines[1]
    context = parse(verify)
    assert context.params["xfail_paths"] == ("onnxruntime",)
    assert context.params["timeout"] and context.params["jobs"] == 0
    junit = verify[verify.index("--junit-xml") + 1]
    html = verify[verify.index("--html") + 1]
    (upload,) = [s for s in found if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert upload["with"]["path"].split() == [junit, html]
    assert "!cancelled()" in upload["if"]


def test_transform_ci_verifies_the_tool_as_a_subject_with_its_xfail_file():
    """The example for a tool's repository: its checkout installed beside the released
    package, verify with --transform on onnxruntime, its own xfail file, every report uploaded
    (the JSON too: xfail-update writes the first xfail file from it)."""
    found = steps(TRANSFORM_CI)
    (verify,) = [argv for step in found for argv in commands(step) if argv[1] == "verify"]
    context = parse(verify)
    assert context.params["transforms"] == ("mytool.module:optimize",)
    assert context.params["backends"] == ("onnxruntime",)
    assert context.params["xfail_paths"] == ("ci/onnx-seq-tests-xfail.txt",)
    assert context.params["timeout"] and not context.params["suite_dirs"]
    reports = [verify[verify.index(option) + 1] for option in ("--junit-xml", "--json", "--html")]
    (upload,) = [s for s in found if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert upload["with"]["path"].split() == reports and "!cancelled()" in upload["if"]
    assert "'mytool.module:optimize>onnxruntime'" in TRANSFORM_CI.read_text()


def test_a_tag_builds_and_uploads_the_release():
    found = steps()
    (build,) = [s for s in found if s.get("run", "").strip() == "make dist"]
    (upload,) = [s for s in found if "SHA256SUMS" in s.get("with", {}).get("path", "")]
    for step in (build, upload):
        assert "startsWith(github.ref, 'refs/tags/')" in step["if"]
    assert found.index(build) < found.index(upload)
    assert upload["uses"].startswith("actions/upload-artifact@")
    paths = upload["with"]["path"].split()
    assert paths == ["dist/*.whl", "dist/onnx_seq_tests-*.tar.gz",
                     "dist/onnx-seq-tests-suite-*.tar.gz", "dist/SHA256SUMS"]
    assert re.search(r"^dist: ", (ROOT / "Makefile").read_text(), re.MULTILINE)


def test_the_scoreboard_is_a_matrix_of_runtimes_merged_by_report():
    """This repository's scoreboard: one verify --json per runtime and job (a matrix over every
    backend of docs/conformance.md, listed as JSON by a job from the runtimes' records), then
    one job merging them with `gen-seq-tests report`."""

    workflow = load(SCOREBOARD)
    assert workflow["permissions"] == {"contents": "read"}
    listing = workflow["jobs"]["runtimes"]
    (step,) = [s for s in listing["steps"] if "gen-seq-tests" in s.get("run", "")]
    listed = dict(re.findall(r'echo "(\w+)=\$\((gen-seq-tests [^)]*)\)" >> "\$GITHUB_OUTPUT"',
                             step["run"]))
    assert sorted(listed) == ["list", "transforms"]
    expected = {"list": refresh.CONFORMANCE_SPECS, "transforms": list(TRANSFORMS)}
    for name, command in listed.items():
        argv = shlex.split(command)
        assert argv[:2] == ["gen-seq-tests", "runtimes"] and parse(argv).params["as_json"]
        done = CliRunner().invoke(main, argv[1:])
        assert done.exit_code == 0
        assert sorted(json.loads(done.output)) == sorted(expected[name])
        assert listing["outputs"][name] == f"${{{{ steps.{step['id']}.outputs.{name} }}}}"
    runs, merge = workflow["jobs"]["verify"], workflow["jobs"]["scoreboard"]
    assert runs["needs"] == "runtimes"
    assert runs["strategy"]["matrix"]["runtime"] == "${{ fromJSON(needs.runtimes.outputs.list) }}"
    assert runs["strategy"]["fail-fast"] is False
    assert merge["needs"] == ["verify", "transforms"] and "!cancelled()" in merge["if"]
    for job in (runs, merge):
        assert 0 < job["timeout-minutes"] <= 60
    (verify,) = [a for s in runs["steps"] for a in commands(s)]
    (step,) = [s for s in runs["steps"] if "gen-seq-tests verify" in s.get("run", "")]
    chosen = re.search(r'if \[ "\$\{\{ matrix.runtime \}\}" = onnxruntime \]; then '
                       r'inference="([^"]*)"; fi', step["run"])
    assert chosen, "onnxruntime's job must judge type inference, as docs/conformance.md does"
    judged = parse([w for w in verify if w != "$inference"] + chosen.group(1).split())
    assert judged.params["inferrers"] == refresh.INFERRERS
    context = parse([w for w in verify if w != "$inference"])
    assert context.params["backends"] == ("${{ matrix.runtime }}",)
    json_path = str(context.params["json_path"])
    (upload,) = [s for s in runs["steps"] if s.get("uses", "").startswith(
        "actions/upload-artifact@")]
    assert upload["with"]["path"] == json_path and "!cancelled()" in upload["if"]
    (report,) = [a for s in merge["steps"] for a in commands(s)]
    merged = parse(report).params
    assert merged["notes_path"] and merged["markdown_path"] and merged["html_path"]
    _check_the_transforms_matrix(workflow, merged["reports"])


def _check_the_transforms_matrix(workflow: dict, merged: tuple) -> None:
    """The transforms' matrix: each job one verify --json of onnxruntime through its transform,
    uploaded as an artifact the scoreboard's job downloads and merges."""
    jobs = workflow["jobs"]["transforms"]
    assert jobs["needs"] == "runtimes" and jobs["strategy"]["fail-fast"] is False
    assert jobs["strategy"]["matrix"]["transform"] == (
        "${{ fromJSON(needs.runtimes.outputs.transforms) }}")
    assert 0 < jobs["timeout-minutes"] <= 60
    (verify,) = [a for s in jobs["steps"] for a in commands(s)]
    context = parse(verify)
    assert context.params["backends"] == (refresh.TRANSFORM_BASELINE,)
    assert context.params["transforms"] == ("${{ matrix.transform }}",)
    json_path = str(context.params["json_path"])
    (upload,) = [s for s in jobs["steps"] if s.get("uses", "").startswith(
        "actions/upload-artifact@")]
    assert upload["with"]["path"] == json_path and "!cancelled()" in upload["if"]
    name = upload["with"]["name"].replace("${{ matrix.transform }}", "*")
    downloads = [s["with"]["pattern"] for s in workflow["jobs"]["scoreboard"]["steps"]
                 if s.get("uses", "").startswith("actions/download-artifact@")]
    assert name in downloads
    assert json_path.replace("${{ matrix.transform }}", "*") in map(str, merged)


FUZZ_NIGHTLY = ROOT / ".github" / "workflows" / "fuzz-nightly.yml"
FUZZ_EXAMPLE = ROOT / "docs" / "examples" / "fuzz-nightly.yml"


def _fuzz_parse(argv: list[str]) -> click.Context:
    """Parse a `gen-seq-tests fuzz [merge] ...` line with the real CLI, without running it."""
    fuzz = main.commands["fuzz"]
    if argv[2] == "merge":
        return fuzz.commands["merge"].make_context("merge", list(argv[3:]),
                                                   parent=click.Context(fuzz))
    return fuzz.make_context("fuzz", list(argv[2:]), parent=click.Context(main))


#: Values for the expressions of a matrix job's command lines, as GitHub would put them there.
EXPRESSIONS = {"${{ matrix.shard }}": "2", "${{ github.run_number }}": "41",
               "${{ matrix.runtime }}": "onnxruntime"}


def _job_commands(job: dict) -> list[list[str]]:
    """The job's gen-seq-tests command lines, its expressions replaced by values."""
    found = []
    for step in job["steps"]:
        run = step.get("run", "")
        for expression, value in EXPRESSIONS.items():
            run = run.replace(expression, value)
        found += commands({"run": run})
    return found


def test_the_nightly_fuzz_workflows_shard_carry_their_state_and_merge():
    """Both nightly campaigns (this repository's, the example for a runtime's): scheduled, each
    shard's `--shard K/N` matching the matrix, the profile and example database restored and
    saved under one key whose prefix restores the newest, findings uploaded and merged with
    `fuzz merge` from where the shards wrote them; every command accepted by the CLI."""
    for path in (FUZZ_NIGHTLY, FUZZ_EXAMPLE):
        workflow = load(path)
        triggers = workflow.get("on", workflow.get(True))
        assert {"schedule", "workflow_dispatch"} <= set(triggers), path
        assert workflow["permissions"] == {"contents": "read"}
        fuzz_job, merge_job = workflow["jobs"]["fuzz"], workflow["jobs"]["merge"]
        assert merge_job["needs"] == "fuzz" and "!cancelled()" in merge_job["if"]
        shards = fuzz_job["strategy"]["matrix"]["shard"]
        assert shards == list(range(1, len(shards) + 1))
        (campaign,) = [argv for argv in _job_commands(fuzz_job) if argv[1] == "fuzz"]
        params = _fuzz_parse(campaign).params
        assert params["shard"] == f"2/{len(shards)}", path  # K from the matrix (2 here)
        assert params["backends"] == ("onnxruntime",) and params["seed"] == 41
        assert params["time_budget"] >= 1200 and params["refusal_aware"]
        restore, save = ([s for s in fuzz_job["steps"] if s.get("uses", "").startswith(
            f"actions/cache/{kind}@")][0]["with"] for kind in ("restore", "save"))
        assert restore["key"] == save["key"] and save["key"].endswith("-${{ github.run_id }}")
        assert restore["restore-keys"] == save["key"].removesuffix("${{ github.run_id }}")
        state = Path(save["path"])
        assert Path(params["profile_path"]).parent == state and Path(params["database"]) == \
            state / "database"
        (upload,) = [s["with"] for s in fuzz_job["steps"]
                     if s.get("uses", "").startswith("actions/upload-artifact@")]
        uploaded = Path(upload["path"])
        assert Path(params["output"]) == uploaded / "findings"
        assert Path(params["json_path"]) == uploaded / "campaign.json"
        (download,) = [s["with"] for s in merge_job["steps"]
                       if s.get("uses", "").startswith("actions/download-artifact@")]
        assert upload["name"].split("${{")[0] == download["pattern"].rstrip("*")
        (merge,) = [argv for argv in _job_commands(merge_job) if argv[1] == "fuzz"]
        merge_params = _fuzz_parse(merge).params
        assert merge_params["folders"] == (Path(download["path"], "*", "findings"),)
