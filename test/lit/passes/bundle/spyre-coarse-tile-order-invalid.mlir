// RUN: %spyre-opt %s --verify-diagnostics -p ktdp-extract-compute-groups,spyre-plan-scratchpad,spyre-coarse-tile
// RUN: not %spyre-opt %s -p ktdp-extract-compute-groups,spyre-distribute-work,spyre-coarse-tile 2>&1 | %FileCheck %s --check-prefix=SPLIT
// RUN: rm -rf %t && not %spyre-opt %s -p 'ktdp-extract-compute-groups,spyre-emit-bundle{out-dir=%t},spyre-coarse-tile' 2>&1 | %FileCheck %s --check-prefix=BUNDLE
// RUN: %spyre-opt %s -p ktdp-extract-compute-groups,spyre-coarse-tile,spyre-distribute-work,spyre-plan-scratchpad | %FileCheck %s --check-prefix=GOOD

// spyre-coarse-tile must run before spyre-plan-scratchpad: the plan puts
// the group's intermediates in LX at fixed offsets, and tiling the planned
// group afterwards gave a kernel that exited 0 and failed at run time
// ("read of uninitialized LX"). Refused at the first LX buffer (the line of
// the compute whose result it holds). After spyre-distribute-work (which
// records the untiled split) and on an emitted bundle, refused too. The
// pipeline's own order is fine (GOOD).
// SPLIT: [[# @LINE + 6]]:1: error: pass 'spyre-coarse-tile' needs compute groups that 'spyre-distribute-work' has not processed yet, but group @local_schedule_0 has 'spyre.core_split' (its core split is recorded for the untiled group): run 'spyre-coarse-tile' first, before 'spyre-distribute-work'
// BUNDLE: [[# @LINE + 5]]:1: error: pass 'spyre-coarse-tile' needs extracted compute groups, but this module is already an emitted bundle: run 'spyre-coarse-tile' before 'spyre-emit-bundle'
// GOOD: spyre_loop.loop count(2)
// GOOD: spyre.lx_offset = 0
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @k(%x: index, %z: index) attributes {spyre.slices = 2} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %zv = ktdp.construct_memory_view %z, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x64xindex>
  %zt = ktdp.construct_access_tile %zv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x64xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
  // expected-error @+1 {{pass 'spyre-coarse-tile' needs compute groups that 'spyre-plan-scratchpad' has not processed yet, but group @local_schedule_0 has 'spyre.peak_lx_bytes' (its intermediates are LX buffers at fixed offsets, which one tile's loop would not cover): run 'spyre-coarse-tile' first, before 'spyre-plan-scratchpad'}}
  %e = math.exp %a : tensor<8x64xf32>
  %m = arith.mulf %e, %a : tensor<8x64xf32>
  ktdp.store %m, %zt : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>
  return
}
