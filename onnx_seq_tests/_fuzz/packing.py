"""Many programs per compiled model: independent programs packed into one case, run once, each
judged by its own outputs.

A pack is a Case whose graph holds the programs' graphs side by side, disjoint: every value
name of program k (graph inputs, outputs, initializers, node inputs and outputs, subgraphs
included, and named dims) is prefixed `p<k>_`, its graph inputs, outputs and initializers come
in program order, and data set j is the union of the programs' data sets j. Only programs of one
opset and one number of data sets (and one tolerance) are packed together, and each suite form
is packed on its own: the cases as written into one pack, each program's own tensor-boundary
variants (derived from the program alone, as `judge.build` does) into another, so every
program keeps exactly the variants it has unpacked. The pack is compiled by the builder's own
`compile_case`, as every program is, and each of its nodes is named by its first output
(`named_nodes`), so a node's name says whose program it is.

Judging (`judge_packed`) is exact: a pack that passes passes each of its programs; a `fail`
whose differences name outputs (the comparator's records give each output's position) passes the
programs none of them names and gives each program it names its own differences, at its own
output positions and names, with the message its folder alone gives (`own_fail`; records cut at
MAX_MESSAGES: `_decided`); a pack refused, in error or crashed whose message names nodes of it
(`node 'p<k>_...'`: IREE's adapter names the node it cannot compile or import, or those a failed
pass left unconverted: `located`), or a graph input or output (`input 'p<k>_...'`), runs those
programs alone and the others packed again; one that names none (or most of the pack, or a
difference of the outputs as a whole) is halved and each half judged again as a pack, down to
single programs (group testing); a pack that timed out runs every program of it again alone. A
program's verdict is thus that of its own folder run alone, or what a pack's pass or fail says
of its own outputs. A program alone is run from its own case folder, with the campaign's
--timeout (a pack gets the same), so its verdict, message and differences are those of judging
it unpacked. This holds for a backend whose answer to one program does not depend on the other
programs of the model (a fault of "the model's first output" is seen only on the program that
comes first); a fail told by a pack is judged alone again before it is shrunk (campaign.py), so
every finding comes from its program alone. A program's tensor-boundary form that is its case as
written but for the graph's name and doc strings (no sequence or optional at its boundary) is
packed once, in the form as written, and gets that verdict (`twins`); it too is judged alone, in
its own folder, before it is shrunk.

Which programs share a model decides the speed only: a program that holds a feature the
refusal profile says the backend refuses (a re-probe's) runs alone at once (`refusing`); one
the profile says is likely refused (`risk`), or that holds a feature or a pair of features that
ended most packs holding it (Profile.ends_packs), does too once most such programs of the
campaign ended their pack (`flagged_alone`); the programs per model of a form fall as its
packed programs ended their pack more often in the last batch (`adapted`), and, for a runtime
whose record says it binds unknown dims to one symbol, a pack holds at most one program with an
unknown dim at its graph inputs (`_chunks`). A batch's units run in one verify run, in workers
kept for the batch (judge.kept_workers), the units a verdict leaves written and queued as soon
as it comes (`_stream`).
"""

from __future__ import annotations

import math
import re
import shutil
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from .._core.cases import Case, DataSet, Graph, Node, ValueDecl, graph_protos
from .._core.problems import Problems
from .._core.value_kinds import OptionalType, SequenceType, TensorType, ValueType, innermost
from .._run.worker_main import MAX_MESSAGES, fail_message
from .._runtimes.records import record
from .._suite.compiling import compile_case
from . import inprocess, judge
from .judge import Verdict
from .profile import KEPT, Profile, combinations, features

#: A program's form is packed only when none of its features was refused in more than this
#: share of the verdicts that held it (`risk`): a pack holding one refused program is run again
#: program by program, so the likely refused ones are run alone at once.
RISK = 0.8
#: The outcomes of a pack that halve it (`_decided`); a timeout runs its members alone.
HALVED = ("refused", "error", "crash", "fail")
#: A quoted name in a tensor-boundary variant's doc string (`element 2 of output 's'`).
_QUOTED = re.compile(r"'(.+)'$")
#: A node of a pack named in a message (`named_nodes`), or a graph input or output of it:
#: `node 'p<k>_...'`, `input 'p<k>_...'`.
_NODE = re.compile(r"\b(?:node|input|output) 'p(\d+)_")
#: The model file of a case folder.
MODEL = "model.onnx"


