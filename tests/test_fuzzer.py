"""gen-seq-tests fuzz: valid random programs, planted faults found and shrunk into buildable case
files, and the judge proved on a few hundred programs against onnxruntime and onnx's reference
evaluator (every disagreement classified as a documented runtime bug; the oracle agrees with
every program, and so does onnxruntime)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner
from faulty_backends import FAULTS
from hypothesis.database import DirectoryBasedExampleDatabase

from onnx_seq_tests._casefile.reader import load_cases, load_text
from onnx_seq_tests._cli import main
from onnx_seq_tests._core.cases import Graph, Node, walk
from onnx_seq_tests._core.errors import NoResult
from onnx_seq_tests._fuzz import judge, known_bugs
from onnx_seq_tests._fuzz.campaign import DATABASE_KEY, Options, campaign_seeds, program_seed
from onnx_seq_tests._fuzz.findings import case_text, merge, signature_of
from onnx_seq_tests._fuzz.programs import OPERATORS, generate
from onnx_seq_tests._fuzz.recipes import to_case
from onnx_seq_tests._fuzz.schemas import version_opsets
from onnx_seq_tests._oracle import oracle
from onnx_seq_tests._suite.compiling import compile_cases, fingerprint

#: Programs drawn by the validity test, and judged by the three-way test.
PROGRAMS = 400
ROOT = Path(__file__).resolve().parent.parent
JUDGED = 200


def _programs(count: int, seed: int = 0):
    """(seed, recipe, built) of the first `count` seeds whose spec gives a result."""
    found, dropped = [], 0
    for i in range(count):
        try:
            recipe = generate(program_seed(seed, i))
            case = to_case(recipe, f"p{i}")
        except NoResult:
            dropped += 1
            continue
        found.append((program_seed(seed, i), recipe, judge.build(case)))
    return found, dropped


@pytest.fixture(scope="module")
def programs():
    return _programs(PROGRAMS)


def test_every_program_is_valid(programs):
    """An invalid program is a generator bug: every one passes what a built case passes."""
    found, dropped = programs
    invalid = [f"{seed}: {built.problem}" for seed, _, built in found if built.problem]
    assert invalid == []
    for _, _, built in found[:100]:  # each can be written as a case file (a finding)
        assert case_text(built.case, "signature", "command").startswith("# gen-seq-tests fuzz")
    assert len(found) / PROGRAMS > 0.75, f"{dropped} of {PROGRAMS} dropped (no spec result)"


#: Programs once invalid (generator bugs since fixed): a Loop inserting tensors that contradict
#: the carried sequence's inferred element shape (in either form), or a Loop body whose
#: SequenceInsert or Identity does not take the carried type.
ONCE_INVALID = ("0:679", "0:1062", "0:1267", "0:1472", "0:1950", "0:2493", "0:2861", "0:4666",
                "0:5611", "0:7048")


@pytest.mark.parametrize("seed", ONCE_INVALID)
def test_programs_once_invalid_are_valid_or_dropped(seed):
    try:
        case = to_case(generate(seed), "p")
    except NoResult:
        return  # the spec (or the schema of the Loop's body) gives no program
    assert judge.build(case).problem == ""


def test_programs_cover_every_operator_version_chains_and_bodies(programs):
    found, _ = programs
    versions, shapes = set(), Counter()
    for _, recipe, built in found:
        sequence_nodes = [n for n in recipe.nodes if n.op_type in OPERATORS]
        for node in sequence_nodes:
            versions.add((node.op_type, next(v for v, o in version_opsets(node.op_type).items()
                                             if recipe.opset in o)))
        shapes["chain"] += len(sequence_nodes) >= 2
        for node in walk(built.case.graph):
            shapes[node.op_type] += 1
        shapes["tensor_io"] += len(built.folders) > 1
    wanted = {(op, v) for op in OPERATORS for v in version_opsets(op)}
    assert wanted - versions == set()
    for shape in ("chain", "If", "Loop", "SequenceMap", "Constant", "tensor_io"):
        assert shapes[shape] >= 3, shape


def test_constant_positions_and_splits_take_both_constant_forms(programs):
    """A position or split drawn as a Constant node holds its tensor attribute `value` (int32
    and int64, as exporters write it) or `value_int(s)` (issues 26, 29); a program with a
    `value` tensor is written as a finding's case file and reads back as the same case."""
    found, _ = programs
    forms: Counter = Counter()
    written = 0
    for _, recipe, built in found:
        kinds = {name if name != "value" else f"value {value.dtype}"
                 for node in recipe.nodes if node.op_type == "Constant"
                 for name, value in node.attributes}
        forms.update(kinds)
        if written < 3 and "value int32" in kinds and not built.problem:
            text = case_text(built.case, "signature", "command")
            [back] = load_text(text, "finding.yaml")
            assert fingerprint(back) == fingerprint(built.case)
            written += 1
    assert forms["value int32"] >= 3 and forms["value int64"] >= 3, forms
    assert forms["value_int"] + forms["value_ints"] >= 3, forms
    assert written == 3


