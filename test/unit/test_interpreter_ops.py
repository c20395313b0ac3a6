"""Op families and execution features on the kernels in test/unit/kernels/.

Grid kernels run twice, with all cores batched and one core after another,
and must give identical memory; each result is also checked against NumPy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.interpreter import (
    InterpreterOptions,
    bf16_bits_to_float32,
    float32_to_bf16_bits,
    round_to_bf16,
)

KERNELS = Path(__file__).parent / "kernels"
f16, f32 = np.float16, np.float32

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # no NumPy warning may leak


def run(kernel: str, func: str, *, options: InterpreterOptions | None = None, **args):
    return spyre_mlir.interpret(KERNELS / kernel, func, options=options, **args)


def run_both(kernel: str, func: str, **args):
    """Batched and per-core runs; their outputs must agree exactly."""
    batched = run(kernel, func, options=InterpreterOptions(execution="batched"), **args)
    per_core = run(kernel, func, options=InterpreterOptions(execution="per-core"), **args)
    assert batched.report.mode == "batched" and per_core.report.mode == "per-core"
    assert batched.keys() == per_core.keys()
    for key in batched:
        np.testing.assert_array_equal(batched[key], per_core[key], err_msg=key)
    return batched


def results(out) -> list[np.ndarray]:
    return [out[f"return_{i}"] for i in range(len(out))]


# -- arith / math ----------------------------------------------------------------


def test_float_ops_f16_round_each_result():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(8).astype(f16), rng.standard_normal(8).astype(f16)
    b[0], a[1] = np.nan, np.nan
    x, y = f32(1.5), f32(2.25)
    out = results(run("elementwise.mlir", "float_ops", a=a, b=b, x=float(x), y=float(y), c=False))
    sq = a * a
    want = [
        a + b, a - b, a * b, a / b, -a,
        np.maximum(a, b), np.fmax(a, b), np.minimum(a, b),
        np.exp(a), np.abs(a), np.sqrt(sq),
        (1 / np.sqrt(sq.astype(f32))).astype(f16),  # rsqrt: computed wide, rounded once
        x * y, x * y - x, np.bool_(x < y), b, a.astype(f32), a.view(np.int16), np.tanh(a),
    ]
    for i, (got, exp) in enumerate(zip(out, want)):
        np.testing.assert_array_equal(got, np.asarray(exp), err_msg=f"result #{i}")
    # maximumf propagates NaN, maxnumf prefers the number.
    assert np.isnan(out[5][0]) and out[6][0] == a[0]
    assert np.isnan(out[5][1]) and out[6][1] == b[1]


def test_int_ops_signed_unsigned_and_wrapping():
    i = np.array([7, -7, 7, -7, 100, 5, -1, 0], np.int32)
    j = np.array([2, 2, -2, -2, 7, 5, 3, 9], np.int32)
    out = results(run("elementwise.mlir", "int_ops", i=i, j=j, n=17, m=5, k=70000, sh=3))
    trunc = np.trunc(i / j).astype(np.int32)  # divsi/remsi round toward zero
    want = [
        i + j, i * j, trunc, i - j * trunc, np.floor_divide(i, j), -np.floor_divide(-i, j),
        (i.view(np.uint32) // j.view(np.uint32)).view(np.int32), np.maximum(i, j),
        85, 3, 2, 5,
        70000 * 70000 - 2**32,  # i32 multiplication wraps
        1, 70000 << 3, 17,
        f16(np.inf),  # 70000 does not fit in f16
        False,
    ]
    for idx, (got, exp) in enumerate(zip(out, want)):
        np.testing.assert_array_equal(got, np.asarray(exp), err_msg=f"result #{idx}")
    assert out[12].dtype == np.int32 and out[8].dtype == np.int64


def test_shift_by_more_than_width_is_an_error():
    with pytest.raises(spyre_mlir.DiagnosticError, match="shift amount out of range"):
        run("elementwise.mlir", "int_ops", i=np.zeros(8, np.int32), j=np.ones(8, np.int32), n=1, m=1, k=1, sh=40)


def test_constants_hex_bit_patterns_and_bf16():
    ninf, nan, bits, as_float, splat, mat, bf, third = results(run("elementwise.mlir", "constants"))
    assert ninf == -np.inf and ninf.dtype == f16  # 0xFC00 : f16
    assert np.isnan(nan)
    assert bits == -8388608 and bits.dtype == np.int32  # 0xFF800000 : i32
    assert as_float == -np.inf and as_float.dtype == f32
    np.testing.assert_array_equal(splat, np.full(4, 1.5, f16))
    np.testing.assert_array_equal(mat, [[1, -2], [3, 4]])
    np.testing.assert_array_equal(bf, round_to_bf16(np.array([1.0, 0.1, -3.5], f32)))
    assert third == round_to_bf16(f32(1.0) / f32(3.0))  # bf16 arithmetic rounds every result


def test_bf16_memory_is_bit_patterns():
    rng = np.random.default_rng(1)
    x = float32_to_bf16_bits(rng.standard_normal((2, 16)).astype(f32))
    out = run_both("tiles.mlir", "bf16_square_plus_one", x=x, y=np.zeros((2, 16), np.uint16))
    v = bf16_bits_to_float32(x)
    np.testing.assert_array_equal(out["y"], float32_to_bf16_bits(round_to_bf16(round_to_bf16(v * v) + 1)))


# -- tensor ----------------------------------------------------------------------


def test_tensor_ops():
    t = np.arange(24, dtype=f32).reshape(4, 6)
    out = results(run("tensor_ops.mlir", "shapes", t=t, off=1, s=9.5))
    placed = np.zeros((4, 6), f32)
    placed[2:4, 0:3] = t[1:3, 1:6:2]
    inserted = t.copy()
    inserted[1, 2] = 9.5
    want = [
        t[1:3, 1:6:2], placed, t.reshape(2, 2, 6), t.reshape(24), t.reshape(3, 8),
        np.full((2, 2), 9.5, f32), inserted, t[2, 1], t[3], np.concatenate([t, t]), 6, np.full(3, 9.5, f32),
    ]
    for i, (got, exp) in enumerate(zip(out, want)):
        np.testing.assert_array_equal(got, np.asarray(exp), err_msg=f"result #{i}")


def test_tensor_ops_per_core():
    x = np.arange(48, dtype=f32).reshape(8, 6)
    out = run_both("tensor_ops.mlir", "per_core", x=x, y=np.zeros((8, 6), f32))
    want = x.copy()
    for core in range(4):
        block = x[2 * core : 2 * core + 2].copy()
        off = core % 2
        block[:, off : off + 3] *= 2
        block[1, 0] = x[2 * core, core]
        want[2 * core : 2 * core + 2] = block
    np.testing.assert_array_equal(out["y"], want)


# -- linalg ----------------------------------------------------------------------


def test_linalg_ops():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((4, 8)).astype(f32), rng.standard_normal((4, 8)).astype(f32)
    v, m = rng.standard_normal(8).astype(f32), rng.standard_normal((8, 3)).astype(f32)
    out = results(run("linalg_ops.mlir", "structured", a=a, b=b, v=v, m=m))
    fold = np.zeros(4, f32)
    for j in range(8):  # acc * 0.5 + x, in order
        fold = fold * f32(0.5) + a[:, j]
    want = [
        a + v + np.arange(8, dtype=f32), fold, (a * a).sum(axis=1), a + b, a - b, a * b, np.maximum(a, b),
        np.exp(a), np.broadcast_to(v, (4, 8)), a.T, a.max(axis=1), a.sum(axis=1), a @ m,
        np.broadcast_to(a, (3, 4, 8)),
    ]
    for i, (got, exp) in enumerate(zip(out, want)):
        assert got.shape == exp.shape, f"result #{i}"
        np.testing.assert_allclose(got, exp, rtol=1e-6, atol=1e-6, err_msg=f"result #{i}")


# The same sums from a transposed view (what linalg.transpose yields) and from a
# contiguous copy of it: NumPy's float summation order follows memory order, so
# the interpreter reduces and contracts C-contiguous operands.
ORDER_FREE_SUMS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @sums(%y: tensor<16x160xf32>, %w: tensor<160x16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = tensor.splat %zero : tensor<16xf32>
  %r = linalg.reduce { arith.addf } ins(%y : tensor<16x160xf32>) outs(%z : tensor<16xf32>) dimensions = [1]
  %g = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<16x160xf32>) outs(%z : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %zm = tensor.splat %zero : tensor<16x16xf32>
  %mm = linalg.matmul ins(%y, %w : tensor<16x160xf32>, tensor<160x16xf32>)
      outs(%zm : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r, %g, %mm : tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>
}
func.func @sums_of_transposed(%x: tensor<160x16xf32>, %w: tensor<160x16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>) {
  %e = tensor.empty() : tensor<16x160xf32>
  %y = linalg.transpose ins(%x : tensor<160x16xf32>) outs(%e : tensor<16x160xf32>) permutation = [1, 0]
  %r, %g, %mm = func.call @sums(%y, %w)
      : (tensor<16x160xf32>, tensor<160x16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>)
  return %r, %g, %mm : tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>
}
"""


