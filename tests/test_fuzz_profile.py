"""Refusal-aware drawing (_fuzz/profile.py): the learning rule, a campaign that draws around what
a backend refuses while still re-probing it, `--profile` saved and loaded, and the same seed
and profile giving the same programs."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from onnx_seq_tests._cli import main
from onnx_seq_tests._core.cases import Case, Graph, Node, ValueDecl
from onnx_seq_tests._core.elements import ELEMENTS
from onnx_seq_tests._core.errors import NoResult
from onnx_seq_tests._core.problems import Where
from onnx_seq_tests._core.suite_forms import SuiteForm
from onnx_seq_tests._fuzz import campaign, judge
from onnx_seq_tests._fuzz.campaign import Options
from onnx_seq_tests._fuzz.profile import ENDED, Profile, Within, case_features, features, probed
from onnx_seq_tests._fuzz.programs import generate
from onnx_seq_tests._fuzz.recipes import to_case
from onnx_seq_tests._fuzz.schemas import seq, tensor
from onnx_seq_tests._suite.layout import SUITE
from onnx_seq_tests._suite.tensor_io import derive

SPEC = "faulty_backends:RefuseFloat"
#: Refuses every sequence or optional graph input or output, as IREE does.
BOUNDARY = "faulty_backends:RefuseSequenceBoundary"
FLOAT = "sequence_optional|element:float"
HERE = Where("test", 1, 1)


def test_a_feature_is_refused_after_k_refusals_and_no_acceptance():
    profile = Profile(k=3)
    held = {"f|op:A", "f|element:float", "g|element:float"}
    for _ in range(2):
        profile.learn("b", "f", "refused", held)
    assert profile.refused("b") == [] and not profile.avoids(held)
    profile.learn("b", "f", "refused", held)
    assert profile.refused("b") == ["f|element:float", "f|op:A"]  # only form f's features
    assert profile.avoids({"f|op:A"}) and not profile.avoids({"g|element:float"})
    profile.learn("b", "f", "fail", {"f|op:A"})  # reached the runtime: A is taken after all
    assert profile.refused("b") == ["f|element:float"]
    assert profile.refused("other") == [] and profile.reached["b"]["f"] == [1, 4]


def test_a_refusal_a_refused_feature_explains_is_not_counted_against_the_others():
    """Every refusal holds `input:sequence` (IREE's kind: any sequence at the boundary), each
    beside other features: once `input:sequence` is refused, the refusals it explains leave the
    others alone; they still count as programs judged and in the combinations."""
    profile, seq = Profile(k=3), "f|input:sequence"
    for n in (11, 12, 13):  # nothing refused yet: counted against everything they hold
        profile.learn("b", "f", "refused", {seq, f"f|opset:{n}", "f|op:A", f"g|opset:{n}"})
    assert profile.refused("b") == ["f|input:sequence", "f|op:A"]  # A: a bystander
    for n in range(14, 30):
        profile.learn("b", "f", "refused", {seq, f"f|opset:{n}", "f|op:B", "f|element:float"})
    assert profile.refused("b") == ["f|input:sequence", "f|op:A"]
    assert profile.counts["b"][seq] == [19, 0] and "f|op:B" not in profile.counts["b"]
    assert Within.of(profile.refused("b")) == Within(frozenset({"input:sequence", "op:A"}))
    assert profile.reached["b"]["f"] == [0, 19] and profile.combos["b"]["f|op:B"] == [16, 0, 0, 0]
    for _ in range(3):  # explained by the bystander A alone
        profile.learn("b", "f", "refused", {"f|op:A", "f|op:C"})
    assert "f|op:C" not in profile.counts["b"]
    # a re-probe takes A back: what A explained stays uncounted against C, which needs
    # refusals of its own, now counted against all they hold as before
    profile.learn("b", "f", "pass", {"f|op:A", "f|opset:12"})
    assert profile.refused("b") == ["f|input:sequence"]
    assert profile.counts["b"]["f|opset:12"] == [1, 1]
    for _ in range(3):
        assert profile.refused("b") == ["f|input:sequence"]
        profile.learn("b", "f", "refused", {"f|op:A", "f|op:C"})
    assert profile.refused("b") == ["f|input:sequence", "f|op:C"]
    assert profile.counts["b"]["f|op:A"] == [9, 1]


def test_what_a_refusal_counts_against_depends_on_the_order_learned_and_the_counts_only():
    """The same verdicts in another order count otherwise (a refusal learned before its
    explaining feature was refused counts against all it holds), so a campaign learns in a
    fixed order; and a profile saved and loaded between two verdicts learns the next as the
    one kept in memory does: the file holds all that explaining reads."""
    cause = [{"f|input:sequence", f"f|opset:{n}"} for n in (11, 12, 13)]
    bystander = [{"f|input:sequence", "f|op:A"}] * 3
    learned = []
    for order in (cause + bystander, bystander + cause):
        profile = Profile(k=3)
        for feats in order:
            profile.learn("b", "f", "refused", feats)
        learned.append(profile.refused("b"))
    assert learned == [["f|input:sequence"], ["f|input:sequence", "f|op:A"]]
    kept, saved = Profile(k=3), Profile(k=3)
    for feats in cause + bystander:
        kept.learn("b", "f", "refused", feats)
        saved = Profile.from_json(json.loads(json.dumps(saved.as_json())))
        saved.learn("b", "f", "refused", feats)
    assert saved.as_json() == kept.as_json()


def test_pairs_of_features_that_end_packs_are_learned_where_no_single_feature_tells():
    profile, n = Profile(), ENDED
    a, b, c = "f|op:A", "f|op:B", "f|element:float"
    for _ in range(n):
        profile.learn("b", "f", "refused", {a, b, "g|op:C"})  # A & B: every verdict ended
        profile.learn("b", "f", "pass", {a, c})
        profile.learn("b", "f", "error", {b, c})
        profile.learn("b", "f", "fail", {b, c})  # a fail runs only its own program again
    # A and B ended half the packs that held them, C a third: only the pair tells
    assert profile.combos["b"][a + " & " + b] == [n, 0, n, 0]
    assert profile.combos["b"][b] == [2 * n, n, n, 2 * n]
    assert set(profile.ends_packs("b")) == {a + " & " + b} and "op:C" not in str(profile.combos)
    assert profile.learned_pairs("b") == [f"{a} & {b} ({n}/{n})"]
    # and refused: every verdict holding it refused, neither feature refused alone
    assert profile.refused("b") == [] and profile.refused_pairs("b") == [a + " & " + b]
    profile.learn("b", "g", "pass", {"g|op:A", "g|op:B"})  # reached in another form
    assert profile.refused_pairs("b") == []
    assert f"1 pair(s) of features end packs: {a} & {b} ({n}/{n})" in profile.summary()[0]
    again = Profile.from_json(json.loads(json.dumps(profile.as_json())))
    assert again.ends_packs("b") == profile.ends_packs("b")
    for _ in range(20 * n):
        profile.learn("b", "f", "refused", {b})
    assert set(profile.ends_packs("b")) >= {b, a + " & " + b}
    assert profile.learned_pairs("b") == [], "B alone tells it now"


def _refused_float_verdicts(monkeypatch, aware: bool, share: float = 0.2):
    monkeypatch.setattr(campaign, "BATCH", 8)
    profile = Profile(k=2, share=share)
    stats = campaign.run(Options([SPEC], seed=5, max_examples=120, max_findings=0,
                                 profile=profile, refusal_aware=aware))
    return stats, profile, sum(profile.counts[SPEC].get(FLOAT, [0, 0]))  # programs with float


def test_a_campaign_draws_around_a_refused_element_type_and_still_reprobes(monkeypatch):
    free, _, with_float_free = _refused_float_verdicts(monkeypatch, aware=False)
    aware, profile, with_float = _refused_float_verdicts(monkeypatch, aware=True)
    assert FLOAT in profile.refused(SPEC)
    assert aware.invalid == 0 and aware.valid > 0  # still 100% valid
    assert with_float < with_float_free / 2, (with_float, with_float_free)
    # float learned from the first batches, then left out by the draw; re-probes drawn
    # (test_a_reprobe_takes_one_refused_feature_again: what they take again)
    assert aware.reprobes > 0 and profile.counts[SPEC][FLOAT][0] >= profile.k


def test_a_backend_refusing_every_sequence_at_the_boundary_refuses_the_boundary_kinds(
        monkeypatch):
    """IREE's kind of backend (every sequence or optional graph input or output refused):
    the refused features are the boundary kinds and a few bystanders of the first refusals,
    no opset; the campaign draws what the rest of the space holds (it used to refuse nearly
    every feature of the first batches and draw 38 valid programs of these 120 seeds)."""
    monkeypatch.setattr(campaign, "BATCH", 8)
    profile, spec = Profile(), BOUNDARY
    stats = campaign.run(Options([spec], seed=2, max_examples=120, max_findings=1,
                                 profile=profile, refusal_aware=True))
    refused = profile.refused(spec)
    assert {f"{SUITE}|input:sequence", f"{SUITE}|output:sequence"} <= set(refused)
    assert not [f for f in refused if "|opset:" in f] and len(refused) < 15, refused
    assert stats.valid > 90 and profile.reached[spec][SUITE][0] > 30, profile.reached


def _fuzz(tmp_path, name, *extra, spec=SPEC):
    json_path = tmp_path / f"{name}.json"
    result = CliRunner().invoke(main, ["fuzz", "-b", spec, "--seed", "3", "--max-examples",
                                       "80", "--max-findings", "1", "--json", str(json_path),
                                       *extra])
    return result, json_path


def test_profile_is_saved_loaded_and_reported(tmp_path):
    path = tmp_path / "profile.json"
    result, _ = _fuzz(tmp_path, "first", "--profile", str(path))
    assert result.exit_code == 0, result.output
    saved = json.loads(path.read_text())
    assert FLOAT in saved["backends"][SPEC]["refused"]
    assert f"profile {SPEC}: reached the runtime" in result.output
    assert "refusal-aware:" in result.output and FLOAT in result.output
    loaded = Profile.load(path)
    assert loaded.as_json() == saved
    # a second campaign starts from it: float avoided from its first batch
    again, _ = _fuzz(tmp_path, "second", "--profile", str(path))
    assert again.exit_code == 0, again.output
    grown = json.loads(path.read_text())["backends"][SPEC]["reached"]
    assert grown["sequence_optional"][1] > saved["backends"][SPEC]["reached"][
        "sequence_optional"][1]


def test_a_file_that_is_not_a_profile_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}')
    result, _ = _fuzz(tmp_path, "x", "--profile", str(bad))
    assert result.exit_code == 2 and "not a refusal profile" in result.output
    assert "Traceback" not in result.output
    result, _ = _fuzz(tmp_path, "y", "--profile", str(tmp_path))  # a folder
    assert result.exit_code == 2 and "--profile" in result.output


@pytest.mark.parametrize("spec", [SPEC, BOUNDARY])
def test_the_same_seed_and_profile_give_the_same_programs(tmp_path, spec):
    """Also where refusals are explained away (BOUNDARY): what each counts against depends on
    the order learned, which is the campaign's, whatever the timing."""
    start = tmp_path / "start.json"
    assert _fuzz(tmp_path, "learn", "--profile", str(start), spec=spec)[0].exit_code == 0
    runs = []
    for k in range(2):
        copy = tmp_path / f"p{k}.json"
        shutil.copy(start, copy)
        result, json_path = _fuzz(tmp_path, f"run{k}", "--profile", str(copy), spec=spec)
        assert result.exit_code == 0, result.output
        stats = json.loads(json_path.read_text())
        stats.pop("seconds")
        runs.append((stats, copy.read_text()))
    assert runs[0] == runs[1]
    assert runs[0][0]["refusal_aware"]["avoided"] + runs[0][0]["refusal_aware"]["reprobes"] > 0


def test_a_profile_the_disk_refuses_at_the_end_is_kept_elsewhere(tmp_path):
    """A --profile write over a file-size limit (EFBIG, after the checks passed): the profile
    reaches the user (on stdout: the temporary folder is under the same limit), one line says
    so, exit 1, no traceback, no half file."""
    import resource
    import signal

    path = tmp_path / "profile.json"
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200, limits[1]))
    try:
        result = CliRunner().invoke(main, ["fuzz", "-b", "oracle", "--max-examples", "10",
                                           "--profile", str(path)])
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, handler)
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert f"error: --profile {path}: File too large" in result.output
    assert '"format": "gen-seq-tests fuzz refusal profile"' in result.output
    assert not path.exists()


