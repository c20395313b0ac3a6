"""spyre-raise-counted-loops: latch-tested counted scf.while loops become scf.for.

Translation validation: each accepted shape is a KTIR kernel that loads a
row block, stores a running prefix sum of the blocks and carries the sum per
iteration; it runs in the reference interpreter before and after the pass
on the same seeded random inputs, the outputs must be identical and equal to
a NumPy oracle, and the raised module has an scf.for and no scf.while. The
functions of the pass's lit test are run before and after it too. Every
rejected shape (the remarks lit test) is left unchanged, with one remark per
loop when asked.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import REPO
from xdsl.dialects import scf

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.diagnostics import collect
from spyre_mlir.passes.frontend.spyre_raise_counted_loops import SpyreRaiseCountedLoopsPass

LIT = REPO / "test" / "lit" / "passes" / "frontend"
ROWS, COLS = 16, 8


def raise_loops(module, **options):
    SpyreRaiseCountedLoopsPass(**options).apply(ir.make_context(), module)
    ir.verify(module)
    return module


def ops_named(module, name: str) -> list:
    return [op for op in module.walk() if op.name == name]


# -- the kernels of the accepted shapes -----------------------------------------
#
# Per iteration, at row `row(i)` (rows R at a time): out[row] = x[row] + acc,
# acc += x[row]. After the loop: sum = acc, last = the loop's induction result.

PROLOGUE = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#blk = affine_set<(d0, d1) : (d0 >= 0, -d0 + {rm1} >= 0, d1 >= 0, -d1 + 7 >= 0)>
#one = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @kernel(%x: index, %out: index, %sum: index, %last: index{params}) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<{r}x8xf32>
  %xv = ktdp.construct_memory_view %x, sizes: [16, 8], strides: [8, 1] {{coordinate_set = #all, memory_space = #ktdp.memory_space<global>}} : memref<16x8xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [16, 8], strides: [8, 1] {{coordinate_set = #all, memory_space = #ktdp.memory_space<global>}} : memref<16x8xf32>
  %sv = ktdp.construct_memory_view %sum, sizes: [{r}, 8], strides: [8, 1] {{coordinate_set = #blk, memory_space = #ktdp.memory_space<global>}} : memref<{r}x8xf32>
  %lv = ktdp.construct_memory_view %last, sizes: [1, 8], strides: [8, 1] {{coordinate_set = #one, memory_space = #ktdp.memory_space<global>}} : memref<1x8xf32>
"""

BLOCK = """
      %xt = ktdp.construct_access_tile %xv[%row, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<16x8xf32> -> !ktdp.access_tile<{r}x8xindex>
      %a = ktdp.load %xt : !ktdp.access_tile<{r}x8xindex> -> tensor<{r}x8xf32>
      %y = arith.addf %a, %acc : tensor<{r}x8xf32>
      %ot = ktdp.construct_access_tile %ov[%row, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<16x8xf32> -> !ktdp.access_tile<{r}x8xindex>
      ktdp.store %y, %ot : tensor<{r}x8xf32>, !ktdp.access_tile<{r}x8xindex>
      %s = arith.addf %acc, %a : tensor<{r}x8xf32>
"""

EPILOGUE = """
  %st = ktdp.construct_access_tile %sv[%c0, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<{r}x8xf32> -> !ktdp.access_tile<{r}x8xindex>
  ktdp.store %res#1, %st : tensor<{r}x8xf32>, !ktdp.access_tile<{r}x8xindex>
  {to_f32}
  %ls = tensor.splat %lf : tensor<1x8xf32>
  %lt = ktdp.construct_access_tile %lv[%c0, %c0] {{access_tile_set = #one, access_tile_order = #id2}} : memref<1x8xf32> -> !ktdp.access_tile<1x8xindex>
  ktdp.store %ls, %lt : tensor<1x8xf32>, !ktdp.access_tile<1x8xindex>
  return
}}
"""


INDEX_TO_F32 = """%li = arith.index_cast %res#0 : index to i64
  %lf = arith.sitofp %li : i64 to f32"""


