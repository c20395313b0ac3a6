// Issue 18 item 9, finding 1: a stick-laid vector broadcast into a consumer
// that stays logical. Before the fix, spyre-physicalize-layouts retyped the
// broadcast's input (the load of the marked vector) to its physical shape and
// left the broadcast and its consumer logical: invalid IR. Now the broadcast
// is rebuilt at the layout its user needs (logical here: the vector is
// converted, a free reshape of whole sticks), or at the user's physical
// layout when another operand is marked.
//   #stick1: [N] -> [N/64, 64]; #stick2: [M, N] -> [N/64, M, 64]
// Expected results are NumPy expressions of the logical arrays.

#r2  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#t2  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#v1  = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// out = x * w[None, :]   w: [128] f32 stick1; x, out: [8, 128] logical; the consumer a linalg.generic
func.func @row_vector_into_generic(%w: index, %x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %wv = ktdp.construct_memory_view %w, sizes: [128], strides: [1] {coordinate_set = #v1, memory_space = #ktdp.memory_space<global>} : memref<128xf32>
  spyre.tensor_layout %wv {phys_src = array<i64: 0, 0>, phys_op = array<i64: 1, 2>, phys_arg = array<i64: 64, 64>} : memref<128xf32>
  %xv = ktdp.construct_memory_view %x, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %wt = ktdp.construct_access_tile %wv[%c0] {access_tile_set = #v1, access_tile_order = #id1} : memref<128xf32> -> !ktdp.access_tile<128xindex>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %wd = ktdp.load %wt : !ktdp.access_tile<128xindex> -> tensor<128xf32>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %e = tensor.empty() : tensor<8x128xf32>
  %wb = linalg.broadcast ins(%wd : tensor<128xf32>) outs(%e : tensor<8x128xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<8x128xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%xd, %wb : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e2 : tensor<8x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  ktdp.store %r, %ot : tensor<8x128xf32>, !ktdp.access_tile<8x128xindex>
  return
}

// out = x + w[None, :]   as above, f16, the consumer an elementwise named op
func.func @row_vector_f16_into_named(%w: index, %x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %wv = ktdp.construct_memory_view %w, sizes: [128], strides: [1] {coordinate_set = #v1, memory_space = #ktdp.memory_space<global>} : memref<128xf16>
  spyre.tensor_layout %wv {phys_src = array<i64: 0, 0>, phys_op = array<i64: 1, 2>, phys_arg = array<i64: 64, 64>} : memref<128xf16>
  %xv = ktdp.construct_memory_view %x, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf16>
  %wt = ktdp.construct_access_tile %wv[%c0] {access_tile_set = #v1, access_tile_order = #id1} : memref<128xf16> -> !ktdp.access_tile<128xindex>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf16> -> !ktdp.access_tile<8x128xindex>
  %wd = ktdp.load %wt : !ktdp.access_tile<128xindex> -> tensor<128xf16>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf16>
  %e = tensor.empty() : tensor<8x128xf16>
  %wb = linalg.broadcast ins(%wd : tensor<128xf16>) outs(%e : tensor<8x128xf16>) dimensions = [0]
  %e2 = tensor.empty() : tensor<8x128xf16>
  %r = linalg.add ins(%xd, %wb : tensor<8x128xf16>, tensor<8x128xf16>) outs(%e2 : tensor<8x128xf16>) -> tensor<8x128xf16>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf16> -> !ktdp.access_tile<8x128xindex>
  ktdp.store %r, %ot : tensor<8x128xf16>, !ktdp.access_tile<8x128xindex>
  return
}

// out = x * w[:, None]   w: [128] f32 stick1 broadcast along the other axis; x, out: [128, 8] logical
func.func @column_vector_into_generic(%w: index, %x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %wv = ktdp.construct_memory_view %w, sizes: [128], strides: [1] {coordinate_set = #v1, memory_space = #ktdp.memory_space<global>} : memref<128xf32>
  spyre.tensor_layout %wv {phys_src = array<i64: 0, 0>, phys_op = array<i64: 1, 2>, phys_arg = array<i64: 64, 64>} : memref<128xf32>
  %xv = ktdp.construct_memory_view %x, sizes: [128, 8], strides: [8, 1] {coordinate_set = #t2, memory_space = #ktdp.memory_space<global>} : memref<128x8xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [128, 8], strides: [8, 1] {coordinate_set = #t2, memory_space = #ktdp.memory_space<global>} : memref<128x8xf32>
  %wt = ktdp.construct_access_tile %wv[%c0] {access_tile_set = #v1, access_tile_order = #id1} : memref<128xf32> -> !ktdp.access_tile<128xindex>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #t2, access_tile_order = #id2} : memref<128x8xf32> -> !ktdp.access_tile<128x8xindex>
  %wd = ktdp.load %wt : !ktdp.access_tile<128xindex> -> tensor<128xf32>
  %xd = ktdp.load %xt : !ktdp.access_tile<128x8xindex> -> tensor<128x8xf32>
  %e = tensor.empty() : tensor<128x8xf32>
  %wb = linalg.broadcast ins(%wd : tensor<128xf32>) outs(%e : tensor<128x8xf32>) dimensions = [1]
  %e2 = tensor.empty() : tensor<128x8xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%xd, %wb : tensor<128x8xf32>, tensor<128x8xf32>) outs(%e2 : tensor<128x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<128x8xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #t2, access_tile_order = #id2} : memref<128x8xf32> -> !ktdp.access_tile<128x8xindex>
  ktdp.store %r, %ot : tensor<128x8xf32>, !ktdp.access_tile<128x8xindex>
  return
}

// out = x * w[None, :]   w: [128] stick1; x, out: [8, 128] stick2: the consumer is physical too
func.func @row_vector_into_marked_generic(%w: index, %x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %wv = ktdp.construct_memory_view %w, sizes: [128], strides: [1] {coordinate_set = #v1, memory_space = #ktdp.memory_space<global>} : memref<128xf32>
  spyre.tensor_layout %wv {phys_src = array<i64: 0, 0>, phys_op = array<i64: 1, 2>, phys_arg = array<i64: 64, 64>} : memref<128xf32>
  %xv = ktdp.construct_memory_view %x, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<8x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<8x128xf32>
  %wt = ktdp.construct_access_tile %wv[%c0] {access_tile_set = #v1, access_tile_order = #id1} : memref<128xf32> -> !ktdp.access_tile<128xindex>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %wd = ktdp.load %wt : !ktdp.access_tile<128xindex> -> tensor<128xf32>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %e = tensor.empty() : tensor<8x128xf32>
  %wb = linalg.broadcast ins(%wd : tensor<128xf32>) outs(%e : tensor<8x128xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<8x128xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%xd, %wb : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e2 : tensor<8x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  ktdp.store %r, %ot : tensor<8x128xf32>, !ktdp.access_tile<8x128xindex>
  return
}

// out = exp(w)[None, :] + 1   a chain of layout-invariant ops over the broadcast (linalg.exp, arith.addf with a splat)
func.func @broadcast_chain_into_logical_store(%w: index, %out: index) {
  %c0 = arith.constant 0 : index
  %wv = ktdp.construct_memory_view %w, sizes: [128], strides: [1] {coordinate_set = #v1, memory_space = #ktdp.memory_space<global>} : memref<128xf32>
  spyre.tensor_layout %wv {phys_src = array<i64: 0, 0>, phys_op = array<i64: 1, 2>, phys_arg = array<i64: 64, 64>} : memref<128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %wt = ktdp.construct_access_tile %wv[%c0] {access_tile_set = #v1, access_tile_order = #id1} : memref<128xf32> -> !ktdp.access_tile<128xindex>
  %wd = ktdp.load %wt : !ktdp.access_tile<128xindex> -> tensor<128xf32>
  %e = tensor.empty() : tensor<8x128xf32>
  %wb = linalg.broadcast ins(%wd : tensor<128xf32>) outs(%e : tensor<8x128xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<8x128xf32>
  %x = linalg.exp ins(%wb : tensor<8x128xf32>) outs(%e2 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %one = arith.constant dense<1.0> : tensor<8x128xf32>
  %r = arith.addf %x, %one : tensor<8x128xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  ktdp.store %r, %ot : tensor<8x128xf32>, !ktdp.access_tile<8x128xindex>
  return
}
