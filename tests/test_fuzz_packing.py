"""Many programs per compiled model (`fuzz --pack N`, _fuzz/packing.py): a packed case is the
programs side by side and compiles as every case does, and judging in packs gives each program
exactly the verdicts, and a campaign exactly the outcomes and findings, of one program per
model."""

from __future__ import annotations

import json
import math
import re
from collections import Counter

import onnx
import pytest
from click.testing import CliRunner

from onnx_seq_tests._cli import main
from onnx_seq_tests._core.problems import Problems
from onnx_seq_tests._fuzz import campaign, inprocess, judge, packing
from onnx_seq_tests._fuzz.campaign import Options
from onnx_seq_tests._fuzz.profile import Profile, features
from onnx_seq_tests._runtimes.records import parse_record, records
from onnx_seq_tests._suite.compiling import compile_case

#: Position-independent planted faults (a fault of "the model's first tensor" is seen only on
#: the program that comes first in a pack: the module's docstring says so).
BACKENDS = ("faulty_backends:Reverse", "faulty_backends:CrashOnSequenceEmpty", "onnxruntime")


def _batch(seed: int, count: int) -> list:
    """The valid programs a campaign of `seed` draws first, built (judge.Built)."""
    options = Options(["oracle"], seed=seed, max_examples=count)
    batch = campaign._draw(campaign.campaign_seeds(options), options, campaign.Stats())
    return [built for _, _, built in batch]


def test_a_pack_is_its_programs_side_by_side_and_passes_the_oracle():
    built = _batch(5, 24)
    members = [m for m in packing.members(built)]
    groups: dict[tuple, list] = {}
    for member in members:
        groups.setdefault((member.form, packing.packable(member.case)), []).append(member)
    group = max(groups.values(), key=len)
    assert len(group) >= 3, "draw more programs: no group of three to pack"
    cases = [m.case for m in group]
    packed = packing.pack_cases(cases, "pack")
    graph = packed.graph
    assert [d.name for d in graph.outputs] == [
        packing.prefix(k) + d.name for k, c in enumerate(cases) for d in c.graph.outputs]
    assert len(graph.nodes) == sum(len(c.graph.nodes) for c in cases)
    names = [o for n in graph.nodes for o in n.outputs if o]
    assert len(names) == len(set(names)), "the programs' values stay apart"
    assert packed.data_sets[0].outputs == tuple(
        v for c in cases for v in c.data_sets[0].outputs)
    problems = Problems()
    assert compile_case(packed, "undefined", problems) is not None, problems.found
    assert inprocess.judge_case(packed, None).outcome == "pass"
    unit = packing.Unit(tuple(group))
    assert unit.owners() == [k for k, c in enumerate(cases) for _ in c.graph.outputs]


@pytest.mark.parametrize("spec", BACKENDS)
def test_packed_verdicts_are_those_of_one_program_per_model(spec, tmp_path):
    built = _batch(3, 96)
    alone = judge.run(built, [spec], tmp_path / "alone", timeout=20.0)
    tally: Counter = Counter()
    packed = packing.start(built, [spec], tmp_path / "packed", timeout=20.0,
                           background=False, sizes={spec: 8}, tally=tally).result()
    assert packed == alone
    assert tally["packs"] > 0 and tally["pack pass"] > 0, "nothing was packed"
    told = [v for verdicts in packed.values() for v in verdicts if v.packed]
    assert all(v.outcome == "fail" for v in told)
    if spec == "faulty_backends:Reverse":
        assert told, "no fail was told by its pack's differences"
    assert tally["halved"] > 0, "no pack was halved"
    if spec != "onnxruntime":
        assert tally["again"] > 0, "no program was run again after its pack"
        return
    # learned from these verdicts, what ends packs runs alone at once: the same verdicts
    profile = Profile()
    for item in built:
        for verdict in alone.get(item.case.name, []):
            profile.learn(spec, verdict.form, verdict.outcome, features(item.cases.values()))
    assert profile.ends_packs(spec), "nothing ended a pack"
    learned: Counter = Counter()
    assert packing.start(built, [spec], tmp_path / "learned", timeout=20.0, background=False,
                         sizes={spec: 8}, tally=learned, profile=profile).result() == alone
    assert learned["pack pass"] > 0 and learned["halved"] < tally["halved"]


