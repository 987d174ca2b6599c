"""Many programs per compiled model (`fuzz --pack N`, _fuzz/packing.py): a packed case is the
programs side by side and compiles as every case does, and judging in packs gives each program
exactly the verdicts, and a campaign exactly the outcomes and findings, of one program per
model."""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter

import onnx
import pytest
from click.testing import CliRunner

from onnx_seq_tests._cli import main
from onnx_seq_tests._core.errors import NoResult
from onnx_seq_tests._core.problems import Problems
from onnx_seq_tests._fuzz import campaign, inprocess, judge, packing, programs
from onnx_seq_tests._fuzz.campaign import Options
from onnx_seq_tests._fuzz.profile import Profile, features
from onnx_seq_tests._fuzz.programs import OPERATORS, generate, schemas_version
from onnx_seq_tests._fuzz.schemas import opsets, version_opsets
from onnx_seq_tests._runtimes.records import parse_record, records
from onnx_seq_tests._suite.compiling import compile_case
from onnx_seq_tests._suite.layout import SUITE

#: Position-independent planted faults (a fault of "the model's first tensor" is seen only on
#: the program that comes first in a pack: the module's docstring says so).
BACKENDS = ("faulty_backends:Reverse", "faulty_backends:CrashOnSequenceEmpty", "onnxruntime")


def _batch(seed: int, count: int) -> list:
    """The valid programs a campaign of `seed` draws first, built (judge.Built)."""
    options = Options(["oracle"], seed=seed, max_examples=count)
    batch = campaign._draw(campaign.campaign_seeds(options), options, campaign.Stats())
    return [built for _, _, built in batch]


def _tensor_boundary_batch(seed: int, count: int) -> list:
    """The valid programs a campaign of `seed` draws first where every sequence or optional
    graph input and output is refused (as IREE refuses them), built: the tensor-boundary
    form of most of them is the case as written, renamed."""
    profile = Profile()
    profile.counts["b"] = {f"{SUITE}|{side}:{kind}": [3, 0] for side in ("input", "output")
                           for kind in ("sequence", "optional")}
    profile.reached["b"] = {SUITE: [0, 12]}
    options = Options(["oracle"], seed=seed, max_examples=count, profile=profile,
                      refusal_aware=True)
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


def test_a_fail_whose_records_are_cut_tells_every_program_before_the_last_it_names(tmp_path):
    """A pack's fail keeps MAX_MESSAGES records; with one data set they come in output order,
    so every program named but the last has all of its own: told by the pack, the last run
    alone, the programs after it packed again. The verdicts are those of each program alone."""
    spec, built = "faulty_backends:Reverse", _batch(3, 96)
    alone = judge.run(built, [spec], tmp_path / "alone", timeout=20.0)
    tally: Counter = Counter()
    packed = packing.start(built, [spec], tmp_path / "packed", timeout=20.0,
                           background=False, sizes={spec: 32}, tally=tally).result()
    assert packed == alone
    assert tally["fail records cut"] > 0 and tally["told"] > tally["fail records cut"]


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
    # learned from these verdicts, what ends packs runs alone at once, once the programs so
    # flagged in the campaign mostly ended their packs (`flagged_alone`): the same verdicts
    profile = Profile()
    for item in built:
        for verdict in alone.get(item.case.name, []):
            profile.learn(spec, verdict.form, verdict.outcome, features(item.cases.values()))
    assert profile.ends_packs(spec), "nothing ended a pack"
    flagged = packing.flagged(packing.members(built), profile, spec)
    ended = sum(v.outcome not in packing.KEPT for vs in alone.values() for v in vs
                if v.folder in flagged)
    assert flagged and ended > packing.RISK * len(flagged)
    learned = Counter({f"{spec} flagged": 9, f"{spec} flagged ended": 9})  # 9 / 10 > RISK
    assert packing.start(built, [spec], tmp_path / "learned", timeout=20.0, background=False,
                         sizes={spec: 8}, tally=learned, profile=profile).result() == alone
    assert learned["pack pass"] > 0 and learned["halved"] < tally["halved"]
    assert learned[f"{spec} flagged"] == 9 + len(flagged)
    assert learned[f"{spec} flagged ended"] == 9 + ended
    mostly_kept = Counter({f"{spec} flagged": 9, f"{spec} flagged ended": 1})
    assert packing.start(built, [spec], tmp_path / "kept", timeout=20.0, background=False,
                         sizes={spec: 8}, tally=mostly_kept, profile=profile).result() == alone
    assert mostly_kept["halved"] > learned["halved"], "flagged programs were packed"


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
    assert packing.flagged(members, profile, "b") == {m.folder for m in members}, (
        "nothing known: every program likely refused")
    refused = set(profile.counts["b"])
    assert packing.refusing(members, profile, "b") == {
        m.folder for m in members if refused & packing.features([(m.form, m.case)])}
    assert not packing.flagged_alone("b", Counter()), "none assumed refused at the start"
    assert packing.flagged_alone("b", Counter({"b flagged": 9, "b flagged ended": 9}))
    assert not packing.flagged_alone("b", Counter({"b flagged": 9, "b flagged ended": 7}))
    units = packing.units(members, {m.form: 4 for m in members}, {m.folder for m in members})
    assert all(len(u.members) == 1 for u in units)
    units = packing.units(members, {m.form: 4 for m in members})
    assert max(len(u.members) for u in units) == 4
    last = "b|f last batch"
    tally: Counter = Counter({f"{last} packed": 100, f"{last} ended": 0})
    assert packing.adapted(16, tally, "b", "f") == 16
    tally = Counter({f"{last} packed": 100, f"{last} ended": 3})  # 3% end their pack
    assert packing.adapted(64, tally, "b", "f") == round(math.log(2) / (2 * 3 / 108)) == 12
    tally = Counter({f"{last} packed": 100, f"{last} ended": 80})
    assert packing.adapted(16, tally, "b", "f") == 1
    assert packing.adapted(16, Counter(), "b", "f") == 16


