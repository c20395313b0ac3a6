"""Out-of-view tiles are masked by default (issue 18 item 3; KTDP-SEMANTICS §4 Rec).

A kernel shaped like ktir-cpu's `vector_add_dynamic_ktir.mlir` (Triton tensor
descriptors: masked loads and dropped stores on the tail tile) runs to its
NumPy oracle by default; the strict mode (`mask_out_of_bounds=False`,
`spyre-run --strict-bounds`) makes the tail tile's access a located error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.interpreter import InterpreterOptions

KERNEL = Path(__file__).parent / "kernels" / "masked" / "vector_add_tail.mlir"
f32 = np.float32
SENTINEL = f32(1234.5)


def inputs(seed: int, n: int):
    rng = np.random.default_rng(seed)
    # 24 elements allocated, n of them in the views: what lies past n must not be read or written
    x = rng.standard_normal(24).astype(f32)
    y = rng.standard_normal(24).astype(f32)
    x[n:] = y[n:] = 1e6
    return x, y


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(KERNEL.read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize("execution", ["batched", "per-core"])
@pytest.mark.parametrize("n", [20, 17, 24])
def test_tail_tile_is_masked_by_default(n, execution):
    x, y = inputs(n, n)
    out = spyre_mlir.interpret(
        KERNEL, "vector_add_tail", options=InterpreterOptions(execution=execution),
        x=x, y=y, out=np.full(24, SENTINEL, f32), sums=np.zeros(3, f32), n_i32=n,
    )
    expected = np.full(24, SENTINEL, f32)
    expected[:n] = x[:n] + y[:n]
    np.testing.assert_array_equal(out["out"], expected)  # the tail's stores past n are dropped
    sums = [x[8 * t : min(8 * t + 8, n)].astype(np.float64).sum() for t in range(3)]
    np.testing.assert_allclose(out["sums"], sums, rtol=1e-6)  # its loads past n read 0, not memory


@pytest.mark.parametrize("execution", ["batched", "per-core"])
def test_strict_bounds_is_a_located_error(execution):
    x, y = inputs(0, 20)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(
            KERNEL, "vector_add_tail", options=InterpreterOptions(execution=execution, mask_out_of_bounds=False),
            x=x, y=y, out=np.zeros(24, f32), sums=np.zeros(3, f32), n_i32=20,
        )
    d = info.value.diagnostic
    assert d.location.file == str(KERNEL) and d.location.line == line_of("%xs = ktdp.load")
    assert d.message == (
        "access outside the view: coordinate (20) is outside the 20xf32 view (valid: 0 <= c0 < 20) "
        "on core 2 (tile id (2))"
    )
    assert d.notes[0].location.line == line_of("%xt = ktdp.construct_access_tile")


def test_options_default():
    assert InterpreterOptions().mask_out_of_bounds is True


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    from spyre_mlir.tools.spyre_run import main

    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


ARGS = ("--arg", "x=random:24xf32", "--arg", "y=random:24xf32", "--arg", "out=zeros:24xf32",
        "--arg", "sums=zeros:3xf32", "--arg", "n_i32=20")


def test_spyre_run_masks_by_default_and_strict_bounds_errors(tmp_path, capsys):
    code, _, err = run_cli(capsys, KERNEL, *ARGS, "--out", tmp_path / "a")
    assert code == 0, err
    x, y, out = (np.load(tmp_path / "a" / f"{k}.npy") for k in ("x", "y", "out"))
    np.testing.assert_array_equal(out[:20], x[:20] + y[:20])
    np.testing.assert_array_equal(out[20:], 0)
    # the old flag still works (it now states the default)
    code, _, err = run_cli(capsys, KERNEL, *ARGS, "--mask-out-of-bounds", "--out", tmp_path / "b")
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "b" / "out.npy"), out)
    code, _, err = run_cli(capsys, KERNEL, *ARGS, "--strict-bounds")
    assert code == 1
    assert err.startswith(f"{KERNEL}:{line_of('%xs = ktdp.load')}:3: error: access outside the view: coordinate (20)")
    assert "Traceback" not in err
    code, _, err = run_cli(capsys, KERNEL, *ARGS, "--strict-bounds", "--mask-out-of-bounds")
    assert code == 1 and "argument --mask-out-of-bounds: not allowed with argument --strict-bounds" in err
