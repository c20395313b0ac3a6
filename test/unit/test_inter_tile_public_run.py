"""The public inter-tile kernels run to their stated results (docs/inter-tile.md §6).

Every expected value is a NumPy oracle computed here from seeded inputs:

- the corpus ring kernels (../shared/corpus/ktir-inter-tile/, skipped when
  absent) bitwise against the interpreter's fold (ascending tile id, every step
  rounded to f16, §4.3);
- the ktir-cpu kernels (kernels/inter_tile_public/README.md) against their
  stated f32 references, within error bounds derived from the f16 roundings the
  kernels perform (docs/interpreter.md "Numerics"); the 2-D ones are written for
  col-major tile ids (grid dim 0 fastest, §4.1), the default, and under the
  row-major option they must NOT match.

`ring_reduce_multi_group.mlir` is not run: it addresses rows in 64-element
sticks, so under element addresses its rows overlap (a spelling test only).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS_INTER_TILE

import spyre_mlir
from spyre_mlir.interpreter import InterpreterOptions

PUBLIC = Path(__file__).parent / "kernels" / "inter_tile_public"
SEEDS = (0, 1)
U16 = 2.0**-11  # unit roundoff of f16: a correctly rounded op has relative error <= U16
F16_TINY = 2.0**-24  # spacing of f16 subnormals: absolute error of a rounding there <= F16_TINY / 2
COL_MAJOR = InterpreterOptions()  # the default order: grid dim 0 varies fastest
assert COL_MAJOR.grid_order == "col-major"
ROW_MAJOR = InterpreterOptions(grid_order="row-major")

needs_corpus = pytest.mark.skipif(not CORPUS_INTER_TILE.is_dir(), reason=f"{CORPUS_INTER_TILE} not present")


def unwritten(shape) -> np.ndarray:
    """An output buffer of NaN, so an element the kernel never stores cannot pass."""
    return np.full(shape, np.nan, dtype=np.float16)


def assert_bitwise(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.dtype == expected.dtype == np.float16
    np.testing.assert_array_equal(actual.reshape(-1).view(np.uint16), expected.reshape(-1).view(np.uint16))


def within(actual: np.ndarray, expected: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """Per element: |actual - expected| <= tol (NaN never is)."""
    return np.abs(actual.astype(np.float64) - expected) <= tol


# -- ../shared/corpus/ktir-inter-tile: ring_reduce and ring_reduce_inner_loop --


def ring_rows(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((4, 128)).astype(np.float16)


@needs_corpus
@pytest.mark.parametrize("seed", SEEDS)
def test_ring_reduce_is_the_ascending_f16_fold_of_the_rows(seed):
    # "output[0..127] = sum of all 4 input rows"; core c's partial is row c and
    # the fold is ((row0 + row1) + row2) + row3, rounding to f16 at each step.
    rows = ring_rows(seed)
    out = spyre_mlir.interpret(
        CORPUS_INTER_TILE / "ring_reduce.mlir", "ring_reduce", in_ptr=rows, out_ptr=unwritten((1, 128))
    )["out_ptr"]
    assert_bitwise(out, functools.reduce(np.add, rows))


@needs_corpus
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_iters", [0, 1, 2, 7])
def test_ring_reduce_inner_loop_accumulates_the_fold_n_iters_times(seed, n_iters):
    # "output = K * sum(all 4 input rows)", K = %n_iters: the kernel starts from
    # an f16 zero tensor and adds the all-reduced sum once per iteration
    # (linalg.add in f16), so K * S is reached by K rounded additions.
    rows = ring_rows(seed)
    total = functools.reduce(np.add, rows)
    expected = np.zeros(128, np.float16)
    for _ in range(n_iters):
        expected = expected + total
    out = spyre_mlir.interpret(
        CORPUS_INTER_TILE / "ring_reduce_inner_loop.mlir",
        "ring_reduce_inner_loop",
        in_ptr=rows,
        out_ptr=unwritten((1, 128)),
        n_iters=n_iters,
    )["out_ptr"]
    assert_bitwise(out, expected)


# -- ffn_swiglu_4core.mlir: out = x + (silu(x @ W_gate) * (x @ W_up)) @ W_down --


@pytest.mark.parametrize("seed", SEEDS)
def test_ffn_swiglu_4core_matches_the_f32_swiglu_reference(seed):
    # seq 4, d_model 256, d_ffn 1024 (kernel header); weights scaled by fan-in.
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 256)).astype(np.float16)
    w_gate = (rng.standard_normal((256, 1024)) / np.sqrt(256)).astype(np.float16)
    w_up = (rng.standard_normal((256, 1024)) / np.sqrt(256)).astype(np.float16)
    w_down = (rng.standard_normal((1024, 256)) / np.sqrt(1024)).astype(np.float16)
    out = spyre_mlir.interpret(
        PUBLIC / "ffn_swiglu_4core.mlir",
        "ffn_swiglu_4core",
        x_ptr=x,
        w_gate_ptr=w_gate,
        w_up_ptr=w_up,
        w_down_ptr=w_down,
        out_ptr=unwritten((4, 256)),
    )["out_ptr"]

    xf, wg, wu, wd = (a.astype(np.float32) for a in (x, w_gate, w_up, w_down))
    gate = xf @ wg
    fused = gate / (1 + np.exp(-gate)) * (xf @ wu)
    reference = xf + fused @ wd
    # Every value is f16: on the path to out[i, j] the kernel rounds about a
    # dozen times (gate, up, exp, 1 + e, the divide, two products, the W_down
    # matmul, three fold additions, the residual add), each by at most U16
    # relative to a term bounded by |x| + |fused| @ |W_down|.
    tol = 16 * U16 * (np.abs(xf) + np.abs(fused) @ np.abs(wd))
    assert within(out, reference, tol).all()
    # The bound is tight enough to see any one core's contribution go missing.
    for core in range(4):
        shard = slice(256 * core, 256 * (core + 1))
        assert not within(out, reference - fused[:, shard] @ wd[shard], tol).all()


# -- sdpa_pv_ksplit.mlir: c = a @ b on 32 cores, strided groups, col-major ids --


def sdpa_run(seed: int, options: InterpreterOptions):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((1, 8192)).astype(np.float16)
    b = rng.standard_normal((8192, 128)).astype(np.float16)
    out = spyre_mlir.interpret(
        PUBLIC / "sdpa_pv_ksplit.mlir", "sdpa_pv_ksplit", a_ptr=a, b_ptr=b, c_ptr=unwritten((1, 128)), options=options
    )["c_ptr"]
    af, bf = a.astype(np.float32), b.astype(np.float32)
    # Core (pid_out, pid_in) computes a[:, K_j] @ b[K_j, N_o] over the j-th
    # 512-wide slice of K; group o = pid_out folds its 16 partials.
    partials = np.stack([af[:, 512 * j : 512 * (j + 1)] @ bf[512 * j : 512 * (j + 1)] for j in range(16)])
    reference = af @ bf
    # Each partial is rounded to f16 once (f32 accumulation) and the 16 are
    # summed in f16: |error| <= U16 * sum|p| + gamma_15 * sum|p| < 17 U16 sum|p|.
    tol = 17 * U16 * np.abs(partials).sum(axis=0) + F16_TINY
    return out, reference, partials, tol


@pytest.mark.parametrize("seed", SEEDS)
def test_sdpa_pv_ksplit_col_major_is_a_times_b(seed):
    out, reference, partials, tol = sdpa_run(seed, COL_MAJOR)
    assert within(out, reference, tol).all()
    for j in range(16):  # the bound sees any one missing partial
        assert not within(out, reference - partials[j], tol).all()


def test_sdpa_pv_ksplit_row_major_is_not_a_times_b():
    # Row-major ids make the strided groups mix both output blocks (§4.1).
    out, reference, _, tol = sdpa_run(0, ROW_MAJOR)
    assert not np.isnan(out).any()  # it runs and stores every column, wrongly
    assert not within(out, reference, tol).all()


# -- rmsnorm_4core_2x2.mlir (and its older spelling): col-major ids --

RMSNORM = ["rmsnorm_4core_2x2.mlir", "rmsnorm_4core_2x2.older-op-attribute-groups.mlir"]
N, EPS, BLOCK_SIZE = 4096, 1e-5, 1024  # kernel header: hidden_dim 4096, "eps, e.g. 1e-5", BLOCK_SIZE 1024


def rmsnorm_run(kernel: str, seed: int, options: InterpreterOptions):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((256, N)).astype(np.float16)
    w = rng.standard_normal((256, N)).astype(np.float16)  # "weight 256x4096 f16", read at [row, col]
    out = spyre_mlir.interpret(
        PUBLIC / kernel,
        "rmsnorm_2x2",
        X=x,
        Y=unwritten((256, N)),
        W=w,
        N=N,
        eps=EPS,
        BLOCK_SIZE=BLOCK_SIZE,
        options=options,
    )["Y"]
    xf = x.astype(np.float32)
    eps = np.float32(np.float16(EPS))  # %eps is an f16 parameter
    # Header: rstd = rsqrt(sum(X[r]**2) / N + eps), Y[r] = X[r] * rstd * W[r].
    reference = xf / np.sqrt((xf * xf).sum(axis=1, keepdims=True) / N + eps) * w.astype(np.float32)
    # f16 roundings: x*x, the 2-block accumulator, the row reduce (once), the
    # 2-partner fold (positive terms: <= 4 U16 on the sum of squares), / N
    # (exact), + eps (5 U16), rsqrt (halves it, then rounds): rstd within
    # 3.5 U16; two products: 5.5 U16. Allow 8 U16 relative, plus a few
    # subnormal spacings for results near zero.
    tol = 8 * U16 * np.abs(reference) + 8 * F16_TINY
    return out, reference, tol


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kernel", RMSNORM)
def test_rmsnorm_4core_2x2_col_major_matches_the_header_formula(kernel, seed):
    out, reference, tol = rmsnorm_run(kernel, seed, COL_MAJOR)
    assert within(out, reference, tol).all()


@pytest.mark.parametrize("kernel", RMSNORM)
def test_rmsnorm_4core_2x2_row_major_does_not(kernel):
    # Row-major ids pair the two row blocks of one column half: each row is
    # normalised by the squares of a different row's half added to its own.
    out, reference, tol = rmsnorm_run(kernel, 0, ROW_MAJOR)
    assert not np.isnan(out).any()
    assert not within(out, reference, tol).all()