def test_sums_depend_on_values_not_memory_order():
    rng = np.random.default_rng(7)
    # a wide dynamic range, so that summing in another order rounds differently
    x = (rng.standard_normal((160, 16)) * np.exp(rng.uniform(-6, 6, (160, 16)))).astype(f32)
    w = rng.standard_normal((160, 16)).astype(f32)
    y = np.ascontiguousarray(x.T)
    of_view = results(spyre_mlir.interpret(ORDER_FREE_SUMS, "sums_of_transposed", x=x, w=w))
    of_copy = results(spyre_mlir.interpret(ORDER_FREE_SUMS, "sums", y=y, w=w))
    for i, (a, b) in enumerate(zip(of_view, of_copy)):
        np.testing.assert_array_equal(a, b, err_msg=f"result #{i}")
    np.testing.assert_array_equal(of_copy[0], np.add.reduce(y, axis=1))
    np.testing.assert_allclose(of_copy[2], y @ w, rtol=1e-5, atol=1e-3)


def test_linalg_contraction_accumulates_in_f32():
    rng = np.random.default_rng(3)
    a, v = rng.standard_normal((4, 8)).astype(f16), rng.standard_normal(8).astype(f16)
    init = np.ones(4, f16)
    out = run("linalg_ops.mlir", "matvec", a=a, v=v, init=init)
    np.testing.assert_array_equal(out["return_0"], (a.astype(f32) @ v.astype(f32) + 1).astype(f16))