def prefix(k: int) -> str:
    """The prefix of every value name of program k of a pack."""
    return f"p{k}_"


def _name(name: str, pre: str) -> str:
    return name and pre + name  # "" (an omitted optional input) stays ""


def _type(value_type: ValueType, pre: str) -> ValueType:
    """`value_type` with its named dims prefixed (two programs' `N` are not one dim)."""
    if isinstance(value_type, (SequenceType, OptionalType)):
        return replace(value_type, element=_type(value_type.element, pre))
    if isinstance(value_type, TensorType) and value_type.shape is not None:
        return replace(value_type, shape=tuple(pre + d if isinstance(d, str) else d
                                               for d in value_type.shape))
    return value_type


def _decl(decl: ValueDecl, pre: str) -> ValueDecl:
    doc = _QUOTED.sub(lambda m: f"'{pre}{m.group(1)}'", decl.doc) if decl.doc else ""
    return replace(decl, name=pre + decl.name, type=_type(decl.type, pre), doc=doc)


def renamed(graph: Graph, pre: str) -> Graph:
    """`graph` with every value name prefixed by `pre`, its subgraphs' too."""
    def node(n: Node) -> Node:
        attributes = tuple((key, renamed(value, pre) if isinstance(value, Graph) else value)
                           for key, value in n.attributes)
        return replace(n, inputs=tuple(_name(i, pre) for i in n.inputs),
                       outputs=tuple(_name(o, pre) for o in n.outputs), attributes=attributes)

    return Graph(tuple(_decl(d, pre) for d in graph.inputs),
                 tuple(_decl(d, pre) for d in graph.outputs),
                 tuple(node(n) for n in graph.nodes),
                 tuple(replace(i, name=pre + i.name, type=_type(i.type, pre))
                       for i in graph.initializers))


def packable(case: Case) -> tuple:
    """What programs packed together must share: opset, number of data sets, tolerances."""
    return case.opset, len(case.data_sets), case.atol, case.rtol


def pack_cases(cases: list[Case], name: str) -> Case:
    """One case holding `cases` side by side (see the module's docstring); they must share
    `packable`."""
    assert len({packable(c) for c in cases}) == 1, "pack only programs that share packable()"
    graphs = [renamed(c.graph, prefix(k)) for k, c in enumerate(cases)]
    graph = Graph(tuple(d for g in graphs for d in g.inputs),
                  tuple(d for g in graphs for d in g.outputs),
                  tuple(n for g in graphs for n in g.nodes),
                  tuple(i for g in graphs for i in g.initializers))
    first = cases[0]
    data_sets = tuple(
        DataSet(tuple(v for c in cases for v in c.data_sets[j].inputs),
                tuple(v for c in cases for v in c.data_sets[j].outputs), first.data_sets[j].where)
        for j in range(len(first.data_sets)))
    return Case(name, first.where, first.opset, graph, data_sets, first.atol, first.rtol,
                doc=f"{len(cases)} programs packed: " + ", ".join(c.name for c in cases))


@dataclass(frozen=True)
class Member:
    """One program's form in a unit: the program (its case name), the form, its own folder
    and case in that form."""

    program: str
    form: str
    folder: str
    case: Case
    files: dict


@dataclass(frozen=True)
class Unit:
    """What one folder runs: a single program's form (its own folder), or a pack of several."""

    members: tuple[Member, ...]

    @property
    def form(self) -> str:
        return self.members[0].form

    def name(self) -> str:
        """Its folder's name: a single program's own; for a pack, `test_pack<n>_` and its
        first member's folder without `test_` (unique among a batch's units: a unit run after
        another that shares its first member has fewer members)."""
        first = self.members[0].folder
        return first if len(self.members) == 1 else (
            f"test_pack{len(self.members)}_{first.removeprefix('test_')}")

    def owners(self) -> list[int]:
        """Per output position of the unit's model, the index of the member it belongs to."""
        return [k for k, m in enumerate(self.members) for _ in m.case.graph.outputs]

    def files(self, name: str) -> dict | None:
        """The unit's folder's files; None when the pack does not compile (its members are
        then judged apart)."""
        if len(self.members) == 1:
            return self.members[0].files
        case = pack_cases([m.case for m in self.members], name.removeprefix("test_"))
        files = compile_case(case, "undefined", Problems())
        return None if files is None else {**files, MODEL: named_nodes(files[MODEL])}


