"""Linear tile ids follow the public kernels (issue 18 item 2; KTDP-SEMANTICS §1).

The default order is grid dim 0 varying fastest (`spyre_mlir.analysis.grid`,
ktir-cpu's `x + nx*(y + ny*z)`): two kernels of ours with the structure of
ktir-cpu's `rmsnorm_4core_2x2.mlir` and `sdpa_pv_ksplit.mlir` (written for
`pid = row*2 + col` on grid [2, 2], `kb*2 + nb` on grid [2, 16]) run to their
NumPy oracles under the default; under `grid_order="row-major"` they compute
other numbers (the oracle of that reading is checked too, so the order is the
only difference). Also: a consume broadcasting one producer to every consumer
is legal (issue 18 item 4; producer coverage is a rule of reduce only).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.analysis.grid import DEFAULT_GRID_ORDER, linear_id, linear_order
from spyre_mlir.interpreter import InterpreterOptions
from spyre_mlir.interpreter.runtime import GRID_ORDERS

KERNELS = Path(__file__).parent / "kernels"
RMSNORM = KERNELS / "grid_order" / "rmsnorm_rowgroups_2x2.mlir"
KSPLIT = KERNELS / "grid_order" / "ksplit_matvec_2x16.mlir"
BROADCAST = KERNELS / "inter_tile" / "consume_broadcast_one_of_many.mlir"
EPS = np.float32(1e-5)
f32 = np.float32


def test_the_default_is_dim_0_fastest_everywhere():
    assert DEFAULT_GRID_ORDER == "col-major" == InterpreterOptions().grid_order
    assert GRID_ORDERS[0] == DEFAULT_GRID_ORDER
    # pid = row*2 + col for tile (col, row) of grid [2, 2]
    assert [linear_id((col, row), (2, 2)) for row in range(2) for col in range(2)] == [0, 1, 2, 3]
    assert linear_order((2, 2)) == ((0, 0), (1, 0), (0, 1), (1, 1))
    assert linear_order((2, 2), "row-major") == ((0, 0), (0, 1), (1, 0), (1, 1))


# -- rmsnorm over row groups of 2 tiles, grid [2, 2] --------------------------


def rmsnorm_inputs(seed: int):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((8, 16)).astype(f32)
    w = rng.standard_normal(16).astype(f32)
    return x, w


def rmsnorm_oracle(x: np.ndarray, w: np.ndarray, order: str):
    """y and p as the kernel computes them when linear ids are in `order`."""
    partial = {}  # (col, row) -> sum of squares of its 4 rows over its 8 columns
    for col in range(2):
        for row in range(2):
            block = x[4 * row : 4 * row + 4, 8 * col : 8 * col + 8].astype(np.float64)
            partial[col, row] = (block**2).sum(axis=1)
    tiles = linear_order((2, 2), order)
    y = np.zeros((8, 16))
    p = np.zeros(16)
    for pid, (col, row) in enumerate(tiles):
        group = pid // 2  # the set {2g, 2g+1}
        full = partial[tiles[2 * group]] + partial[tiles[2 * group + 1]]
        rstd = 1 / np.sqrt(full / 16 + float(EPS))
        block = x[4 * row : 4 * row + 4, 8 * col : 8 * col + 8].astype(np.float64)
        y[4 * row : 4 * row + 4, 8 * col : 8 * col + 8] = block * rstd[:, None] * w[8 * col : 8 * col + 8]
        p[4 * pid : 4 * pid + 4] = partial[col, row]
    return y, p


def rmsnorm_run(seed: int, options: InterpreterOptions | None = None):
    x, w = rmsnorm_inputs(seed)
    out = spyre_mlir.interpret(
        RMSNORM, "rmsnorm_rowgroups", options=options,
        x=x, w=w, y=np.full((8, 16), np.nan, f32), p=np.full(16, np.nan, f32), eps=EPS,
    )
    return x, w, out


@pytest.mark.parametrize("seed", [0, 1])
def test_rmsnorm_row_groups_match_numpy_under_the_default_order(seed):
    x, w, out = rmsnorm_run(seed)
    y, p = rmsnorm_oracle(x, w, "col-major")
    # the plain RMSNorm of every row: the groups are the tiles sharing rows
    direct = x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + float(EPS)) * w
    np.testing.assert_allclose(y, direct, rtol=1e-12)
    np.testing.assert_allclose(out["y"], y, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(out["p"], p, rtol=2e-6)  # p[4*pid ..], pid the single-result tile id


def test_rmsnorm_row_groups_differ_under_row_major():
    x, w, out = rmsnorm_run(0, InterpreterOptions(grid_order="row-major"))
    right, _ = rmsnorm_oracle(x, w, "col-major")
    y, p = rmsnorm_oracle(x, w, "row-major")
    assert not np.allclose(out["y"], right, rtol=1e-3)
    np.testing.assert_allclose(out["y"], y, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(out["p"], p, rtol=2e-6)


# -- k-split matrix-vector product, grid [2, 16] -----------------------------


def ksplit_inputs(seed: int):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((1, 256)).astype(f32), rng.standard_normal((256, 32)).astype(f32)


def ksplit_oracle(a: np.ndarray, b: np.ndarray, order: str) -> np.ndarray:
    """c as the kernel computes it with linear ids in `order`: the fold of each
    strided group {g, g+2, ..., g+30} in ascending linear id, stored by the
    group's tiles with kb == 0 at their own output block."""
    tiles = linear_order((2, 16), order)

    def partial(nb, kb):
        return a[:, 16 * kb : 16 * kb + 16].astype(np.float64) @ b[16 * kb : 16 * kb + 16, 16 * nb : 16 * nb + 16]

    c = np.full((1, 32), np.nan)
    for pid, (nb, kb) in enumerate(tiles):
        if kb == 0:
            group = [tiles[i] for i in range(pid % 2, 32, 2)]
            c[:, 16 * nb : 16 * nb + 16] = functools.reduce(np.add, [partial(*t) for t in group])
    return c