def test_linalg_ops_per_core():
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((16, 8)).astype(f32), rng.standard_normal((8, 3)).astype(f32)
    out = run_both("linalg_ops.mlir", "per_core", x=x, w=w, out=np.zeros((16, 8), f32),
                   rows=np.zeros((4, 4, 4), f32), mm=np.zeros((16, 3), f32))
    core = np.repeat(np.arange(4, dtype=f32), 4)[:, None]
    np.testing.assert_allclose(out["out"], x * core + np.arange(8, dtype=f32), rtol=1e-6)
    np.testing.assert_allclose(out["mm"], x @ w, rtol=1e-5, atol=1e-6)
    for c in range(4):
        block = x[4 * c : 4 * c + 4]
        fold = np.zeros(4, f32)
        for j in range(8):
            fold = fold * f32(0.5) + block[:, j]
        np.testing.assert_allclose(out["rows"][c], np.stack([fold, fold, block.max(1), block.max(1)]), rtol=1e-6)


# -- grids, control flow, calls ------------------------------------------------------


def test_two_dimensional_grid():
    out = run_both("grid2d.mlir", "tile_ids", out=np.zeros((4, 8), np.int32))
    np.testing.assert_array_equal(out["out"], 100 * np.arange(4)[:, None] + np.arange(8))


