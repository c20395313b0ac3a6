// RUN: %spyre-opt %s -p ktdp-normalize-memory-space --verify-diagnostics | %FileCheck %s

// CHECK-LABEL: func.func @spellings
func.func @spellings(%a: index) {
  // CHECK: memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %h = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.spyre_memory_space<HBM>} : memref<8xf32>
  // CHECK: memory_space = #ktdp.memory_space<ct_local, ct_id = 3>} : memref<8xf32, #ktdp.memory_space<ct_local, ct_id = 3>>
  %l = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.spyre_memory_space<LX, core = 3>} : memref<8xf32, #ktdp.spyre_memory_space<LX, core = 3>>
  // CHECK: memory_space = #ktdp.memory_space<ct_local>} : memref<8xf32>
  %z = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.spyre_memory_space<L0>} : memref<8xf32>
  // CHECK: memory_space = #ktdp.spyre_memory_space<unspecified>
  // expected-warning @+1 {{memory space 'unspecified' has no #ktdp.memory_space equivalent; left as written}}
  %u = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.spyre_memory_space<unspecified>} : memref<8xf32>
  // CHECK: memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %g = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  return
}
