"""Every kernel of the corpus runs in the interpreter and matches a NumPy oracle.

The oracles compute what the kernel computes, with the interpreter's
documented numerics (docs/interpreter.md): f16 elementwise ops are NumPy
float16 ops (each result rounded to f16); reductions and matmuls accumulate
in float32 and round once. Loop-carried f16 accumulations are mirrored
block by block. Inputs are seeded. Tolerances per dtype are below; with the
same numerics results are expected to be bit-identical, the tolerance only
absorbs transcendental functions whose float16 implementation may differ by
an ulp between CPUs.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS

import spyre_mlir
from spyre_mlir.interpreter import InterpreterOptions, InterpreterWarning

f16, f32 = np.float16, np.float32

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # no NumPy warning may leak

TOLERANCE = {
    np.dtype(np.float16): dict(rtol=2e-3, atol=2e-3),  # ~2 ulp of f16 near 1
    np.dtype(np.float32): dict(rtol=1e-6, atol=1e-6),
}


def _corpus(name: str) -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} not present")
    path = CORPUS / name
    assert path.exists(), f"corpus kernel {name} is missing"
    return path


def assert_close(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got.astype(f32), want.astype(f32), **TOLERANCE[want.dtype])


def run(path: Path, *, execution: str = "auto", grid=None, hbm=None, **args):
    return spyre_mlir.interpret(path, hbm=hbm, options=InterpreterOptions(execution=execution, grid=grid), **args)


# -- oracles -------------------------------------------------------------------


def softmax_oracle(x: np.ndarray, max_fn) -> np.ndarray:
    m = max_fn.reduce(x, axis=1, keepdims=True)
    e = np.exp(x - m)
    s = np.add.reduce(e, axis=1, dtype=f32, keepdims=True).astype(f16)
    return e / s


def layernorm_oracle(x, w, b, eps, n, block):
    """The kernel's blockwise f16 accumulation, then f32 reductions rounded once."""
    rows = x.shape[0]
    acc = np.zeros((rows, block), f16)
    for c in range(0, n, block):
        acc = acc + x[:, c : c + block]
    mean = np.add.reduce(acc, axis=1, dtype=f32).astype(f16) / f16(n)
    acc = np.zeros((rows, block), f16)
    for c in range(0, n, block):
        d = x[:, c : c + block] - mean[:, None]
        acc = acc + d * d
    var = np.add.reduce(acc, axis=1, dtype=f32).astype(f16) / f16(n)
    rstd = f16(1) / np.sqrt(var + f16(eps))
    y = ((x - mean[:, None]) * rstd[:, None]) * w + b
    return y, mean, rstd


def matmul_oracle(a, b, block_k):
    """f16 accumulator updated per K block with an f32 product rounded to f16."""
    acc = np.zeros((a.shape[0], b.shape[1]), f16)
    for k in range(0, a.shape[1], block_k):
        acc = acc + (a[:, k : k + block_k].astype(f32) @ b[k : k + block_k].astype(f32)).astype(f16)
    return acc


# -- one test per corpus kernel --------------------------------------------------


def test_vector_add():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(4096).astype(f16), rng.standard_normal(4096).astype(f16)
    for execution in ("batched", "per-core"):
        out = run(_corpus("vector_add_ktir.mlir"), execution=execution, x_ptr=x, y_ptr=y,
                  output_ptr=np.zeros(4096, f16), BLOCK_SIZE=128)
        assert_close(out["output_ptr"], x + y)
        assert_close(out["x_ptr"], x)  # inputs are returned too, unchanged


def test_softmax_fwd():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4096, 1024)).astype(f16)
    out = run(_corpus("softmax_fwd_ktir.mlir"), output_ptr=np.zeros_like(x), input_ptr=x, n_rows=4096)
    assert out.report.mode == "batched"
    assert_close(out["output_ptr"], softmax_oracle(x, np.fmax))


def test_softmax_fwd_per_core_matches_batched():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4096, 1024)).astype(f16)
    args = dict(output_ptr=np.zeros_like(x), input_ptr=x, n_rows=4096)
    batched = run(_corpus("softmax_fwd_ktir.mlir"), execution="batched", **args)
    per_core = run(_corpus("softmax_fwd_ktir.mlir"), execution="per-core", **args)
    np.testing.assert_array_equal(batched["output_ptr"], per_core["output_ptr"])


def test_softmax_small():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((64, 64)).astype(f16)
    for execution in ("batched", "per-core"):
        out = run(_corpus("softmax_small.mlir"), execution=execution, output_ptr=np.zeros_like(x),
                  input_ptr=x, n_rows=64)
        assert_close(out["output_ptr"], softmax_oracle(x, np.maximum))


