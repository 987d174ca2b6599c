"""The mutant catalogue: plausible runtime bugs, each the spec oracle with one behaviour changed.

The seam (small on purpose; the fuzzer uses the same one for its planted faults):

- `Mutant(name, behaviour, operators={op_type: run}, inputs=None, outputs=None,
  modelled_on="", sources=("owner/repo#number",))` is plain, frozen data. `run(node, args,
  attributes, context) -> outputs` has the signature of the entries of
  `onnx_seq_tests._core.oracle.OPERATORS`; `inputs`/`outputs` are `transform(value,
  value_type) -> value`, applied to each graph input/output on its way in/out (how a runtime's
  API feeds and returns values).
- `operator_table(mutant)` is the oracle's table with the mutant's operators swapped in; run a
  mutant backend with `oracle.run_graph(graph, opset, inputs, operators=operator_table(m))`
  (no global state: two mutants run side by side).
- `CATALOGUE` is every mutant, in the order of its modules: sequence.py (SequenceAt, Insert,
  Erase, Length, Construct, Identity), split_concat.py, optional_control.py (Optional*,
  SequenceMap, If, Loop), boundary.py, structural.py (memory layout of split and concat,
  positions, chains, omitted inputs), control.py (sequences in If, Loop and SequenceMap),
  ml_maps.py (ZipMap, CastMap, DictVectorizer, TreeEnsembleClassifier);
  kit.py has the builders. `by_name(name)` finds one.

A mutant raises `MutantError` where the runtime it models fails. Each mutant added from
issue 19 on names the public thread it is modelled on in `sources`; docs/mutation.md explains
how to write one.
"""

from __future__ import annotations

from . import boundary, control, ml_maps, optional_control, sequence, split_concat, structural
from .kit import Mutant

CATALOGUE: tuple[Mutant, ...] = (sequence.MUTANTS + split_concat.MUTANTS
                                 + optional_control.MUTANTS + boundary.MUTANTS
                                 + structural.MUTANTS + control.MUTANTS + ml_maps.MUTANTS)


def by_name(name: str) -> Mutant:
    """The catalogue's mutant called `name`; KeyError if there is none."""
    for mutant in CATALOGUE:
        if mutant.name == name:
            return mutant
    raise KeyError(name)


__all__ = ["CATALOGUE", "by_name"]
