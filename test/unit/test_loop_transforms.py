"""Typed loop transformations (spyre_mlir.passes.bundle.loop_transforms, issue 12 part 4).

Translation validation: every transformation that applies is run in the
reference interpreter before and after on seeded random inputs; the outputs
must be identical (and equal to a NumPy oracle for the row kernels). A
factor of 1 is the no-op (no module produced), a factor that does not
divide the trip count is refused, and so are the other broken
preconditions, each with its typed kind. Legality (the issue's test): a
loop with a proven dependence and one with an unknown alias are never
parallelized; a loop over disjoint rows is: it becomes an `scf.forall` with
the loop's bounds that computes the same as the loop (and as NumPy), as does
running the loop's iterations in reverse order (while reversing the
dependent loop does not); the forall parses in real MLIR. Inputs are never
modified, and applying a decision twice, or to a re-parse, gives the same
text.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_loop_analysis import COLUMN_SUMS, DOMAINS, HEADER, LOADED_POINTER, ROWS, STENCIL, view
from test_real_mlir import IREE_OPT, check_against_mlir
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.rewriter import InsertPoint, Rewriter

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.diagnostics import Refusal
from spyre_mlir.passes.bundle.loop_transforms import (
    Interchange,
    Parallelize,
    RefusalKind,
    Tile,
    Unroll,
    enumerate_transformations,
    find_loop,
)

K = RefusalKind


def text(module) -> str:
    return ir.print_ir(module)


def run(module, fn: str, args: dict) -> dict:
    return spyre_mlir.interpret(module, fn, **{k: v.copy() for k, v in args.items()})


def assert_same(before: dict, after: dict) -> None:
    assert before.keys() == after.keys()
    for k in before:
        np.testing.assert_array_equal(after[k], before[k], err_msg=k)


def validated(source: str, fn: str, t, args: dict):
    """Apply `t` to a parse of `source`; the input is left as it was, the
    output is identical on `args`, and the text is deterministic."""
    module = spyre_mlir.parse(source)
    original = text(module)
    child = t.apply(module)
    assert not isinstance(child, Refusal), child
    assert text(module) == original  # the input is untouched
    assert text(t.apply(module)) == text(child)  # deterministic
    assert text(t.apply(spyre_mlir.parse(source))) == text(child)  # path names the same loop in a re-parse
    assert_same(run(module, fn, args), run(child, fn, args))
    return child


def rows_args(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((32, 128)).astype(np.float32),
        "y": np.zeros((32, 128), np.float32),
        "acc": rng.standard_normal((4, 128)).astype(np.float32),
    }


def rows_oracle(args: dict) -> dict:
    acc = args["acc"].copy()
    for i in range(8):
        acc = acc + args["x"][4 * i : 4 * i + 4]
    return {"y": np.exp(args["x"]), "acc": acc}


def loops_of(module, name: str) -> list:
    return [op for op in module.walk() if op.name == name]


# -- tile ----------------------------------------------------------------------------


@pytest.mark.parametrize("factor", [2, 4, 8])
@pytest.mark.parametrize("seed", [0, 1])
def test_tile_keeps_results_and_matches_numpy(factor, seed):
    args = rows_args(seed)
    child = validated(ROWS, "rows", Tile(("rows", 0), factor), args)
    outer, inner = loops_of(child, "scf.for")
    assert inner.parent_op() is outer
    assert outer.step.owner.value.value.data == factor  # step s * f
    out = run(child, "rows", args)
    oracle = rows_oracle(args)
    np.testing.assert_allclose(out["y"], oracle["y"], rtol=1e-6)
    np.testing.assert_allclose(out["acc"], oracle["acc"], rtol=1e-5, atol=1e-5)


CARRIED = (
    HEADER
    + f"""
