"""`scf.forall` (dialects/scf.py) in the reference interpreter (interpreter/ops_scf.py).

Its iterations run one after another in row-major order, which computes what
any parallel schedule computes when the iterations are independent (the op's
contract). Checked against NumPy: both syntactic forms, static and SSA
bounds, a step other than 1, a dimension of zero trips; bounds that differ
between cores (batched, the same as per-core); a dynamic step that is not
positive is a located error; the cost model prices the body and not the loop.
"""

from __future__ import annotations

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.interpreter import InterpreterOptions

SETS = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#b24 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>
#b11 = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 >= 0)>
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
"""


def view(base: str, shape: str = "8x16") -> str:
    rows, cols = shape.split("x")
    return (
        f"ktdp.construct_memory_view {base}, sizes: [{rows}, {cols}], strides: [{cols}, 1] "
        f"{{coordinate_set = #all, memory_space = #ktdp.memory_space<global>}} : memref<{shape}xf32>"
    )


def tile(v: str, r: str, c: str, box: str, shape: str) -> str:
    return (
        f"ktdp.construct_access_tile {v}[{r}, {c}] {{access_tile_set = #{box}, access_tile_order = #id2}} "
        f": memref<8x16xf32> -> !ktdp.access_tile<{shape}xindex>"
    )


BLOCKS = (
    SETS
    + f"""
func.func @blocks(%x: index, %y: index, %n: index) attributes {{grid = [1]}} {{
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %xv = {view("%x")}
  %yv = {view("%y")}
  scf.forall (%i, %j) in (%c4, %n) {{
    %r = arith.muli %i, %c2 : index
    %c = arith.muli %j, %c4 : index
    %xt = {tile("%xv", "%r", "%c", "b24", "2x4")}
    %a = ktdp.load %xt : !ktdp.access_tile<2x4xindex> -> tensor<2x4xf32>
    %e = math.exp %a : tensor<2x4xf32>
    %yt = {tile("%yv", "%r", "%c", "b24", "2x4")}
    ktdp.store %e, %yt : tensor<2x4xf32>, !ktdp.access_tile<2x4xindex>
  }}
  return
}}
"""
)
"""y = exp(x) by 2x4 blocks: a normalized forall, one static and one runtime upper bound."""


def test_normalized_forall_over_blocks_matches_numpy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    for n in (4, 2, 0):  # all columns; the first half; none (zero trips)
        out = spyre_mlir.interpret(BLOCKS, "blocks", x=x, y=np.zeros_like(x), n=n)
        want = np.zeros_like(x)
        want[:, : 4 * n] = np.exp(x[:, : 4 * n])
        np.testing.assert_allclose(out["y"], want, rtol=1e-6)


STRIDED = (
    SETS
    + f"""
func.func @strided(%x: index, %y: index, %lb: index, %s: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %xv = {view("%x")}
  %yv = {view("%y")}
  scf.forall (%i, %j) = (%lb, 0) to (8, 16) step (%s, 5) {{
    %xt = {tile("%xv", "%i", "%j", "b11", "1x1")}
    %a = ktdp.load %xt : !ktdp.access_tile<1x1xindex> -> tensor<1x1xf32>
    %t = tensor.splat %two : tensor<1x1xf32>
    %d = arith.mulf %a, %t : tensor<1x1xf32>
    %yt = {tile("%yv", "%i", "%j", "b11", "1x1")}
    ktdp.store %d, %yt : tensor<1x1xf32>, !ktdp.access_tile<1x1xindex>
  }}
  return
}}
"""
)
"""y[i, j] = 2 x[i, j] for i = lb, lb + s, ... < 8 and j = 0, 5, 10, 15: the general form, mixed bounds."""


@pytest.mark.parametrize(("lb", "s"), [(1, 2), (0, 3), (5, 1), (8, 1)])
def test_general_forall_with_mixed_bounds_matches_numpy(lb, s):
    x = np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32)
    out = spyre_mlir.interpret(STRIDED, "strided", x=x, y=np.zeros_like(x), lb=lb, s=s)
    want = np.zeros_like(x)
    want[lb:8:s, 0:16:5] = 2 * x[lb:8:s, 0:16:5]
    np.testing.assert_array_equal(out["y"], want)


def test_a_step_that_is_not_positive_at_run_time_is_a_located_error():
    x = np.zeros((8, 16), np.float32)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(STRIDED, "strided", x=x, y=np.zeros_like(x), lb=0, s=0)
    d = info.value.diagnostic
    assert "scf.forall step must be positive, got [0] for dimension #0" in d.message
    assert STRIDED.splitlines()[d.location.line - 1].lstrip().startswith("scf.forall")


ORDER = (
    SETS
    + f"""
