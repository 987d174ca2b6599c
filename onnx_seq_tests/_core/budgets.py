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
#: Characters of a case name: it becomes the folder test_<name> (a variant of a derived form
#: adds a suffix), and a file name holds at most 255 bytes.
MAX_CASE_NAME = 120

# -- running the spec oracle on a data set (_oracle/oracle.py) ------------------------------------

#: Iterations of all Loops together, nested ones included, in one run of a graph: a trip count
#: of 10**12 is refused when the budget runs out, not followed.
MAX_LOOP_ITERATIONS = 10_000
#: Elements of any one value the oracle computes or is given (a sequence counts the elements of
#: all its tensors): checked before a broadcast or a stack allocates, and after every node.
MAX_ELEMENTS = 10_000_000
#: Work of one run of a graph on a data set, in element operations: every node run (nested
#: Loop and SequenceMap bodies included) adds NODE_WORK, the elements it reads and writes, and
#: TENSOR_WORK for each tensor among them (a sequence counts each of its tensors); every graph or
#: body run adds the values it sees in scope. Checked after every node. Iterations are not cost:
#: a Loop inserting into the sequence it carries copies a longer sequence on every turn (10**4
#: turns once took 93 s); it is refused at this budget within a second or two.
MAX_WORK = 200_000_000
#: What one tensor read or written adds to the work besides its elements (numpy's cost per call,
#: about that of 100 element copies), and what one node run adds (the interpreter's).
TENSOR_WORK = 100
NODE_WORK = 1_000
#: CPU seconds (of the running thread) of one run of a graph on a data set: a last guard for
#: work that MAX_WORK prices too low, checked each time the work passes another 2**20.
MAX_CPU_SECONDS = 20