def test_values_hit_the_edges(programs):
    found, _ = programs
    seen = Counter()
    for _, recipe, _ in found:
        for source in recipe.sources:
            values = source.value if isinstance(source.value, list) else [source.value]
            seen["empty sequence"] += isinstance(source.value, list) and not source.value
            seen["empty optional"] += source.value is None
            for value in values:
                if value is None:
                    continue
                array = np.asarray(value)
                if array.dtype.kind == "f":
                    seen["nan"] += bool(np.isnan(array).any())
                    seen["-0"] += bool(np.any((array == 0) & np.signbit(array)))
                    seen["inf"] += bool(np.isinf(array).any())
                if array.dtype == object:
                    seen["empty string"] += any(v == "" for v in array.reshape(-1))
                    seen["NUL"] += any("\x00" in v for v in array.reshape(-1))
                seen["0-d"] += array.ndim == 0
                seen["zero-size"] += array.size == 0 and array.ndim > 0
                seen["packed odd"] += array.dtype.name in ("int4", "uint4", "int2", "uint2") \
                    and array.size % 2 == 1
    for edge in ("empty sequence", "empty optional", "nan", "-0", "inf", "empty string", "NUL",
                 "0-d", "zero-size", "packed odd"):
        assert seen[edge] >= 1, edge


def test_the_same_seed_draws_the_same_program():
    compared = 0
    for i in range(20):
        try:
            a, b = (to_case(generate(program_seed(5, i)), "x") for _ in range(2))
        except NoResult:
            continue
        assert fingerprint(a) == fingerprint(b)
        compared += 1
    assert compared >= 10


def _fuzz(args, tmp_path, name):
    out, report = tmp_path / name, tmp_path / f"{name}.json"
    result = CliRunner().invoke(main, ["fuzz", *args, "-o", str(out), "--json", str(report),
                                       "--shrink-budget", "120", "--no-progress"])
    return result, out, json.loads(report.read_text()) if report.exists() else None


def test_max_findings_0_counts_every_disagreement_and_shrinks_none(tmp_path):
    """A campaign that only counts (its time all judging, as a benchmark wants): nothing is
    shrunk or written, the disagreements are counted and still give exit status 1; a backend
    that agrees gives 0."""
    args = ["--max-findings", "0", "--seed", "2", "--max-examples", "12"]
    result, out, stats = _fuzz(["-b", "faulty_backends:DropLast", *args], tmp_path, "counted")
    assert result.exit_code == 1, result.output
    assert stats["findings"] == [] and not list(out.glob("*.yaml"))
    failed = sum(c.get("fail", 0) for c in stats["runs"]["faulty_backends:DropLast"].values())
    assert failed > 0
    assert f"{failed} disagreement(s) counted, none shrunk (--max-findings 0)" in result.output
    result, _, stats = _fuzz(["-b", "onnxruntime", *args], tmp_path, "agreed")
    assert result.exit_code == 0, result.output
    assert "0 disagreement(s) counted" in result.output


def test_every_planted_fault_is_found_shrunk_and_written_as_a_buildable_case(tmp_path):
    specs = [f"faulty_backends:{fault.__name__}" for fault in FAULTS]
    args = [a for spec in specs for a in ("-b", spec)] + [
        "--max-findings", "1", "--seed", "2", "--max-examples", "40"]
    result, out, stats = _fuzz(args, tmp_path, "faults")
    assert result.exit_code == 1, result.output
    by_backend = {f["backend"]: f for f in stats["findings"]}
    assert sorted(by_backend) == sorted(specs)
    assert stats["programs"]["invalid"] == 0
    for finding in stats["findings"]:
        assert finding["file"], finding
        assert finding["nodes_after"] <= min(3, finding["nodes_before"])
    cases = load_cases([out])
    assert len(cases) == len(stats["findings"])
    compile_cases(cases)  # every finding builds
    text = (out / by_backend[specs[0]]["file"]).read_text()
    assert "Found by gen-seq-tests fuzz: on backend faulty_backends:DropLast" in text
    assert "--seed 2 --max-findings 1 --max-examples 40" in text
    assert stats["findings"][0]["seconds_to_shrink"] < 10
    # the same seed gives the same findings (the doc aside: it quotes the command)
    database = tmp_path / "db"
    again, out_again, _ = _fuzz(args[:2] + args[-6:] + ["--database", str(database)],
                                tmp_path, "again")
    assert again.exit_code == 1
    # hypothesis's example database now holds the finding's program seed, replayed first
    saved = list(DirectoryBasedExampleDatabase(str(database)).fetch(DATABASE_KEY))
    assert saved == [by_backend[specs[0]]["seed"].encode()]
    replay = Options([specs[0]], seed=9, max_examples=3,
                     database=DirectoryBasedExampleDatabase(str(database)))
    assert list(campaign_seeds(replay)) == [by_backend[specs[0]]["seed"], "9:0", "9:1"]
    assert sorted(p.name for p in out_again.iterdir()) == [by_backend[specs[0]]["file"]]
    for path in out_again.iterdir():
        [alone], [first] = load_cases([path]), load_cases([out / path.name])
        assert fingerprint(replace(alone, doc="")) == fingerprint(replace(first, doc=""))
    # merging two campaigns keeps one file per signature
    read, kept = merge([out, out_again], tmp_path / "merged")
    assert (read, kept) == (len(stats["findings"]) + len(list(out_again.iterdir())),
                            len(stats["findings"]))
    assert {signature_of(p) for p in (tmp_path / "merged").iterdir()} == {
        f["signature"] for f in stats["findings"]}