def named_nodes(model: bytes) -> bytes:
    """A pack's model with every node, in subgraphs too, named by its first output (whose
    `p<k>_` prefix says whose it is): a runtime that names the node it refuses (`located`)
    names the program. Nothing else changes; a node's name has no meaning in ONNX."""
    import onnx

    proto = onnx.load_from_string(model)
    for graph in graph_protos(proto.graph):
        for node in graph.node:
            node.name = next((o for o in node.output if o), node.name)
    return proto.SerializeToString()


def located(unit: Unit, message: str) -> list[int]:
    """The members of the pack `unit` that a refusal's `message` names: the programs of the
    nodes it calls `node 'p<k>_...'` (a runtime adapter's way of naming the node it refuses;
    IREE's does) and of the graph inputs and outputs it calls `input 'p<k>_...'` (`output
    ...`; IREE's runtime names the input whose element type it cannot map), in order; []
    when it names none, or more than half of them (IREE's adapter names every node a failed
    pass left unconverted: then most of the pack, saying little)."""
    named = {int(k) for k in _NODE.findall(message)}
    culprits = [k for k in range(len(unit.members)) if k in named]
    return culprits if 2 * len(culprits) <= len(unit.members) else []


def members(built: list) -> list[Member]:
    """Every program's forms (judge.Built) as members, in program order."""
    return [Member(item.case.name, form, folder, item.cases[folder][1], files)
            for item in built if item.folders
            for folder, (form, files) in item.folders.items()]


def twins(found: list[Member]) -> dict[str, Member]:
    """Each member of `found` whose folder holds what an earlier form's folder of the same
    program holds, but for its graph's name and doc strings (a program without a sequence or
    optional at its boundary: its tensor-boundary variant is the case itself, renamed), by
    its folder: the member judged in its place. A pack renames every program anyway, so the
    two are one program to a backend whose answer does not depend on a graph's name."""
    import onnx

    def plain(member: Member) -> tuple:
        model = onnx.load_from_string(member.files[MODEL])
        model.doc_string = model.graph.doc_string = model.graph.name = ""
        return (model.SerializeToString(deterministic=True),
                sorted((k, v) for k, v in member.files.items() if k != MODEL))

    found_twins: dict[str, Member] = {}
    seen: dict[str, list[tuple[tuple, Member]]] = {}
    forms = Counter(m.program for m in found)
    for member in (m for m in found if forms[m.program] > 1):
        earlier = seen.setdefault(member.program, [])
        key = plain(member)
        first = next((m for k, m in earlier if k == key), None)
        if first is None:
            earlier.append((key, member))
        else:
            found_twins[member.folder] = first
    return found_twins


def alone(found) -> list[Unit]:
    """Each member a unit of its own."""
    return [Unit((member,)) for member in found]


def risk(member: Member, counts: dict[str, list[int]]) -> float:
    """How likely the backend is to refuse `member`, by a profile's counts of its features
    (profile.py: feature -> [refused, reached]): the highest share of refused verdicts among
    its features, a feature never judged counting as refused."""
    return max(c[0] / (c[0] + c[1]) if (c := counts.get(f)) and c[0] + c[1] else 1.0
               for f in features([(member.form, member.case)]))


def refusing(found: list[Member], profile: Profile | None, spec: str) -> set[str]:
    """The folders of `found` that hold a feature or a pair of features the profile says
    `spec` refuses (a re-probe's, profile.py): they run alone at once."""
    if profile is None:
        return set()
    refused = set(profile.refused(spec)) | set(profile.refused_pairs(spec))
    return {m.folder for m in found
            if refused & set(combinations(features([(m.form, m.case)])))}


