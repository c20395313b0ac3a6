// RUN: %spyre-opt %s -p ktdf-expose-reduction-loops | %FileCheck %s
// RUN: %spyre-opt %s -p ktdf-expose-reduction-loops,ktdf-build-pipelines | %FileCheck %s --check-prefix=PIPE

// A running column sum: the accumulator the loop carries moves to an LX
// buffer (ct_local, after no other LX view: address 0). The init is stored
// before the loop, the body loads and stores the buffer, the result is loaded
// after it.
// CHECK-LABEL: func.func @colsum
// CHECK:         %[[BUF:.*]] = ktdp.construct_memory_view %{{.*}}, sizes: [1, 64], strides: [64, 1] {{.*}}memory_space = #ktdp.memory_space<ct_local>} : memref<1x64xf32>
// CHECK:         %[[T:.*]] = ktdp.construct_access_tile %[[BUF]]
// CHECK-NEXT:    ktdp.store %zero, %[[T]]
// CHECK-NEXT:    scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:      %acc = ktdp.load %[[T]]
// CHECK:           %n = arith.addf %acc, %r : tensor<1x64xf32>
// CHECK-NEXT:      ktdp.store %n, %[[T]]
// CHECK-NEXT:    } {loop_type = #ktdf.loop_type<reduction_loop>}
// CHECK-NEXT:    %s = ktdp.load %[[T]]
// CHECK:         ktdp.store %s, %ot

// Then three pipelines: the init (the constant written to the L1 buffer),
// the body inside the reduction loop (the accumulator from L1 and a row from
// DDR, the sum back to L1), the result from L1 to DDR.
// PIPE-LABEL: func.func @colsum
// PIPE:         ktdf.pipeline {
// PIPE:           ktdf.write_to_fifo %zero, %{{.*}} : tensor<1x64xf32>, <"SFU" -> "L1", 64xf32>
// PIPE:         scf.for %i = %c0 to %c8 step %c1 {
// PIPE:           ktdf.pipeline {
// PIPE-NEXT:        ktdf.private -> (!ktdf.fifo.slot<"L1" -> "SFU", 32xf32>, !ktdf.fifo.slot<"DDR" -> "SFU", 32xf32>, !ktdf.fifo.slot<"SFU" -> "L1", 32xf32>,
// PIPE:           linalg.generic
// PIPE:         } {loop_type = #ktdf.loop_type<reduction_loop>}
// PIPE:         ktdf.pipeline {
// PIPE:           ktdf.private -> (!ktdf.fifo.slot<"L1" -> "SFU", 32xf32>, !ktdf.fifo.slot<"SFU" -> "DDR", 32xf32>,
// PIPE-NOT:     ktdp.load
// PIPE-NOT:     ktdp.store

#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @colsum(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [1, 64], strides: [64, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<1x64xf32>
  %zero = arith.constant dense<0.0> : tensor<1x64xf32>
  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (tensor<1x64xf32>) {
    %t = ktdp.construct_access_tile %xv[%i, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<1x64xindex>
    %r = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
    %n = arith.addf %acc, %r : tensor<1x64xf32>
    scf.yield %n : tensor<1x64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<1x64xf32> -> !ktdp.access_tile<1x64xindex>
  ktdp.store %s, %ot : tensor<1x64xf32>, !ktdp.access_tile<1x64xindex>
  return
}