def test_a_refusal_that_names_its_node_runs_that_program_alone_and_the_rest_packed(
        tmp_path, monkeypatch):
    """A pack's nodes are named by their first outputs (`p<k>_...`), so a refusal that names
    its node names the program: it runs alone and the others are packed again without it,
    where a refusal naming no node halves its pack; either way every verdict is that of the
    program alone."""
    spec = "faulty_backends:RefuseSequenceEmptyAtItsNode"
    built = _batch(3, 96)
    alone = judge.run(built, [spec], tmp_path / "alone", timeout=20.0)
    tallies = []
    for node in (packing._NODE, re.compile("(?!)")):  # then as if no message named a node
        monkeypatch.setattr(packing, "_NODE", node)
        tally: Counter = Counter()
        packed = packing.start(built, [spec], tmp_path / "packed", timeout=20.0,
                               background=False, sizes={spec: 8}, tally=tally).result()
        assert packed == alone
        tallies.append(tally)
    located, unlocated = tallies
    assert sum(n for k, n in located.items() if k.endswith("packed located")) > 0
    assert not any(k.endswith("packed located") for k in unlocated)
    assert located["halved"] < unlocated["halved"]
    assert located["packs"] + located["alone"] < unlocated["packs"] + unlocated["alone"]


def test_a_packs_nodes_are_named_by_their_programs_values():
    built = _batch(5, 24)
    group = [m for m in packing.members(built) if m.form == packing.members(built)[0].form]
    group = [m for m in group if packing.packable(m.case) == packing.packable(group[0].case)]
    assert len(group) >= 2, "draw more programs: no two to pack"
    unit = packing.Unit(tuple(group[:2]))
    files = unit.files("test_pack_0")
    model = onnx.load_from_string(files["model.onnx"])
    names = [n.name for n in model.graph.node]
    assert names == [n.output[0] for n in model.graph.node]
    assert {name[:3] for name in names} == {"p0_", "p1_"}
    refused = "cannot lower SequenceEmpty at node 'p1_s'; see node 'p7_x' too"
    assert packing.located(unit, refused) == [1], "members it has, in order"
    assert packing.located(unit, "a message naming no node 'x'") == []


def _fuzz(tmp_path, spec: str, pack: int) -> tuple[dict, dict]:
    out = tmp_path / f"pack{pack}"
    out.mkdir()
    result = CliRunner().invoke(main, [
        "fuzz", "-b", spec, "--seed", "4", "--max-examples", "150", "--pack", str(pack),
        "--shrink-budget", "0", "-o", str(out / "findings"), "--json", str(out / "fuzz.json"),
        "--no-progress"])
    assert result.exit_code in (0, 1), result.output + result.stderr
    stats = json.loads((out / "fuzz.json").read_text())
    files = {p.name: p.read_bytes() for p in sorted((out / "findings").glob("*.yaml"))}
    return stats, files


@pytest.mark.parametrize("spec", ["faulty_backends:Reverse", "onnxruntime"])
def test_a_packed_campaign_finds_what_an_unpacked_one_finds(spec, tmp_path):
    one, one_files = _fuzz(tmp_path, spec, 1)
    packed, packed_files = _fuzz(tmp_path, spec, 8)
    assert packed["packing"]["sizes"] == {spec: 8} and packed["packing"]["packs"] > 0
    assert "packs" not in one["packing"]
    for key in ("programs", "runs", "profile"):
        assert packed[key] == one[key], key
    keep = ("signature", "outcome", "kind", "form", "seed", "nodes_after", "message")
    assert [{k: f[k] for k in keep} for f in packed["findings"]] == \
        [{k: f[k] for k in keep} for f in one["findings"]]
    assert packed_files == one_files
    if spec != "onnxruntime":
        assert one_files, "the planted fault is found"


def test_a_fail_told_by_its_pack_is_judged_alone_before_it_is_shrunk(tmp_path, monkeypatch):
    """The verdicts a pack's differences tell are counted as they are, but a finding is shrunk
    from its program judged alone (campaign._alone), so no finding rests on a pack."""
    spec = "faulty_backends:ChangeValue"
    options = Options([spec], seed=4, max_examples=96, shrink_budget=0.0, profile=Profile())
    batch = campaign._draw(campaign.campaign_seeds(options), options, campaign.Stats(), 96)
    verdicts = packing.start([b for _, _, b in batch], [spec], tmp_path / "packed",
                             timeout=20.0, background=False, sizes={spec: 8}).result()
    assert any(v.packed for vs in verdicts.values() for v in vs), "no fail told by a pack"
    judged_alone = []

    def alone(built, verdict, options, work):
        again = original(built, verdict, options, work)
        judged_alone.append((verdict, again))
        return again

    original = campaign._alone
    monkeypatch.setattr(campaign, "_alone", alone)
    state = campaign._State(options, 0.0, work=tmp_path / "suite")
    campaign._judge_batch(state, batch, verdicts)
    assert judged_alone and state.stats.findings
    assert all(v.packed and again == v and not again.packed for v, again in judged_alone)