def flagged(found: list[Member], profile: Profile | None, spec: str) -> set[str]:
    """The folders of `found` a refusal profile says will likely end their pack on `spec`:
    whose `risk` is over RISK, or that hold a combination of features (one, or a pair) that
    ended most packs holding it (Profile.ends_packs)."""
    if profile is None:
        return set()
    counts, ends = profile.counts.get(spec, {}), profile.ends_packs(spec)
    return {m.folder for m in found if risk(m, counts) > RISK or ends and any(
        c in ends for c in combinations(features([(m.form, m.case)])))}


def units(found: list[Member], sizes: dict[str, int],
          first_alone: set[str] | frozenset[str] = frozenset(),
          loose_apart: bool = False) -> list[Unit]:
    """`found` in units of at most `sizes[form]` members, grouped by form and `packable`, in
    order; a member whose folder is in `first_alone` is a unit alone; with `loose_apart`, at
    most one member with an unknown input dim in a unit (`_chunks`)."""
    groups: dict[tuple, list[Member]] = {}
    single = []
    for member in found:
        if member.folder in first_alone:
            single.append(member)
        else:
            groups.setdefault((member.form, *packable(member.case)), []).append(member)
    return alone(single) + [Unit(tuple(chunk)) for (form, *_), group in groups.items()
                            for chunk in _chunks(group, sizes[form], loose_apart)]


def _loose(case: Case) -> bool:
    """Whether a graph input of `case` declares a dim (or a rank) unknown (what TVM binds to
    one symbol: its parameters; an output's unknown dims bind nothing, and most programs as
    written declare their outputs so)."""
    return any(shape is None or None in shape for decl in case.graph.inputs
               for shape in [innermost(decl.type).shape])


def _chunks(group: list[Member], size: int, loose_apart: bool) -> list[list[Member]]:
    """`group` in chunks of at most `size`, in order; with `loose_apart`, at most one member
    with an unknown dim (`_loose`) in each: a runtime may bind the unknown dims of a model to
    one symbol (TVM's Relax frontend does: its record's `shared_unknown_dims`), so two
    programs' unknown dims would meet in a pack."""
    if not loose_apart:
        return [group[k:k + size] for k in range(0, len(group), size)]
    done: list[list[Member]] = []
    filling: list[tuple[list[Member], list[bool]]] = []  # (members, [holds a loose one])
    for member in group:
        loose = _loose(member.case)
        chunk = next((c for c in filling if not (loose and c[1][0])), None)
        if chunk is None:
            chunk = ([], [False])
            filling.append(chunk)
        chunk[0].append(member)
        chunk[1][0] = chunk[1][0] or loose
        if len(chunk[0]) == size:
            filling = [c for c in filling if c is not chunk]
            done.append(chunk[0])
    return done + [c[0] for c in filling]


def flagged_alone(spec: str, tally: Counter) -> bool:
    """Whether the programs `flagged` on `spec` run alone at once: once more than RISK of
    those of this campaign ended their pack, or would have (an outcome not in KEPT; none is
    assumed at the start). What a profile learned says little of one program: a feature's
    share is the highest among a program's features, and a combination's was learned among
    programs whose refusals other features explain (on IREE, primed, 60% of the flagged
    programs were accepted: 123 of 205). One accepted alone costs a model of its own (on
    IREE a compile, about 0.4 s), where one that ends a pack costs it a run more when its
    refusal is located (on IREE a refusal, about 80 ms), or halvings."""
    return tally[f"{spec} flagged ended"] / (tally[f"{spec} flagged"] + 1) > RISK