def counted_kernel(ty: str, lb: int, step: int, ub: int, latch: str, r: int, row: str) -> str:
    """A kernel whose loop runs `lb to ub step step` over lanes (%i: ty, %acc)
    with the latch `arith.cmpi {latch}` (over %next and %ub); `row` computes
    %row: index from %i."""
    acc = f"tensor<{r}x8xf32>"
    return (
        PROLOGUE.format(rm1=r - 1, r=r, params="")
        + f"""
  %lb = arith.constant {lb} : {ty}
  %step = arith.constant {step} : {ty}
  %ub = arith.constant {ub} : {ty}
  %res:2 = scf.while (%i = %lb, %acc = %zero) : ({ty}, {acc}) -> ({ty}, {acc}) {{
      {row}"""
        + BLOCK.format(r=r)
        + f"""
      %next = arith.addi %i, %step : {ty}
      %more = arith.cmpi {latch} : {ty}
      scf.condition(%more) %next, %s : {ty}, {acc}
  }} do {{
  ^bb0(%i2: {ty}, %acc2: {acc}):
      scf.yield %i2, %acc2 : {ty}, {acc}
  }}"""
        + EPILOGUE.format(r=r, to_f32=INDEX_TO_F32 if ty == "index" else f"%lf = arith.sitofp %res#0 : {ty} to f32")
    )


# lb 0, step 1, %n blocks of 2 rows, under `scf.if (%n > 0)`.
DYNAMIC = (
    PROLOGUE.format(rm1=1, r=2, params=", %n: index")
    + """
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %positive = arith.cmpi sgt, %n, %c0 : index
  %res:2 = scf.if %positive -> (index, tensor<2x8xf32>) {
    %w:2 = scf.while (%i = %c0, %acc = %zero) : (index, tensor<2x8xf32>) -> (index, tensor<2x8xf32>) {
      %row = arith.muli %i, %c2 : index"""
    + BLOCK.format(r=2)
    + """
      %next = arith.addi %i, %c1 : index
      %more = arith.cmpi ne, %next, %n : index
      scf.condition(%more) %next, %s : index, tensor<2x8xf32>
    } do {
    ^bb0(%i2: index, %acc2: tensor<2x8xf32>):
      scf.yield %i2, %acc2 : index, tensor<2x8xf32>
    }
    scf.yield %w#0, %w#1 : index, tensor<2x8xf32>
  } else {
    scf.yield %c0, %zero : index, tensor<2x8xf32>
  }"""
    + EPILOGUE.format(r=2, to_f32=INDEX_TO_F32)
)

# Duplicate lanes: %i (load address) and %j (store address) are the same
# lane; merged, then raised. 0 to 16 step 4.
DUPLICATE = (
    PROLOGUE.format(rm1=3, r=4, params="")
    + """
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %w:3 = scf.while (%i = %c0, %j = %c0, %acc = %zero) : (index, index, tensor<4x8xf32>) -> (index, index, tensor<4x8xf32>) {
      %xt = ktdp.construct_access_tile %xv[%i, %c0] {access_tile_set = #blk, access_tile_order = #id2} : memref<16x8xf32> -> !ktdp.access_tile<4x8xindex>
      %a = ktdp.load %xt : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf32>
      %y = arith.addf %a, %acc : tensor<4x8xf32>
      %ot = ktdp.construct_access_tile %ov[%j, %c0] {access_tile_set = #blk, access_tile_order = #id2} : memref<16x8xf32> -> !ktdp.access_tile<4x8xindex>
      ktdp.store %y, %ot : tensor<4x8xf32>, !ktdp.access_tile<4x8xindex>
      %s = arith.addf %acc, %a : tensor<4x8xf32>
      %next = arith.addi %i, %c4 : index
      %more = arith.cmpi ne, %next, %c16 : index
      scf.condition(%more) %next, %next, %s : index, index, tensor<4x8xf32>
  } do {
  ^bb0(%i2: index, %j2: index, %acc2: tensor<4x8xf32>):
      scf.yield %i2, %j2, %acc2 : index, index, tensor<4x8xf32>
  }
  %both = arith.addi %w#0, %w#1 : index
  %res:2 = scf.execute_region -> (index, tensor<4x8xf32>) {
    scf.yield %both, %w#2 : index, tensor<4x8xf32>
  }"""
    + EPILOGUE.format(r=4, to_f32=INDEX_TO_F32)
)

