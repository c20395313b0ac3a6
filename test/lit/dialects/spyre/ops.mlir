// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// CHECK-LABEL: func.func @stick_major
func.func @stick_major(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [128, 128], strides: [128, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 127 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<128x128xf16>
  // [M, N] stick-on-N, 64 elements a stick: device [N floordiv 64, M, N mod 64].
  // CHECK: spyre.tensor_layout %{{.*}} {phys_arg = array<i64: 64, 0, 64>, phys_op = array<i64: 1, 0, 2>, phys_src = array<i64: 1, 0, 1>} : memref<128x128xf16>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<128x128xf16>
  return
}