def adapted(size: int, tally: Counter, spec: str, form: str) -> int:
    """At most `size` programs per model, fewer as packed programs of `form` on `spec` more
    often ended their pack in the campaign's last batch judged (`tally`'s `last batch`
    counts, judge_packed; refused, error, crash, timeout: a fail's own differences are its
    programs' verdicts; a refusal `located` at its node runs it alone and the rest packed
    again, one run more, whatever the pack's size): about ln(2) / (2 r) programs for a share
    r of them, which makes fewest runs per program (a pack of n costs one run, and each such
    program in it about 2 log2(n) more, its pack halved down to it: 1/n + 2 r log2(n) runs a
    program; 8 packed programs kept in their pack assumed). The last batch only: what ends
    packs early in a campaign (an element type the importer lacks) is soon learned refused
    and drawn around, and packs that stayed small for it would cost a compile each."""
    share = (tally[f"{spec}|{form} last batch ended"]
             / (tally[f"{spec}|{form} last batch packed"] + 8))
    return size if share <= 0 else max(1, min(size, round(math.log(2) / (2 * share))))


# -- judging packs ----------------------------------------------------------------------------

def pack_size(spec: str, requested: int | None = None) -> int:
    """Programs per compiled model for `spec`: 1 for a backend of this process (`oracle`,
    `mutant:NAME`), else `requested` (--pack), else its runtime record's `pack` (1 for a
    backend without a record)."""
    if inprocess.handles(spec):
        return 1
    if requested is not None:
        return requested
    found = record(spec)
    return found.pack if found is not None else 1


def _shares_dims(spec: str) -> bool:
    """Whether `spec` binds the unknown dims of a model to one symbol: its runtime record's
    `shared_unknown_dims` (False for a backend without a record)."""
    found = record(spec)
    return found is not None and found.shared_unknown_dims


def start(built: list, specs: list[str], work: Path, jobs: int = 1,
          timeout: float | None = None, background: bool = True,
          sizes: dict[str, int] | None = None, tally: Counter | None = None,
          profile: Profile | None = None) -> judge.Judging:
    """judge.start, with the backends of `sizes` (spec -> programs per model, > 1) judged in
    packs: the verdicts per program are those judge.start gives, in its order. `tally` counts
    what the packs cost (judge_packed); `profile` says which programs to run alone (`units`):
    read here, before the batch is judged meanwhile."""
    found = members(built)
    tally = Counter() if tally is None else tally
    wanted = {s: n for s, n in (sizes or {}).items() if n > 1 and s in specs}
    twin_of = twins(found) if wanted else {}
    everyone, found = found, [m for m in found if m.folder not in twin_of]
    forms = {m.form for m in found}
    marked = {s: flagged(found, profile, s) for s in wanted}
    packed = {s: units(found, {f: adapted(wanted[s], tally, s, f) for f in forms},
                       refusing(found, profile, s)
                       | (folders if flagged_alone(s, tally) else set()), _shares_dims(s))
              for s, folders in marked.items()}
    if not packed:
        return judge.start(built, specs, work, jobs, timeout, background)

    twinned = [(m, twin_of[m.folder]) for m in everyone if m.folder in twin_of]

    def on_workers(built, plain, work, jobs, timeout, queued):
        return _merged(built, plain, packed, specs, work, jobs, timeout, tally, marked,
                       twinned, queued)

    return judge.start(built, specs, work, jobs, timeout, background, on_workers)


def _merged(built: list, plain: list[str], packed: dict[str, list[Unit]], order: list[str],
            work: Path, jobs: int, timeout: float | None, tally: Counter | None,
            marked: dict[str, set[str]], twinned: list[tuple[Member, Member]],
            queued=None) -> dict[str, list[Verdict]]:
    """Every worker backend's verdicts per program: `plain` as judge judges them, `packed` in
    packs, each twin (`twins`) given its first's verdict, marked `packed` (a finding is judged
    alone, in its own folder, before it is shrunk: campaign.py); each program's sorted as
    verify sorts them (by folder, then backend)."""
    unpacked = [s for s in plain if s not in packed]
    found = (judge.on_workers(built, unpacked, work / "plain", jobs, timeout, queued)
             if unpacked else {})
    for spec, todo in packed.items():
        judged = judge_packed(todo, spec, work / "packed", jobs, timeout, tally,
                              marked.get(spec, set()), queued)
        for twin, first in twinned:
            judged[twin.program].append(replace(_verdict(judged, first), form=twin.form,
                                                folder=twin.folder, packed=True))
        if tally is not None:
            tally["twins"] += len(twinned)
        for program, verdicts in judged.items():
            found.setdefault(program, []).extend(verdicts)
    rank = {s: k for k, s in enumerate(order)}
    for verdicts in found.values():
        verdicts.sort(key=lambda v: (v.form, v.folder, rank[v.backend]))
    return found


