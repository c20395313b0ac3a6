"""ktir-legality-check: dataflow-scheduler's V1 gate, its rules in general (not only their examples).

Their own lit tests run unchanged in test_dataflow_scheduler_lit.py; here each
rule on forms their tests do not show (nested, in a reduce, other named ops),
what stays legal, that the first illegal op in pre-order is the one reported,
at its line, and that a legal kernel is left as it was."""

from __future__ import annotations

import pytest

import spyre_mlir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.ir import print_ir

MAP = "#map = affine_map<(d0) -> (d0)>\n"


def run(text: str):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse("ktir-legality-check").run(module)
    return module


def refusal(text: str) -> tuple[str, int]:
    """The message and the line of the error the pass raises on `text`."""
    with pytest.raises(DiagnosticError) as caught:
        run(text)
    diagnostic = caught.value.diagnostic
    assert diagnostic.location is not None
    return diagnostic.message, diagnostic.location.line


def generic(body: str, element: str = "f16") -> str:
    """A function with one elementwise linalg.generic whose body computes `body` (its last value `%v`)."""
    return (
        MAP
        + f"func.func @g(%a: tensor<4x{element}>, %o: tensor<4x{element}>, %n: index) -> tensor<4x{element}> {{\n"
        + "  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = [\"parallel\"]}\n"
        + f"       ins(%a : tensor<4x{element}>) outs(%o : tensor<4x{element}>) {{\n"
        + f"  ^bb0(%in: {element}, %out: {element}):\n"
        + body
        + f"    linalg.yield %v : {element}\n"
        + f"  }} -> tensor<4x{element}>\n"
        + f"  return %r : tensor<4x{element}>\n}}\n"
    )


BODY = "V1 only supports add/mul/sub compute ops; found unsupported compute op"
NAMED = "V1 only supports add/mul/sub/reduce compute ops; found unsupported compute op"


@pytest.mark.parametrize(
    "body",
    [
        "    %v = arith.addf %in, %out : f16\n",
        "    %m = arith.maximumf %in, %out : f16\n    %v = arith.minimumf %m, %in : f16\n",
        "    %c = arith.constant 1.0 : f16\n    %v = arith.mulf %in, %c : f16\n",
        "    %c = arith.cmpf olt, %in, %out : f16\n    %v = arith.select %c, %in, %out : f16\n",
        "    %v = math.absf %in : f16\n",
    ],
)
def test_bodies_of_the_scalar_ops_v1_lowers_are_legal(body):
    run(generic(body))


def test_an_index_cast_in_a_body_is_legal_wherever_it_stands():
    run(generic("    %v = arith.index_castui %n : index to i32\n", "i32"))


@pytest.mark.parametrize(
    "body, line",
    [
        ("    %v = math.exp %in : f16\n", 6),
        ("    %s = arith.addf %in, %out : f16\n    %v = arith.divf %s, %in : f16\n", 7),  # the second op
        ("    %v = arith.negf %in : f16\n", 6),
    ],
)
def test_any_other_op_in_a_generic_body_is_refused_at_that_op(body, line):
    assert refusal(generic(body)) == (BODY, line)


def test_the_body_of_a_reduce_is_checked_too():
    text = """func.func @r(%a: tensor<4x8xf16>, %o: tensor<4xf16>) -> tensor<4xf16> {
  %r = linalg.reduce ins(%a : tensor<4x8xf16>) outs(%o : tensor<4xf16>) dimensions = [1]
    (%in: f16, %acc: f16) {
      %v = math.exp %in : f16
      linalg.yield %v : f16
    }
  return %r : tensor<4xf16>
}
"""
    assert refusal(text) == (BODY, 4)
    run(text.replace("math.exp %in", "arith.addf %in, %acc"))


