"""Unit tests of ktdf-expose-reduction-loops (passes/schedule/ktdf_expose_reduction_loops.py).

A loop carrying a tensor gets an LX buffer for it: the init is stored before
the loop, the body loads it where it read the carried value and stores what it
yielded, the loop's result is loaded where it is used (after the loop, and at
the top of a later loop that uses it). Then each of those is a load → compute
→ store pass, and ktdf-build-pipelines makes each a pipeline.

Tested: the rewrite of a carried tensor (buffer in ct_local, `reduction_loop`,
index iter_args kept, a loop without memory accesses left alone, LX placed after
the function's own LX views, a second run changes nothing); and three kernels
whose work lives in a loop with carried values — a matmul's k loop, a column
sum, an online softmax — through `ktir-to-schedule`: every load and store ends
in a pipeline, and the interpreter gives what the source kernel gives and what
NumPy gives (translation validation).
"""

from __future__ import annotations

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.dialects import ktdf
from spyre_mlir.dialects.ktdp import ConstructMemoryViewOp, LoadOp, StoreOp
from spyre_mlir.ir import print_ir

PASS = "ktdf-expose-reduction-loops"

MATMUL = """
#a = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#b = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#c = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#at = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#bt = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul(%A: index, %B: index, %C: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %av = ktdp.construct_memory_view %A, sizes: [16, 128], strides: [128, 1] {coordinate_set = #a, memory_space = #ktdp.memory_space<global>} : memref<16x128xf32>
  %bv = ktdp.construct_memory_view %B, sizes: [128, 64], strides: [64, 1] {coordinate_set = #b, memory_space = #ktdp.memory_space<global>} : memref<128x64xf32>
  %cv = ktdp.construct_memory_view %C, sizes: [16, 64], strides: [64, 1] {coordinate_set = #c, memory_space = #ktdp.memory_space<global>} : memref<16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = scf.for %k = %c0 to %c128 step %c32 iter_args(%sum = %zero) -> (tensor<16x64xf32>) {
    %at = ktdp.construct_access_tile %av[%c0, %k] {access_tile_set = #at, access_tile_order = #id2} : memref<16x128xf32> -> !ktdp.access_tile<16x32xindex>
    %bt = ktdp.construct_access_tile %bv[%k, %c0] {access_tile_set = #bt, access_tile_order = #id2} : memref<128x64xf32> -> !ktdp.access_tile<32x64xindex>
    %a = ktdp.load %at : !ktdp.access_tile<16x32xindex> -> tensor<16x32xf32>
    %b = ktdp.load %bt : !ktdp.access_tile<32x64xindex> -> tensor<32x64xf32>
    %p = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%sum : tensor<16x64xf32>) -> tensor<16x64xf32>
    scf.yield %p : tensor<16x64xf32>
  }
  %ct = ktdp.construct_access_tile %cv[%c0, %c0] {access_tile_set = #c, access_tile_order = #id2} : memref<16x64xf32> -> !ktdp.access_tile<16x64xindex>
  ktdp.store %acc, %ct : tensor<16x64xf32>, !ktdp.access_tile<16x64xindex>
  return
}
"""

