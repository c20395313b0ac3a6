"""spyre-opt as a command: split files at scale, -o, a closed stdout, deep nesting."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from spyre_mlir import ir
from spyre_mlir.tools import spyre_opt
from spyre_mlir.tools.spyre_opt import main, split_input

EXE = Path(sys.executable).with_name("spyre-opt")
CHUNK = "func.func @f{i}(%a: index) -> index {{\n  %c = arith.constant 1 : index\n  %r = arith.addi %a, %c : index\n  return %r : index\n}}\n"
BAD_CHUNK = "func.func @bad{i}(%a: index) -> index {{\n  %r = arith.addi %a : index\n  return %r : index\n}}\n"


def split_file(n: int, bad_every: int = 0) -> str:
    chunks = [(BAD_CHUNK if bad_every and i % bad_every == bad_every - 1 else CHUNK).format(i=i) for i in range(n)]
    return "// -----\n".join(chunks)


# -- --split-input-file --------------------------------------------------------


def test_split_chunks_are_not_padded():
    text = split_file(50)
    chunks = split_input(text)
    assert len(chunks) == 50
    assert sum(len(c) for c, _ in chunks) <= len(text)
    lines = text.split("\n")
    for chunk, offset in chunks:  # line j of a chunk is line offset + j of the file
        own = chunk.split("\n")
        assert own[1:-1] == lines[offset + 1 : offset + len(own) - 1]  # (first, last: around a marker)


def test_split_work_is_linear_in_the_input(tmp_path, monkeypatch, capsys):
    """The parser sees each chunk once, not chunk + one newline per line above
    it (quadratic: 8000 chunks took 20x the time of 1000)."""
    seen = []
    parse = ir.parse_module

    def counting(text, *args, **kwargs):
        seen.append(len(text))
        return parse(text, *args, **kwargs)

    monkeypatch.setattr(ir, "parse_module", counting)
    f = tmp_path / "many.mlir"
    f.write_text(split_file(400))
    assert main([str(f), "--split-input-file", "-o", str(tmp_path / "out.mlir")]) == 0
    assert len(seen) == 400
    assert sum(seen) <= f.stat().st_size


def test_split_diagnostics_and_locations_keep_file_lines(tmp_path, capsys):
    f = tmp_path / "chunks.mlir"
    f.write_text(split_file(30, bad_every=10))
    assert main([str(f), "--split-input-file", "--mlir-print-debuginfo"]) == 1
    out, err = capsys.readouterr()
    lines = f.read_text().splitlines()
    bad = [n for n, line in enumerate(lines, start=1) if "arith.addi %a : index" in line]
    assert len(bad) == 3 and bad[-1] > 140
    for lineno in bad:
        assert f"chunks.mlir:{lineno}:" in err, err
    assert err.count(": error: ") == 3
    # ops keep their line in the file: the last addi is on the second-last chunk's line 3
    last_good = max(n for n, line in enumerate(lines, start=1) if "arith.addi %a, %c" in line)
    assert f'"{f}":{last_good}:' in out


# -- -o ---------------------------------------------------------------------------


def test_failed_run_leaves_no_output_file(tmp_path, capsys):
    src = tmp_path / "in.mlir"
    src.write_text(split_file(5, bad_every=3))
    out = tmp_path / "out.mlir"
    assert main([str(src), "--split-input-file", "-o", str(out)]) == 1
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mlir"], "no temporary file left behind"


def test_failed_run_keeps_an_existing_output_file(tmp_path, capsys):
    src = tmp_path / "in.mlir"
    src.write_text(BAD_CHUNK.format(i=0))
    out = tmp_path / "out.mlir"
    out.write_text("previous\n")
    assert main([str(src), "-o", str(out)]) == 1
    assert out.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mlir", "out.mlir"]


def test_output_is_written_whole_with_ordinary_permissions(tmp_path, capsys):
    src = tmp_path / "in.mlir"
    src.write_text(split_file(3))
    out = tmp_path / "out.mlir"
    assert main([str(src), "--split-input-file", "-o", str(out)]) == 0
    assert out.read_text().count("// -----") == 2
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask
    assert capsys.readouterr().out == ""
    # an existing file keeps its mode; a device is written, not replaced
    out.chmod(0o640)
    assert main([str(src), "-o", str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert main([str(src), "-o", os.devnull]) == 0
    assert Path(os.devnull).is_char_device()


def test_output_dash_is_stdout(tmp_path, capsys):
    src = tmp_path / "in.mlir"
    src.write_text(CHUNK.format(i=0))
    assert main([str(src), "-o", "-"]) == 0
    assert "func.func @f0" in capsys.readouterr().out
    assert not (tmp_path / "-").exists()


def test_unwritable_output_is_an_error(tmp_path, capsys):
    src = tmp_path / "in.mlir"
    src.write_text(CHUNK.format(i=0))
    assert main([str(src), "-o", str(tmp_path / "no-such-dir" / "out.mlir")]) == 1
    assert "error: cannot write" in capsys.readouterr().err


# -- stdout closed early ----------------------------------------------------------


def test_closed_stdout_is_a_quiet_exit(tmp_path):
    """`spyre-opt big.mlir | head -1`: no traceback, no "Exception ignored"."""
    src = tmp_path / "big.mlir"
    src.write_text(split_file(1500))  # ~200 KB of output, more than a pipe holds
    proc = subprocess.Popen([str(EXE), str(src), "--split-input-file"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b"module")
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == spyre_opt.EXIT_BROKEN_PIPE
    assert err == ""


# -- deep nesting -------------------------------------------------------------------


def test_2000_nested_regions(tmp_path, capsys):
    n = 2000
    body = ["func.func @deep(%c: i1) {"]
    body += ["  " * (i + 1) + "scf.if %c {" for i in range(n)]
    body += ["  " * (i + 1) + "}" for i in reversed(range(n))]
    body += ["  return", "}"]
    src = tmp_path / "deep.mlir"
    src.write_text("\n".join(body) + "\n")
    assert main([str(src)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.count("scf.if %c {") == n


@pytest.mark.parametrize("flags", [["--mlir-print-op-generic"], ["--split-input-file", "--verify-diagnostics"]])
def test_2000_nested_regions_other_paths(tmp_path, capsys, flags):
    n = 2000
    text = "func.func @deep(%c: i1) {\n" + "scf.if %c {\n" * n + "}\n" * n + "return\n}\n"
    src = tmp_path / "deep.mlir"
    src.write_text(text)
    assert main([str(src), *flags]) == 0, capsys.readouterr().err


def test_split_marker_on_its_own_line_also_with_crlf():
    assert len(split_input("a\r\n// -----\r\nb\r\n// -----  \nc\n")) == 3
    assert len(split_input("%x = op // ----- not a marker\n")) == 1


def test_pass_manager_api_runs_deep_ir():
    """PassManager.run from Python (no spyre-opt around it) on 2000 nested regions."""
    import spyre_mlir

    n = 2000
    text = "func.func @deep(%c: i1) {\n" + "scf.if %c {\n" * n + "}\n" * n + "return\n}\n"
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse("ktdp-normalize-memory-space,spyre-fold-reshapes").run(module)
