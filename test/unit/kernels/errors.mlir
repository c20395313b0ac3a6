// Kernels that must fail with a located error (test_interpreter_errors.py).

// Core 3 of 4 reads rows [12, 20) of a 16-row view.
func.func @out_of_bounds(%x: index, %y: index) attributes {grid = [4]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %row = arith.muli %core, %c5 : index
  %view = ktdp.construct_memory_view %x, sizes: [16, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<16x4xf32>
  %t = ktdp.construct_access_tile %view[%row, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 4 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<16x4xf32> -> !ktdp.access_tile<5x4xindex>
  %v = ktdp.load %t : !ktdp.access_tile<5x4xindex> -> tensor<5x4xf32>
  %out = ktdp.construct_memory_view %y, sizes: [20, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 19 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<20x4xf32>
  %o = ktdp.construct_access_tile %out[%row, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 4 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<20x4xf32> -> !ktdp.access_tile<5x4xindex>
  ktdp.store %v, %o : tensor<5x4xf32>, !ktdp.access_tile<5x4xindex>
  return
}

// A store one row past the end of a 4-row view.
func.func @store_out_of_bounds(%y: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant dense<1.0> : tensor<4x4xf32>
  %out = ktdp.construct_memory_view %y, sizes: [4, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x4xf32>
  %o = ktdp.construct_access_tile %out[%c1, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x4xf32> -> !ktdp.access_tile<4x4xindex>
  ktdp.store %v, %o : tensor<4x4xf32>, !ktdp.access_tile<4x4xindex>
  return
}

// Reads HBM at a constant address nobody wrote.
func.func @uninitialized() {
  %c0 = arith.constant 0 : index
  %base = arith.constant 4096 : index
  %view = ktdp.construct_memory_view %base, sizes: [8], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf16>
  %t = ktdp.construct_access_tile %view[%c0] {
    access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf16> -> !ktdp.access_tile<8xindex>
  %v = ktdp.load %t : !ktdp.access_tile<8xindex> -> tensor<8xf16>
  return
}

// Writes half of a scratch buffer at a constant address, then reads all of it.
func.func @partly_written() {
  %c0 = arith.constant 0 : index
  %base = arith.constant 4096 : index
  %half = arith.constant dense<2.0> : tensor<4xf16>
  %view = ktdp.construct_memory_view %base, sizes: [8], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf16>
  %w = ktdp.construct_access_tile %view[%c0] {
    access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf16> -> !ktdp.access_tile<4xindex>
  ktdp.store %half, %w : tensor<4xf16>, !ktdp.access_tile<4xindex>
  %t = ktdp.construct_access_tile %view[%c0] {
    access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf16> -> !ktdp.access_tile<8xindex>
  %v = ktdp.load %t : !ktdp.access_tile<8xindex> -> tensor<8xf16>
  %u = ktdp.construct_memory_view %c0, sizes: [8], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf16>
  %ut = ktdp.construct_access_tile %u[%c0] {
    access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf16> -> !ktdp.access_tile<8xindex>
  ktdp.store %v, %ut : tensor<8xf16>, !ktdp.access_tile<8xindex>
  return
}

// An op the interpreter has no implementation for.
func.func @unsupported(%t: tensor<4xf32>) -> tensor<6xf32> {
  %c0 = arith.constant 0.0 : f32
  %p = tensor.pad %t low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %c0 : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}

// An f16 view over an argument the caller passed as f32.
func.func @wrong_dtype(%x: index) {
  %c0 = arith.constant 0 : index
  %view = ktdp.construct_memory_view %x, sizes: [8], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf16>
  return
}

// A view larger than the array passed for it.
func.func @past_the_array(%x: index) {
  %c0 = arith.constant 0 : index
  %view = ktdp.construct_memory_view %x, sizes: [16], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %t = ktdp.construct_access_tile %view[%c0] {
    access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<16xindex>
  %v = ktdp.load %t : !ktdp.access_tile<16xindex> -> tensor<16xf32>
  return
}

// Integer division by zero.
func.func @divide_by_zero(%a: i32, %b: i32) -> i32 {
  %q = arith.divsi %a, %b : i32
  return %q : i32
}

// Live tensors: 2 x 1 MiB f16 at once, more than a 1.5 MiB LX.
func.func @big_tiles(%x: index) {
  %c0 = arith.constant 0 : index
  %view = ktdp.construct_memory_view %x, sizes: [1024, 512], strides: [512, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1023 >= 0, d1 >= 0, -d1 + 511 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<1024x512xf16>
  %t = ktdp.construct_access_tile %view[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1023 >= 0, d1 >= 0, -d1 + 511 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<1024x512xf16> -> !ktdp.access_tile<1024x512xindex>
  %v = ktdp.load %t : !ktdp.access_tile<1024x512xindex> -> tensor<1024x512xf16>
  %w = arith.addf %v, %v : tensor<1024x512xf16>
  ktdp.store %w, %t : tensor<1024x512xf16>, !ktdp.access_tile<1024x512xindex>
  return
}

// A ct_local buffer that does not fit in the core's LX.
func.func @lx_overflow() {
  %c0 = arith.constant 0 : index
  %base = arith.constant 524000 : index
  %v = arith.constant dense<1.0> : tensor<1024xf32>
  %view = ktdp.construct_memory_view %base, sizes: [1024], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 1023 >= 0)>, memory_space = #ktdp.memory_space<ct_local>} : memref<1024xf32>
  %t = ktdp.construct_access_tile %view[%c0] {
    access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 1023 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<1024xf32> -> !ktdp.access_tile<1024xindex>
  ktdp.store %v, %t : tensor<1024xf32>, !ktdp.access_tile<1024xindex>
  return
}