COLSUM = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @colsum(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [1, 64], strides: [64, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<1x64xf32>
  %zero = arith.constant dense<0.0> : tensor<1x64xf32>
  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (tensor<1x64xf32>) {
    %t = ktdp.construct_access_tile %xv[%i, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<1x64xindex>
    %r = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
    %n = arith.addf %acc, %r : tensor<1x64xf32>
    scf.yield %n : tensor<1x64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<1x64xf32> -> !ktdp.access_tile<1x64xindex>
  ktdp.store %s, %ot : tensor<1x64xf32>, !ktdp.access_tile<1x64xindex>
  return
}
"""

# softmax of each row of x (4 x 256) in chunks of 64 columns: a first loop carries the running max m and
# the running sum l of exp(x - m) (rescaled when m grows), a second writes exp(x - m) / l.
SOFTMAX = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#chunk = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @online_softmax(%x: index, %y: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 256], strides: [256, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x256xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [4, 256], strides: [256, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x256xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<4xf32>
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %m, %l = scf.for %j = %c0 to %c256 step %c64 iter_args(%m_i = %ninf, %l_i = %zero) -> (tensor<4xf32>, tensor<4xf32>) {
    %t = ktdp.construct_access_tile %xv[%c0, %j] {access_tile_set = #chunk, access_tile_order = #id2} : memref<4x256xf32> -> !ktdp.access_tile<4x64xindex>
    %xs = ktdp.load %t : !ktdp.access_tile<4x64xindex> -> tensor<4x64xf32>
    %m_new = linalg.reduce { arith.maximumf } ins(%xs : tensor<4x64xf32>) outs(%m_i : tensor<4xf32>) dimensions = [1]
    %d = arith.subf %m_i, %m_new : tensor<4xf32>
    %scale = math.exp %d : tensor<4xf32>
    %e0 = tensor.empty() : tensor<4x64xf32>
    %mb = linalg.broadcast ins(%m_new : tensor<4xf32>) outs(%e0 : tensor<4x64xf32>) dimensions = [1]
    %xm = arith.subf %xs, %mb : tensor<4x64xf32>
    %ex = math.exp %xm : tensor<4x64xf32>
    %s = linalg.reduce { arith.addf } ins(%ex : tensor<4x64xf32>) outs(%zero : tensor<4xf32>) dimensions = [1]
    %ls = arith.mulf %l_i, %scale : tensor<4xf32>
    %l_new = arith.addf %ls, %s : tensor<4xf32>
    scf.yield %m_new, %l_new : tensor<4xf32>, tensor<4xf32>
  }
  scf.for %j = %c0 to %c256 step %c64 {
    %t = ktdp.construct_access_tile %xv[%c0, %j] {access_tile_set = #chunk, access_tile_order = #id2} : memref<4x256xf32> -> !ktdp.access_tile<4x64xindex>
    %xs = ktdp.load %t : !ktdp.access_tile<4x64xindex> -> tensor<4x64xf32>
    %e0 = tensor.empty() : tensor<4x64xf32>
    %mb = linalg.broadcast ins(%m : tensor<4xf32>) outs(%e0 : tensor<4x64xf32>) dimensions = [1]
    %e1 = tensor.empty() : tensor<4x64xf32>
    %lb = linalg.broadcast ins(%l : tensor<4xf32>) outs(%e1 : tensor<4x64xf32>) dimensions = [1]
    %xm = arith.subf %xs, %mb : tensor<4x64xf32>
    %ex = math.exp %xm : tensor<4x64xf32>
    %o = arith.divf %ex, %lb : tensor<4x64xf32>
    %ot = ktdp.construct_access_tile %yv[%c0, %j] {access_tile_set = #chunk, access_tile_order = #id2} : memref<4x256xf32> -> !ktdp.access_tile<4x64xindex>
    ktdp.store %o, %ot : tensor<4x64xf32>, !ktdp.access_tile<4x64xindex>
  }
  return
}
"""


def _args(name: str, seed: int) -> tuple[str, dict[str, np.ndarray], str, np.ndarray]:
    """(kernel text, arguments, output name, the NumPy oracle's output) of kernel `name`."""
    rng = np.random.default_rng(seed)
    if name == "matmul":
        a, b = rng.standard_normal((16, 128)).astype(np.float32), rng.standard_normal((128, 64)).astype(np.float32)
        return MATMUL, dict(A=a, B=b, C=np.zeros((16, 64), np.float32)), "C", a @ b
    if name == "colsum":
        x = rng.standard_normal((8, 64)).astype(np.float32)
        return COLSUM, dict(x=x, out=np.zeros((1, 64), np.float32)), "out", x.sum(0, keepdims=True)
    x = rng.standard_normal((4, 256)).astype(np.float32)
    e = np.exp(x - x.max(1, keepdims=True))
    return SOFTMAX, dict(x=x, y=np.zeros((4, 256), np.float32)), "y", e / e.sum(1, keepdims=True)


def _run(module, name: str, args: dict, out: str) -> np.ndarray:
    return np.asarray(spyre_mlir.interpret(module, name, **{k: v.copy() for k, v in args.items()})[out])


def _in_a_pipeline(op) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, ktdf.PipelineOp):
        parent = parent.parent_op()
    return parent is not None


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", ["matmul", "colsum", "online_softmax"])
def test_a_loop_carried_kernel_gets_pipelines_that_compute_what_it_does(name, seed):
    text, args, out, oracle = _args(name, seed)
    source = _run(spyre_mlir.parse(text), name, args, out)
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.from_pipeline("ktir-to-schedule").run(module)
    accesses = [op for op in module.walk() if isinstance(op, LoadOp | StoreOp)]
    assert not [op for op in accesses if not _in_a_pipeline(op)], "every load and store is in a pipeline"
    # The init of the LX buffers, the reduction loop's body, and what follows it (or the second loop).
    assert len([op for op in module.walk() if isinstance(op, ktdf.PipelineOp)]) == 3
    reduction = [op for op in module.walk() if op.name == "scf.for" and "reduction_loop" in str(op.attributes.get("loop_type"))]
    assert len(reduction) == 1 and [op for op in reduction[0].walk() if isinstance(op, ktdf.PipelineOp)]
    piped = _run(module, name, args, out)
    np.testing.assert_array_equal(piped, source)
    np.testing.assert_allclose(piped, oracle, rtol=2e-5, atol=2e-5)


def _exposed(text: str):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(PASS).run(module)
    return module


def test_a_carried_tensor_lives_in_an_lx_buffer():
    module = _exposed(COLSUM)
    (loop,) = [op for op in module.walk() if op.name == "scf.for"]
    assert not loop.results and str(loop.attributes["loop_type"]) == "#ktdf.loop_type<reduction_loop>"
    (buffer,) = [op for op in module.walk() if isinstance(op, ConstructMemoryViewOp)
                 and "ct_local" in str(op.memory_space)]
    tile = next(iter(buffer.result.uses)).operation.results[0]
    users = [use.operation for use in tile.uses]
    # Stored before the loop (the init), loaded and stored in the body, loaded after it.
    assert sorted(type(u).__name__ for u in users) == ["LoadOp", "LoadOp", "StoreOp", "StoreOp"]
    assert [type(op).__name__ for op in loop.body.block.ops][:1] == ["LoadOp"]
    np.testing.assert_array_equal(
        _run(module, "colsum", *_args("colsum", 0)[1:3]), _run(spyre_mlir.parse(COLSUM), "colsum", *_args("colsum", 0)[1:3])
    )


def test_a_second_run_changes_nothing():
    module = _exposed(SOFTMAX)
    text = print_ir(module)
    spyre_mlir.PassManager.parse(PASS).run(module)
    assert print_ir(module) == text


def test_the_result_is_loaded_in_the_later_loop_that_uses_it():
    module = _exposed(SOFTMAX)
    second = [op for op in module.walk() if op.name == "scf.for"][1]
    first_ops = list(second.body.block.ops)[:2]
    assert [type(op).__name__ for op in first_ops] == ["LoadOp", "LoadOp"]  # m and l, from LX


# A carried index stays carried; a loop without memory accesses is left alone; the buffer goes after
# the function's own LX view (bytes [0, 256)).
MIXED = """
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @mixed(%x: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %lx0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [1, 64], strides: [64, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<1x64xf32>
  %own = ktdp.construct_memory_view %lx0, sizes: [1, 64], strides: [64, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<ct_local>} : memref<1x64xf32>
  %zero = arith.constant dense<0.0> : tensor<1x64xf32>
  %p = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (tensor<1x64xf32>) {
    %b = arith.addf %a, %a : tensor<1x64xf32>
    scf.yield %b : tensor<1x64xf32>
  }
  %s, %n = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %p, %count = %c0) -> (tensor<1x64xf32>, index) {
    %t = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<1x64xf32> -> !ktdp.access_tile<1x64xindex>
    %r = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
    %next = arith.addf %acc, %r : tensor<1x64xf32>
    %count1 = arith.addi %count, %c1 : index
    scf.yield %next, %count1 : tensor<1x64xf32>, index
  }
  %ot = ktdp.construct_access_tile %own[%c0, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<1x64xf32> -> !ktdp.access_tile<1x64xindex>
  ktdp.store %s, %ot : tensor<1x64xf32>, !ktdp.access_tile<1x64xindex>
  return
}
"""


def test_only_carried_tensors_of_loops_that_access_memory_move_to_lx():
    module = _exposed(MIXED)
    pure, accumulating = [op for op in module.walk() if op.name == "scf.for"]
    assert len(pure.results) == 1 and "loop_type" not in pure.attributes
    assert [r.type for r in accumulating.results] == [accumulating.lb.type]  # the index stays carried
    buffers = [op for op in module.walk() if isinstance(op, ConstructMemoryViewOp) and "ct_local" in str(op.memory_space)]
    addresses = sorted(op.offset.owner.value.value.data for op in buffers)
    assert addresses == [0, 256]  # the function's own view, then the buffer


# The online softmax with 1 / l computed once, between the loops: a tensor made of loaded data (l, from
# its LX buffer) and used in the second loop.
SOFTMAX_RECIPROCAL = SOFTMAX.replace(
    "  scf.for %j = %c0 to %c256 step %c64 {\n",
    "  %ones = arith.constant dense<1.0> : tensor<4xf32>\n"
    "  %r = arith.divf %ones, %l : tensor<4xf32>\n"
    "  scf.for %j = %c0 to %c256 step %c64 {\n",
).replace("ins(%l : tensor<4xf32>)", "ins(%r : tensor<4xf32>)").replace(
    "%o = arith.divf %ex, %lb", "%o = arith.mulf %ex, %lb"
)


def test_a_tensor_made_between_loops_and_used_in_a_later_one_goes_through_lx():
    assert "%r = arith.divf %ones, %l" in SOFTMAX_RECIPROCAL and "ins(%r :" in SOFTMAX_RECIPROCAL
    module = _exposed(SOFTMAX_RECIPROCAL)
    (divide,) = [op for op in module.walk() if op.name == "arith.divf" and op.parent_op().name == "func.func"]
    stored = divide.next_op
    assert isinstance(stored, StoreOp) and stored.operands[0] is divide.results[0]
    second = [op for op in module.walk() if op.name == "scf.for"][1]
    assert [type(op).__name__ for op in list(second.body.block.ops)[:2]] == ["LoadOp", "LoadOp"]  # m and 1 / l
    assert not [use for use in divide.results[0].uses if use.operation is not stored]
    # Through ktir-to-schedule: every access in a pipeline, the same softmax.
    _, args, out, oracle = _args("online_softmax", 0)
    module = spyre_mlir.parse(SOFTMAX_RECIPROCAL)
    spyre_mlir.PassManager.from_pipeline("ktir-to-schedule").run(module)
    assert not [op for op in module.walk() if isinstance(op, LoadOp | StoreOp) and not _in_a_pipeline(op)]
    piped = _run(module, "online_softmax", args, out)
    np.testing.assert_array_equal(piped, _run(spyre_mlir.parse(SOFTMAX_RECIPROCAL), "online_softmax", args, out))
    np.testing.assert_allclose(piped, oracle, rtol=2e-5, atol=2e-5)
