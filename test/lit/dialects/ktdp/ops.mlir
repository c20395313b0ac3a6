// RUN: %spyre-opt --mlir-print-local-scope %s | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s | %spyre-opt --mlir-print-local-scope | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s --mlir-print-op-generic | %spyre-opt --mlir-print-local-scope | %FileCheck %s

#box = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>

// CHECK-LABEL: func.func @tile_ids
func.func @tile_ids() attributes {grid = [4, 8]} {
  // CHECK: %{{.*}}:2 = ktdp.get_compute_tile_id : index, index
  %t:2 = ktdp.get_compute_tile_id : index, index
  return
}

// CHECK-LABEL: func.func @views
func.func @views(%base: index, %m: index) {
  // CHECK: ktdp.construct_memory_view %{{.*}}, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  %v = ktdp.construct_memory_view %base, sizes: [8, 8], strides: [8, 1] {coordinate_set = #box, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  // Dynamic size bound to symbol s0; the older `sizes :` spacing also parses.
  // CHECK: ktdp.construct_memory_view %{{.*}}, sizes: [%{{.*}}, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<ct_local, ct_id = 3>} : memref<?x64xf16>
  %d = ktdp.construct_memory_view %base, sizes : [%m, 64], strides : [64, 1] {coordinate_set = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<ct_local, ct_id = 3>} : memref<?x64xf16>
  // CHECK: memory_space = #ktdp.spyre_memory_space<LX, core = 2>
  %o = ktdp.construct_memory_view %base, sizes: [8, 8], strides: [8, 1] {coordinate_set = #box, memory_space = #ktdp.spyre_memory_space<LX, core = 2>} : memref<8x8xf32>
  // CHECK: memory_space = #ktdp.spyre_memory_space<HBM>} : memref<8x8xf32, #ktdp.spyre_memory_space<HBM>>
  %h = ktdp.construct_memory_view %base, sizes: [8, 8], strides: [8, 1] {coordinate_set = #box, memory_space = #ktdp.spyre_memory_space<HBM>} : memref<8x8xf32, #ktdp.spyre_memory_space<HBM>>
  return
}

// CHECK-LABEL: func.func @distributed
func.func @distributed(%a: index, %b: index) {
  %p0 = ktdp.construct_memory_view %a, sizes: [64, 32], strides: [32, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 31 >= 0)>, memory_space = #ktdp.memory_space<ct_local, ct_id = 0>} : memref<64x32xf16>
  %p1 = ktdp.construct_memory_view %b, sizes: [64, 32], strides: [32, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 - 32 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<ct_local, ct_id = 1>} : memref<64x32xf16>
  // CHECK: ktdp.construct_distributed_memory_view(%{{.*}}, %{{.*}} : memref<64x32xf16>, memref<64x32xf16>) : memref<64x64xf16>
  %g = ktdp.construct_distributed_memory_view (%p0, %p1 : memref<64x32xf16>, memref<64x32xf16>) : memref<64x64xf16>
  return
}

// CHECK-LABEL: func.func @access_tiles
func.func @access_tiles(%base: index, %r: index, %i: index, %n: index) {
  %v = ktdp.construct_memory_view %base, sizes: [8, 8], strides: [8, 1] {coordinate_set = #box, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  // Affine expressions of SSA values in the brackets; a repeated name is one dim.
  // CHECK: ktdp.construct_access_tile %[[V:.*]][%[[R:.*]] + %[[I:.*]] * 2, %[[R]] floordiv 4] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>} : memref<8x8xf32> -> !ktdp.access_tile<2x4xindex>
  %t0 = ktdp.construct_access_tile %v[%r + %i * 2, %r floordiv 4] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<2x4xindex>
  // Transposed order: a 2x4 set gives a 4x2 tile.
  // CHECK: ktdp.construct_access_tile %{{.*}}[%{{.*}}, 0] {access_tile_order = affine_map<(d0, d1) -> (d1, d0)>
  // CHECK-SAME: -> !ktdp.access_tile<4x2xindex>
  %t1 = ktdp.construct_access_tile %v[%r, 0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d1, d0)>} : memref<8x8xf32> -> !ktdp.access_tile<4x2xindex>
  // A symbolic set bound by symbols(...), and a symbol() inside the brackets.
  // CHECK: ktdp.construct_access_tile %{{.*}}[%{{.*}} + symbol(%{{.*}}), 0] symbols(%{{.*}}) {{.*}} -> !ktdp.access_tile<?x8xindex>
  %t2 = ktdp.construct_access_tile %v[%r + symbol(%i), 0] symbols(%n) {
      access_tile_set = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<?x8xindex>
  // A triangular (non-box) set.
  // CHECK: access_tile_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0, d0 - d1 >= 0, -d0 + 3 >= 0)>
  %t3 = ktdp.construct_access_tile %v[0, 0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0, d0 - d1 >= 0, -d0 + 3 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<4x4xindex>
  // Load and store; the short type form `<2x4xindex>` also parses.
  // CHECK: %[[D:.*]] = ktdp.load %{{.*}} : <2x4xindex> -> tensor<2x4xf32>
  %d = ktdp.load %t0 : <2x4xindex> -> tensor<2x4xf32>
  // CHECK: ktdp.store %[[D]], %{{.*}} : tensor<2x4xf32>, <2x4xindex>
  ktdp.store %d, %t0 : tensor<2x4xf32>, <2x4xindex>
  return
}

// CHECK-LABEL: func.func @indirect
func.func @indirect(%pb: index, %tb: index, %c: index) {
  %pages = ktdp.construct_memory_view %pb, sizes: [500, 4, 16, 32], strides: [2048, 512, 32, 1] {coordinate_set = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 + 499 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 15 >= 0, d3 >= 0, -d3 + 31 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<500x4x16x32xf16>
  %tbl = ktdp.construct_memory_view %tb, sizes: [2, 4], strides: [4, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x4xi32>
  // CHECK: ktdp.construct_indirect_access_tile intermediate_variables(%[[B:.*]], %[[H:.*]], %[[P:.*]], %[[E:.*]]) %{{.*}}[ind(%{{.*}}[%[[B]], %[[P]] floordiv 16]), (%[[H]] + %{{.*}}), (%[[P]] mod 16), (%[[E]])]
  // CHECK-SAME: : memref<500x4x16x32xf16>, memref<2x4xi32> -> !ktdp.access_tile<2x4x64x32xindex>
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%b, %h, %p, %e)
       %pages[ind(%tbl[%b, %p floordiv 16]), (%h + %c), (%p mod 16), (%e)] {
       variables_space_set = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 63 >= 0, d3 >= 0, -d3 + 31 >= 0)>,
       variables_space_order = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>}
     : memref<500x4x16x32xf16>, memref<2x4xi32> -> !ktdp.access_tile<2x4x64x32xindex>
  %d = ktdp.load %t : !ktdp.access_tile<2x4x64x32xindex> -> tensor<2x4x64x32xf16>
  return
}

// CHECK-LABEL: func.func @runtime_args
// CHECK-SAME: !ktdp.runtime_arg<index, granularity=32, upperbound=300>
func.func @runtime_args(%M: !ktdp.runtime_arg<index, upperbound=300, granularity=32>, %e: !ktdp.runtime_arg<f16>) {
  // CHECK: ktdp.runtime_arg_extract value from %{{.*}} : !ktdp.runtime_arg<index, granularity=32, upperbound=300> -> index
  %m = ktdp.runtime_arg_extract value from %M : !ktdp.runtime_arg<index, granularity=32, upperbound=300> -> index
  // CHECK: ktdp.runtime_arg_extract granularity from
  %g = ktdp.runtime_arg_extract granularity from %M : <index, granularity=32, upperbound=300> -> index
  // CHECK: ktdp.runtime_arg_extract upperbound from
  %u = ktdp.runtime_arg_extract upperbound from %M : !ktdp.runtime_arg<index, granularity=32, upperbound=300> -> index
  // CHECK: ktdp.runtime_arg_extract value from %{{.*}} : !ktdp.runtime_arg<f16> -> f16
  %x = ktdp.runtime_arg_extract value from %e : !ktdp.runtime_arg<f16> -> f16
  return
}