@pytest.mark.parametrize("execution", ["batched", "per-core"])
def test_grid_order_decides_which_core_ct_id_names(execution):
    row_major = run("grid2d.mlir", "lx_owner", out=np.zeros(1, np.int32),
                    options=InterpreterOptions(execution=execution, grid_order="row-major"))
    assert row_major["out"][0] == 42 and row_major.report.lx_explicit_peak == 4
    col_major = InterpreterOptions(execution=execution, grid_order="col-major")
    for options in (col_major, InterpreterOptions(execution=execution)):  # col-major is the default
        with pytest.raises(spyre_mlir.DiagnosticError, match="uninitialized LX of core 1"):
            run("grid2d.mlir", "lx_owner", out=np.zeros(1, np.int32), options=options)
    col_major.check_uninitialized = False
    assert run("grid2d.mlir", "lx_owner", out=np.ones(1, np.int32), options=col_major)["out"][0] == 0


def test_for_iter_args_with_core_dependent_trip_counts():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((20, 16)).astype(f32)
    out = run_both("loops.mlir", "strided_rows", x=x, out=np.zeros((8, 16), f32), counts=np.zeros(8, np.int32), n=20)
    want = np.zeros((8, 16), f32)
    for core in range(8):
        for row in range(core, 20, 8):
            want[core] += x[row]
    np.testing.assert_array_equal(out["out"], want)
    np.testing.assert_array_equal(out["counts"], [3, 3, 3, 3, 2, 2, 2, 2])
    assert out.report.divergent_regions == 1


def test_if_and_while_with_core_dependent_conditions():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((6, 8)).astype(f32)
    out = run_both("loops.mlir", "branches", x=x, out=np.zeros((6, 8), f32), steps=np.zeros(6, np.int32))
    np.testing.assert_array_equal(out["out"], np.where((np.arange(6) % 2 == 0)[:, None], 2 * x, -x))
    want = []
    for core in range(6):
        k = bonus = 0
        while k * k < 5 * core:
            k += 1
            bonus += 10 if k % 2 else 0
        want.append(k + bonus)
    np.testing.assert_array_equal(out["steps"], want)
    assert out.report.divergent_regions > 0


def test_func_call():
    x = np.arange(32, dtype=f32).reshape(8, 4)
    out = run_both("loops.mlir", "calls", x=x, out=np.zeros((8, 4), f32), f=0.5)
    np.testing.assert_array_equal(out["out"], x * 0.5)


# -- access tiles and views ------------------------------------------------------------


def test_triangular_tile_loads_zero_holes_and_stores_members_only():
    rng = np.random.default_rng(7)
    src = rng.standard_normal((4, 4)).astype(f32)
    out = run("tiles.mlir", "triangle", src=src, full=np.zeros((4, 4), f32), tri=-np.ones((4, 4), f32))
    lower = np.tri(4, dtype=bool)
    np.testing.assert_array_equal(out["full"], np.where(lower, src, 0))
    np.testing.assert_array_equal(out["tri"], np.where(lower, src, -1))


def test_triangular_tile_takes_the_tight_box_of_its_set():
    rng = np.random.default_rng(8)
    src = rng.standard_normal((4, 4)).astype(f32)
    out = run("tiles.mlir", "triangle_at_edge", src=src, dst=np.zeros((4, 4), f32))
    want = np.zeros((4, 4), f32)
    for i in range(3):
        for j in range(3):
            if i + j <= 2:
                want[i, j] = src[1 + i, j]
    np.testing.assert_array_equal(out["dst"], want)


