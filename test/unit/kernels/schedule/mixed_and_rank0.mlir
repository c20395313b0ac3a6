// Issue 18 item 9, finding 2: ktir-to-schedule refused the first two with "no
// order of whole groups keeps the program's meaning" (or "their memory accesses
// form a cycle"), located at a compute; the third failed in
// spyre-physicalize-layouts (finding 1). With chain-in-lx=true all lowered.
// Cause: a compute feeding another both directly and through a reshape
// (collapse_shape, or the free expand_shape physicalization inserts for a
// logical operand of a split loop): ktdp-hbm-roundtrip routes one edge through
// HBM scratch and not the other, so one group must wait in its middle for
// another group's round trip. ktdp-hbm-roundtrip now treats shape-only ops as
// part of the edge: the producer's result goes to scratch, every consumer
// loads it back and replays the reshape; the groups stay whole.
//   @rank0_reduce_after_collapse: out = flat(x*x) - sum(x*x)     (x: f32[8, 16], out: f32[128])
//   @mixed_logical_and_stick: out = exp(x) * y / sum(exp(x), 1)[:, None]
//       (x: [8, 128] logical; y, out: [8, 128] stick2)
//   @mixed_broadcast_vector: out = x * w[None, :] + y   (x: [8, 128] logical, w: [128] stick1,
//       y, out: [8, 128] stick2)
// Expected: the NumPy expressions above, on the logical arrays.

#x2  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#f1  = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>
#r2  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#v1  = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @rank0_reduce_after_collapse(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 16], strides: [16, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<8x16xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [128], strides: [1] {coordinate_set = #f1, memory_space = #ktdp.memory_space<global>} : memref<128xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<8x16xf32> -> !ktdp.access_tile<8x16xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x16xindex> -> tensor<8x16xf32>
  %sq = arith.mulf %xd, %xd : tensor<8x16xf32>
  %flat = tensor.collapse_shape %sq [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%flat : tensor<128xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %e2 = tensor.empty() : tensor<128xf32>
  %b = linalg.broadcast ins(%sum : tensor<f32>) outs(%e2 : tensor<128xf32>) dimensions = [0]
  %r = arith.subf %flat, %b : tensor<128xf32>
  %ot = ktdp.construct_access_tile %ov[%c0] {access_tile_set = #f1, access_tile_order = #id1} : memref<128xf32> -> !ktdp.access_tile<128xindex>
  ktdp.store %r, %ot : tensor<128xf32>, !ktdp.access_tile<128xindex>
  return
}

func.func @mixed_logical_and_stick(%x: index, %y: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  spyre.tensor_layout %yv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<8x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<8x128xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %yd = ktdp.load %yt : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %e0 = tensor.empty() : tensor<8x128xf32>
  %m = linalg.exp ins(%xd : tensor<8x128xf32>) outs(%e0 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.splat %zero : tensor<8xf32>
  %sum = linalg.reduce { arith.addf } ins(%m : tensor<8x128xf32>) outs(%s0 : tensor<8xf32>) dimensions = [1]
  %e1 = tensor.empty() : tensor<8x128xf32>
  %b = linalg.broadcast ins(%sum : tensor<8xf32>) outs(%e1 : tensor<8x128xf32>) dimensions = [1]
  %e2 = tensor.empty() : tensor<8x128xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m, %yd, %b : tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>) outs(%e2 : tensor<8x128xf32>) {
  ^bb0(%a: f32, %c: f32, %d: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %q = arith.divf %p, %d : f32
    linalg.yield %q : f32
  } -> tensor<8x128xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  ktdp.store %r, %ot : tensor<8x128xf32>, !ktdp.access_tile<8x128xindex>
  return
}

func.func @mixed_broadcast_vector(%x: index, %w: index, %y: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [128], strides: [1] {coordinate_set = #v1, memory_space = #ktdp.memory_space<global>} : memref<128xf32>
  spyre.tensor_layout %wv {phys_src = array<i64: 0, 0>, phys_op = array<i64: 1, 2>, phys_arg = array<i64: 64, 64>} : memref<128xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  spyre.tensor_layout %yv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<8x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 128], strides: [128, 1] {coordinate_set = #r2, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<8x128xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %wt = ktdp.construct_access_tile %wv[%c0] {access_tile_set = #v1, access_tile_order = #id1} : memref<128xf32> -> !ktdp.access_tile<128xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %wd = ktdp.load %wt : !ktdp.access_tile<128xindex> -> tensor<128xf32>
  %yd = ktdp.load %yt : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %e = tensor.empty() : tensor<8x128xf32>
  %wb = linalg.broadcast ins(%wd : tensor<128xf32>) outs(%e : tensor<8x128xf32>) dimensions = [0]
  %m = arith.mulf %xd, %wb : tensor<8x128xf32>
  %r = arith.addf %m, %yd : tensor<8x128xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #r2, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  ktdp.store %r, %ot : tensor<8x128xf32>, !ktdp.access_tile<8x128xindex>
  return
}
