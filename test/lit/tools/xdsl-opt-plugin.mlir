// A stock xdsl-opt sees our dialects and passes through the xdsl.universe entry point.
// RUN: %xdsl-opt %s -p ktdp-normalize-memory-space | %FileCheck %s

// CHECK: memory_space = #ktdp.memory_space<ct_local, ct_id = 1>
// CHECK: ktdp.load %{{.*}} : <4xindex> -> tensor<4xf16>
func.func @k(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [4], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, memory_space = #ktdp.spyre_memory_space<LX, core = 1>} : memref<4xf16>
  %t = ktdp.construct_access_tile %v[0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<4xf16> -> !ktdp.access_tile<4xindex>
  %d = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf16>
  return
}
