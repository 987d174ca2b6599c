"""Every budget of reading and building a case, in one place (docs/safety.md lists them).

Case files are untrusted input: each budget is checked before the thing it guards is built, and
going over one is a one-line `file:line:col` problem naming the budget. A real case that needs
more raises the constant here (every value is far above what the project's cases use; a build's
cache key covers this file, so a change rebuilds the suite).
"""

from __future__ import annotations

# -- reading a case file (_casefile) --------------------------------------------------------------

#: The largest case file read, in bytes (checked before it is read whole).
MAX_FILE_BYTES = 4 * 1024 * 1024
#: YAML nodes in one file, every alias counted as the nodes it repeats.
MAX_YAML_NODES = 250_000
#: Bytes of scalar text (strings, numbers) in one file, every alias counted as the text it
#: repeats: one 3 MB string aliased 1,000 times would otherwise become 3 GB of tensor data.
MAX_YAML_TEXT_BYTES = 16 * 1024 * 1024
#: How deep lists and mappings nest, aliases followed.
MAX_DEPTH = 64
#: Elements of one tensor value written in a case file.
MAX_TENSOR_ELEMENTS = 100_000

# -- running the spec oracle on a data set (_core/oracle.py) --------------------------------------

#: Iterations of all Loops together, nested ones included, in one run of a graph: a trip count
#: of 10**12 is refused when the budget runs out, not followed.
MAX_LOOP_ITERATIONS = 10_000
#: Elements of any one value the oracle computes or is given (a sequence counts the elements of
#: all its tensors): checked before a broadcast or a stack allocates, and after every node.
MAX_ELEMENTS = 10_000_000