@pytest.mark.parametrize("op", ["linalg.add", "linalg.sub", "linalg.mul", "linalg.max", "linalg.min"])
def test_named_elementwise_ops_v1_lowers_are_legal(op):
    run(f"""func.func @n(%a: tensor<4xf16>, %b: tensor<4xf16>, %o: tensor<4xf16>) -> tensor<4xf16> {{
  %r = {op} ins(%a, %b : tensor<4xf16>, tensor<4xf16>) outs(%o : tensor<4xf16>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}}
""")


def test_a_fill_that_initializes_a_reduction_is_legal():
    run("""func.func @f(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %i = linalg.fill ins(%c : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce { arith.maximumf } ins(%a : tensor<4x8xf32>) outs(%i : tensor<4xf32>) dimensions = [1]
  return %r : tensor<4xf32>
}
""")


@pytest.mark.parametrize(
    "op",
    [
        "%r = linalg.matmul ins(%a, %b : tensor<4x4xf16>, tensor<4x4xf16>) outs(%o : tensor<4x4xf16>) -> tensor<4x4xf16>",
        "%r = linalg.transpose ins(%a : tensor<4x4xf16>) outs(%o : tensor<4x4xf16>) permutation = [1, 0]",
        "%r = linalg.exp ins(%a : tensor<4x4xf16>) outs(%o : tensor<4x4xf16>) -> tensor<4x4xf16>",
    ],
)
def test_other_named_linalg_ops_are_refused(op):
    text = f"""func.func @n(%a: tensor<4x4xf16>, %b: tensor<4x4xf16>, %o: tensor<4x4xf16>) -> tensor<4x4xf16> {{
  {op}
  return %r : tensor<4x4xf16>
}}
"""
    assert refusal(text) == (NAMED, 2)


LOOPS = """func.func @l(%x: tensor<4xf16>, %p: i32) -> tensor<4xf16> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      INNER
    }
  }
  return %x : tensor<4xf16>
}
"""


def test_a_for_with_iter_args_is_refused_also_when_nested():
    inner = """%r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<4xf16> {
        scf.yield %acc : tensor<4xf16>
      }"""
    assert refusal(LOOPS.replace("INNER", inner)) == (
        "V1 does not support scf.for with loop-carried arguments (iter_args)", 7
    )


def test_a_while_is_refused_also_without_results_and_when_nested():
    inner = """scf.while : () -> () {
        %f = arith.constant false
        scf.condition(%f)
      } do {
        scf.yield
      }"""
    assert refusal(LOOPS.replace("INNER", inner)) == ("V1 does not support scf.while loops", 7)


def test_plain_nested_loops_and_index_math_are_legal():
    run(LOOPS.replace("INNER", "%m = arith.muli %i, %j : index"))


def test_the_first_illegal_op_in_pre_order_is_the_one_reported():
    # The while holds an illegal generic; the while, met first, is the one reported.
    text = """func.func @w(%a: tensor<4xf16>, %o: tensor<4xf16>) {
  scf.while : () -> () {
    %f = arith.constant false
    scf.condition(%f)
  } do {
    %r = linalg.div ins(%a, %a : tensor<4xf16>, tensor<4xf16>) outs(%o : tensor<4xf16>) -> tensor<4xf16>
    scf.yield
  }
  return
}
"""
    assert refusal(text) == ("V1 does not support scf.while loops", 2)


def test_a_distributed_view_is_refused_at_it():
    text = """#set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>
func.func @d() {
  %a = arith.constant 1024 : index
  %v = ktdp.construct_memory_view %a, sizes: [32, 64], strides: [64, 1] {coordinate_set = #set, memory_space = #ktdp.memory_space<global>} : memref<32x64xf16>
  %w = ktdp.construct_distributed_memory_view (%v, %v : memref<32x64xf16>, memref<32x64xf16>) : memref<64x64xf16>
  return
}
"""
    assert refusal(text) == ("V1 does not support ktdp.construct_distributed_memory_view", 5)


def test_a_legal_kernel_is_left_unchanged():
    text = generic("    %m = arith.mulf %in, %out : f16\n    %v = arith.subf %m, %in : f16\n")
    before = print_ir(spyre_mlir.parse(text))
    assert print_ir(run(text)) == before