def test_the_last_batch_decides_the_pack_sizes(tmp_path):
    """judge_packed leaves the batch's own counts for `adapted`: packed programs per form and
    those that ended their pack, not counting refusals located at their node."""
    spec = "faulty_backends:RefuseSequenceEmptyAtItsNode"
    built = _batch(3, 96)
    tally: Counter = Counter({f"{spec}|{f} last batch ended": 50 for f in ("a", "b")})
    packing.start(built, [spec], tmp_path, timeout=20.0, background=False, sizes={spec: 8},
                  tally=tally).result()
    forms = {m.form for m in packing.members(built)}
    for form in forms:
        key = f"{spec}|{form} packed"
        assert tally[f"{spec}|{form} last batch packed"] == tally[key] > 0
        assert tally[f"{spec}|{form} last batch ended"] == (
            tally[key] - tally[f"{key} kept"] - tally[f"{key} located"])
    assert any(tally[f"{spec}|{form} packed located"] for form in forms)


def test_at_most_one_program_with_an_unknown_dim_per_pack():
    built = _batch(3, 60)
    found = [m for m in packing.members(built) if m.form == packing.members(built)[0].form]
    loose = [packing._loose(m.case) for m in found]
    assert any(loose) and not all(loose), "draw programs with and without unknown dims"
    chunks = packing._chunks(found, 4, loose_apart=True)
    assert sorted(id(m) for c in chunks for m in c) == sorted(id(m) for m in found)
    assert all(len(c) <= 4 and sum(map(packing._loose, (m.case for m in c))) <= 1
               for c in chunks)
    assert max(map(len, chunks)) > 1
    together = packing._chunks(found, 4, loose_apart=False)  # a runtime without TVM's bug
    assert [m for c in together for m in c] == found and len(together) < len(chunks)
    assert packing._shares_dims("tvm") and not packing._shares_dims("iree")
    assert not packing._shares_dims("faulty_backends:Reverse")


@pytest.mark.parametrize("spec", ["faulty_backends:Reverse", "onnxruntime"])
def test_a_tensor_form_that_is_the_case_renamed_is_judged_once(spec, tmp_path):
    """A program without a sequence or optional at its boundary has a tensor-boundary form
    that is the case itself, renamed: packed, it is judged once, and its verdict is the
    case's (the same as its own folder's alone), marked as not its own run."""
    built = _tensor_boundary_batch(3, 48)
    found = packing.members(built)
    twins = packing.twins(found)
    alone = judge.run(built, [spec], tmp_path / "alone", timeout=20.0)
    tally: Counter = Counter()
    packed = packing.start(built, [spec], tmp_path / "packed", timeout=20.0,
                           background=False, sizes={spec: 8}, tally=tally).result()
    assert packed == alone and tally["twins"] == len(twins) >= 10
    assert all(v.packed for vs in packed.values() for v in vs if v.folder in twins)
    forms = {m.form for m in found}
    assert 0 < sum(tally[f"{spec}|{f} packed"] for f in forms) <= len(found) - len(twins)
    assert twins and all(first.program == found_by(found, folder).program
                         and first.folder != folder for folder, first in twins.items())
    for folder, first in twins.items():
        twin = found_by(found, folder)
        assert twin.case.graph == first.case.graph and twin.case.name != first.case.name
    apart = [m for m in found if m.folder not in twins and any(
        o.program == m.program and o.folder != m.folder for o in found)]
    assert apart, "every program has forms of its own too"
    assert all(m.folder not in twins for m in found if m.form == found[0].form)


def found_by(found, folder):
    return next(m for m in found if m.folder == folder)


