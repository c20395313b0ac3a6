// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

func.func @lengths(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf16>
  // expected-error @+1 {{phys_src, phys_op and phys_arg must have the same length, got 3, 2 and 3}}
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0>, phys_arg = array<i64: 64, 0, 64>} : memref<8x8xf16>
  return
}

// -----

func.func @empty(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf16>
  // expected-error @+1 {{phys_src, phys_op and phys_arg must be non-empty}}
  spyre.tensor_layout %v {phys_src = array<i64>, phys_op = array<i64>, phys_arg = array<i64>} : memref<8x8xf16>
  return
}

// -----

func.func @bad_op(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf16>
  // expected-error @+1 {{phys_op[1] = 3 is not one of 0 (identity), 1 (floordiv), 2 (mod)}}
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0>, phys_op = array<i64: 1, 3>, phys_arg = array<i64: 64, 0>} : memref<8x8xf16>
  return
}

// -----

func.func @src_range(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf16>
  // expected-error @+1 {{phys_src[0] = 2 is out of range for a rank-2 view}}
  spyre.tensor_layout %v {phys_src = array<i64: 2, 0>, phys_op = array<i64: 0, 0>, phys_arg = array<i64: 0, 0>} : memref<8x8xf16>
  return
}

// -----

func.func @zero_divisor(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf16>
  // expected-error @+1 {{phys_arg[0] = 0 must be positive for floordiv}}
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0>, phys_op = array<i64: 1, 0>, phys_arg = array<i64: 0, 0>} : memref<8x8xf16>
  return
}