def judge_packed(todo: list[Unit], spec: str, work: Path, jobs: int, timeout: float | None,
                 tally: Counter | None = None, marked: set[str] | frozenset[str] = frozenset(),
                 queued=None) -> dict[str, list[Verdict]]:
    """Per program of the units `todo`, its verdicts on `spec` (one per form folder; see the
    module's docstring): the same verdicts judging each program's folders alone gives.
    `tally` counts verify runs (`rounds`), packed models run (`packs`, holding `packed`
    folders in all; `pack <outcome>` per outcome), fails told by their pack (`told`), fails
    whose records may leave some out (`fail records cut`: MAX_MESSAGES of them), members
    a refusal was located at (`<spec>|<form> packed located`), folders run alone (`alone`;
    those of a pack that was run first: `again`), the `marked` folders (`flagged`) and those
    of them that ended their pack (`<spec> flagged`, `<spec> flagged ended`: flagged_alone),
    and per form the batch's own packed programs and those that ended their pack, not
    located (`<spec>|<form> last batch packed`, `... ended`: adapted). `queued`: `_stream`."""
    found: dict[str, list[Verdict]] = {}
    tally = Counter() if tally is None else tally
    packed = [m for u in todo if len(u.members) > 1 for m in u.members]
    located = {m.form: tally[f"{spec}|{m.form} packed located"] for m in packed}
    tally["rounds"] += 1
    with judge.kept_workers([spec], jobs, timeout) as kept:  # one runtime loaded per batch
        _stream(todo, spec, work, found, tally, kept, queued)
    batch: Counter = Counter()
    for member in packed:  # how often packed programs pass, per form (adapted)
        verdict = _verdict(found, member)
        counts = {f"{spec}|{member.form} packed": 1,
                  f"{spec}|{member.form} packed pass": verdict.outcome == "pass",
                  f"{spec}|{member.form} packed kept": verdict.outcome in KEPT}
        tally.update(counts)
        batch.update(counts)
    for form in {m.form for m in packed}:
        key = f"{spec}|{form} packed"
        tally[f"{spec}|{form} last batch packed"] = batch[key]
        tally[f"{spec}|{form} last batch ended"] = (
            batch[key] - batch[f"{key} kept"] - (tally[f"{key} located"] - located[form]))
    for member in (m for u in todo for m in u.members if m.folder in marked):
        tally.update({f"{spec} flagged": 1,  # flagged_alone
                      f"{spec} flagged ended": _verdict(found, member).outcome not in KEPT})
    return found


def _verdict(found: dict[str, list[Verdict]], member: Member) -> Verdict:
    """`member`'s verdict among `found`."""
    return next(v for v in found[member.program] if v.folder == member.folder)


