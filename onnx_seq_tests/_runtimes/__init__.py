"""The runtimes room: how a backend is named, loaded, run and described.

  records.py    the record of each built-in third-party runtime, read from its module's source
                (standard library only: setup.py, the CLI's help and the Makefile read it)
  adapter.py    what the adapters share (CPUBackend, the boundary helpers; refusals are
                CannotTake, from _core/errors.py)
  <name>.py     one adapter per built-in runtime, with its RUNTIME record; `xfail/<name>.txt`
                of the checkout is where it stands
  backends.py   a --backend spec to a backend: load, check, prepare, run, describe
  specs.py      what a spec imports, known without importing it (the fork server's preload)
  outputs.py    the contract a backend's outputs are held to

Adding a runtime: one module here with its RUNTIME record, `load()` and its backend, and its
`xfail/<name>.txt` (docs/runtimes.md). Importing this package imports nothing.
"""