def test_transposed_and_permuted_access_tile_order():
    src = np.arange(64, dtype=f32).reshape(8, 8)
    cube = np.arange(24, dtype=f32).reshape(2, 3, 4)
    out = run_both("tiles.mlir", "transposed", src=src, out=np.zeros((8, 2), f32), cube=cube,
                   perm=np.zeros((4, 2, 3), f32), back=np.zeros((2, 3, 4), f32))
    np.testing.assert_array_equal(out["out"], np.concatenate([src[2 * c : 2 * c + 2, 4:8].T for c in range(2)]))
    np.testing.assert_array_equal(out["perm"], cube.transpose(2, 0, 1))  # tile[k][i][j] = v[i][j][k]
    np.testing.assert_array_equal(out["back"], cube)


def test_distributed_view():
    rng = np.random.default_rng(9)
    top, bottom = rng.standard_normal((4, 8)).astype(f32), rng.standard_normal((4, 8)).astype(f32)
    out = run("tiles.mlir", "distributed", top=top, bottom=bottom, all=np.zeros((8, 8), f32),
              inside=np.zeros((2, 8), f32))
    whole = np.concatenate([top, bottom])
    np.testing.assert_array_equal(out["all"], whole)
    np.testing.assert_array_equal(out["inside"], whole[5:7])
    doubled = whole.copy()
    doubled[2:6] *= 2
    np.testing.assert_array_equal(np.concatenate([out["top"], out["bottom"]]), doubled)


def test_overlapping_partitions_are_an_error():
    with pytest.raises(spyre_mlir.DiagnosticError, match=r"partitions #0 and #1 .* overlap"):
        run("tiles.mlir", "overlapping", a=np.zeros((4, 8), f32), b=np.zeros((4, 8), f32))


def test_indirect_access_tile_gather_and_scatter():
    rng = np.random.default_rng(10)
    src = rng.standard_normal((16, 8)).astype(f32)
    idx = np.array([[3, 7, 1], [15, 0, 7]], np.int32)
    out = run_both("tiles.mlir", "indirect", src=src, idx=idx, dst=np.zeros((16, 8), f32), out=np.zeros((2, 3, 4), f32))
    np.testing.assert_array_equal(out["out"], np.stack([src[idx[c]][:, 4 * c : 4 * c + 4] for c in range(2)]))
    dst = np.zeros((16, 8), f32)
    for c in range(2):
        dst[idx[c], 4 * c : 4 * c + 4] = 2 * src[idx[c], 4 * c : 4 * c + 4]
    np.testing.assert_array_equal(out["dst"], dst)


def test_indirect_index_out_of_range_is_an_error_in_strict_mode():
    idx = np.array([[3, 16, 1], [0, 0, 0]], np.int32)
    with pytest.raises(spyre_mlir.DiagnosticError, match=r"coordinate \(16, 0\)"):
        run("tiles.mlir", "indirect", src=np.zeros((16, 8), f32), idx=idx, dst=np.zeros((16, 8), f32),
            out=np.zeros((2, 3, 4), f32), options=InterpreterOptions(mask_out_of_bounds=False))


def test_indirect_index_out_of_range_is_masked_by_default():
    """Row 16 of a 16-row source loads 0 and its store is dropped (KTDP-SEMANTICS §4 Rec)."""
    src = np.random.default_rng(12).standard_normal((16, 8)).astype(f32)
    idx = np.array([[3, 16, 1], [0, 5, 0]], np.int32)
    out = run("tiles.mlir", "indirect", src=src, idx=idx, dst=np.zeros((16, 8), f32), out=np.zeros((2, 3, 4), f32))
    padded = np.vstack([src, np.zeros((1, 8), f32)])  # what a masked gather sees
    np.testing.assert_array_equal(out["out"], np.stack([padded[idx[c]][:, 4 * c : 4 * c + 4] for c in range(2)]))
    dst = np.zeros((17, 8), f32)
    for c in range(2):
        dst[idx[c], 4 * c : 4 * c + 4] = 2 * padded[idx[c], 4 * c : 4 * c + 4]
    np.testing.assert_array_equal(out["dst"], dst[:16])


