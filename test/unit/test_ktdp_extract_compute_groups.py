"""ktdp-extract-compute-groups: groups found by dataflow, outlined, marked, ordered by may-alias.

The pass's behaviour on the corpus is in test_schedule_passes.py and its lit
tests; here what later stages rely on: each outlined group function carries
`spyre.compute_group` (its declaration in the kernel's module does not), and
a store before a load of a view that may alias it keeps the two groups in
that order (`spyre_mlir.analysis.access.may_alias`)."""

from __future__ import annotations

import pytest

import spyre_mlir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.spyre import COMPUTE_GROUP_ATTR

SETS = """
#s = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#id = affine_map<(d0) -> (d0)>
"""


def tile(name: str, base: str) -> str:
    return (
        f"  %v{name} = ktdp.construct_memory_view {base}, sizes: [64], strides: [1] "
        "{coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<64xf32>\n"
        f"  %{name} = ktdp.construct_access_tile %v{name}[%c0] {{access_tile_set = #s, access_tile_order = #id}}"
        " : memref<64xf32> -> !ktdp.access_tile<64xindex>\n"
    )


# exp(x) -> s, then sqrt(s) -> out: the second group reads what the first writes.
ROUND_TRIP = (
    SETS
    + "func.func @k(%x: index, %s: index, %out: index) {\n  %c0 = arith.constant 0 : index\n"
    + tile("tx", "%x") + tile("ts", "%s") + tile("to", "%out")
    + """  %a = ktdp.load %tx : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %e = math.exp %a : tensor<64xf32>
  ktdp.store %e, %ts : tensor<64xf32>, !ktdp.access_tile<64xindex>
  %b = ktdp.load %ts : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %r = math.sqrt %b : tensor<64xf32>
  ktdp.store %r, %to : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}
"""
)


def extracted(text: str):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse("ktdp-extract-compute-groups").run(module)
    return module


def functions(module) -> dict:
    return {op.sym_name.data: op for op in module.walk() if op.name == "func.func" and op.body.blocks}


def test_groups_are_marked_and_ordered_by_their_memory():
    module = extracted(ROUND_TRIP)
    funcs = functions(module)
    groups = [name for name, f in funcs.items() if COMPUTE_GROUP_ATTR in f.attributes]
    assert groups == ["local_schedule_0", "local_schedule_1"]
    assert COMPUTE_GROUP_ATTR not in funcs["k"].attributes
    declarations = [op for op in module.walk() if op.name == "func.func" and not op.body.blocks]
    assert declarations and not any(COMPUTE_GROUP_ATTR in d.attributes for d in declarations)
    calls = [op.callee.root_reference.data for op in funcs["k"].walk() if op.name == "func.call"]
    first = {name: [op.name for op in funcs[name].walk()] for name in groups}
    assert "math.exp" in first[calls[0]] and "math.sqrt" in first[calls[1]]  # the store runs before the load


def test_groups_that_must_each_follow_the_other_are_refused_at_a_load():
    # group A: load s -> exp -> store out; group B: load out -> sqrt -> store s: each reads what the other writes.
    text = (
        SETS
        + "func.func @k(%s: index, %out: index) {\n  %c0 = arith.constant 0 : index\n"
        + tile("ts", "%s") + tile("to", "%out")
        + """  %a = ktdp.load %ts : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %b = ktdp.load %to : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %e = math.exp %a : tensor<64xf32>
  %r = math.sqrt %b : tensor<64xf32>
  ktdp.store %e, %to : tensor<64xf32>, !ktdp.access_tile<64xindex>
  ktdp.store %r, %ts : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}
"""
    )
    with pytest.raises(DiagnosticError, match="cannot extract compute groups"):
        extracted(text)