def test_a_seed_replayed_from_the_database_is_judged_as_it_is(tmp_path):
    """A finding's seed in --database is judged unchanged even when its program holds a feature
    the profile refuses (it is never redrawn)."""
    from onnx_seq_tests._fuzz.campaign import DATABASE_KEY, campaign_seeds
    from onnx_seq_tests._fuzz.database import open_database

    def holds_float(seed):
        try:
            case = to_case(generate(seed), "x")
        except NoResult:
            return False
        return "element:float" in case_features(case)

    seed = next(f"3:{i}" for i in range(200) if holds_float(f"3:{i}"))
    database = open_database(str(tmp_path / "db"))
    database.save(DATABASE_KEY, seed.encode())
    profile = Profile(k=1, share=0.0)
    profile.learn(SPEC, SUITE, "refused", {FLOAT})
    options = Options([SPEC], seed=9, max_examples=1, max_findings=0, database=database,
                      profile=profile, refusal_aware=True)
    assert list(campaign_seeds(options)) == [seed]
    stats = campaign.run(options)
    assert stats.valid == 1 and stats.avoided == 0 and stats.runs[SPEC][SUITE]["refused"] == 1


#: Refused features the draw leaves out by construction (in any form).
WITHIN = {"sequence_optional|input:sequence", "sequence_optional|output:sequence",
          "sequence_optional|input:optional", "sequence_optional|output:optional",
          "sequence_optional_tensor_io|element:float", "sequence_optional|op:If",
          "sequence_optional|op:Loop", "sequence_optional|source:SequenceAt.1:input",
          "sequence_optional|attribute:SequenceEmpty.dtype=uint32"}


