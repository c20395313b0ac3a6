// RUN: %spyre-opt %s --verify-diagnostics -p spyre-unroll-loops
// RUN: rm -rf %t && not %spyre-opt %s -p 'ktdp-extract-compute-groups,spyre-emit-bundle{out-dir=%t},spyre-unroll-loops' 2>&1 | %FileCheck %s --check-prefix=BUNDLE
// RUN: %spyre-opt %s -p ktdp-extract-compute-groups,spyre-coarse-tile,spyre-unroll-loops | %FileCheck %s --check-prefix=UNTILED

// spyre-unroll-loops unrolls the spyre_loop.loop nests spyre-coarse-tile
// makes. A kernel never split into groups has none, and the pass would exit
// 0 having done nothing: refused, naming the passes to run first; an
// emitted bundle (whose loops are scf.for) likewise. Groups that
// spyre-coarse-tile left whole (nothing needed tiling) are fine: nothing
// to unroll, no diagnostic (UNTILED).
// BUNDLE: [[# @LINE + 6]]:1: error: pass 'spyre-unroll-loops' needs the spyre_loop.loop nests of tiled compute groups, but this module is already an emitted bundle: run 'spyre-unroll-loops' before 'spyre-emit-bundle'
// UNTILED: func.func @local_schedule_0
// UNTILED-NOT: spyre_loop.loop

#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @k(%x: index, %z: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %zv = ktdp.construct_memory_view %z, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x64xindex>
  %zt = ktdp.construct_access_tile %zv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x64xindex>
  // expected-error @+1 {{pass 'spyre-unroll-loops' needs the spyre_loop.loop nests of tiled compute groups: run 'ktdp-extract-compute-groups' and 'spyre-coarse-tile' first}}
  %a = ktdp.load %xt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
  %e = math.exp %a : tensor<8x64xf32>
  %m = arith.mulf %e, %a : tensor<8x64xf32>
  ktdp.store %m, %zt : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>
  return
}