func.func @prefix(%x: index, %y: index, %acc: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c26 = arith.constant 26 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<4x128xf32>
  %xv = {view("%x")}
  %yv = {view("%y")}
  %av = {view("%acc", sizes="4, 128", shape="4x128xf32", cset="#blk")}
  %r = scf.for %i = %c2 to %c26 step %c3 iter_args(%s = %zero) -> (tensor<4x128xf32>) {{
    %xt = ktdp.construct_access_tile %xv[%i, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf32>
    %s2 = arith.addf %s, %a : tensor<4x128xf32>
    %yt = ktdp.construct_access_tile %yv[%i, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
    ktdp.store %s2, %yt : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
    scf.yield %s2 : tensor<4x128xf32>
  }}
  %at = ktdp.construct_access_tile %av[%c0, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<4x128xf32> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %r, %at : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
  return
}}
"""
)
"""Rows 2, 5, ..., 23 (8 iterations, step 3, overlapping 4-row blocks): y gets running sums, acc the total."""


def prefix_oracle(args: dict) -> dict:
    y, s = args["y"].copy(), np.zeros((4, 128), np.float32)
    for i in range(2, 26, 3):
        s = s + args["x"][i : i + 4]
        y[i : i + 4] = s
    return {"y": y, "acc": s}


@pytest.mark.parametrize("t", [Tile(("prefix", 0), 2), Tile(("prefix", 0), 4), Unroll(("prefix", 0), 2), Unroll(("prefix", 0), 4), Unroll(("prefix", 0), 8)])
def test_tile_and_unroll_thread_iter_args(t):
    args = rows_args(3)
    child = validated(CARRIED, "prefix", t, args)
    out = run(child, "prefix", args)
    oracle = prefix_oracle(args)
    np.testing.assert_allclose(out["y"], oracle["y"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["acc"], oracle["acc"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("factor", [2, 4, 8])
def test_unroll_copies_the_body(factor):
    args = rows_args(2)
    child = validated(ROWS, "rows", Unroll(("rows", 0), factor), args)
    (loop,) = loops_of(child, "scf.for")
    assert len(loops_of(child, "ktdp.store")) == 2 * factor
    assert loop.step.owner.value.value.data == factor
    np.testing.assert_allclose(run(child, "rows", args)["y"], np.exp(args["x"]), rtol=1e-6)


# -- refusals ------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [Tile, Unroll])
def test_factor_one_is_a_no_op_and_produces_nothing(cls):
    module = spyre_mlir.parse(ROWS)
    t = cls(("rows", 0), 1)
    assert t.check(module).kind is K.NO_OP
    result = t.apply(module)
    assert isinstance(result, Refusal) and result.kind is K.NO_OP


@pytest.mark.parametrize("cls", [Tile, Unroll])
@pytest.mark.parametrize("factor", [3, 5, 16])
def test_a_factor_that_does_not_divide_is_refused(cls, factor):
    refusal = cls(("rows", 0), factor).check(spyre_mlir.parse(ROWS))
    assert refusal.kind is K.FACTOR_DOES_NOT_DIVIDE
    assert f"factor {factor} does not divide the trip count 8" in refusal.message


@pytest.mark.parametrize("factor", [0, -2, 65, 128])
def test_factors_outside_2_to_64_are_refused(factor):
    assert Tile(("rows", 0), factor).check(spyre_mlir.parse(ROWS)).kind is K.FACTOR_OUT_OF_RANGE


def test_structural_refusals():
    nest = spyre_mlir.parse(DOMAINS)  # loops: i (static), j (0 to %n), k, spyre_loop t
    assert Tile(("nest", 1), 2).check(nest).kind is K.DYNAMIC_BOUNDS
    assert Unroll(("nest", 1), 2).check(nest).kind is K.DYNAMIC_BOUNDS
    assert Tile(("nest", 2), 2).check(nest).kind is K.FACTOR_DOES_NOT_DIVIDE  # 0 trips
    assert Tile(("nest", 3), 3).check(nest).kind is K.UNSUPPORTED  # a spyre_loop.loop
    assert Tile(("nest", 4), 2).check(nest).kind is K.NOT_A_LOOP
    assert Tile(("nowhere", 0), 2).check(nest).kind is K.NOT_A_LOOP
    assert isinstance(find_loop(nest, ("nest", 0)).op, scf.ForOp)
    assert Interchange(("nest", 0)).check(nest).kind is K.DYNAMIC_BOUNDS  # j runs to %n
    assert Interchange(("nest", 1)).check(nest).kind is K.NOT_PERFECTLY_NESTED  # %lo sits between j and k
    assert Interchange(("rows", 0)).check(spyre_mlir.parse(ROWS)).kind is K.NOT_PERFECTLY_NESTED


TRIANGLE = """
func.func @tri() attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %i to %c8 step %c1 {
    }
  }
  %z = arith.constant 0 : index
  %r = scf.for %a = %c0 to %c8 step %c1 iter_args(%s = %z) -> (index) {
    scf.for %b = %c0 to %c8 step %c1 {
    }
    scf.yield %s : index
  }
  return
}
"""


def test_interchange_refuses_triangles_and_carried_values():
    module = spyre_mlir.parse(TRIANGLE)
    assert Interchange(("tri", 0)).check(module).kind is K.BOUNDS_DEPEND_ON_OUTER
    assert Interchange(("tri", 2)).check(module).kind is K.CARRIES_VALUES
    assert Parallelize(("tri", 2)).check(module).kind is K.CARRIES_VALUES


# -- interchange ------------------------------------------------------------------------


def nest_args(seed: int) -> dict:
    return {"y": np.random.default_rng(seed).standard_normal((9, 9)).astype(np.float32)}


@pytest.mark.parametrize("seed", [0, 1])
def test_interchange_of_column_sums_is_legal_and_keeps_results(seed):
    """Carried by the row loop with direction (<, =): the interchange keeps it."""
    args = nest_args(seed)
    child = validated(COLUMN_SUMS, "nest", Interchange(("nest", 0)), args)
    outer, inner = loops_of(child, "scf.for")
    assert outer.body.block.args[0].name_hint == "j" and inner.body.block.args[0].name_hint == "i"
    y = args["y"].copy()
    for i in range(8):
        y[8, :8] = y[8, :8] + y[i, :8]
    np.testing.assert_array_equal(run(child, "nest", args)["y"], y)


def test_interchange_of_the_stencil_is_refused_and_would_change_results():
    module = spyre_mlir.parse(STENCIL)
    t = Interchange(("nest", 0))
    refusal = t.check(module)
    assert refusal.kind is K.DEPENDENCE_PROVEN, refusal
    assert isinstance(t.apply(module), Refusal)
    # The refusal is not vacuous: forced, the interchange computes something else.
    forced = spyre_mlir.parse(STENCIL)
    outer = find_loop(forced, ("nest", 0))
    inner = find_loop(forced, ("nest", 1))
    t._rewrite((outer, inner))
    args = nest_args(0)
    assert not np.array_equal(run(forced, "nest", args)["y"], run(module, "nest", args)["y"])


ELEMENTWISE_2D = (
    HEADER
    + f"""
