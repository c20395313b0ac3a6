// RUN: %spyre-opt %s -p 'spyre-physicalize-layouts{report-unhandled=true}' --verify-diagnostics | %FileCheck %s

// The measurement mode: an op on a physical chain with no rule is reported
// (a warning per op; the pass records the count), and receives its operand
// converted to logical, so the kernel stays correct.

#s = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @no_rule
// CHECK: %[[D:.*]] = ktdp.load %{{.*}} : <1x1x64xindex> -> tensor<1x1x64xf16>
// CHECK: %[[L:.*]] = tensor.collapse_shape %[[D]] {{\[}}[0], [1, 2]] : tensor<1x1x64xf16> into tensor<1x64xf16>
// CHECK: tensor.extract_slice %[[L]][0, 0] [1, 32] [1, 1] : tensor<1x64xf16> to tensor<1x32xf16>
func.func @no_rule(%x: index) -> tensor<1x32xf16> {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [1, 64], strides: [64, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<1x64xf16>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<1x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #s, access_tile_order = #id} : memref<1x64xf16> -> !ktdp.access_tile<1x64xindex>
  %d = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
  // expected-warning @+1 {{'tensor.extract_slice' has no physicalization rule and receives a value of layout [d1 floordiv 64, d0, d1 mod 64]}}
  %s = tensor.extract_slice %d[0, 0] [1, 32] [1, 1] : tensor<1x64xf16> to tensor<1x32xf16>
  return %s : tensor<1x32xf16>
}