def _forms(case):
    return [(SUITE, case)] + [(SuiteForm.TENSOR_BOUNDARY.folder, v)
                              for v in derive(case).variants]


def test_a_refusal_aware_draw_stays_within_the_accepted_space_by_construction():
    """Every program drawn within a space holds none of its refused features, in either form
    (no rejection: generate alone), and the seed text that names the space gives the same
    program again without any profile (a finding's seed replays)."""
    within = Within.of(WITHIN)
    held, drawn = set(), 0
    for i in range(150):
        text = within.seed_text(f"2:{i}")
        assert text.startswith(f"2:{i} within ") and "element:float" in text
        try:
            case = to_case(generate(text), "x")
        except NoResult:
            continue
        drawn += 1
        assert repr(to_case(generate(text), "x")) == repr(case)
        held |= features(_forms(case))
    assert drawn > 100
    assert not held & WITHIN, held & WITHIN
    # what the free draw of the same seeds holds: the space is not empty by accident
    free = set()
    for i in range(150):
        try:
            free |= features(_forms(to_case(generate(f"2:{i}"), "x")))
        except NoResult:
            pass
    assert WITHIN <= free
    assert {"sequence_optional|op:SequenceAt", "sequence_optional|op:SequenceConstruct",
            "sequence_optional_tensor_io|element:int64"} <= held


