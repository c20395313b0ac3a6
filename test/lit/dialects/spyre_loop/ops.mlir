// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// A 2x4 nest (seed 000's canonical example): the outer loop tiles dim 1 into
// tiles of 512, the inner one dim 0 into tiles of 16; a symbolic count is
// allowed in IR.

// CHECK-LABEL: func.func @nest
// CHECK:      spyre_loop.loop count(2) tiled_dims [1] tile_sizes [512] attributes {note = "outer"} {
// CHECK-NEXT: ^bb0(%i: index):
// CHECK-NEXT:   spyre_loop.loop count(4) tiled_dims [0] tile_sizes [16] {
// CHECK-NEXT:   ^bb{{[0-9]+}}(%j: index):
// CHECK-NEXT:     %{{.*}} = arith.addi %i, %j : index
// CHECK:      spyre_loop.loop count(%n) tiled_dims [0, 2] tile_sizes [1, 64] {
func.func @nest(%n: index) {
  spyre_loop.loop count(2) tiled_dims [1] tile_sizes [512] attributes {note = "outer"} {
  ^bb0(%i: index):
    spyre_loop.loop count(4) tiled_dims [0] tile_sizes [16] {
    ^bb1(%j: index):
      %s = arith.addi %i, %j : index
    }
  }
  spyre_loop.loop count(%n) tiled_dims [0, 2] tile_sizes [1, 64] {
  ^bb0(%k: index):
  }
  return
}
