// RUN: %spyre-opt %s -p ktdp-hbm-roundtrip | %FileCheck %s
// RUN: %spyre-opt %s -p 'ktdp-hbm-roundtrip{chain-in-lx=true}' | %FileCheck %s --check-prefix=LX

// exp then sqrt: the edge goes through HBM scratch. The kernel gets a scratch
// parameter the runtime allocates (2 cores x one 512-byte slot); each core
// uses its own slot at tile id x 512 bytes; the view's base is in its own
// elements (bytes / 4 for f32).
// CHECK-LABEL: func.func @chain(%x: index, %out: index, %hbm_scratch: index {spyre.scratch_bytes = 1024 : i64}) attributes {grid = [2]} {
// CHECK-NEXT:    %[[T:.*]] = ktdp.get_compute_tile_id : index
// CHECK-NEXT:    %[[PER:.*]] = arith.constant 512 : index
// CHECK-NEXT:    %[[OFF:.*]] = arith.muli %[[T]], %[[PER]] : index
// CHECK-NEXT:    %hbm_scratch_core = arith.addi %hbm_scratch, %[[OFF]] : index
// CHECK:         %e = math.exp %d : tensor<4x32xf32>
// CHECK-NEXT:    %[[SLOT:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[B:.*]] = arith.addi %hbm_scratch_core, %[[SLOT]] : index
// CHECK-NEXT:    %[[W:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[E:.*]] = arith.divui %[[B]], %[[W]] : index
// CHECK-NEXT:    %[[V:.*]] = ktdp.construct_memory_view %[[E]], sizes: [4, 32], strides: [32, 1]
// CHECK:         %[[TILE:.*]] = ktdp.construct_access_tile %[[V]]
// CHECK-NEXT:    ktdp.store %e, %[[TILE]] : tensor<4x32xf32>, <4x32xindex>
// CHECK-NEXT:    %e_hbm = ktdp.load %[[TILE]] : <4x32xindex> -> tensor<4x32xf32>
// CHECK-NEXT:    %s = math.sqrt %e_hbm : tensor<4x32xf32>
// LX-LABEL: func.func @chain(%x: index, %out: index) attributes
// LX-NOT: hbm_scratch
// LX: %s = math.sqrt %e : tensor<4x32xf32>
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%x: index, %out: index) attributes {grid = [2]} {
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