#: Spaces a runtime's profile makes (IREE's and TVM's kinds of refusals): a sequence made in the
#: graph, outputs read in the graph, no int64 graph value. Seeds once invalid or crashing in
#: them: SequenceConstruct-11 given float8 or int4, SequenceEmpty-11 made of uint2 (a sequence
#: built for an operator of a later opset), SequenceAt with no admitted position type (0:429,
#: an IndexError).
SPACES = ({"input:sequence"},
          {"input:sequence", "output:sequence", "element:float", "element:int64"},
          {"input:sequence", "output:sequence", "output:optional.tensor", "op:SequenceEmpty"})


@pytest.mark.parametrize("refused", SPACES, ids=lambda r: ",".join(sorted(r)))
def test_every_program_drawn_within_a_space_is_valid(refused):
    """A refusal-aware draw is as valid as a free one: every program it gives builds (the
    operators that make or read a sequence in the graph take its element type at its
    opset), and none raises anything but NoResult."""
    within, invalid, drawn = Within(frozenset(refused)), [], 0
    for i in (*range(120), 429, 748, 1092):
        text = within.seed_text(f"0:{i}")
        try:
            case = to_case(generate(text), "x")
        except NoResult:
            continue
        drawn += 1
        problem = judge.build(case).problem
        invalid += [f"{text}: {problem}"] if problem else []
    assert invalid == []
    assert drawn > 60


