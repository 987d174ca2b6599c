"""Refusal-aware drawing: what each backend refuses outright, learned from a campaign's verdicts.

A program's *features* are read from each of its suite forms (the case as written and its
tensor-boundary variants), each prefixed by its form: its operators, its opset, the kinds of its
graph inputs and outputs (tensor / sequence / optional; what an optional holds, and an optional
input a data set gives empty; whether its graph inputs declare one unknown dim or more), their
element types, where the
positions and splits come from (graph input, initializer, Constant node), the attributes set
and the optional inputs given as "". Per backend, the profile counts for each feature the
verdicts of that form that were `refused` and those that reached the runtime (any other
outcome).

The rule: a feature is *refused* by a backend once at least `k` (REFUSALS) refused verdicts held
it and no verdict that reached the runtime did, in any form: the draw leaves a refused feature
out of every form (`Within`), so one that reached the runtime in the tensor-boundary form
(`input:tensor`, an opset) is not refused for the refusals of the form as written, whose
sequence inputs explain them. A refused verdict is *explained away* when its
program (in that form) holds a feature the backend already refuses by the rule: it counts
against those refused features only, not against the program's other features; it still counts
in the form's programs judged (`reached`) and in the combinations (`combos`) as any verdict.
Without it, a backend that refuses every sequence at the graph boundary (IREE) had each refusal
counted against every opset, operator and element type of the program too, and nearly all of
them became refused. The refusals before a form's first refused feature explain nothing: what
the first `k` of them all held is refused together, the cause and any bystander the counts
cannot tell from it (`input:tensor` beside a sequence input); a re-probe takes a bystander back.

Explaining depends on the order of learning: a refusal learned after the feature that explains
it became refused counts against that feature alone, one learned before it counts against every
feature it holds. A campaign learns in a fixed order (batch by batch, program by program, each
program's verdicts as verify sorts them), and whether a refusal is explained is read from the
counts alone, which the profile file holds: the same seed and profile file still give the same
programs. A feature that leaves the refused set (a re-probe reached the runtime with it) does not
give back what it explained: those refusals stay uncounted against the programs' other
features, so each of them needs `k` refusals of its own, unexplained, to become refused (the
profile errs towards drawing it); from then on a refusal holding the feature counts against the
others as any unexplained one does. The profile file keeps its version (1): a feature's counts
are `[refused, reached]` as before, now without what was explained away, and a combination's
four numbers (two in a file written before, read with 0 for the others: no pair refused); a
profile written before is loaded as it is, bystanders counted (a fresh file starts clean).

A refusal-aware draw avoids a program holding a feature some backend refuses: it draws the
program's seed again (`S:i~1`, `S:i~2`, ... at most REDRAWS tries in all) and drops it (counted
as avoided) when every try is avoided, except that a re-probe share of the programs (REPROBE, by
the seed text alone) is drawn freely, so a feature refused by chance can be accepted again and
leave the refused set. Everything depends on the seed text and on the profile only, and a
campaign learns from batch N before batch N+2 is drawn (the pipeline's order, whatever the
timing): the same seed and profile file give the same programs.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from .._core.atomic import write_atomic
from .._core.cases import Case, Graph, graphs, walk
from .._core.elements import BY_PROTO
from .._core.errors import ProfileError
from .._core.value_kinds import OptionalType, SequenceType, innermost

#: A feature is refused after this many refusals and no acceptance.
REFUSALS = 3
#: The share of programs drawn freely (the profile not applied): re-probes.
REPROBE = 0.05
#: Tries per program (its seed, then `~1`, `~2`, ...) before it is dropped as avoided.
REDRAWS = 8
#: The outcomes of a program that do not end a pack it is in (packing.py): any other
#: (refused, error, crash, timeout) has its pack halved down to it.
KEPT = ("pass", "fail")
#: A combination of features (one, or a pair) *ends packs* on a backend once at least this
#: many verdicts holding it ended a pack (an outcome not in KEPT) ...
ENDED = 4
#: ... and more than this share of the verdicts holding it did (measured on TVM, 2026-12-04:
#: lower shares send too many programs alone for chance pairs; docs/fuzzing.md).
ENDS_SHARE = 0.9
#: What joins the two features of a pair in a combination's name.
AND = " & "
#: The attributes whose value is an element type (a TensorProto data type): each gives the
#: feature `attribute:OP.NAME=TYPE` besides `attribute:OP.NAME` (IREE refuses SequenceEmpty
#: of uint16, uint32, uint64, complex and string elements, and takes it of others).
ELEMENT_ATTRIBUTES = {("SequenceEmpty", "dtype")}
#: The input of each operator that holds a position or a split.
_POSITIONS = {"SequenceAt": 1, "SequenceInsert": 2, "SequenceErase": 1, "SplitToSequence": 1}
_FORMAT = "gen-seq-tests fuzz refusal profile"


def value_kind(value_type) -> str:
    """The kind of a graph input or output: tensor, sequence or optional."""
    if isinstance(value_type, SequenceType):
        return "sequence"
    if isinstance(value_type, OptionalType):
        return "optional"
    return "tensor"


def case_features(case: Case) -> set[str]:
    """The features of one case (no form prefix)."""
    graph: Graph = case.graph
    found = {f"opset:{case.opset}"}
    for side, decls in (("input", graph.inputs), ("output", graph.outputs)):
        for index, decl in enumerate(decls):
            found.add(f"{side}:{value_kind(decl.type)}")
            found.add(f"element:{innermost(decl.type).element.name}")
            if isinstance(decl.type, OptionalType):
                found.add(f"{side}:optional.{value_kind(decl.type.element)}")
                if side == "input" and any(d.inputs[index] is None for d in case.data_sets):
                    found.add("input:optional.empty")
    unknown = sum(2 if shape is None else shape.count(None) for decl in graph.inputs
                  for shape in [innermost(decl.type).shape])
    if unknown:  # a runtime may bind them to one symbol (TVM): two of them then disagree
        found.add(f"input:unknown-dims.{'1' if unknown == 1 else '2+'}")
    inputs = {d.name for d in graph.inputs}
    initializers = {i.name for i in graph.initializers}
    constants = {o for n in graph.nodes if n.op_type == "Constant" for o in n.outputs}
    for node in walk(graph):
        found.add(f"op:{node.op_type}")
        for name, value in node.attributes:
            if not isinstance(value, Graph):
                found.add(f"attribute:{node.op_type}.{name}")
            if (node.op_type, name) in ELEMENT_ATTRIBUTES and isinstance(value, int):
                found.add(f"attribute:{node.op_type}.{name}={BY_PROTO[value].name}")
        if "" in node.inputs:
            found.add(f"omitted:{node.op_type}")
        k = _POSITIONS.get(node.op_type)
        if k is not None and k < len(node.inputs) and node.inputs[k]:
            name = node.inputs[k]
            origin = ("input" if name in inputs else "initializer" if name in initializers
                      else "constant" if name in constants else "computed")
            found.add(f"source:{node.op_type}.{k}:{origin}")
    found.update(edges(graph))
    return found


def edges(graph: Graph) -> set[str]:
    """`edge:A>B.K` for each value node A makes that node B reads as its input K, and
    `edge:A>output` for one a graph gives as its output, in every graph (subgraphs too): what
    a runtime takes in one place and refuses in another (IREE lowers SequenceInsert on a
    sequence SequenceEmpty made, not on one SequenceConstruct made)."""
    found: set[str] = set()
    for each in graphs(graph):
        made = {o: node.op_type for node in each.nodes for o in node.outputs if o}
        for node in each.nodes:
            found.update(f"edge:{made[name]}>{node.op_type}.{k}"
                         for k, name in enumerate(node.inputs) if name in made)
        found.update(f"edge:{made[d.name]}>output" for d in each.outputs if d.name in made)
    return found


def features(forms) -> set[str]:
    """The features of a program: `forms` is (form, case) pairs; each prefixed `form|`."""
    return {f"{form}|{f}" for form, case in forms for f in case_features(case)}


@dataclass(frozen=True)
class Within:
    """The space a refusal-aware draw stays in by construction (programs.generate): the
    features some backend refuses, in any form (the prefix dropped), as the choices the draw
    leaves out. `op` operators (bodies and carriers included), `opset` opsets, `element`
    element types, `input` and `output` the kinds of graph inputs and outputs (sequence,
    optional), `source` where a position or split comes from (`OP.K:ORIGIN`), `attribute`
    attributes (`OP.NAME`), `omitted` the operators given an optional input as ""."""

    refused: frozenset[str]

    @classmethod
    def of(cls, refused) -> Within:
        return cls(frozenset(f.split("|", 1)[-1] for f in refused))

    def takes(self, kind: str, what) -> bool:
        """Whether the draw may choose `what` of `kind` (`op`, `opset`, `element`, ...)."""
        return f"{kind}:{what}" not in self.refused

    def only(self, kind: str, choices, key=str):
        """The `choices` of `kind` the draw may make (by `key(choice)`), as a list; all of
        them, the same list, when none is refused."""
        return [c for c in choices if self.takes(kind, key(c))]

    def seed_text(self, text: str) -> str:
        """The seed text of the program drawn from `text` within this space: `text` itself
        when nothing is refused, else `text within F1,F2,...` (`drawn_from` reads it back),
        so a finding's seed gives its program again, with or without the profile."""
        return f"{text}{WITHIN}{','.join(sorted(self.refused))}" if self.refused else text

    def but(self, feature: str) -> Within:
        """This space with `feature` (any form) taken again."""
        return Within(self.refused - {feature.split("|", 1)[-1]})