def test_bad_usage_exits_2(tmp_path):
    runner = CliRunner()
    for args in (["fuzz"], ["fuzz", "-b", "oracle", "--op", "SequenceAtt"],
                 ["fuzz", "-b", "oracle", "--opset", "3"],
                 ["fuzz", "-b", "oracle", "--shard", "3/2"],
                 ["fuzz", "-b", "no_such_backend_module"],
                 ["fuzz", "merge", str(tmp_path / "missing"), "-o", str(tmp_path / "m")]):
        result = runner.invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output


def test_shards_share_no_program():
    parts = [list(campaign_seeds(Options(["oracle"], seed=3, max_examples=10, shard=(k, 3))))
             for k in (1, 2, 3)]
    assert len(set().union(*parts)) == 30
    assert parts[0][:2] == ["3:0", "3:3"]


# -- proving the judge ---------------------------------------------------------------------------

def test_every_rule_names_a_note_of_its_backend():
    notes = yaml.safe_load((ROOT / "docs" / "conformance-notes.yaml").read_text("utf-8"))
    titles = {(backend, n["title"]) for n in notes  # a note's backend may be a list
              for backend in (n["backend"] if isinstance(n["backend"], list) else [n["backend"]])}
    one, two, seq = np.array(1), np.array(2), [np.array(1.0)]

    def node(op_type, inputs, outputs=1, **attributes):
        return Node(op_type, tuple(f"i{k}" for k in range(inputs)),
                    tuple(f"o{k}" for k in range(outputs)), tuple(attributes.items()), None)

    probes = [("reference", node("Optional", 1), [one]),
              ("reference", node("SequenceInsert", 3), [seq, one, one]),
              ("reference", node("SequenceMap", 3, body=Graph((), (), ())), [seq, seq, seq]),
              ("reference", node("SequenceMap", 1, body=Graph((), (), (node("Abs", 1),))),
               [seq]),
              ("reference", node("Loop", 3, 1), [two, oracle.MISSING, seq]),
              ("reference", node("Loop", 3, 2), [two, np.array(True), seq]),
              ("onnxruntime", node("SplitToSequence", 2, keepdims=0), [np.ones(2), one])]
    found = set()
    for backend, probe, args in probes:
        title = known_bugs.RULES[backend](probe, args)
        assert (backend, title) in titles, (backend, probe.op_type, title)
        found.add(title)
    assert len(found) == len(probes)  # each probe meets its own rule


def test_the_judge_oracle_onnxruntime_and_reference_agree_but_for_documented_bugs(programs,
                                                                                 tmp_path):
    found, _ = programs
    built = [b for _, _, b in found[:JUDGED]]
    verdicts = judge.run(built, ["oracle", "onnxruntime", "reference"], tmp_path / "suite",
                         jobs=2)
    outcomes = Counter((v.backend, v.outcome) for vs in verdicts.values() for v in vs)
    _, unexplained = known_bugs.classify(built, verdicts, ignored=("pass", "error", "refused"))
    assert unexplained == []
    assert outcomes["oracle", "pass"] >= JUDGED
    assert outcomes["onnxruntime", "pass"] >= JUDGED // 2


def test_an_honest_backend_gets_no_finding(tmp_path):
    result, out, stats = _fuzz(["-b", "onnxruntime", "--seed", "0", "--max-examples", "24"],
                               tmp_path, "honest")
    assert result.exit_code == 0, result.output
    assert stats["findings"] == [] and not out.exists()
    assert stats["runs"]["onnxruntime"]["sequence_optional"]["pass"] >= 8


def test_triaged_findings_are_cases_named_for_the_fuzzer(root):
    """cases/fuzz: shrunk findings of the fuzzer kept as regression cases (built by make build
    like every case; here, their names)."""
    cases = load_cases([root / "cases" / "fuzz"])
    assert cases and all(c.name.startswith("fuzz_") for c in cases)
