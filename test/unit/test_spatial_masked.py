"""Tail tiles through `ktir-to-spatial`: masked load and store stages.

A tile that runs past its view's end (a block of rows or columns past the last
one, as Triton writes them) is legal KTIR: by default its elements outside the
view load 0 and are not stored (KTDP-SEMANTICS §4). spatial-tile marks the load
or store stage of such an access `masked` (only where, at some step of that
site, the tile can reach outside its tensor); the spatial interpreter fills
those elements with 0 on a load and skips them on a store, and counts HBM bytes
of the elements moved only. A strict run (`mask_out_of_bounds=False`) refuses
the step, as it refuses the source's access. Each program is compared bit for
bit with its source and with NumPy, with and without multicast.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.ir.affine import AffineExpr

import spyre_mlir
from spyre_mlir import DiagnosticError
from spyre_mlir.dialects import spatial
from spyre_mlir.interpreter import InterpreterOptions
from spyre_mlir.interpreter.ops_spatial import MASKED_ATTR as RUN_MASKED_ATTR
from spyre_mlir.interpreter.ops_spatial import simulate
from spyre_mlir.passes.spatial.spatial_tile import MASKED_ATTR, _may_run_outside

f32 = np.float32


def _view(name: str, ptr: str, rows: int, cols: int) -> str:
    return (
        f"%{name} = ktdp.construct_memory_view %{ptr}, sizes: [{rows}, {cols}], strides: [{cols}, 1] "
        f"{{coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {rows - 1} >= 0, d1 >= 0, -d1 + {cols - 1} >= 0)>, "
        f"memory_space = #ktdp.memory_space<global>}} : memref<{rows}x{cols}xf32>"
    )


def _tile(name: str, view: str, vshape: tuple[int, int], r: str, c: str, tshape: tuple[int, int]) -> str:
    tr, tc = tshape
    return (
        f"%{name} = ktdp.construct_access_tile %{view}[%{r}, %{c}] "
        f"{{access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {tr - 1} >= 0, d1 >= 0, -d1 + {tc - 1} >= 0)>, "
        f"access_tile_order = affine_map<(d0, d1) -> (d0, d1)>}} : memref<{vshape[0]}x{vshape[1]}xf32> -> "
        f"!ktdp.access_tile<{tr}x{tc}xindex>"
    )


# Rows: 13-row views in 8-row tiles, one per block (grid [2]): block 1's tile
# covers rows [8, 16). Every block also reads rows [0, 8) of a 5-row view @w
# (a tail tile that every site reads: multicast).
ROWS = f"""
func.func @rows(%x: index, %w: index, %out: index) attributes {{grid = [2]}} {{
  %pid = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  {_view("xv", "x", 13, 64)}
  {_view("wv", "w", 5, 64)}
  {_view("ov", "out", 13, 64)}
  %r = arith.muli %pid, %c8 : index
  {_tile("xt", "xv", (13, 64), "r", "c0", (8, 64))}
  %xd = ktdp.load %xt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
  {_tile("wt", "wv", (5, 64), "c0", "c0", (8, 64))}
  %wd = ktdp.load %wt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
  %s = arith.addf %xd, %wd : tensor<8x64xf32>
  %e = math.exp %s : tensor<8x64xf32>
  {_tile("ot", "ov", (13, 64), "r", "c0", (8, 64))}
  ktdp.store %e, %ot : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>
  return
}}
"""

# Columns: 16x40 views in 16x16 tiles, one per block (grid [3]): block 2's
# tile covers columns [32, 48).
COLUMNS = f"""
func.func @columns(%x: index, %out: index) attributes {{grid = [3]}} {{
  %pid = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  {_view("xv", "x", 16, 40)}
  {_view("ov", "out", 16, 40)}
  %c = arith.muli %pid, %c16 : index
  {_tile("xt", "xv", (16, 40), "c0", "c", (16, 16))}
  %xd = ktdp.load %xt : !ktdp.access_tile<16x16xindex> -> tensor<16x16xf32>
  %two = arith.constant dense<2.0> : tensor<16x16xf32>
  %m = arith.mulf %xd, %two : tensor<16x16xf32>
  %y = arith.addf %m, %xd : tensor<16x16xf32>
  {_tile("ot", "ov", (16, 40), "c0", "c", (16, 16))}
  ktdp.store %y, %ot : tensor<16x16xf32>, !ktdp.access_tile<16x16xindex>
  return
}}
"""

# A loop over row blocks on one site: the second iteration's tile covers
# rows [8, 16) of 13; a sum over each row block's rows includes the zeros.
LOOP = f"""
func.func @loop(%x: index, %out: index) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  {_view("xv", "x", 13, 64)}
  {_view("ov", "out", 13, 64)}
  scf.for %i = %c0 to %c2 step %c1 {{
    %r = arith.muli %i, %c8 : index
    {_tile("xt", "xv", (13, 64), "r", "c0", (8, 64))}
    %xd = ktdp.load %xt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
    %z = arith.constant 0.0 : f32
    %init = tensor.splat %z : tensor<64xf32>
    %sum = linalg.reduce {{ arith.addf }} ins(%xd : tensor<8x64xf32>) outs(%init : tensor<64xf32>) dimensions = [0]
    %e = tensor.empty() : tensor<8x64xf32>
    %b = linalg.broadcast ins(%sum : tensor<64xf32>) outs(%e : tensor<8x64xf32>) dimensions = [0]
    %y = arith.subf %xd, %b : tensor<8x64xf32>
    {_tile("ot", "ov", (13, 64), "r", "c0", (8, 64))}
    ktdp.store %y, %ot : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>
  }}
  return
}}
"""


def _rows_args(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return dict(x=rng.standard_normal((13, 64)).astype(f32), w=rng.standard_normal((5, 64)).astype(f32),
                out=np.zeros((13, 64), f32))


def _rows_numpy(args: dict) -> np.ndarray:
    w = np.zeros((8, 64), f32)
    w[:5] = args["w"]
    return np.exp(args["x"] + w[np.arange(13) % 8])


def _columns_args(seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    return dict(x=rng.standard_normal((16, 40)).astype(f32), out=np.zeros((16, 40), f32))


def _loop_args(seed: int = 2) -> dict:
    rng = np.random.default_rng(seed)
    return dict(x=rng.standard_normal((13, 64)).astype(f32), out=np.zeros((13, 64), f32))


def _loop_numpy(args: dict) -> np.ndarray:
    x = args["x"]
    return np.concatenate([x[:8] - x[:8].sum(axis=0), x[8:] - x[8:].sum(axis=0)])


CASES = {
    "rows": (ROWS, _rows_args, _rows_numpy),
    "columns": (COLUMNS, _columns_args, lambda a: a["x"] * f32(2) + a["x"]),
    "loop": (LOOP, _loop_args, _loop_numpy),
}


def _lower(text: str, multicast: bool = True):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.from_pipeline("ktir-to-spatial" + ("" if multicast else "{multicast=false}")).run(module)
    return module


def _copy(args: dict) -> dict:
    return {k: v.copy() for k, v in args.items()}


def _masked_moves(module) -> set[tuple[str, str]]:
    """(site, tensor) of every masked load and store stage."""
    out = set()
    for op in module.walk():
        if isinstance(op, spatial.StageOp) and op.kind_name in ("load", "store") and MASKED_ATTR in op.attributes:
            tensor = op.input_names[0] if op.kind_name == "load" else op.output_names[0]
            out.add((op.site.root_reference.data, tensor))
    return out


@pytest.mark.parametrize("multicast", [True, False], ids=["multicast", "no-multicast"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_tail_tiles_lower_and_run_equal_to_source_and_numpy(case, multicast):
    text, make_args, oracle = CASES[case]
    name = case
    args = make_args()
    source = spyre_mlir.interpret(spyre_mlir.parse(text), name, **_copy(args))
    module = _lower(text, multicast)
    (program,) = [op for op in module.walk() if isinstance(op, spatial.ProgramOp)]
    assert program.phase == "verified"
    got = spyre_mlir.interpret(module, name, **_copy(args))
    np.testing.assert_array_equal(got["out"], source["out"])
    np.testing.assert_allclose(got["out"], oracle(args), rtol=1e-5, atol=1e-5)
    # what the source stores outside the tail is kept: no element past the view is written
    assert got["out"].shape == args["out"].shape


def test_only_moves_that_can_run_past_their_tensor_are_masked():
    assert MASKED_ATTR == RUN_MASKED_ATTR
    rows = _lower(ROWS, multicast=False)
    # block 0's x and out tiles are rows [0, 8) of 13: inside; @w's 8 rows of 5 never are
    assert _masked_moves(rows) == {("b0", "w"), ("b1", "x"), ("b1", "w"), ("b1", "out")}
    columns = _lower(COLUMNS)
    assert _masked_moves(columns) == {("b2", "x"), ("b2", "out")}
    assert _masked_moves(_lower(LOOP)) == {("b0", "x"), ("b0", "out")}


def test_a_receive_stage_is_not_masked():
    """Multicast: the reader's load is masked; the stages that receive its (already
    padded) tile move nothing from HBM and carry no mark."""
    module = _lower(ROWS, multicast=True)
    stages = [op for op in module.walk() if isinstance(op, spatial.StageOp)]
    assert any(s.kind_name == "receive" for s in stages)
    assert not [s.sym_name.data for s in stages if s.kind_name == "receive" and MASKED_ATTR in s.attributes]
    assert any(s.kind_name == "load" and MASKED_ATTR in s.attributes for s in stages)


def test_a_masked_stage_prints_and_reads_back():
    module = _lower(ROWS)
    text = str(module)
    assert "attributes {masked}" in text
    again = spyre_mlir.parse(text)
    np.testing.assert_array_equal(
        spyre_mlir.interpret(again, "rows", **_rows_args())["out"],
        spyre_mlir.interpret(module, "rows", **_rows_args())["out"],
    )


@pytest.mark.parametrize("multicast", [True, False], ids=["multicast", "no-multicast"])
def test_hbm_bytes_count_only_the_elements_inside_the_tensor(multicast):
    module = _lower(ROWS, multicast)
    out, stats = simulate(module, "rows", **_rows_args())
    np.testing.assert_allclose(out["out"], _rows_numpy(_rows_args()), rtol=1e-5, atol=1e-5)
    w_reads = 1 if multicast else 2  # multicast: @w's tile is read once for both sites
    assert stats.hbm_read_bytes == (13 * 64 + w_reads * 5 * 64) * 4
    assert stats.hbm_written_bytes == 13 * 64 * 4
    assert stats.cycles > 0


def test_a_strict_run_refuses_the_masked_step_as_it_refuses_the_source():
    strict = InterpreterOptions(mask_out_of_bounds=False)
    with pytest.raises(DiagnosticError):
        spyre_mlir.interpret(spyre_mlir.parse(COLUMNS), "columns", options=strict, **_columns_args())
    with pytest.raises(DiagnosticError) as info:
        spyre_mlir.interpret(_lower(COLUMNS), "columns", options=strict, **_columns_args())
    message = str(info.value)
    assert "outside the tensor @x (16x40)" in message and "along dim 1 it covers [32, 48)" in message
    assert "the stage is masked" in message and "strictly" in message


def test_an_unmasked_stage_reaching_outside_its_tensor_is_an_error():
    module = _lower(COLUMNS)
    for op in module.walk():
        if isinstance(op, spatial.StageOp):
            op.attributes.pop(MASKED_ATTR, None)
    with pytest.raises(DiagnosticError) as info:
        spyre_mlir.interpret(module, "columns", **_columns_args())
    message = str(info.value)
    assert "outside the tensor @x (16x40): along dim 1 it covers [32, 48)" in message and "masked" not in message


def test_may_run_outside_bounds_the_origin_over_the_loop_numbers():
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    c = AffineExpr.constant
    assert not _may_run_outside([d0 * 8, c(0)], [8, 64], [16, 64], [2])
    assert _may_run_outside([d0 * 8, c(0)], [8, 64], [13, 64], [2])
    assert not _may_run_outside([d0 * 8, c(0)], [8, 64], [13, 64], [0])  # the loop never runs
    assert not _may_run_outside([(d0 * 4) % 8, d1 * 16], [8, 16], [16, 32], [4, 2])
    assert _may_run_outside([(d0 * 4) % 8 + 4, c(0)], [8, 16], [8, 16], [4])
    assert not _may_run_outside([(d0 // 2) * 8, c(0)], [8, 16], [16, 16], [4])
    assert _may_run_outside([d0 - 1, c(0)], [1, 16], [4, 16], [4])  # below 0 at d0 = 0
