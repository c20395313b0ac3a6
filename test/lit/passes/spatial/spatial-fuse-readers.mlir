// RUN: %spyre-opt --mlir-print-local-scope %s -p 'spatial-tile,spatial-place,spatial-fuse-readers' | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s -p 'spatial-tile,spatial-place,spatial-fuse-readers{multicast=false}' | %FileCheck %s --check-prefix=OFF
// RUN: not %spyre-opt --mlir-print-local-scope %s -p 'spatial-tile,spatial-fuse-readers' 2>&1 | %FileCheck %s --check-prefix=PHASE

// Both blocks add the same weight tile %w to their own row of %x: the
// weight is read from HBM once, by block 0's load stage, and multicast to
// block 1, whose load stage becomes a receive stage of the group (same
// buffer, same consumer) and whose load step is gone. The rows of %x stay
// separate loads.

// CHECK-LABEL: spatial.program @add_bias attributes {grid = [2], spatial.phase = "fused"} {
// CHECK:         spatial.stage @b0_ld1 load @w -> @b0_in1 on @b0 engine "load" origin affine_map<() -> (0, 0)>
// CHECK-NEXT:    spatial.multicast @g0 reader @b0_ld1 to [@b1]
// CHECK:         spatial.stage @b1_ld0 load @x -> @b1_in0 on @b1 engine "load" origin affine_map<() -> (1, 0)>
// CHECK-NEXT:    spatial.stage @b1_ld1 receive @g0 -> @b1_in1 on @b1 engine "load"
// CHECK:         spatial.engine @b1 "load" {
// CHECK-NEXT:      spatial.load_step @b1_ld0
// CHECK-NEXT:    }

// OFF-NOT: spatial.multicast
// OFF:     spatial.stage @b1_ld1 load @w -> @b1_in1 on @b1 engine "load"

// PHASE: error: spatial-fuse-readers needs a program in phase placed, got tiled (program @add_bias); run spatial-place first

func.func @add_bias(%x: index, %w: index, %y: index) attributes {grid = [2]} {
  %r = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [2, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x8xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [1, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<1x8xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [2, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x8xf32>
  %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 7 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x8xf32> -> !ktdp.access_tile<1x8xindex>
  %wt = ktdp.construct_access_tile %wv[%c0, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 7 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<1x8xf32> -> !ktdp.access_tile<1x8xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>
  %b = ktdp.load %wt : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>
  %s = arith.addf %a, %b : tensor<1x8xf32>
  %yt = ktdp.construct_access_tile %yv[%r, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 7 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x8xf32> -> !ktdp.access_tile<1x8xindex>
  ktdp.store %s, %yt : tensor<1x8xf32>, !ktdp.access_tile<1x8xindex>
  func.return
}
