"""The one atomic writer (`_core/atomic.py`): a write that fails leaves the old file whole and
no temporary file behind; a new file gets the permissions of a plain open()."""

import os
import resource
import stat

from onnx_seq_tests._core.atomic import write_atomic


def test_a_new_file_has_the_permissions_of_a_plain_open_and_nothing_else_is_left(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    target = tmp_path / "out.txt"
    write_atomic(target, "héllo")
    assert target.read_bytes() == "héllo".encode()
    assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt", "plain.txt"]


def test_a_file_written_over_keeps_its_permissions(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    target.chmod(0o640)
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_write_over_the_file_size_limit_leaves_the_old_file_whole_and_no_debris(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old contents")
    pid = os.fork()
    if pid == 0:  # the limit in a child only, so that pytest's own files are not cut
        code = 3
        try:
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
            write_atomic(target, b"y" * 10_000)
        except OSError:
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0  # the write raised OSError
    assert target.read_text() == "old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