@pytest.mark.parametrize("pack, expected", [
    ("", 1), (', "pack": 4', 4), (', "pack": 0', None), (', "pack": True', None),
    (', "pack": "4"', None), (', "shared_unknown_dims": 1', None),
    (', "pack": 2, "shared_unknown_dims": True', 2)])
def test_a_record_may_say_how_many_programs_to_pack(pack, expected):
    source = ('RUNTIME = {"name": "rt", "label": "RT", "summary": "s", "requires": [], '
              f'"imports": [], "version": "v"{pack}}}\n')
    if expected is None:
        with pytest.raises(ValueError, match="pack an int >= 1"):
            parse_record(source, "rt.py")
    else:
        found = parse_record(source, "rt.py")
        assert found is not None and found.pack == expected
        assert found.shared_unknown_dims == ("shared_unknown_dims" in pack)


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


def test_a_seed_that_prefers_an_opset_takes_it_where_its_version_holds_and_nothing_else():
    """`S at opset N` draws what `S` draws (the same random numbers) but for the opset: N
    where the drawn operator's drawn version holds at N, else the opset N gives among the
    version's (`_opset_preferring`, below) or the one `S` draws. A run of a campaign's seeds
    on a runtime that packs prefers one N."""
    taken = 0
    for i in range(40):
        try:
            plain = generate(f"6:{i}")
        except NoResult:
            continue
        op_type = random.Random(f"6:{i}").choice(sorted(OPERATORS))  # generate's first draw
        version = schemas_version(op_type, plain.opset)
        for opset in opsets():
            holds = opset in version_opsets(op_type)[version]
            try:
                assert generate(f"6:{i} at opset {opset}").opset == (
                    opset if holds else programs._opset_preferring(
                        plain.opset, version_opsets(op_type)[version], opset))
            except NoResult:  # the spec gives no program at that opset
                pass
            taken += holds
    assert taken > 200
    runs = [campaign.run_opset(campaign.program_seed(7, i)) for i in range(4 * campaign.OPSET_RUN)]
    assert len(set(runs[:campaign.OPSET_RUN])) == 1 and len(set(runs)) > 1
    assert campaign.run_opset("7:3~1") is None
    with pytest.raises(NoResult, match="not an opset"):  # a database's text is anyone's
        generate("6:0 at opset x")
    assert campaign._opset_runs(["iree"]) and not campaign._opset_runs(["onnxruntime"])
    options = Options(["iree"], seed=7, max_examples=40)
    batch = campaign._draw(campaign.campaign_seeds(options), options, campaign.Stats())
    assert all(" at opset " in seed for seed, _, _ in batch)
    shared = Counter(recipe.opset for _, recipe, _ in batch).most_common(1)[0][1]
    assert shared > len(batch) / 2, Counter(recipe.opset for _, recipe, _ in batch)


@pytest.mark.parametrize("at_version", [(13, 14, 15, 16, 17), (18,), (11, 12), (21, 22, 23),
                                        tuple(opsets())])
def test_an_opset_preferred_outside_a_version_mostly_decides_and_keeps_each_opset_as_likely(
        at_version):
    """N uniform over every opset and the opset a program draws uniform over its version's
    L opsets: each of them comes out with probability exactly 1/L, as drawn alone; and an N
    outside the version decides the opset for all but fewer than L of them (programs of one
    run then share it)."""
    from fractions import Fraction

    every = opsets()
    share = Counter()
    for preferred in every:
        for drawn in at_version:
            share[programs._opset_preferring(drawn, at_version, preferred)] += Fraction(
                1, len(every) * len(at_version))
    assert set(share) == set(at_version) and set(share.values()) == {Fraction(1, len(at_version))}
    outside = [n for n in every if n not in at_version]
    decided = [n for n in outside
               if len({programs._opset_preferring(d, at_version, n) for d in at_version}) == 1]
    assert len(outside) - len(decided) < len(at_version)
    assert programs._opset_preferring(at_version[0], at_version, None) == at_version[0]


def test_a_message_naming_most_of_a_pack_says_little_and_halves_it():
    """`located`: the programs a refusal names, in order; none when it names more than half
    of the pack (IREE names every node a failed pass left unconverted)."""
    unit = packing.Unit(tuple(packing.Member(f"p{k}", SUITE, f"test_{k}", None, {})
                              for k in range(6)))
    assert packing.located(unit, "at node 'p4_y' (left unconverted: node 'p1_s')") == [1, 4]
    assert packing.located(unit, "(left unconverted: node 'p0_a', node 'p2_b', "
                                 "node 'p5_c')") == [0, 2, 5]
    assert packing.located(unit, "(left unconverted: node 'p0_a', node 'p1_b', node 'p2_b', "
                                 "node 'p5_c')") == []
    assert packing.located(unit, "failed to legalize operation 'torch.constant.int'") == []
