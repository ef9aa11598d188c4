"""Progress on stderr (issue 14, part 7): drawn on a terminal only, files done of the total and the
C++ units in flight, redrawn in place and erased before the report; never in a pipe or a file."""
import os
import pty
import subprocess

UNIT = ("#include <regex>\n#include <iostream>\n#include <map>\n"
        "int cudnnSetTensor4dDescriptor(void*, int, int, int, int, int, int);\n"
        "void f{i}(void* d) {{ cudnnSetTensor4dDescriptor(d, 0, 0, 0, 3, 8, 8); }}\n")


def slow_tree(tmp_path):
    # Six translation units with heavy standard headers, parsed one at a time: about 2.5 s on the
    # 2-core machine, well past the half second before the first draw.
    for i in range(6):
        (tmp_path / f"unit{i}.cpp").write_text(UNIT.format(i=i))
    (tmp_path / "model.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=-1e-5)\n")
    return tmp_path


def run_on_a_terminal(cli, *args):
    master, slave = pty.openpty()
    process = subprocess.Popen([cli.binary, *map(str, args)], stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    drawn = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        drawn += chunk
    os.close(master)
    out = process.stdout.read()
    process.wait(timeout=120)
    return process.returncode, out.decode(), drawn.decode(errors="replace")


def test_progress_is_drawn_on_a_terminal_and_erased(cli, tmp_path):
    code, out, drawn = run_on_a_terminal(cli, "-j", "1", slow_tree(tmp_path))
    assert code == 1 and "7 findings" in out
    assert "\r\x1b[Kcudnnlint: " in drawn and "/7 files" in drawn, drawn
    assert "; clang: unit" in drawn and ".cpp" in drawn, drawn
    assert drawn.endswith("\r\x1b[K"), drawn[-200:]  # the line is erased before the report


def test_no_progress_in_a_pipe_or_with_no_progress(cli, tmp_path):
    tree = slow_tree(tmp_path)
    piped = cli.run("-j", "1", tree, check_code=1)
    assert "\r" not in piped.stderr and "files;" not in piped.stderr
    code, _, drawn = run_on_a_terminal(cli, "-j", "1", "--no-progress", tree)
    assert code == 1 and "cudnnlint: " not in drawn, drawn