# A scalar accumulator: acc (f32) += x[row, 0]; out[row] = x[row] * acc.
# 0 to 16 step 2, rows 2 at a time; `slt` latch.
SCALAR = (
    PROLOGUE.format(rm1=1, r=2, params="")
    + """
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %f0 = arith.constant 0.000000e+00 : f32
  %w:2 = scf.while (%i = %c0, %acc = %f0) : (index, f32) -> (index, f32) {
      %xt = ktdp.construct_access_tile %xv[%i, %c0] {access_tile_set = #blk, access_tile_order = #id2} : memref<16x8xf32> -> !ktdp.access_tile<2x8xindex>
      %a = ktdp.load %xt : !ktdp.access_tile<2x8xindex> -> tensor<2x8xf32>
      %e = tensor.extract %a[%c0, %c0] : tensor<2x8xf32>
      %s = arith.addf %acc, %e : f32
      %sp = tensor.splat %s : tensor<2x8xf32>
      %y = arith.mulf %a, %sp : tensor<2x8xf32>
      %ot = ktdp.construct_access_tile %ov[%i, %c0] {access_tile_set = #blk, access_tile_order = #id2} : memref<16x8xf32> -> !ktdp.access_tile<2x8xindex>
      ktdp.store %y, %ot : tensor<2x8xf32>, !ktdp.access_tile<2x8xindex>
      %next = arith.addi %i, %c2 : index
      %more = arith.cmpi slt, %next, %c16 : index
      scf.condition(%more) %next, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
      scf.yield %i2, %acc2 : index, f32
  }
  %final = tensor.splat %w#1 : tensor<2x8xf32>
  %res:2 = scf.execute_region -> (index, tensor<2x8xf32>) {
    scf.yield %w#0, %final : index, tensor<2x8xf32>
  }"""
    + EPILOGUE.format(r=2, to_f32=INDEX_TO_F32)
)


def prefix_oracle(x: np.ndarray, starts: list[int], r: int, last: int) -> dict:
    out = np.zeros_like(x)
    acc = np.zeros((r, COLS), np.float32)
    for s in starts:
        block = x[s : s + r]
        out[s : s + r] = block + acc
        acc = acc + block
    return {"out": out, "sum": acc, "last": np.full((1, COLS), last, np.float32)}


def scalar_oracle(x: np.ndarray) -> dict:
    out = np.zeros_like(x)
    acc = np.float32(0)
    for s in range(0, ROWS, 2):
        acc = np.float32(acc + x[s, 0])
        out[s : s + 2] = x[s : s + 2] * acc
    return {"out": out, "sum": np.full((2, COLS), acc, np.float32), "last": np.full((1, COLS), 16, np.float32)}


ACCEPTED = {
    # name: (kernel text, scalar arguments, oracle of x)
    "const-ne": (
        counted_kernel("index", 0, 4, 16, "ne, %next, %ub", 4, "%row = arith.addi %i, %c0 : index"),
        {},
        lambda x: prefix_oracle(x, [0, 4, 8, 12], 4, 16),
    ),
    "slt-i32": (
        counted_kernel("i32", 4, 4, 16, "slt, %next, %ub", 4, "%row = arith.index_cast %i : i32 to index"),
        {},
        lambda x: prefix_oracle(x, [4, 8, 12], 4, 16),
    ),
    "ult-swapped": (
        counted_kernel("i64", 2, 2, 16, "ugt, %ub, %next", 2, "%row = arith.index_cast %i : i64 to index"),
        {},
        lambda x: prefix_oracle(x, list(range(2, 16, 2)), 2, 16),
    ),
    "ne-swapped-i16": (
        counted_kernel("i16", 1, 3, 13, "ne, %ub, %next", 3, "%row = arith.index_cast %i : i16 to index"),
        {},
        lambda x: prefix_oracle(x, [1, 4, 7, 10], 3, 13),
    ),
    "dynamic-n3": (DYNAMIC, {"n": 3}, lambda x: prefix_oracle(x, [0, 2, 4], 2, 3)),
    "dynamic-n8": (DYNAMIC, {"n": 8}, lambda x: prefix_oracle(x, list(range(0, 16, 2)), 2, 8)),
    "dynamic-n1": (DYNAMIC, {"n": 1}, lambda x: prefix_oracle(x, [0], 2, 1)),
    "dynamic-n0": (DYNAMIC, {"n": 0}, lambda x: prefix_oracle(x, [], 2, 0)),
    "duplicate-lanes": (DUPLICATE, {}, lambda x: prefix_oracle(x, [0, 4, 8, 12], 4, 32)),
    "scalar-acc": (SCALAR, {}, scalar_oracle),
}