#: What separates a seed text from the space it was drawn within (Within.seed_text).
WITHIN = " within "


def drawn_from(seed) -> tuple:
    """(the seed the random draws start from, the Within) of a seed text (Within.seed_text)."""
    if isinstance(seed, str) and WITHIN in seed:
        text, refused = seed.split(WITHIN, 1)
        return text, Within(frozenset(refused.split(",")))
    return seed, FREE


#: Nothing refused: the free draw (every choice taken, the same random draws as ever).
FREE = Within(frozenset())


def reprobe(seed_text: str, share: float = REPROBE) -> bool:
    """Whether the program of `seed_text` is a re-probe (depends on the seed text only)."""
    return random.Random(f"reprobe:{seed_text}").random() < share


def probed(seed_text: str, refused: set[str]) -> str:
    """The refused feature a re-probe of `seed_text` takes again (by the seed text only)."""
    return random.Random(f"probed:{seed_text}").choice(sorted(refused))


def combinations(feats) -> list[str]:
    """Each feature of `feats`, and each pair of them (`A & B`, A < B), as `combos` names
    them."""
    ordered = sorted(feats)
    return ordered + [a + AND + b for k, a in enumerate(ordered) for b in ordered[k + 1:]]


def _combination(counts) -> list[int]:
    """A combination's counts as a profile file gives them: [ended a pack, kept in it,
    refusals not explained away, verdicts that reached the runtime]; a file written before
    the last two were counted gives two numbers (the others then 0: no pair refused)."""
    numbers = [int(n) for n in counts]
    if len(numbers) not in (2, 4):
        raise ValueError(f"a combination's counts are 2 or 4 numbers, got {len(numbers)}")
    return numbers + [0, 0] if len(numbers) == 2 else numbers


