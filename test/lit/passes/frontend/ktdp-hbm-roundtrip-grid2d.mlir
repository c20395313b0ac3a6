// RUN: %spyre-opt %s -p ktdp-hbm-roundtrip | %FileCheck %s
// The rewritten kernel computes what the source does, every core in its own scratch:
// RUN: %spyre-run %s --arg x=random:4x32xf32:3 --arg out=zeros:4x32xf32 --print-outputs > %t.before
// RUN: %spyre-opt %s -p ktdp-hbm-roundtrip -o %t.mlir
// RUN: %spyre-run %t.mlir --arg x=random:4x32xf32:3 --arg out=zeros:4x32xf32 --print-outputs | grep -v hbm_scratch > %t.after
// RUN: diff %t.before %t.after

// Each core's scratch copy is at `linear core id * bytes per core`, the linear
// id of spyre_mlir.analysis.grid in the default order (grid dim 0 varies fastest): on
// grid [2, 3], tile (t0, t1) is core t1 * 2 + t0.
// CHECK-LABEL: func.func @chain2d(%x: index, %out: index, %hbm_scratch: index {spyre.scratch_bytes = 3072 : i64}) attributes {grid = [2, 3]} {
// CHECK-NEXT:    %[[T:[^:]*]]:2 = ktdp.get_compute_tile_id : index, index
// CHECK-NEXT:    %[[N0:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[T]]#1, %[[N0]] : index
// CHECK-NEXT:    %[[L:.*]] = arith.addi %[[M]], %[[T]]#0 : index
// CHECK-NEXT:    %[[PER:.*]] = arith.constant 512 : index
// CHECK-NEXT:    %[[OFF:.*]] = arith.muli %[[L]], %[[PER]] : index
// CHECK-NEXT:    %hbm_scratch_core = arith.addi %hbm_scratch, %[[OFF]] : index

#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain2d(%x: index, %out: index) attributes {grid = [2, 3]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %d = ktdp.load %xt : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %e = math.exp %d : tensor<4x32xf32>
  %s = math.sqrt %e : tensor<4x32xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  ktdp.store %s, %ot : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  return
}