def test_runtime_arg():
    rng = np.random.default_rng(11)
    src = rng.standard_normal((64, 4)).astype(f32)
    out = run("tiles.mlir", "runtime_rows", M=64, src=src, dst=np.zeros((64, 4), f32))
    np.testing.assert_array_equal(out["dst"], src * src)
    with pytest.raises(spyre_mlir.DiagnosticError, match="not a multiple of the runtime_arg granularity 32"):
        run("tiles.mlir", "runtime_rows", M=48, src=src, dst=np.zeros((64, 4), f32))
    with pytest.raises(spyre_mlir.DiagnosticError, match="exceeds the runtime_arg upperbound 128"):
        run("tiles.mlir", "runtime_rows", M=160, src=src, dst=np.zeros((64, 4), f32))


# -- memory --------------------------------------------------------------------------


def test_lx_peak_estimate_and_limit():
    x = np.zeros((1024, 512), f16)
    out = run("errors.mlir", "big_tiles", x=x)
    assert out.report.lx_tensor_peak == 2 * 1024 * 512 * 2  # loaded tile + its sum, live together
    assert "lx peak per core: 2097152 bytes" in out.report.render()
    with pytest.raises(spyre_mlir.DiagnosticError, match="exceeds the 1572864-byte scratchpad"):
        run("errors.mlir", "big_tiles", x=x, options=InterpreterOptions(check_lx=True, lx_limit=1536 * 1024))


def test_arrays_are_placed_at_aligned_addresses_in_their_element_type():
    out = run("tiles.mlir", "bf16_square_plus_one", x=np.zeros((2, 16), np.uint16), y=np.zeros((2, 16), np.uint16))
    args = out.report.arguments
    for name in ("x", "y"):
        assert args[name].dtype == np.uint16 and (args[name].address * 2) % 128 == 0
    assert args["x"].address + 2 * 16 <= args["y"].address  # disjoint


def test_caller_arrays_are_never_modified():
    x = np.arange(32, dtype=f32).reshape(8, 4)
    out_array = np.zeros((8, 4), f32)
    out = run("loops.mlir", "calls", x=x, out=out_array, f=0.5)
    assert not out_array.any()  # the kernel wrote a copy
    np.testing.assert_array_equal(out["out"], x * 0.5)
    assert not out["x"].flags.writeable  # unwritten arguments come back as read-only views


def test_values_marked_core_dependent_that_are_not():
    x = np.arange(16, dtype=f32).reshape(4, 4)
    out = run_both("loops.mlir", "uniform_after_all", x=x, out=np.zeros((4, 4), f32))
    np.testing.assert_array_equal(out["out"], np.broadcast_to(x[0] + 1, (4, 4)))


def test_kernels_that_cannot_be_batched_run_per_core():
    x = np.arange(1, 9, dtype=f32).reshape(1, 8)
    out = run("loops.mlir", "ragged", x=x, out=np.zeros(4, f32))
    assert out.report.mode == "per-core"
    assert "depends on the core id" in out.report.fallback_reason
    assert "execution: per-core (the shape of a slice depends on the core id at " in out.report.render()
    np.testing.assert_array_equal(out["out"], [1, 3, 6, 10])
    with pytest.raises(spyre_mlir.DiagnosticError, match="cannot run the cores batched"):
        run("loops.mlir", "ragged", x=x, out=np.zeros(4, f32), options=InterpreterOptions(execution="batched"))


def test_contraction_with_a_per_core_init():
    a, v = np.arange(32, dtype=f32).reshape(4, 8), np.ones(8, f32)
    out = run_both("linalg_ops.mlir", "contraction_core_init", a=a, v=v, out=np.zeros((2, 4), f32))
    np.testing.assert_array_equal(out["out"], np.stack([a @ v, a @ v + 1]))