def test_a_reprobe_takes_one_refused_feature_again():
    """A re-probe draws within the space but for one refused feature (chosen by its seed
    text), so a feature refused by chance comes back even where a free draw would hold
    another refused one."""
    profile = Profile(share=1.0)  # every program a re-probe
    options = Options([SPEC], profile=profile, refusal_aware=True)
    within, stats = Within.of(WITHIN), campaign.Stats()
    taken = set()
    for i in range(60):
        feature = probed(f"4:{i}", WITHIN)
        assert feature in WITHIN
        drawn = campaign._drawn(f"4:{i}", options, stats, WITHIN, within, "x")
        if drawn is None:
            continue
        text, _, case = drawn
        assert feature.split("|")[1] not in text.split(" within ")[1].split(",")
        held = features(_forms(case)) & WITHIN
        assert held <= {f for f in WITHIN if f.split("|")[1] == feature.split("|")[1]}
        taken |= held
    assert stats.reprobes == 60 and len(taken) >= 3, taken


def test_a_time_budget_ends_a_draw_whose_profile_leaves_nothing_to_draw():
    """Every opset refused and no re-probes: every seed is avoided, and seeds have no end
    under --time-budget, so the draw itself stops at the budget (it used to draw forever)."""
    from onnx_seq_tests._fuzz.schemas import opsets

    profile = Profile(share=0.0)
    profile.counts["oracle"] = {f"{SUITE}|opset:{n}": [profile.k, 0] for n in opsets()}
    options = Options(["oracle"], seed=1, max_examples=10**9, time_budget=0.5,
                      profile=profile, refusal_aware=True)
    stats = campaign.run(options)
    assert stats.valid == 0 and stats.avoided > 0


def _node(op_type, inputs, outputs, **attributes):
    return Node(op_type, tuple(inputs), tuple(outputs), tuple(attributes.items()), HERE)


def _decls(**types):
    return tuple(ValueDecl(name, value_type, HERE) for name, value_type in types.items())


def test_features_name_what_each_node_reads_from_which_and_the_element_an_empty_sequence_holds():
    """`edge:A>B.K` for a value node A makes and node B reads as input K (`>output` for a
    graph's output, in a Loop body too), and SequenceEmpty's dtype by its element: IREE lowers
    SequenceInsert on a sequence SequenceEmpty made and not on one SequenceConstruct made, and
    SequenceEmpty of uint32 not at all, so each is a feature the profile can refuse."""
    f32, i64, flag = (tensor(ELEMENTS[e]) for e in ("float", "int64", "bool"))
    body = Graph(_decls(i=i64, c=flag, s=seq(ELEMENTS["float"])),
                 _decls(c2=flag, s2=seq(ELEMENTS["float"])),
                 (_node("Identity", ["c"], ["c2"]), _node("SequenceInsert", ["s", "x"], ["s2"])))
    graph = Graph(_decls(x=f32, n=i64), _decls(length=i64),
                  (_node("SequenceEmpty", [], ["e"], dtype=ELEMENTS["uint32"].proto),
                   _node("SequenceConstruct", ["x"], ["made"]),
                   _node("SequenceInsert", ["e", "x"], ["inserted"]),
                   _node("Loop", ["n", "", "made"], ["looped"], body=body),
                   _node("SequenceLength", ["inserted"], ["length"])))
    found = case_features(Case("x", HERE, 18, graph, ()))
    assert {f for f in found if f.startswith("edge:")} == {
        "edge:SequenceEmpty>SequenceInsert.0", "edge:SequenceConstruct>Loop.2",
        "edge:SequenceInsert>SequenceLength.0", "edge:SequenceLength>output",
        "edge:Identity>output", "edge:SequenceInsert>output"}
    assert {"attribute:SequenceEmpty.dtype", "attribute:SequenceEmpty.dtype=uint32"} <= found