def kernel_args(text: str, scalars: dict, seed: int) -> dict:
    r = int(re.search(r"tensor<(\d+)x8xf32>", text).group(1))
    x = np.random.default_rng(seed).standard_normal((ROWS, COLS)).astype(np.float32)
    return {
        "x": x,
        "out": np.zeros((ROWS, COLS), np.float32),
        "sum": np.zeros((r, COLS), np.float32),
        "last": np.zeros((1, COLS), np.float32),
        **scalars,
    }


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_shape_is_raised_and_keeps_results(name, seed):
    text, scalars, oracle = ACCEPTED[name]
    args = kernel_args(text, scalars, seed)
    original = spyre_mlir.parse(text)
    assert ops_named(original, "scf.while") and not ops_named(original, "scf.for")
    before = spyre_mlir.interpret(original, "kernel", **args)
    module = raise_loops(spyre_mlir.parse(text))
    assert not ops_named(module, "scf.while"), ir.print_ir(module)
    assert len(ops_named(module, "scf.for")) == 1
    after = spyre_mlir.interpret(module, "kernel", **args)
    assert before.keys() == after.keys()
    expected = oracle(args["x"])
    for key in ("out", "sum", "last"):
        np.testing.assert_array_equal(after[key], before[key], err_msg=f"{key} changed")
        np.testing.assert_allclose(after[key], expected[key], rtol=1e-6, atol=1e-6, err_msg=key)


def test_raised_loop_bounds():
    """The for's bounds are the while's lb, the latch's ub and the step; the
    induction result is replaced by ub."""
    module = raise_loops(spyre_mlir.parse(ACCEPTED["slt-i32"][0]))
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    values = [operand.owner.value.value.data for operand in (loop.lb, loop.ub, loop.step)]
    assert values == [4, 16, 4]
    (sitofp,) = ops_named(module, "arith.sitofp")
    assert sitofp.operands[0] is loop.ub
    assert len(loop.iter_args) == 1 and len(loop.results) == 1


# -- the lit test's functions (scalars in, scalars out) ---------------------------

LIT_ARGS = {
    "const_ne": dict(x=1.5),
    "slt_latch": dict(x=3),
    "ult_latch": dict(x=7),
    "dynamic_ub": dict(n=5, x=0.25),
    "dynamic_ub_outer_proof": dict(n=4, k0=3, x=2),
    "duplicate_lanes": dict(x=1.0),
    "nested": dict(x=1),
}
LIT_ORACLES = {
    "const_ne": lambda x: (10, _const_ne(x)),
    "slt_latch": lambda x: (15, ((x * 3 + 4) * 7 + 4) * 11 + 4),
    "ult_latch": lambda x: (x + sum(k * k for k in range(1, 9)),),
    "dynamic_ub": lambda n, x: (n, x + sum(range(n))),
    "dynamic_ub_outer_proof": lambda n, k0, x: (k0, x + k0 * sum(range(n))),
    "duplicate_lanes": lambda x: (4, 4, x + 0 + 1 + 2 + 3),
    "nested": lambda x: (x + sum(i * j for i in range(3) for j in range(5)),),
}


