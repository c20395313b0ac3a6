"""Bad input gives a located diagnostic, never a traceback or wrong numbers;
and the spyre-run command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.interpreter import InterpreterOptions
from spyre_mlir.tools import spyre_run as spyre_run_tool

KERNELS = Path(__file__).parent / "kernels"
ERRORS = KERNELS / "errors.mlir"
f16, f32 = np.float16, np.float32

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # no NumPy warning may leak


def line_of(text: str, path: Path = ERRORS, after: str = "") -> int:
    """1-based line of the first line containing `text` (after the line containing `after`)."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if after in line) if after else 0
    return next(i for i in range(start, len(lines)) if text in lines[i]) + 1


def diagnostic(func: str, options: InterpreterOptions | None = None, **args):
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(ERRORS, func, options=options, **args)
    return info.value.diagnostic


@pytest.mark.parametrize("execution", ["batched", "per-core"])
def test_load_outside_the_view_is_located(execution):
    x = np.arange(64, dtype=f32).reshape(16, 4)
    strict = InterpreterOptions(execution=execution, mask_out_of_bounds=False)
    d = diagnostic("out_of_bounds", strict, x=x, y=np.zeros((20, 4), f32))
    assert d.location is not None and d.location.file == str(ERRORS)
    assert d.location.line == line_of("%v = ktdp.load", after="@out_of_bounds")
    assert "access outside the view: coordinate (16, 0)" in d.message
    assert "core 3" in d.message
    assert d.notes and d.notes[0].message == "access tile constructed here"
    assert d.notes[0].location.line == line_of("%t = ktdp.construct_access_tile", after="@out_of_bounds")


@pytest.mark.parametrize("execution", ["batched", "per-core"])
def test_masking_loads_zero_and_skips_stores(execution):
    """The default (KTDP-SEMANTICS §4 Rec): out-of-view elements load 0, stores skip them."""
    x = np.arange(64, dtype=f32).reshape(16, 4)
    options = InterpreterOptions(execution=execution)
    out = spyre_mlir.interpret(ERRORS, "out_of_bounds", options=options, x=x, y=np.full((20, 4), -1, f32))
    want = np.zeros((20, 4), f32)
    want[:16] = x
    np.testing.assert_array_equal(out["y"], want)


def test_store_outside_the_view():
    d = diagnostic("store_out_of_bounds", InterpreterOptions(mask_out_of_bounds=False), y=np.zeros((4, 4), f32))
    assert d.location.line == line_of("ktdp.store %v, %o", after="@store_out_of_bounds")
    assert "coordinate (4, 0)" in d.message


def test_store_outside_the_view_masked_keeps_memory():
    out = spyre_mlir.interpret(ERRORS, "store_out_of_bounds", y=np.zeros((4, 4), f32))
    np.testing.assert_array_equal(out["y"], np.vstack([np.zeros((1, 4)), np.ones((3, 4))]).astype(f32))


def test_uninitialized_read():
    d = diagnostic("uninitialized")
    assert d.location.line == line_of("%v = ktdp.load", after="@uninitialized")
    assert "read of uninitialized HBM" in d.message and "element address 4096" in d.message
    spyre_mlir.interpret(ERRORS, "uninitialized", options=InterpreterOptions(check_uninitialized=False))


def test_partly_written_scratch():
    d = diagnostic("partly_written")
    assert "never written" in d.message
    out = spyre_mlir.interpret(ERRORS, "partly_written", options=InterpreterOptions(check_uninitialized=False))
    np.testing.assert_array_equal(out.read_hbm(0, (8,), f16), [2, 2, 2, 2, 0, 0, 0, 0])


def test_unsupported_op_is_named_at_its_location():
    d = diagnostic("unsupported", t=np.zeros(4, f32))
    assert d.message == "the interpreter does not support 'tensor.pad'"
    assert d.location.line == line_of("tensor.pad")


def test_view_element_type_must_match_the_array():
    d = diagnostic("wrong_dtype", x=np.zeros(8, f32))
    assert "argument 'x' is a float32 array but this view reads f16" in d.message


def test_running_past_an_argument_array():
    d = diagnostic("past_the_array", x=np.zeros(8, f32))
    assert "runs past the end of argument 'x'" in d.message


def test_integer_division_by_zero():
    d = diagnostic("divide_by_zero", a=1, b=0)
    assert d.message == "integer division by zero" and d.location.line == line_of("arith.divsi")


def test_argument_errors():
    assert "missing argument(s) y" in diagnostic("out_of_bounds", x=np.zeros((16, 4), f32)).message
    assert "unknown argument(s) z" in diagnostic("divide_by_zero", a=1, b=2, z=3).message
    assert "2147483648 does not fit in i32" in diagnostic("divide_by_zero", a=2**31, b=1).message
    with pytest.raises(spyre_mlir.DiagnosticError, match="no function @nope"):
        spyre_mlir.interpret(ERRORS, "nope")
    with pytest.raises(spyre_mlir.DiagnosticError, match="cannot choose the kernel"):
        spyre_mlir.interpret(ERRORS)


# -- spyre-run -----------------------------------------------------------------------


