"""Deterministic faults in a build's publishing: the k-th file-system change fails.

`Faults` replaces the `os` and `shutil` that the suite's publishing, layout and build modules see
(and the atomic swap) by counting wrappers. Every call that changes the file system (open for
writing, write, link, rename, replace, mkdir, makedirs, unlink, rmdir, rmtree, copyfile, the
swap) is one step; reads pass through. At step `fail_at`:

- mode "error": that one step raises OSError(EIO), as a full or failing disk would; the build's
  own clean-up runs;
- mode "crash": that step and every later one raise `Crashed` (a BaseException), so nothing
  after it reaches the disk, as if the process had been killed just before it;
- mode "kill": the process sends itself SIGKILL (a real kill, for a child process).

With `fail_at=None` it only counts, so a clean run tells how many steps there are.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal

from onnx_seq_tests._suite import build as build_module
from onnx_seq_tests._suite import new_tree, output_root, publish

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class Crashed(BaseException):
    """The simulated process died before this step."""


class Faults:
    def __init__(self, fail_at: int | None = None, mode: str = "error"):
        assert mode in ("error", "crash", "kill")
        self.fail_at, self.mode = fail_at, mode
        self.steps: list[str] = []  # the name of every step taken (or attempted), in order
        self.fired = False

    def step(self, name: str) -> None:
        self.steps.append(name)
        if self.fail_at is None:
            return
        if self.fired and self.mode == "crash":
            raise Crashed(f"{name} after the crash")
        if len(self.steps) == self.fail_at:
            self.fired = True
            if self.mode == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.mode == "crash":
                raise Crashed(f"killed before step {self.fail_at}: {name}")
            raise OSError(errno.EIO, f"injected fault at step {self.fail_at} ({name})")

    def wrap(self, name: str, function):
        def counted(*args, **kwargs):
            self.step(name)
            return function(*args, **kwargs)
        return counted

    def install(self, setattr) -> None:
        """Put the wrappers in place with `setattr(obj, name, value)` (pytest's monkeypatch
        .setattr, or the builtin in a throwaway process)."""
        fake_os = _Proxy(os, self, {
            "write": "write", "link": "link", "rename": "rename", "replace": "replace",
            "mkdir": "mkdir", "makedirs": "makedirs", "unlink": "unlink", "remove": "unlink",
            "rmdir": "rmdir"})
        real_open = os.open

        def open_(path, flags, *args, **kwargs):
            if flags & _WRITE_FLAGS:
                self.step("open")
            return real_open(path, flags, *args, **kwargs)

        fake_os.open = open_
        fake_shutil = _Proxy(shutil, self, {"rmtree": "rmtree", "copyfile": "copyfile",
                                            "copytree": "copytree"})
        for module in (publish, build_module, new_tree, output_root):
            setattr(module, "os", fake_os)
            if hasattr(module, "shutil"):  # build.py deletes through publish.py's Staging
                setattr(module, "shutil", fake_shutil)
        setattr(publish, "_exchange", self.wrap("exchange", publish._exchange))


class _Proxy:
    """A module whose listed functions are counted steps; everything else is the module's."""

    def __init__(self, module, faults: Faults, counted: dict[str, str]):
        self._module = module
        for attribute, name in counted.items():
            setattr(self, attribute, faults.wrap(name, getattr(module, attribute)))

    def __getattr__(self, name):
        return getattr(self._module, name)
