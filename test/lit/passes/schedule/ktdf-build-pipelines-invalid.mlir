// RUN: %spyre-opt %s --verify-diagnostics -p ktdf-build-pipelines
// RUN: rm -rf %t && not %spyre-opt %s -p 'ktdp-extract-compute-groups,spyre-emit-bundle{out-dir=%t},ktdf-build-pipelines' 2>&1 | %FileCheck %s --check-prefix=BUNDLE

// ktdf-build-pipelines builds pipelines in the functions that
// ktdp-extract-compute-groups outlines (@local_schedule_N), or in a kernel
// whose functions are each one group already (dataflow-scheduler's inputs).
// A function of several groups (a load of what a store before it wrote) is
// refused at that load: the extraction splits it.
// BUNDLE: [[# @LINE + 4]]:1: error: pass 'ktdf-build-pipelines' needs extracted compute groups, but this module is already an emitted bundle: run 'ktdf-build-pipelines' before 'spyre-emit-bundle'

#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @k(%x: index, %z: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %zv = ktdp.construct_memory_view %z, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x64xindex>
  %zt = ktdp.construct_access_tile %zv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x64xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
  %e = math.exp %a : tensor<8x64xf32>
  ktdp.store %e, %zt : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>
  // expected-error @+1 {{pass 'ktdf-build-pipelines' needs extracted compute groups: this load reads what a store before it wrote, so @k is more than one group: run 'ktdp-extract-compute-groups' first}}
  %b = ktdp.load %zt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
  %m = arith.mulf %b, %a : tensor<8x64xf32>
  ktdp.store %m, %xt : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>
  return
}