def _const_ne(x: float) -> float:
    acc = np.float32(x)
    for i in range(0, 10, 2):
        acc = np.float32(acc * np.float32(0.5) + np.float32(i))
    return float(acc)


@pytest.mark.parametrize("func", sorted(LIT_ARGS))
def test_lit_functions_keep_results(func):
    text = (LIT / "spyre-raise-counted-loops.mlir").read_text()
    module = raise_loops(spyre_mlir.parse(text))
    assert not ops_named(module, "scf.while")
    before = spyre_mlir.interpret(spyre_mlir.parse(text), func, **LIT_ARGS[func])
    after = spyre_mlir.interpret(module, func, **LIT_ARGS[func])
    expected = LIT_ORACLES[func](**LIT_ARGS[func])
    assert len(before) == len(after) == len(expected)
    for k, want in enumerate(expected):
        got_before, got_after = before[f"return_{k}"], after[f"return_{k}"]
        assert got_after == got_before
        assert got_after == want


def test_every_lit_function_is_run():
    text = (LIT / "spyre-raise-counted-loops.mlir").read_text()
    names = set(re.findall(r"func\.func @(\w+)", text)) - {"tensor_acc"}  # tensor_acc: an accepted shape above
    assert names == set(LIT_ARGS)


def test_lit_tensor_acc_keeps_results():
    text = (LIT / "spyre-raise-counted-loops.mlir").read_text()
    rng = np.random.default_rng(3)
    args = dict(x=rng.random((16, 8)).astype(np.float32), out=np.zeros((16, 8), np.float32), sum=np.zeros((4, 8), np.float32))
    before = spyre_mlir.interpret(spyre_mlir.parse(text), "tensor_acc", **args)
    after = spyre_mlir.interpret(raise_loops(spyre_mlir.parse(text)), "tensor_acc", **args)
    for key in ("out", "sum"):
        np.testing.assert_array_equal(after[key], before[key])
    np.testing.assert_allclose(after["out"], np.exp(args["x"]), rtol=1e-6)
    np.testing.assert_allclose(after["sum"], args["x"].reshape(4, 4, 8).sum(axis=0), rtol=1e-6)


# -- rejected shapes ------------------------------------------------------------------

MERGED_NOT_RAISED = "merged_not_raised"


def rejected_chunks() -> list:
    text = (LIT / "spyre-raise-counted-loops-remarks.mlir").read_text()
    chunks = []
    for chunk in text.split("// -----"):
        name = re.search(r"func\.func @(\w+)", chunk).group(1)
        chunks.append(pytest.param(chunk, id=name))
    return chunks


@pytest.mark.parametrize("chunk", rejected_chunks())
def test_rejected_shape_is_unchanged_with_one_remark_per_loop(chunk):
    name = re.search(r"func\.func @(\w+)", chunk).group(1)
    original = spyre_mlir.parse(chunk)
    loops = len(ops_named(original, "scf.while"))
    assert loops
    module = spyre_mlir.parse(chunk)
    with collect() as diagnostics:
        raise_loops(module, remarks=True)
    assert len(ops_named(module, "scf.while")) == loops and not ops_named(module, "scf.for")
    assert [d.severity for d in diagnostics] == ["remark"] * loops
    assert all(d.message.startswith("scf.while not raised: ") for d in diagnostics)
    if name == MERGED_NOT_RAISED:
        # Duplicate lanes are merged in every loop, raised or not.
        (loop,) = ops_named(module, "scf.while")
        assert len(loop.operands) == 2
    else:
        assert ir.print_ir(module) == ir.print_ir(original)
    with collect() as diagnostics:
        raise_loops(spyre_mlir.parse(chunk))
    assert not diagnostics, "remarks only with remarks=true"