def spyre_run(capsys, *argv: str) -> tuple[int, str, str]:
    code = spyre_run_tool.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_spyre_run_writes_outputs(tmp_path, capsys):
    kernel = KERNELS / "loops.mlir"
    x = np.arange(32, dtype=f32).reshape(8, 4)
    np.save(tmp_path / "x.npy", x)
    code, out, err = spyre_run(
        capsys, kernel, "--func", "calls", "--arg", f"x={tmp_path / 'x.npy'}", "--arg", "out=zeros:8x4xf32",
        "--arg", "f=0.5", "--out", tmp_path / "out", "--print-summary",
    )
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "out.npy"), x * 0.5)
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "x.npy"), x)
    assert "grid: [4] (4 cores, col-major)" in out and "execution: batched" in out


def test_spyre_run_random_values_are_seeded(tmp_path, capsys):
    kernel = KERNELS / "loops.mlir"
    args = ["--func", "calls", "--arg", "x=random:8x4xf32:7", "--arg", "out=zeros:8x4xf32", "--arg", "f=2"]
    assert spyre_run(capsys, kernel, *args, "--out", tmp_path / "a")[0] == 0
    assert spyre_run(capsys, kernel, *args, "--out", tmp_path / "b")[0] == 0
    a, b = np.load(tmp_path / "a" / "out.npy"), np.load(tmp_path / "b" / "out.npy")
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, 2 * np.random.default_rng(7).standard_normal((8, 4)).astype(f32))


def test_spyre_run_hbm_preload_and_grid(tmp_path, capsys):
    kernel = KERNELS / "errors.mlir"
    code, _, err = spyre_run(capsys, kernel, "--func", "uninitialized", "--hbm", "4096=zeros:8xf16",
                             "--out", tmp_path)
    assert code == 0, err
    assert (tmp_path / "hbm@4096.npy").exists()


def test_spyre_run_runtime_error_is_a_diagnostic(capsys):
    code, _, err = spyre_run(capsys, ERRORS, "--func", "out_of_bounds", "--arg", "x=random:16x4xf32",
                             "--arg", "y=zeros:20x4xf32", "--strict-bounds")
    assert code == 1
    line = line_of("%v = ktdp.load", after="@out_of_bounds")
    assert err.startswith(f"{ERRORS}:{line}:3: error: access outside the view")
    assert "note: access tile constructed here" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "text, message",
    [
        ("func.func @k() {\n  %0 = arith.no_such_op 1 : i32\n  return\n}\n", "error:"),
        ("func.func @k(%a: index) {\n  %b = arith.addi %a, %a : i32\n  return\n}\n", "error:"),
    ],
    ids=["parse", "verify"],
)
def test_spyre_run_bad_ir(tmp_path, capsys, text, message):
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    code, _, err = spyre_run(capsys, path)
    assert code == 1
    assert err.startswith(f"{path}:2:"), err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--arg", "x=random:4xq7"], "unknown element type 'q7'"),
        (["--arg", "x"], "bad --arg 'x'"),
        (["--arg", "x=nothing"], "bad value 'nothing'"),
        (["--lx-limit", "2 parsecs"], "bad size"),
        (["--grid", "0x4"], "bad grid"),
    ],
)
def test_spyre_run_bad_command_line(capsys, argv, message):
    code, _, err = spyre_run(capsys, KERNELS / "loops.mlir", "--func", "calls", *argv)
    assert code == 1
    assert message in err and "Traceback" not in err


def test_spyre_run_missing_file(capsys):
    code, _, err = spyre_run(capsys, "/no/such/kernel.mlir")
    assert code == 1 and "cannot read" in err


def test_spyre_run_console_script_exit_code():
    """The installed command: exit status 1 and a diagnostic on stderr, no traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "spyre_mlir.tools.spyre_run", str(ERRORS), "--func", "unsupported",
         "--arg", "t=zeros:4xf32"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert f"{ERRORS}:{line_of('tensor.pad')}:3: error: the interpreter does not support 'tensor.pad'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_lx_buffer_beyond_the_scratchpad():
    d = diagnostic("lx_overflow")
    assert "beyond the 2097152-byte LX of core 0 scratchpad" in d.message
    assert d.location.line == line_of("ktdp.store %v, %t", after="@lx_overflow")
    out = spyre_mlir.interpret(ERRORS, "lx_overflow", options=InterpreterOptions(lx_limit=4 * 1024 * 1024))
    assert out.report.lx_explicit_peak == (524000 + 1024) * 4


def test_spyre_run_stops_quietly_when_its_reader_goes_away():
    """`spyre-run ... | head`: status 141 as for SIGPIPE, no 'internal error' (as spyre-opt)."""
    code = "import sys; from spyre_mlir.tools.spyre_run import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(KERNELS / "loops.mlir"), "--func", "calls", "--arg", "x=random:8x4xf32",
         "--arg", "out=zeros:8x4xf32", "--arg", "f=2", "--print-outputs"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before anything is written
    err = proc.stderr.read().decode()
    assert proc.wait() == 141, err
    assert "internal error" not in err and "Traceback" not in err