def _stream(todo: list[Unit], spec: str, work: Path, found: dict[str, list[Verdict]],
            tally: Counter, kept: judge.Kept, queued=None) -> None:
    """Run each unit of `todo`, and each unit a verdict leaves to run (`_decided`), in one
    verify run in the workers `kept` keeps, adding the verdicts to `found`: a unit's next
    units are written and queued as soon as its result comes, so no worker waits for the
    slowest unit of a round (`queued()` once `todo`'s are). What is decided does not depend
    on the order results come in."""
    if work.exists():
        shutil.rmtree(work)
    running: dict[str, Unit] = {}

    def written(units: list[Unit], again: bool) -> list:
        """The folders of `units`, written (a pack that does not compile: its members)."""
        refs, waiting = [], list(units)
        while waiting:
            unit = waiting.pop(0)
            tally["alone"] += len(unit.members) == 1
            tally["again"] += again and len(unit.members) == 1
            name = unit.name()
            files = unit.files(name)
            if files is None:
                waiting.extend(alone(unit.members))
                continue
            refs.append(judge.written(files, work, unit.form, name))
            running[name] = unit
        return refs

    def more(result) -> list:
        unit = running.pop(result.name)
        shutil.rmtree(work / unit.form / result.name, ignore_errors=True)
        if len(unit.members) > 1:
            tally.update({"packs": 1, "packed": len(unit.members),
                          f"pack {result.outcome}": 1})
        return written(_decided(unit, spec, result, found, tally), True)

    try:
        first = written(todo, False)
        if queued is not None:
            queued()
        judge.streamed(first, kept, more)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def own_fail(unit: Unit, k: int, spec: str, differences) -> Verdict:
    """Member k's verdict from the differences of its pack's fail (every one recorded): its
    own, at its own output positions and names, with the message its folder alone gives
    (`packed`: shrinking judges it alone first)."""
    owners = unit.owners()
    offset, pre = owners.index(k), prefix(k)
    own = [replace(d, output=d.output - offset, name=d.name.removeprefix(pre))
           for d in differences if owners[d.output] == k]
    member = unit.members[k]
    return Verdict(spec, member.form, member.folder, "fail", fail_message(own),
                   tuple(own[:MAX_MESSAGES]), packed=True)


def halves(unit: Unit, tally: Counter) -> list[Unit]:
    """`unit`'s members in two units, in order, the first one the larger (a half of one
    member runs alone, from its own folder)."""
    tally["halved"] += 1
    middle = (len(unit.members) + 1) // 2
    return [Unit(unit.members[:middle]), Unit(unit.members[middle:])]


def _decided(unit: Unit, spec: str, result, found: dict[str, list[Verdict]],
             tally: Counter) -> list[Unit]:
    """Add what `result` (verify's, of `unit` on `spec`) decides to `found`; the units still
    to run (the module's docstring): a fail's records cut leave the last member they name
    alone and those after it packed again (every member named alone with several data sets);
    a pack halved costs about 2 log2(n) runs per such program, not n; a timeout is not
    halved (it would wait for the timeout at each level)."""
    if len(unit.members) == 1:
        member = unit.members[0]
        found.setdefault(member.program, []).append(
            Verdict(spec, member.form, member.folder, result.outcome, result.message,
                    result.differences, result.error_type))
        return []
    passed, later = [], []
    differences = result.differences
    if result.outcome == "pass":
        passed = list(unit.members)
    elif result.outcome == "fail" and differences and all(d.output is not None
                                                         for d in differences):
        owners = unit.owners()
        named = {owners[d.output] for d in differences}
        told, unknown = sorted(named), len(unit.members)  # members from `unknown` on: not judged
        if len(differences) >= MAX_MESSAGES:  # the message may name more than its records
            tally["fail records cut"] += 1
            if len(unit.members[0].case.data_sets) > 1:  # records by data set, then output
                others = tuple(m for k, m in enumerate(unit.members) if k not in named)
                later = alone(unit.members[k] for k in told) + ([Unit(others)] if others
                                                                else [])
                told, unknown = [], 0
            else:  # records in output order: only the last member named may have more
                *told, last = told
                unknown = last + 1
                later = alone([unit.members[last]])
                later += [Unit(unit.members[unknown:])] if unit.members[unknown:] else []
        passed = [m for k, m in enumerate(unit.members[:unknown])
                  if k not in named]  # none of its outputs differs
        tally["told"] += len(told)
        for k in told:  # every difference of theirs recorded: their own are their verdict
            member = unit.members[k]
            found.setdefault(member.program, []).append(own_fail(unit, k, spec, differences))
    elif result.outcome in HALVED and (culprits := located(unit, result.message)):
        later = alone(unit.members[k] for k in culprits)  # the others packed again
        tally.update(f"{spec}|{unit.members[k].form} packed located" for k in culprits)
        rest = tuple(m for k, m in enumerate(unit.members) if k not in culprits)
        later += [Unit(rest)] if rest else []
    elif result.outcome in HALVED:
        later = halves(unit, tally)
    else:
        later = alone(unit.members)
    for member in passed:
        found.setdefault(member.program, []).append(
            Verdict(spec, member.form, member.folder, "pass", ""))
    return later