# A rejected loop that runs: the upper bound is met only after `next` wraps
# (i8: 0, 64, then 128 = -128). Unchanged, and it runs its two trips.
WRAPPING = """
func.func @wrapping(%x: i8) -> (i8, i8) {
  %c0 = arith.constant 0 : i8
  %c64 = arith.constant 64 : i8
  %cm128 = arith.constant -128 : i8
  %c1 = arith.constant 1 : i8
  %r:2 = scf.while (%i = %c0, %acc = %x) : (i8, i8) -> (i8, i8) {
    %s = arith.addi %acc, %c1 : i8
    %next = arith.addi %i, %c64 : i8
    %more = arith.cmpi ne, %next, %cm128 : i8
    scf.condition(%more) %next, %s : i8, i8
  } do {
  ^bb0(%i2: i8, %acc2: i8):
    scf.yield %i2, %acc2 : i8, i8
  }
  return %r#0, %r#1 : i8, i8
}
"""


def test_wrapping_loop_stays_and_runs():
    module = raise_loops(spyre_mlir.parse(WRAPPING))
    assert ir.print_ir(module) == ir.print_ir(spyre_mlir.parse(WRAPPING))
    result = spyre_mlir.interpret(module, "wrapping", x=5)
    assert (int(result["return_0"]), int(result["return_1"])) == (-128, 7)


def test_duplicate_lanes_are_merged_before_raising():
    """%j is %i: one induction variable, the tensor the only iter_arg, and
    both induction results are the upper bound."""
    module = raise_loops(spyre_mlir.parse(DUPLICATE))
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert len(loop.iter_args) == 1 and len(loop.results) == 1
    (both,) = [op for op in ops_named(module, "arith.addi") if op.parent_op() is not loop]
    assert both.operands[0] is loop.ub and both.operands[1] is loop.ub


# The inner loop is raised first, which makes its induction result the upper
# bound %c16: only then do lanes %a and %b of the outer loop (both from %c0,
# both forwarding %c16) repeat each other and merge. Then the outer loop
# follows %w, whose result feeds it: %w is refused once, not again when the
# loop using its result is rewritten.
INNERMOST_FIRST = """
func.func @nest(%x: index, %f: i1) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %w:2 = scf.while (%j = %c0, %y = %x) : (index, index) -> (index, index) {
    scf.condition(%f) %j, %y : index, index
  } do {
  ^bb0(%j2: index, %y2: index):
    scf.yield %j2, %y2 : index, index
  }
  %r:3 = scf.while (%i = %c0, %a = %c0, %b = %c0) : (index, index, index) -> (index, index, index) {
    %in:2 = scf.while (%j = %c0, %y = %w#1) : (index, index) -> (index, index) {
      %y2 = arith.addi %y, %j : index
      %nj = arith.addi %j, %c4 : index
      %m = arith.cmpi ne, %nj, %c16 : index
      scf.condition(%m) %nj, %y2 : index, index
    } do {
    ^bb0(%j2: index, %y3: index):
      scf.yield %j2, %y3 : index, index
    }
    %next = arith.addi %i, %c1 : index
    %more = arith.cmpi ne, %next, %c4 : index
    scf.condition(%more) %next, %in#0, %c16 : index, index, index
  } do {
  ^bb0(%i2: index, %a2: index, %b2: index):
    scf.yield %i2, %a2, %b2 : index, index, index
  }
  %s = arith.addi %r#1, %r#2 : index
  return %s, %w#0 : index, index
}
"""


def test_loops_are_matched_innermost_first_and_once():
    module = spyre_mlir.parse(INNERMOST_FIRST)
    with collect() as diagnostics:
        raise_loops(module, remarks=True)
    outer, inner = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert len(outer.iter_args) == 1 and len(inner.iter_args) == 1  # the outer loop: %a and %b merged
    assert len(ops_named(module, "scf.while")) == 1
    assert [d.message for d in diagnostics] == [
        "scf.while not raised: the condition is not a latch test `next != upper` (it is block argument #1)"
    ]
    result = spyre_mlir.interpret(module, "nest", x=3, f=0)
    original = spyre_mlir.interpret(spyre_mlir.parse(INNERMOST_FIRST), "nest", x=3, f=0)
    assert [int(v) for v in result.values()] == [int(v) for v in original.values()] == [32, 0]