def test_layernorm_fwd():
    rng = np.random.default_rng(6)
    shape = (1151, 8192)
    x, w, b = (rng.standard_normal(shape).astype(f16) for _ in range(3))
    out = run(_corpus("layernorm_fwd_ktir.mlir"), X=x, Y=np.zeros_like(x), W=w, B=b,
              Mean=np.zeros(1151, f16), Rstd=np.zeros(1151, f16), N=8192, eps=1e-5, BLOCK_SIZE=1024)
    y, mean, rstd = layernorm_oracle(x, w, b, 1e-5, 8192, 1024)
    assert_close(out["Mean"], mean)
    assert_close(out["Rstd"], rstd)
    assert_close(out["Y"], y)
    # 1151 rows over 32 cores: the row loop's trip count differs between cores.
    assert out.report.mode == "batched" and out.report.divergent_regions >= 1


def test_matmul_fwd():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((64, 2048)).astype(f16)
    b = rng.standard_normal((2048, 8192)).astype(f16)
    out = run(_corpus("matmul_fwd_ktir.mlir"), a_ptr=a, b_ptr=b, c_ptr=np.zeros((64, 8192), f16), K=2048,
              BLOCK_SIZE_M=32, BLOCK_SIZE_N=512, BLOCK_SIZE_K=128)
    want = matmul_oracle(a, b, 128)
    # Each K block's f32 sum is rounded to f16; BLAS sums in an order that
    # depends on the shape and the CPU, so a block may round to a neighbouring
    # f16. Bound: one f16 ulp of the largest result per block.
    blocks = 2048 // 128
    atol = blocks * float(np.spacing(np.abs(want).max()))
    got = out["c_ptr"]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got.astype(f32), want.astype(f32), rtol=0, atol=atol)


def test_reduce_generic():
    x = np.array([[0.5, -1.25, 3.0, 2.125]], f16)
    for execution in ("batched", "per-core"):
        out = run(_corpus("reduce_generic.mlir"), execution=execution, arg0=x.copy())
        total = np.add.reduce(x, axis=1, dtype=f32).astype(f16)
        assert_close(out["arg0"], np.broadcast_to(total, (1, 4)).astype(f16))


def test_scalar_broadcast():
    x = np.array([[2.5]], f16)
    out = run(_corpus("scalar_broadcast.mlir"), in_ptr=x, out_ptr=np.zeros((4, 64), f16))
    assert_close(out["out_ptr"], np.full((4, 64), 2.5, f16))


def _address_constants(path: Path) -> dict[str, int]:
    text = path.read_text()
    return {k: int(v) for k, v in re.findall(r"%(\w+)_start_address = arith.constant (\d+) : index", text)}


def test_add_with_control_flow_addresses_are_element_offsets():
    """KTDP-SEMANTICS §2: base addresses count elements of the view's type.

    A, B and C are 96x64 f16 views at the constant bases of the kernel: as
    element ranges they are disjoint (B and C abut), as byte ranges A would
    overlap B. The kernel only computes A + B correctly under element units."""
    path = _corpus("add-with-control-flow.mlir")
    bases = _address_constants(path)
    a, b, c = bases["A"], bases["B"], bases["C"]
    n = 96 * 64
    as_elements = sorted([(a, a + n), (b, b + n), (c, c + n)])
    assert all(hi <= lo for (_, hi), (lo, _) in zip(as_elements, as_elements[1:])), "disjoint in elements"
    assert b + n == c, "B and C abut exactly"
    as_bytes = sorted([(a, a + 2 * n), (b, b + 2 * n), (c, c + 2 * n)])
    assert any(hi > lo for (_, hi), (lo, _) in zip(as_bytes, as_bytes[1:])), "would overlap as bytes"

    rng = np.random.default_rng(8)
    x, y = rng.standard_normal((96, 64)).astype(f16), rng.standard_normal((96, 64)).astype(f16)
    # The kernel has no grid attribute, though it is written for 32 tiles of 3 rows.
    out = run(path, grid=(32,), hbm={a: x, b: y})
    assert_close(out.read_hbm(c, (96, 64), f16), x + y)
    assert_close(out[f"hbm@{a}"], x)  # A and B were not overwritten by C
    assert_close(out[f"hbm@{b}"], y)


def test_add_with_control_flow_without_grid_runs_one_core():
    path = _corpus("add-with-control-flow.mlir")
    bases = _address_constants(path)
    rng = np.random.default_rng(9)
    x, y = rng.standard_normal((96, 64)).astype(f16), rng.standard_normal((96, 64)).astype(f16)
    with pytest.warns(InterpreterWarning, match="reads the tile id but has no 'grid' attribute"):
        out = run(path, hbm={bases["A"]: x, bases["B"]: y, bases["C"]: np.zeros((96, 64), f16)})
    assert len(out.report.warnings) == 1
    c = out[f"hbm@{bases['C']}"]
    assert_close(c[:3], x[:3] + y[:3])  # tile 0 of the intended 32: rows 0-2
    assert not c[3:].any()
