// RUN: %spyre-opt --mlir-print-local-scope %s --split-input-file -p spyre-physicalize-layouts | %FileCheck %s

// Tiles covering part of a stick (issue 22; docs/layouts.md, "Partial sticks"). A load
// reads the whole sticks the tile touches and slices the covered part out (a logical
// tensor); a store writes only the covered elements: a box inside one stick, or whole
// sticks masked by the tile set. f32: 32 elements a stick.

// 16 columns from a multiple of 16: half a stick, at an offset (j mod 32) known at run time.
// CHECK-LABEL: func.func @half_stick
// CHECK: %v = ktdp.construct_memory_view %x, sizes: [2, 16, 32], strides: [512, 32, 1]
// CHECK: %[[R:.*]] = arith.remsi %j, %{{.*}} : index
// CHECK: %[[Q:.*]] = arith.divsi %j, %{{.*}} : index
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: %t = ktdp.construct_access_tile %v[%[[Q]], %c0, %[[Z]]] {{.*}}access_tile_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0, d2 >= 0, -d2 + 31 >= 0)>} : memref<2x16x32xf32> -> !ktdp.access_tile<1x16x32xindex>
// CHECK: %[[W:.*]] = ktdp.load %t : <1x16x32xindex> -> tensor<1x16x32xf32>
// CHECK: %[[L:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1], [2]] : tensor<1x16x32xf32> into tensor<16x32xf32>
// CHECK: %d = tensor.extract_slice %[[L]][0, %[[R]]] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
// CHECK: %e = math.exp %d : tensor<16x16xf32>
// CHECK: %[[R2:.*]] = arith.remsi %j, %{{.*}} : index
// CHECK: %[[Q2:.*]] = arith.divsi %j, %{{.*}} : index
// CHECK: %u = ktdp.construct_access_tile %o[%[[Q2]], %c0, %[[R2]]] {{.*}}access_tile_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0, d2 >= 0, -d2 + 15 >= 0)>} : memref<2x16x32xf32> -> !ktdp.access_tile<1x16x16xindex>
// CHECK: %[[P:.*]] = tensor.expand_shape %e {{\[}}[0, 1], [2]] output_shape [1, 16, 16] : tensor<16x16xf32> into tensor<1x16x16xf32>
// CHECK: ktdp.store %[[P]], %u : tensor<1x16x16xf32>, <1x16x16xindex>
#s = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#t = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @half_stick(%x: index, %out: index, %i: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %j = arith.muli %i, %c16 : index
  %v = ktdp.construct_memory_view %x, sizes: [16, 64], strides: [64, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<16x64xf32>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<16x64xf32>
  %o = ktdp.construct_memory_view %out, sizes: [16, 64], strides: [64, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<16x64xf32>
  spyre.tensor_layout %o {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<16x64xf32>
  %t = ktdp.construct_access_tile %v[%c0, %j] {access_tile_set = #t, access_tile_order = #id} : memref<16x64xf32> -> !ktdp.access_tile<16x16xindex>
  %d = ktdp.load %t : !ktdp.access_tile<16x16xindex> -> tensor<16x16xf32>
  %e = math.exp %d : tensor<16x16xf32>
  %u = ktdp.construct_access_tile %o[%c0, %j] {access_tile_set = #t, access_tile_order = #id} : memref<16x64xf32> -> !ktdp.access_tile<16x16xindex>
  ktdp.store %e, %u : tensor<16x16xf32>, !ktdp.access_tile<16x16xindex>
  return
}

// -----

// Columns 20..43: from offset 20 of stick 0 to offset 11 of stick 1. The store writes
// both sticks masked to 20 <= 32 * d0 + d2 <= 43; the rest of them is not written.
// CHECK-LABEL: func.func @two_sticks
// CHECK: %t = ktdp.construct_access_tile %v[%{{.*}}, %c0, %{{.*}}] {{.*}}access_tile_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 31 >= 0)>} : memref<2x4x32xf32> -> !ktdp.access_tile<2x4x32xindex>
// CHECK: %[[W:.*]] = ktdp.load %t : <2x4x32xindex> -> tensor<2x4x32xf32>
// CHECK: %[[L:.*]] = spyre.relayout %[[W]] {{.*}} : tensor<2x4x32xf32> -> tensor<4x64xf32>
// CHECK: %d = tensor.extract_slice %[[L]][0, 20] [4, 24] [1, 1] : tensor<4x64xf32> to tensor<4x24xf32>
// CHECK: %u = ktdp.construct_access_tile %o[%{{.*}}, %c0, %{{.*}}] {{.*}}access_tile_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 31 >= 0, d0 * 32 + d2 - 20 >= 0, d0 * -32 - d2 + 43 >= 0)>} : memref<2x4x32xf32> -> !ktdp.access_tile<2x4x32xindex>
// CHECK: %[[F:.*]] = arith.constant dense<0.000000e+00> : tensor<4x64xf32>
// CHECK: %[[I:.*]] = tensor.insert_slice %e into %[[F]][0, 20] [4, 24] [1, 1] : tensor<4x24xf32> into tensor<4x64xf32>
// CHECK: %[[P:.*]] = spyre.relayout %[[I]] {{.*}} : tensor<4x64xf32> -> tensor<2x4x32xf32>
// CHECK: ktdp.store %[[P]], %u : tensor<2x4x32xf32>, <2x4x32xindex>
#s = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#t = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 23 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_sticks(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c20 = arith.constant 20 : index
  %v = ktdp.construct_memory_view %x, sizes: [4, 64], strides: [64, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<4x64xf32>
  %o = ktdp.construct_memory_view %out, sizes: [4, 64], strides: [64, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  spyre.tensor_layout %o {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<4x64xf32>
  %t = ktdp.construct_access_tile %v[%c0, %c20] {access_tile_set = #t, access_tile_order = #id} : memref<4x64xf32> -> !ktdp.access_tile<4x24xindex>
  %d = ktdp.load %t : !ktdp.access_tile<4x24xindex> -> tensor<4x24xf32>
  %e = math.exp %d : tensor<4x24xf32>
  %u = ktdp.construct_access_tile %o[%c0, %c20] {access_tile_set = #t, access_tile_order = #id} : memref<4x64xf32> -> !ktdp.access_tile<4x24xindex>
  ktdp.store %e, %u : tensor<4x24xf32>, !ktdp.access_tile<4x24xindex>
  return
}

// -----

// A view whose stick dim is a stick and a half: the device tensor is padded to two
// sticks (the parameter's host layout records the padded shape [4, 64]); the padding
// holds zeros and is never written.
// CHECK-LABEL: func.func @padded_view
// CHECK-SAME: %x: index {spyre.host_layout = {phys_arg = array<i64: 32, 0, 32>, phys_op = array<i64: 1, 0, 2>, phys_src = array<i64: 1, 0, 1>, shape = array<i64: 4, 64>}}
// CHECK: %v = ktdp.construct_memory_view %x, sizes: [2, 4, 32], strides: [128, 32, 1] {coordinate_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 31 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x4x32xf32>
// CHECK: %[[W:.*]] = ktdp.load %t : <2x4x32xindex> -> tensor<2x4x32xf32>
// CHECK: %d = tensor.extract_slice %{{.*}}[0, 0] [4, 48] [1, 1] : tensor<4x64xf32> to tensor<4x48xf32>
// CHECK: %u = ktdp.construct_access_tile {{.*}}d0 * 32 + d2 >= 0, d0 * -32 - d2 + 47 >= 0)>} : memref<2x4x32xf32> -> !ktdp.access_tile<2x4x32xindex>
// CHECK: tensor.insert_slice %e into %{{.*}}[0, 0] [4, 48] [1, 1] : tensor<4x48xf32> into tensor<4x64xf32>
#s = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 47 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @padded_view(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [4, 48], strides: [48, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<4x48xf32>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<4x48xf32>
  %o = ktdp.construct_memory_view %out, sizes: [4, 48], strides: [48, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<4x48xf32>
  spyre.tensor_layout %o {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<4x48xf32>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #s, access_tile_order = #id} : memref<4x48xf32> -> !ktdp.access_tile<4x48xindex>
  %d = ktdp.load %t : !ktdp.access_tile<4x48xindex> -> tensor<4x48xf32>
  %e = math.exp %d : tensor<4x48xf32>
  %u = ktdp.construct_access_tile %o[%c0, %c0] {access_tile_set = #s, access_tile_order = #id} : memref<4x48xf32> -> !ktdp.access_tile<4x48xindex>
  ktdp.store %e, %u : tensor<4x48xf32>, !ktdp.access_tile<4x48xindex>
  return
}

// -----

// 96 columns from a multiple of 96, sticks of 64: the tile starts at offset 0 or 32 of a
// stick (j * 96 mod 64, known at run time) and touches two sticks either way. The load
// reads both and slices at that offset; the store's mask takes it as a symbol (each
// logical tile computes its own offset).
// CHECK-LABEL: func.func @run_time_offset
// CHECK: %[[R:.*]] = arith.remsi %j, %{{.*}} : index
// CHECK: %t = ktdp.construct_access_tile %v[%{{.*}}, %c0, %{{.*}}] {{.*}}-> !ktdp.access_tile<2x4x64xindex>
// CHECK: %d = tensor.extract_slice %{{.*}}[0, %[[R]]] [4, 96] [1, 1] : tensor<4x128xf32> to tensor<4x96xf32>
// CHECK: %[[R2:.*]] = arith.remsi %j, %{{.*}} : index
// CHECK: %u = ktdp.construct_access_tile %o[%{{.*}}, %c0, %{{.*}}] symbols(%[[R2]]) {{.*}}access_tile_set = affine_set<(d0, d1, d2)[s0] : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 63 >= 0, d0 * 64 + d2 - s0 >= 0, s0 + 95 + d0 * -64 - d2 >= 0)>} : memref<6x4x64xf32> -> !ktdp.access_tile<2x4x64xindex>
// CHECK: tensor.insert_slice %e into %{{.*}}[0, %[[R2]]] [4, 96] [1, 1] : tensor<4x96xf32> into tensor<4x128xf32>
#s = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 383 >= 0)>
#t = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 95 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @run_time_offset(%x: index, %out: index, %i: index) {
  %c0 = arith.constant 0 : index
  %c96 = arith.constant 96 : index
  %j = arith.muli %i, %c96 : index
  %v = ktdp.construct_memory_view %x, sizes: [4, 384], strides: [384, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<4x384xf32>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x384xf32>
  %o = ktdp.construct_memory_view %out, sizes: [4, 384], strides: [384, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<4x384xf32>
  spyre.tensor_layout %o {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x384xf32>
  %t = ktdp.construct_access_tile %v[%c0, %j] {access_tile_set = #t, access_tile_order = #id} : memref<4x384xf32> -> !ktdp.access_tile<4x96xindex>
  %d = ktdp.load %t : !ktdp.access_tile<4x96xindex> -> tensor<4x96xf32>
  %e = math.exp %d : tensor<4x96xf32>
  %u = ktdp.construct_access_tile %o[%c0, %j] {access_tile_set = #t, access_tile_order = #id} : memref<4x384xf32> -> !ktdp.access_tile<4x96xindex>
  ktdp.store %e, %u : tensor<4x96xf32>, !ktdp.access_tile<4x96xindex>
  return
}
