"""Which ops may be cloned next to each user (spyre_mlir.analysis.remat.rematerializable)."""

from __future__ import annotations

import spyre_mlir
from spyre_mlir.analysis.remat import rematerializable

KERNEL = """
#s = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>
#id = affine_map<(d0) -> (d0)>
func.func @k(%p: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %i = arith.muli %p, %c8 : index
  %v = ktdp.construct_memory_view %i, sizes: [8], strides: [1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %t = ktdp.construct_access_tile %v[%c0] {access_tile_set = #s, access_tile_order = #id} : memref<8xf32> -> !ktdp.access_tile<8xindex>
  %e = tensor.empty() : tensor<8xf32>
  %z = arith.constant dense<0.0> : tensor<8xf32>
  %x = ktdp.load %t : !ktdp.access_tile<8xindex> -> tensor<8xf32>
  %y = math.exp %x : tensor<8xf32>
  ktdp.store %y, %t : tensor<8xf32>, !ktdp.access_tile<8xindex>
  return
}
"""


def test_index_view_and_cheap_tensor_ops_are_rematerializable():
    module = spyre_mlir.parse(KERNEL)
    by_name = {op.results[0].name_hint: op for op in module.walk() if op.results and op.results[0].name_hint}
    assert all(rematerializable(by_name[n]) for n in ("c0", "i", "v", "t", "e", "z"))
    assert not rematerializable(by_name["x"])  # reads memory
    assert not rematerializable(by_name["y"])  # a tensor compute runs once
    assert not any(rematerializable(op) for op in module.walk() if op.name == "ktdp.store")