class Profile:
    """Per backend and feature, [refused verdicts, verdicts that reached the runtime], a
    refusal explained away counted for the refused features it holds only (packing.risk reads
    them too: a feature seen only in refusals explained away counts as never judged); per
    backend and form, [programs that reached the runtime, programs judged]; per backend and
    combination of a form's features (one, or a pair: `combinations`), [verdicts that ended a
    pack, verdicts that did not, refusals not explained away, verdicts that reached the
    runtime] (`combos`; packing.py runs a program that holds one that `ends_packs` alone, and
    `refused_pairs` reads the last two)."""

    def __init__(self, k: int = REFUSALS, share: float = REPROBE):
        self.k, self.share = k, share
        self.counts: dict[str, dict[str, list[int]]] = {}
        self.reached: dict[str, dict[str, list[int]]] = {}
        self.combos: dict[str, dict[str, list[int]]] = {}

    def learn(self, backend: str, form: str, outcome: str, feats) -> None:
        """One verdict: `feats` are the program's features (prefixed; those of `form`
        count). A refusal of a program that holds a feature `backend` already refuses is
        explained away: it counts against those refused features only."""
        refused = outcome == "refused"
        counts = self.counts.setdefault(backend, {})
        own = [f for f in feats if f.startswith(form + "|")]
        explaining = [f for f in own if self._refuses(backend, f)] if refused else []
        for feature in explaining or own:
            pair = counts.setdefault(feature, [0, 0])
            pair[0 if refused else 1] += 1
        reached = self.reached.setdefault(backend, {}).setdefault(form, [0, 0])
        reached[0] += not refused
        reached[1] += 1
        combos = self.combos.setdefault(backend, {})
        kept = outcome in KEPT
        for combo in combinations(own):
            entry = combos.setdefault(combo, [0, 0, 0, 0])
            entry[kept] += 1
            entry[2] += refused and not explaining
            entry[3] += not refused

    def ends_packs(self, backend: str) -> dict[str, float]:
        """The combinations that end packs on `backend` (ENDED, ENDS_SHARE): name -> the
        share of the verdicts holding it that ended a pack."""
        return {c: ended / (ended + kept) for c, (ended, kept, *_) in
                self.combos.get(backend, {}).items()
                if ended >= ENDED and ended > ENDS_SHARE * (ended + kept)}

    def learned_pairs(self, backend: str) -> list[str]:
        """The pairs that end packs on `backend` while neither of their features does alone
        (what no single feature tells), most verdicts first: `A & B (ended/judged)`."""
        ends = self.ends_packs(backend)
        combos = self.combos.get(backend, {})
        pairs = [c for c in ends if AND in c and not any(f in ends for f in c.split(AND))]
        pairs.sort(key=lambda c: (-combos[c][0], c))
        return [f"{c} ({combos[c][0]}/{sum(combos[c][:2])})" for c in pairs]

    def refused(self, backend: str) -> list[str]:
        """The features `backend` refuses by the rule, sorted."""
        return sorted(f for f in self.counts.get(backend, {}) if self._refuses(backend, f))

    def _refuses(self, backend: str, feature: str) -> bool:
        """Whether `backend` refuses `feature` (`FORM|...`) by the rule: k refusals in its
        form, and no verdict that reached the runtime with it in any form."""
        counts = self.counts.get(backend, {})
        no, yes = counts.get(feature, (0, 0))
        if no < self.k or yes:
            return False
        bare = feature.split("|", 1)[-1]
        return not any(counts.get(f"{form}|{bare}", (0, 0))[1]
                       for form in self.reached.get(backend, {}))

    def refused_pairs(self, backend: str) -> list[str]:
        """The pairs of features (`A & B`, `combinations`) `backend` refuses by the rule,
        sorted: k refusals not explained away in their form, every verdict holding the pair
        refused, none that reached the runtime with it in any form, and neither feature
        refused alone (what no single feature tells: SequenceEmpty in some contexts)."""
        combos = self.combos.get(backend, {})
        found = []
        for combo, (_, _, refused, reached) in combos.items():
            if AND not in combo or refused < self.k or reached:
                continue
            first, second = combo.split(AND)
            if self._refuses(backend, first) or self._refuses(backend, second):
                continue
            bare = [first.split("|", 1)[-1], second.split("|", 1)[-1]]
            if not any(n[3] for form in self.reached.get(backend, {})
                       if (n := combos.get(f"{form}|{bare[0]}{AND}{form}|{bare[1]}"))):
                found.append(combo)
        return sorted(found)

    def avoids(self, feats) -> bool:
        """Whether a program with these features holds one some backend refuses."""
        return any(f in feats for backend in self.counts for f in self.refused(backend))

    def refused_set(self) -> set[str]:
        return {f for backend in self.counts for f in self.refused(backend)}

    def refused_pair_set(self) -> set[str]:
        return {p for backend in self.combos for p in self.refused_pairs(backend)}

    # -- JSON ------------------------------------------------------------------------------

    def as_json(self) -> dict:
        return {"format": _FORMAT, "version": 1,
                "rule": {"refusals": self.k, "reprobe": self.share},
                "backends": {b: {"features": {f: list(c) for f, c in sorted(counts.items())},
                                 "reached": {form: list(r) for form, r in
                                             sorted(self.reached.get(b, {}).items())},
                                 "refused": self.refused(b),
                                 "refused_pairs": self.refused_pairs(b),
                                 "combinations": {c: list(n) for c, n in sorted(
                                     self.combos.get(b, {}).items())}}
                             for b, counts in sorted(self.counts.items())}}

    def save(self, path: Path) -> None:
        write_atomic(path, json.dumps(self.as_json(), indent=2) + "\n")

    @classmethod
    def from_json(cls, data) -> Profile:
        """The profile `as_json` gave; ValueError, KeyError, TypeError... for anything else."""
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise ValueError(f"not a {_FORMAT} (no \"format\": \"{_FORMAT}\")")
        rule = data["rule"]
        profile = cls(int(rule["refusals"]), float(rule["reprobe"]))
        if profile.k < 1 or not 0 <= profile.share <= 1:
            raise ValueError("rule: refusals must be >= 1 and reprobe in [0, 1]")
        for backend, entry in data["backends"].items():
            profile.counts[str(backend)] = {
                str(f): [int(c[0]), int(c[1])] for f, c in entry["features"].items()}
            profile.reached[str(backend)] = {
                str(form): [int(r[0]), int(r[1])] for form, r in entry["reached"].items()}
            profile.combos[str(backend)] = {  # absent from profiles written before them
                str(c): _combination(n) for c, n in entry.get("combinations", {}).items()}
        return profile

    @classmethod
    def load(cls, path: Path) -> Profile:
        """The profile in `path`; an empty one when it does not exist yet; ProfileError for
        a file that is not a profile."""
        if not path.exists():
            return cls()
        try:
            return cls.from_json(json.loads(path.read_text(encoding="utf-8")))
        except OSError as error:
            raise ProfileError(f"{path}: cannot read: {error.strerror or error}") from None
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as error:
            why = f"missing {error}" if isinstance(error, KeyError) else str(error)
            raise ProfileError(f"{path}: not a refusal profile: {why}; give a file "
                               "`fuzz --profile` wrote, or a new path") from None

    def summary(self) -> list[str]:
        """One line per backend: the share of programs that reached it per form, and its
        refused features."""
        lines = []
        for backend in sorted(self.reached):
            shares = ", ".join(f"{form} {r}/{n} ({100 * r / n:.0f}%)" for form, (r, n) in
                               sorted(self.reached[backend].items()) if n)
            refused = self.refused(backend)
            shown = ", ".join(refused[:20]) + (f" and {len(refused) - 20} more"
                                               if len(refused) > 20 else "")
            pairs = self.learned_pairs(backend)
            lines.append(f"profile {backend}: reached the runtime: {shares or 'none judged'}; "
                         f"{len(refused)} refused feature(s){': ' + shown if refused else ''}; "
                         f"{len(self.refused_pairs(backend))} refused pair(s) of features; "
                         f"{len(pairs)} pair(s) of features end packs"
                         + (": " + ", ".join(pairs[:10]) + (" and more" if len(pairs) > 10
                                                           else "") if pairs else ""))
        return lines