def test_the_default_packs_only_where_a_record_says_so():
    sizes = {r.name: r.pack for r in records()}
    assert sizes["iree"] > 1 and sizes["tvm"] == 1  # TVM: one program alone costs ~5 ms
    assert packing.pack_size("iree") == sizes["iree"]
    assert packing.pack_size("onnxruntime") == 1
    assert packing.pack_size("faulty_backends:Reverse") == 1
    assert packing.pack_size("oracle", 8) == packing.pack_size("mutant:x", 8) == 1
    assert packing.pack_size("tvm", 3) == 3


def test_likely_refused_programs_run_alone_and_sizes_follow_how_often_packs_pass():
    built = _batch(3, 40)
    members = packing.members(built)
    profile = Profile()
    for member in members[:1]:  # one feature refused: every other feature never judged
        profile.counts["b"] = {f: [5, 0] for f in packing.features([(member.form,
                                                                     member.case)])}
    units = packing.units(members, {m.form: 4 for m in members}, profile.counts["b"])
    assert all(len(u.members) == 1 for u in units), "nothing known: every program alone"
    units = packing.units(members, {m.form: 4 for m in members})
    assert max(len(u.members) for u in units) == 4
    tally: Counter = Counter({"b|f packed": 100, "b|f packed kept": 100})
    assert packing.adapted(16, tally, "b", "f") == 16
    tally = Counter({"b|f packed": 100, "b|f packed kept": 97})  # 3% end their pack
    assert packing.adapted(64, tally, "b", "f") == round(math.log(2) / (2 * 3 / 108)) == 12
    tally = Counter({"b|f packed": 100, "b|f packed kept": 20})
    assert packing.adapted(16, tally, "b", "f") == 1
    assert packing.adapted(16, Counter(), "b", "f") == 16


def test_at_most_one_program_with_an_unknown_dim_per_pack():
    built = _batch(3, 60)
    found = [m for m in packing.members(built) if m.form == packing.members(built)[0].form]
    loose = [packing._loose(m.case) for m in found]
    assert any(loose) and not all(loose), "draw programs with and without unknown dims"
    chunks = packing._chunks(found, 4)
    assert sorted(id(m) for c in chunks for m in c) == sorted(id(m) for m in found)
    assert all(len(c) <= 4 and sum(map(packing._loose, (m.case for m in c))) <= 1
               for c in chunks)
    assert max(map(len, chunks)) > 1


@pytest.mark.parametrize("pack, expected", [("", 1), (', "pack": 4', 4), (', "pack": 0', None),
                                            (', "pack": True', None), (', "pack": "4"', None)])
def test_a_record_may_say_how_many_programs_to_pack(pack, expected):
    source = ('RUNTIME = {"name": "rt", "label": "RT", "summary": "s", "requires": [], '
              f'"imports": [], "version": "v"{pack}}}\n')
    if expected is None:
        with pytest.raises(ValueError, match="pack an int >= 1"):
            parse_record(source, "rt.py")
    else:
        found = parse_record(source, "rt.py")
        assert found is not None and found.pack == expected


def test_batches_grow_to_four_of_the_largest_pack_a_record_gives():
    """A campaign's batches double from campaign.BATCH up to PACKS_PER_BATCH times BATCH or
    the largest `pack` of its runtimes' records, whatever --pack says; a campaign judged in
    this process only (oracle, mutants) keeps campaign.BATCH."""
    largest = campaign.PACKS_PER_BATCH * max(campaign.BATCH, packing.pack_size("iree"))
    sizes = [campaign.batch_size(["iree"], k) for k in range(8)]
    assert sizes[0] == campaign.BATCH and sizes[1] == min(largest, 2 * campaign.BATCH)
    assert sizes == sorted(sizes) and sizes[-1] == largest
    assert campaign.batch_size(["oracle", "mutant:x"], 5) == campaign.BATCH
    assert campaign.batch_size(["onnxruntime"], 7) == campaign.PACKS_PER_BATCH * campaign.BATCH
    assert campaign.batch_size(["onnxruntime", "iree"], 7) == largest