@pytest.mark.parametrize("seed", [0, 1])
def test_ksplit_matches_numpy_under_the_default_order(seed):
    a, b = ksplit_inputs(seed)
    out = spyre_mlir.interpret(KSPLIT, "ksplit_matvec", a=a, b=b, c=np.full((1, 32), np.nan, f32))
    expected = ksplit_oracle(a, b, "col-major")
    np.testing.assert_allclose(expected, a.astype(np.float64) @ b, rtol=1e-12, atol=1e-12)  # c = a @ b
    np.testing.assert_allclose(out["c"], expected, rtol=1e-5, atol=1e-5)


def test_ksplit_differs_under_row_major():
    a, b = ksplit_inputs(0)
    out = spyre_mlir.interpret(
        KSPLIT, "ksplit_matvec", options=InterpreterOptions(grid_order="row-major"),
        a=a, b=b, c=np.full((1, 32), np.nan, f32),
    )
    assert not np.allclose(out["c"], a.astype(np.float64) @ b, rtol=1e-3)
    np.testing.assert_allclose(out["c"], ksplit_oracle(a, b, "row-major"), rtol=1e-5, atol=1e-5)


def test_spyre_run_says_what_depends_on_the_grid_order(capsys):
    from spyre_mlir.tools.spyre_run import build_parser

    text = build_parser().format_help()
    flat = " ".join(text.split())
    assert "--grid-order {col-major,row-major}" in flat
    assert "default col-major" in flat
    for what in ("inter-tile", "ct_id", "single-result ktdp.get_compute_tile_id"):
        assert what in flat


def test_spyre_run_grid_order_option(tmp_path, capsys):
    from spyre_mlir.tools.spyre_run import main

    x, w = rmsnorm_inputs(0)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "w.npy", w)
    common = [str(RMSNORM), "--arg", f"x={tmp_path / 'x.npy'}", "--arg", f"w={tmp_path / 'w.npy'}",
              "--arg", "y=zeros:8x16xf32", "--arg", "p=zeros:16xf32", "--arg", "eps=1e-5"]
    for order in GRID_ORDERS:
        assert main([*common, "--grid-order", order, "--out", str(tmp_path / order), "--print-summary"]) == 0
        assert f"(4 cores, {order})" in capsys.readouterr().out
        y, _ = rmsnorm_oracle(x, w, order)
        np.testing.assert_allclose(np.load(tmp_path / order / "y.npy"), y, rtol=2e-6, atol=1e-6)
    assert main([*common, "--out", str(tmp_path / "default")]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "default" / "y.npy"), np.load(tmp_path / "col-major" / "y.npy"))


# -- a consume broadcasting one producer's tile (issue 18 item 4) ------------


@pytest.mark.parametrize("seed", [0, 1])
def test_consume_broadcast_of_one_producer_among_many(seed):
    x = np.random.default_rng(seed).standard_normal((8, 32)).astype(f32)
    out = spyre_mlir.interpret(BROADCAST, "broadcast_leader", x=x, out=np.zeros((8, 32), f32))
    np.testing.assert_array_equal(out["out"], np.stack([x[4 * (c // 4)] for c in range(8)]))
    out = spyre_mlir.interpret(BROADCAST, "broadcast_last", x=x, out=np.zeros((8, 32), f32))
    np.testing.assert_array_equal(out["out"], np.stack([x[7]] * 8))


def test_consume_broadcast_counts_one_sender():
    x = np.random.default_rng(0).standard_normal((8, 32)).astype(f32)
    out = spyre_mlir.interpret(BROADCAST, "broadcast_last", x=x, out=np.zeros((8, 32), f32))
    comm = out.runtime.stats.comm
    row = 32 * 4
    np.testing.assert_array_equal(comm["sent"], [0] * 7 + [7 * row])  # producers 0..6 send nothing
    np.testing.assert_array_equal(comm["received"], [row] * 7 + [0])


# -- a single-result tile id is the linear id ---------------------------------


@pytest.mark.parametrize("execution", ["batched", "per-core"])
@pytest.mark.parametrize("order", GRID_ORDERS)
def test_single_result_tile_id_is_the_linear_id(order, execution):
    options = InterpreterOptions(grid_order=order, execution=execution)
    out = spyre_mlir.interpret(
        KERNELS / "grid_order" / "linear_tile_id.mlir", "linear_id", options=options,
        out=np.full((2, 3), -1, np.int32),
    )
    expected = [[linear_id((a, b), (2, 3), order) for b in range(3)] for a in range(2)]
    assert expected == ([[0, 2, 4], [1, 3, 5]] if order == "col-major" else [[0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(out["out"], expected)