func.func @order(%x: index, %acc: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %ten = arith.constant 10.0 : f32
  %xv = {view("%x")}
  %av = {view("%acc")}
  scf.forall (%i, %j) in (2, 3) {{
    %xt = {tile("%xv", "%i", "%j", "b11", "1x1")}
    %a = ktdp.load %xt : !ktdp.access_tile<1x1xindex> -> tensor<1x1xf32>
    %at = {tile("%av", "%c0", "%c0", "b11", "1x1")}
    %s = ktdp.load %at : !ktdp.access_tile<1x1xindex> -> tensor<1x1xf32>
    %t = tensor.splat %ten : tensor<1x1xf32>
    %m = arith.mulf %s, %t : tensor<1x1xf32>
    %r = arith.addf %m, %a : tensor<1x1xf32>
    ktdp.store %r, %at : tensor<1x1xf32>, !ktdp.access_tile<1x1xindex>
  }}
  return
}}
"""
)
"""acc = 10 acc + x[i, j] at every point: NOT independent iterations (outside the op's
contract), so the result shows the order the interpreter runs them in."""


def test_iterations_run_in_row_major_order():
    x = np.zeros((8, 16), np.float32)
    x[:2, :3] = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    out = spyre_mlir.interpret(ORDER, "order", x=x, acc=np.zeros_like(x))
    assert out["acc"][0, 0] == 123456.0  # (0,0) (0,1) (0,2) (1,0) (1,1) (1,2)


PER_CORE = (
    SETS
    + f"""
func.func @cores(%x: index, %y: index, %z: index) attributes {{grid = [4]}} {{
  %id = ktdp.get_compute_tile_id : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %xv = {view("%x")}
  %yv = {view("%y")}
  %zv = {view("%z")}
  %n = arith.addi %id, %c1 : index
  scf.forall (%k, %j) in (2, %n) {{
    %r = arith.addi %id, %id : index
    %row = arith.addi %r, %k : index
    %c = arith.muli %j, %c4 : index
    %xt = {tile("%xv", "%row", "%c", "b11", "1x1")}
    %a = ktdp.load %xt : !ktdp.access_tile<1x1xindex> -> tensor<1x1xf32>
    %e = math.exp %a : tensor<1x1xf32>
    %yt = {tile("%yv", "%row", "%c", "b11", "1x1")}
    ktdp.store %e, %yt : tensor<1x1xf32>, !ktdp.access_tile<1x1xindex>
  }}
  %row = arith.addi %id, %id : index
  scf.forall (%j) = (%id) to (16) step (%c4) {{
    %xt = {tile("%xv", "%row", "%j", "b11", "1x1")}
    %a = ktdp.load %xt : !ktdp.access_tile<1x1xindex> -> tensor<1x1xf32>
    %zt = {tile("%zv", "%row", "%j", "b11", "1x1")}
    ktdp.store %a, %zt : tensor<1x1xf32>, !ktdp.access_tile<1x1xindex>
  }}
  return
}}
"""
)
"""Core c: y[2c + k, 4j] = exp(x[2c + k, 4j]) for k < 2, j <= c (an upper bound that
differs between cores); z[2c, j] = x[2c, j] for j = c, c + 4, ... (a lower bound that does)."""


def per_core_oracle(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y, z = np.zeros_like(x), np.zeros_like(x)
    for c in range(4):
        for k in range(2):
            for j in range(c + 1):
                y[2 * c + k, 4 * j] = np.exp(x[2 * c + k, 4 * j])
        z[2 * c, c:16:4] = x[2 * c, c:16:4]
    return y, z


@pytest.mark.parametrize("execution", ["batched", "per-core", "auto"])
def test_bounds_that_differ_between_cores(execution):
    x = np.random.default_rng(2).standard_normal((8, 16)).astype(np.float32)
    out = spyre_mlir.interpret(
        PER_CORE, "cores", options=InterpreterOptions(execution=execution), x=x, y=np.zeros_like(x), z=np.zeros_like(x)
    )
    y, z = per_core_oracle(x)
    np.testing.assert_allclose(out["y"], y, rtol=1e-6)
    np.testing.assert_array_equal(out["z"], z)
    if execution != "per-core":
        assert out.report.mode == "batched" and not out.report.fallback_reason
        assert out.report.divergent_regions == 1  # the cores' trip counts of the first forall differ


def test_the_cost_model_charges_the_body_only():
    """scf is free structure (interpreter/cost_model.py): the cycles are the body's, once per iteration."""
    x = np.random.default_rng(3).standard_normal((8, 16)).astype(np.float32)
    options = InterpreterOptions(cost_model=True)
    cycles = {}
    for n in (4, 2, 0):
        out = spyre_mlir.interpret(BLOCKS, "blocks", options=options, x=x, y=np.zeros_like(x), n=n)
        assert not out.report.estimate.unpriced
        cycles[n] = out.report.estimate.to_json()["sequential_cycles"]
    assert cycles[4] == 2 * cycles[2] > 0 and cycles[0] == 0
