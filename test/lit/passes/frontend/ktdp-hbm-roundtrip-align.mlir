// RUN: %spyre-opt %s -p ktdp-hbm-roundtrip | %FileCheck %s

// Two edges of 64 bytes (4x8xf16): each slot starts on the target's alignment
// (128 bytes, one stick), the same as every other buffer of the tree, so the
// second is at 128 and a core's scratch is 256 bytes.
// CHECK-LABEL: func.func @two_edges(%x: index, %out: index, %hbm_scratch: index {spyre.scratch_bytes = 256 : i64})
// CHECK:         %e = math.exp %d : tensor<4x8xf16>
// CHECK-NEXT:    %[[SLOT0:.*]] = arith.constant 0 : index
// CHECK:         %s = math.sqrt %e_hbm : tensor<4x8xf16>
// CHECK-NEXT:    %[[SLOT1:.*]] = arith.constant 128 : index
// CHECK:         %r = math.exp %s_hbm : tensor<4x8xf16>
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_edges(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 8], strides: [8, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x8xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 8], strides: [8, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x8xf16>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x8xf16> -> !ktdp.access_tile<4x8xindex>
  %d = ktdp.load %xt : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf16>
  %e = math.exp %d : tensor<4x8xf16>
  %s = math.sqrt %e : tensor<4x8xf16>
  %r = math.exp %s : tensor<4x8xf16>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x8xf16> -> !ktdp.access_tile<4x8xindex>
  ktdp.store %r, %ot : tensor<4x8xf16>, !ktdp.access_tile<4x8xindex>
  return
}
