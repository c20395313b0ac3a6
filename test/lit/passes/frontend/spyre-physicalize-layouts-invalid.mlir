// RUN: %spyre-opt %s --split-input-file -p spyre-physicalize-layouts --verify-diagnostics

// Every refusal of spyre-physicalize-layouts is a located error, raised before
// anything is rewritten.

#s = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
func.func @not_a_stick_split(%x: index) {
  %v = ktdp.construct_memory_view %x, sizes: [4, 128], strides: [128, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  // expected-error @+1 {{cannot lay out memref<4x128xf16>: d1 appears as inner: each dim must be whole (identity) or split once (floordiv a and mod a)}}
  spyre.tensor_layout %v {phys_src = array<i64: 0, 1>, phys_op = array<i64: 0, 2>, phys_arg = array<i64: 0, 64>} : memref<4x128xf16>
  return
}

// -----

#s = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
func.func @strided_view(%x: index) {
  %v = ktdp.construct_memory_view %x, sizes: [4, 128], strides: [256, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  // expected-error @+1 {{a marked view's elements are placed by its layout; its strides must be the contiguous row-major strides [128, 1] of its sizes, got [256, 1]}}
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x128xf16>
  return
}

// -----

#s = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
func.func @marked_twice(%x: index) {
  %v = ktdp.construct_memory_view %x, sizes: [4, 128], strides: [128, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x128xf16>
  // expected-error @+1 {{the view is marked twice, with [d1 floordiv 64, d0, d1 mod 64] and [d1 floordiv 32, d0, d1 mod 32]}}
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<4x128xf16>
  return
}

// -----

func.func @marker_on_an_argument(%v: memref<4x128xf16>) {
  // expected-error @+1 {{spyre.tensor_layout must mark the result of a ktdp.construct_memory_view}}
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x128xf16>
  return
}

// -----

#s = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#t = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 47 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// A tile covering part of a stick is physicalized (spyre-physicalize-layouts-partial.mlir)
// unless which sticks it touches depends on the run: 48 columns from a multiple of 32
// lie in one stick of 64 or straddle two.
func.func @partial_stick_tile_at_a_run_time_offset(%x: index, %i: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %j = arith.muli %i, %c32 : index
  %v = ktdp.construct_memory_view %x, sizes: [4, 128], strides: [128, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x128xf16>
  // expected-error @+1 {{the tile covers 48 elements of d1 (sticks of 64) from an offset in a stick known only modulo 32: it touches 1 or 2 sticks depending on the run; anchor it at a multiple of 64, or make 48 + its offset in a stick fit the same number of sticks from every multiple of 32}}
  %t = ktdp.construct_access_tile %v[%c0, %j] {access_tile_set = #t, access_tile_order = #id} : memref<4x128xf16> -> !ktdp.access_tile<4x48xindex>
  return
}

// -----

#s = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#tri = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0, d1 - d0 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_a_box(%x: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [4, 128], strides: [128, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x128xf16>
  // expected-error @+1 {{an access tile of a marked view must be a box, got affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0, d1 - d0 >= 0)>}}
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #tri, access_tile_order = #id} : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  return
}

// -----

#s = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#sT = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @permuted_order(%x: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [4, 128], strides: [128, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x128xf16>
  // expected-error @+1 {{an access tile of a marked view must use the identity access_tile_order}}
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #sT, access_tile_order = #tr} : memref<4x128xf16> -> !ktdp.access_tile<128x4xindex>
  return
}

// -----

#s = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @dense_constant(%x: index) -> tensor<1x64xf16> {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [1, 64], strides: [64, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<1x64xf16>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<1x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #s, access_tile_order = #id} : memref<1x64xf16> -> !ktdp.access_tile<1x64xindex>
  %d = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
  %k = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0]]> : tensor<1x64xf16>
  // expected-error @+1 {{'arith.addf' needs operand #1, a dense constant that is not a splat (logical), in layout [d1 floordiv 64, d0, d1 mod 64]: the placement of its elements is not known; write it as a splat, or load it from a marked view}}
  %s = arith.addf %d, %k : tensor<1x64xf16>
  return %s : tensor<1x64xf16>
}

// -----

#s = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @runtime_reshape(%x: index) -> tensor<64xf16> {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [1, 64], strides: [64, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<1x64xf16>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<1x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #s, access_tile_order = #id} : memref<1x64xf16> -> !ktdp.access_tile<1x64xindex>
  %d = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
  %shape = arith.constant dense<[64]> : tensor<1xindex>
  // expected-error @+1 {{'tensor.reshape' takes its shape at run time and receives a value of layout [d1 floordiv 64, d0, d1 mod 64]: the physical shape cannot be derived (reshape it with tensor.expand_shape/collapse_shape)}}
  %r = tensor.reshape %d(%shape) : (tensor<1x64xf16>, tensor<1xindex>) -> tensor<64xf16>
  return %r : tensor<64xf16>
}

// -----

#s = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @no_rule(%x: index) -> tensor<1x32xf16> {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [1, 64], strides: [64, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<1x64xf16>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<1x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #s, access_tile_order = #id} : memref<1x64xf16> -> !ktdp.access_tile<1x64xindex>
  %d = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
  // expected-error @+1 {{'tensor.extract_slice' has no physicalization rule and receives a value of layout [d1 floordiv 64, d0, d1 mod 64] (run with report-unhandled=true to count such ops instead)}}
  %s = tensor.extract_slice %d[0, 0] [1, 32] [1, 1] : tensor<1x64xf16> to tensor<1x32xf16>
  return %s : tensor<1x32xf16>
}

// -----

#s = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>
func.func @view_used_elsewhere(%x: index) {
  %v = ktdp.construct_memory_view %x, sizes: [1, 64], strides: [64, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<1x64xf16>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<1x64xf16>
  // expected-error @+1 {{'ktdp.construct_distributed_memory_view' uses a marked view; only access tiles of it can be physicalized}}
  %d = ktdp.construct_distributed_memory_view (%v : memref<1x64xf16>) {index_map = affine_map<(d0, d1) -> (d0, d1)>} : memref<1x64xf16>
  return
}

// -----
// Unstructured control flow (several blocks) with a marked view: refused,
// located at the marker (a function of several blocks without markers is
// left alone: spyre-physicalize-layouts.mlir).
func.func @blocks(%x: index, %c: i1) {
  %v = ktdp.construct_memory_view %x, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  // expected-error @+1 {{@blocks has 2 blocks: layouts are propagated through structured control flow (scf.for, scf.if) only}}
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x64xf16>
  cf.cond_br %c, ^a, ^a
^a:
  return
}