#b24 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>
func.func @ew(%x: index, %y: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xv = {view("%x")}
  %yv = {view("%y")}
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {{
    %c32 = arith.constant 32 : index
    scf.for %j = %c0 to %c32 step %c1 {{
      %r = affine.apply affine_map<(d0) -> (d0 * 2)>(%i)
      %c = affine.apply affine_map<(d0) -> (d0 * 4)>(%j)
      %xt = ktdp.construct_access_tile %xv[%r, %c] {{access_tile_set = #b24, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<2x4xindex>
      %a = ktdp.load %xt : !ktdp.access_tile<2x4xindex> -> tensor<2x4xf32>
      %e = math.exp %a : tensor<2x4xf32>
      %yt = ktdp.construct_access_tile %yv[%r, %c] {{access_tile_set = #b24, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<2x4xindex>
      ktdp.store %e, %yt : tensor<2x4xf32>, !ktdp.access_tile<2x4xindex>
    }}
  }}
  return
}}
"""
)


def test_interchange_of_an_elementwise_nest_hoists_constants():
    args = {k: v for k, v in rows_args(4).items() if k != "acc"}
    module = spyre_mlir.parse(ELEMENTWISE_2D)
    assert Interchange(("ew", 0)).check(module).kind is K.PROOF_NOT_ESTABLISHED  # %x and %y: two buffers?
    child = validated(ELEMENTWISE_2D, "ew", Interchange(("ew", 0), assume_distinct_params=True), args)
    outer = loops_of(child, "scf.for")[0]
    assert [type(op) for op in outer.body.block.ops] == [scf.ForOp, scf.YieldOp]  # %c32 hoisted
    np.testing.assert_allclose(run(child, "ew", args)["y"], np.exp(args["x"]), rtol=1e-6)


# -- parallelize: the legality test of the issue ---------------------------------------------

LAST_WRITE = (
    HEADER
    + f"""
func.func @last(%x: index, %acc: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %xv = {view("%x")}
  %av = {view("%acc", sizes="4, 128", shape="4x128xf32", cset="#blk")}
  scf.for %i = %c0 to %c8 step %c1 {{
    %row = arith.muli %i, %c4 : index
    %xt = ktdp.construct_access_tile %xv[%row, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf32>
    %at = ktdp.construct_access_tile %av[%c0, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<4x128xf32> -> !ktdp.access_tile<4x128xindex>
    ktdp.store %a, %at : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
  }}
  return
}}
"""
)
"""acc = x[4i:4i+4] every iteration: the last write wins (a proven output dependence)."""

EXP_ROWS = (
    HEADER
    + f"""
func.func @exprows(%x: index, %y: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %xv = {view("%x")}
  %yv = {view("%y")}
  scf.for %i = %c0 to %c8 step %c1 {{
    %row = arith.muli %i, %c4 : index
    %xt = ktdp.construct_access_tile %xv[%row, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf32>
    %e = math.exp %a : tensor<4x128xf32>
    %yt = ktdp.construct_access_tile %yv[%row, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
    ktdp.store %e, %yt : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
  }}
  return
}}
"""
)

IN_PLACE_ROWS = EXP_ROWS.replace("@exprows(%x: index, %y: index)", "@exprows(%y: index)").replace(
    "%xv = " + view("%x"), "%xv = " + view("%y")
)
"""y[4i:4i+4] = exp(y[4i:4i+4]): one buffer, disjoint rows: independent without any assumption."""


def reversed_loop(source: str, path) -> object:
    """The module with the loop at `path` (0 to T step 1) running its iterations in reverse order."""
    module = spyre_mlir.parse(source)
    d = find_loop(module, path)
    assert (d.lower, d.step) == (0, 1)
    block = d.op.body.block
    last = arith.ConstantOp(IntegerAttr(d.trip_count - 1, IndexType()))
    Rewriter.insert_op(last, InsertPoint.before(d.op))
    rev = arith.SubiOp(last.result, d.iv)
    Rewriter.insert_op(rev, InsertPoint.at_start(block))
    d.iv.replace_uses_with_if(rev.result, lambda use: use.operation is not rev)
    ir.verify(module)
    return module


def test_a_loop_with_a_proven_dependence_is_never_parallelized():
    for source, fn, path in ((ROWS, "rows", ("rows", 0)), (LAST_WRITE, "last", ("last", 0))):
        module = spyre_mlir.parse(source)
        for assume in (False, True):
            t = Parallelize(path, assume_distinct_params=assume)
            assert t.legality(module).kind is K.DEPENDENCE_PROVEN
            assert t.check(module).kind is K.DEPENDENCE_PROVEN
            assert isinstance(t.apply(module), Refusal)
    # the verdict is not vacuous: in reverse order the last write is another row
    args = {"x": rows_args(0)["x"], "acc": np.zeros((4, 128), np.float32)}
    forward = run(spyre_mlir.parse(LAST_WRITE), "last", args)
    backward = run(reversed_loop(LAST_WRITE, ("last", 0)), "last", args)
    np.testing.assert_array_equal(forward["acc"], args["x"][28:32])
    np.testing.assert_array_equal(backward["acc"], args["x"][0:4])


def test_a_loop_with_an_unknown_alias_is_never_parallelized():
    module = spyre_mlir.parse(LOADED_POINTER)
    for assume in (False, True):
        t = Parallelize(("loaded", 0), assume_distinct_params=assume)
        refusal = t.check(module)
        assert refusal.kind is K.PROOF_NOT_ESTABLISHED and "unknown pointer base" in refusal.message
        assert isinstance(t.apply(module), Refusal)


DISJOINT = [(EXP_ROWS, "exprows", True), (IN_PLACE_ROWS, "exprows", False)]


def disjoint_args(needs_assumption: bool) -> dict:
    x = rows_args(5)["x"]
    return {"x": x, "y": np.zeros_like(x)} if needs_assumption else {"y": x}


@pytest.mark.parametrize(("source", "fn", "needs_assumption"), DISJOINT)
def test_a_loop_over_disjoint_rows_is_parallelized(source, fn, needs_assumption):
    module = spyre_mlir.parse(source)
    path = (fn, 0)
    if needs_assumption:  # %x and %y may be one buffer: no proof without the calling convention
        assert Parallelize(path).legality(module).kind is K.PROOF_NOT_ESTABLISHED
        assert Parallelize(path).check(module).kind is K.PROOF_NOT_ESTABLISHED
        assert isinstance(Parallelize(path).apply(module), Refusal)
    t = Parallelize(path, assume_distinct_params=True)
    assert t.legality(module) is None and t.check(module) is None
    args = disjoint_args(needs_assumption)
    child = validated(source, fn, t, args)  # the same results as the loop; input untouched; deterministic
    assert not loops_of(child, "scf.for")
    (forall,) = loops_of(child, "scf.forall")
    assert [v.name_hint for v in forall.operands] == ["c0", "c8", "c1"]  # the loop's own bounds, as SSA values
    assert "scf.forall (%i) = (%c0) to (%c8) step (%c1) {" in text(child)
    assert [op.name for op in forall.body.block.ops][-2:] == ["ktdp.store", "scf.forall.in_parallel"]
    np.testing.assert_allclose(run(child, fn, args)["y"], np.exp(args["y" if not needs_assumption else "x"]), rtol=1e-6)
    # independent iterations: any order computes the same
    assert_same(run(module, fn, args), run(reversed_loop(source, path), fn, args))


@pytest.mark.skipif(IREE_OPT is None, reason="iree-opt (iree-base-compiler) not installed")
def test_the_parallelized_loop_parses_in_real_mlir():
    child = Parallelize(("exprows", 0), assume_distinct_params=True).apply(spyre_mlir.parse(EXP_ROWS))
    assert not isinstance(child, Refusal)
    check_against_mlir(child)


def test_parallelize_keeps_attributes_and_needs_an_index_loop():
    source = """
    func.func @empty(%a: i32, %b: i32, %c: i32, %n: index) attributes {grid = [1]} {
      scf.for %i = %a to %b step %c : i32 {
      }
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      scf.for %j = %c0 to %n step %c2 {
      } {tag = "kept"}
      return
    }
    """
    module = spyre_mlir.parse(source)
    refusal = Parallelize(("empty", 0)).check(module)
    assert refusal.kind is K.INCOMPATIBLE_TYPES and "counts in i32" in refusal.message
    assert Parallelize(("empty", 0)).legality(module) is None  # legal, but scf.forall iterates over index
    child = Parallelize(("empty", 1)).apply(module)
    assert not isinstance(child, Refusal)
    assert 'scf.forall (%j) = (%c0) to (%n) step (%c2) {\n    } {tag = "kept"}' in text(child)


# -- enumeration -------------------------------------------------------------------------------


def test_enumeration_of_the_row_loop():
    module = spyre_mlir.parse(ROWS)
    found = enumerate_transformations(module, assume_distinct_params=True)
    assert [t for t, _ in found] == [
        Tile(("rows", 0), 2),
        Tile(("rows", 0), 4),
        Unroll(("rows", 0), 2),
        Unroll(("rows", 0), 4),
        Unroll(("rows", 0), 8),
        Parallelize(("rows", 0), True),
    ]
    assert [r is None for _, r in found] == [True] * 5 + [False]
    assert found[-1][1].kind is K.DEPENDENCE_PROVEN
    again = enumerate_transformations(spyre_mlir.parse(ROWS), assume_distinct_params=True)
    assert [(t, str(r)) for t, r in found] == [(t, str(r)) for t, r in again]  # a refusal's op is of its own parse


@pytest.mark.parametrize(("source", "fn", "args"), [
    (COLUMN_SUMS, "nest", nest_args(2)),
    (ELEMENTWISE_2D, "ew", {k: v for k, v in rows_args(6).items() if k != "acc"}),
    (CARRIED, "prefix", rows_args(7)),
])
def test_every_enumerated_candidate_that_applies_keeps_results(source, fn, args):
    module = spyre_mlir.parse(source)
    found = enumerate_transformations(module, assume_distinct_params=True)
    assert all(r == t.check(module) for t, r in found)
    applied = 0
    for t, refusal in found:
        if refusal is None:
            validated(source, fn, t, args)
            applied += 1
    assert applied >= 3
    if source is not CARRIED:
        assert any(isinstance(t, Interchange) and r is None for t, r in found)
    if source is ELEMENTWISE_2D:  # both loops of the nest, each over disjoint blocks
        assert [t.loop_path for t, r in found if isinstance(t, Parallelize) and r is None] == [("ew", 0), ("ew", 1)]
