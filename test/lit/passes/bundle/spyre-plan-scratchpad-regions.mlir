// RUN: %spyre-opt %s -p ktdp-extract-compute-groups,spyre-plan-scratchpad 2>/dev/null | %FileCheck %s

// Only tensors passed between a group's compute ops (at its top level, or in its
// loops and branches) are intermediates placed in LX. What an op computes in its
// own region is not: the inter_tile_reduce combiner below stays pure (no
// ktdp.store, which its verifier refuses), and so does the produce body. The
// identity (%id, a fill consumed by the reduce) is a top-level intermediate:
// it is placed. The reduced value stays a value: it exists on the consumer
// tiles only, so a store where it is made would read it on every tile.

// CHECK-LABEL: func.func @local_schedule_0(
// CHECK:         %id = linalg.fill
// CHECK-NEXT:    arith.constant 0 : index
// CHECK-NEXT:    ktdp.construct_memory_view {{.*}}spyre.lx_offset = 0 : i64}
// CHECK:         ktdp.store %id,
// CHECK-NEXT:    %[[ID:.*]] = ktdp.load
// CHECK:         %r = ktdp.inter_tile_reduce(%f) {{.*}}identity(%[[ID]] : tensor<1x128xf16>)
// CHECK-NEXT:    ^{{.*}}(%lhs: tensor<1x128xf16>, %rhs: tensor<1x128xf16>):
// CHECK-NEXT:      %i = tensor.empty() : tensor<1x128xf16>
// CHECK-NEXT:      %s = linalg.add ins(%lhs, %rhs : tensor<1x128xf16>, tensor<1x128xf16>)
// CHECK-NEXT:      ktdp.yield_reduced %s : tensor<1x128xf16>
// CHECK-NEXT:    }
// The output view is built right before its store (the group body is in
// dataflow-scheduler's order); %d goes from the add straight to that global
// store, with no LX store or load in between.
// CHECK-NEXT:    %ya = arith.addi %y, %o : index
// CHECK-NEXT:    %yv = ktdp.construct_memory_view %ya, {{.*}}memory_space = #ktdp.memory_space<global>}
// CHECK-NEXT:    %d = arith.addf %r, %r : tensor<1x128xf16>
// CHECK-NEXT:    %yt = ktdp.construct_access_tile %yv[
// CHECK-NEXT:    ktdp.store %d, %yt :
// CHECK-NEXT:    return

#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
module {
  func.func @reduce(%x: index, %y: index) attributes {grid = [4]} {
    %c0 = arith.constant 0 : index
    %n = arith.constant 128 : index
    %pid = ktdp.get_compute_tile_id : index
    %o = arith.muli %pid, %n : index
    %xa = arith.addi %x, %o : index
    %xv = ktdp.construct_memory_view %xa, sizes: [1, 128], strides: [128, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<1x128xf16>
    %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #row, access_tile_order = #id} : memref<1x128xf16> -> !ktdp.access_tile<1x128xindex>
    %p = ktdp.load %xt : !ktdp.access_tile<1x128xindex> -> tensor<1x128xf16>
    %f = ktdp.inter_tile_produce producer_tiles_per_group = #all
        : tensor<1x128xf16> -> !ktdp.tile_future<tensor<1x128xf16>, groups = affine_set<(g) : (g == 0)>> {
      ^bb0(%gid: index):
        ktdp.yield_partial %p : tensor<1x128xf16>
    }
    %zero = arith.constant 0.0 : f16
    %e = tensor.empty() : tensor<1x128xf16>
    %id = linalg.fill ins(%zero : f16) outs(%e : tensor<1x128xf16>) -> tensor<1x128xf16>
    %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all, identity(%id : tensor<1x128xf16>)
        : !ktdp.tile_future<tensor<1x128xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<1x128xf16> {
      ^bb0(%lhs: tensor<1x128xf16>, %rhs: tensor<1x128xf16>):
        %i = tensor.empty() : tensor<1x128xf16>
        %s = linalg.add ins(%lhs, %rhs : tensor<1x128xf16>, tensor<1x128xf16>) outs(%i : tensor<1x128xf16>) -> tensor<1x128xf16>
        ktdp.yield_reduced %s : tensor<1x128xf16>
    }
    %d = arith.addf %r, %r : tensor<1x128xf16>
    %ya = arith.addi %y, %o : index
    %yv = ktdp.construct_memory_view %ya, sizes: [1, 128], strides: [128, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<1x128xf16>
    %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #row, access_tile_order = #id} : memref<1x128xf16> -> !ktdp.access_tile<1x128xindex>
    ktdp.store %d, %yt : tensor<1x128xf16>, !ktdp.access_tile<1x128xindex>
    return
  }
}
