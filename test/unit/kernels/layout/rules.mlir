// Kernels for spyre-physicalize-layouts, one per propagation rule (issue 9).
// Every marked view uses a stick layout of 64 elements:
//   #stick2: [M, N] -> [N/64, M, 64]   phys_src = [1, 0, 1], phys_op = [1, 0, 2], phys_arg = [64, 0, 64]
//   #stick1: [N]    -> [N/64, 64]      phys_src = [0, 0],    phys_op = [1, 2],    phys_arg = [64, 64]
// Expected results are stated per kernel as NumPy expressions of the logical
// (host) arrays; the test passes the device arrays (spyre_mlir.analysis.layout.to_device).

#x2  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#v1  = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>
#c1  = affine_set<(d0) : (d0 >= 0, -d0 + 31 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// out = x * w[None, :] + c[:, None]     x, out: [32, 128] stick2; w: [128] stick1; c: [32] logical
func.func @broadcast_row_and_column(%x: index, %w: index, %c: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [128], strides: [1] {coordinate_set = #v1, memory_space = #ktdp.memory_space<global>} : memref<128xf32>
  spyre.tensor_layout %wv {phys_src = array<i64: 0, 0>, phys_op = array<i64: 1, 2>, phys_arg = array<i64: 64, 64>} : memref<128xf32>
  %cv = ktdp.construct_memory_view %c, sizes: [32], strides: [1] {coordinate_set = #c1, memory_space = #ktdp.memory_space<global>} : memref<32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  %wt = ktdp.construct_access_tile %wv[%c0] {access_tile_set = #v1, access_tile_order = #id1} : memref<128xf32> -> !ktdp.access_tile<128xindex>
  %ct = ktdp.construct_access_tile %cv[%c0] {access_tile_set = #c1, access_tile_order = #id1} : memref<32xf32> -> !ktdp.access_tile<32xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf32>
  %wd = ktdp.load %wt : !ktdp.access_tile<128xindex> -> tensor<128xf32>
  %cd = ktdp.load %ct : !ktdp.access_tile<32xindex> -> tensor<32xf32>
  %e1 = tensor.empty() : tensor<32x128xf32>
  %wb = linalg.broadcast ins(%wd : tensor<128xf32>) outs(%e1 : tensor<32x128xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<32x128xf32>
  %cb = linalg.broadcast ins(%cd : tensor<32xf32>) outs(%e2 : tensor<32x128xf32>) dimensions = [1]
  %m = arith.mulf %xd, %wb : tensor<32x128xf32>
  %r = arith.addf %m, %cb : tensor<32x128xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  ktdp.store %r, %ot : tensor<32x128xf32>, !ktdp.access_tile<32x128xindex>
  return
}

// row_sum = x.sum(1) (logical [32]); col_max = x.max(0) ([128], stick1)
func.func @reduce_both_axes(%x: index, %row_sum: index, %col_max: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %rv = ktdp.construct_memory_view %row_sum, sizes: [32], strides: [1] {coordinate_set = #c1, memory_space = #ktdp.memory_space<global>} : memref<32xf32>
  %mv = ktdp.construct_memory_view %col_max, sizes: [128], strides: [1] {coordinate_set = #v1, memory_space = #ktdp.memory_space<global>} : memref<128xf32>
  spyre.tensor_layout %mv {phys_src = array<i64: 0, 0>, phys_op = array<i64: 1, 2>, phys_arg = array<i64: 64, 64>} : memref<128xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf32>
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.splat %zero : tensor<32xf32>
  %sum = linalg.reduce { arith.addf } ins(%xd : tensor<32x128xf32>) outs(%s0 : tensor<32xf32>) dimensions = [1]
  %ninf = arith.constant 0xFF800000 : f32
  %m0 = tensor.splat %ninf : tensor<128xf32>
  %max = linalg.reduce { arith.maximumf } ins(%xd : tensor<32x128xf32>) outs(%m0 : tensor<128xf32>) dimensions = [0]
  %rt = ktdp.construct_access_tile %rv[%c0] {access_tile_set = #c1, access_tile_order = #id1} : memref<32xf32> -> !ktdp.access_tile<32xindex>
  ktdp.store %sum, %rt : tensor<32xf32>, !ktdp.access_tile<32xindex>
  %mt = ktdp.construct_access_tile %mv[%c0] {access_tile_set = #v1, access_tile_order = #id1} : memref<128xf32> -> !ktdp.access_tile<128xindex>
  ktdp.store %max, %mt : tensor<128xf32>, !ktdp.access_tile<128xindex>
  return
}

#t2  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#a2  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 127 >= 0)>

// out = x.T     x: [64, 128] stick2; out: [128, 64] stick2 (sticks on another logical dim: a relayout)
func.func @transpose_into_stick_layout(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [64, 128], strides: [128, 1] {coordinate_set = #a2, memory_space = #ktdp.memory_space<global>} : memref<64x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<64x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [128, 64], strides: [64, 1] {coordinate_set = #t2, memory_space = #ktdp.memory_space<global>} : memref<128x64xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<128x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #a2, access_tile_order = #id2} : memref<64x128xf32> -> !ktdp.access_tile<64x128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<64x128xindex> -> tensor<64x128xf32>
  %e = tensor.empty() : tensor<128x64xf32>
  %t = linalg.transpose ins(%xd : tensor<64x128xf32>) outs(%e : tensor<128x64xf32>) permutation = [1, 0]
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #t2, access_tile_order = #id2} : memref<128x64xf32> -> !ktdp.access_tile<128x64xindex>
  ktdp.store %t, %ot : tensor<128x64xf32>, !ktdp.access_tile<128x64xindex>
  return
}

// out = x.T     the same, out logical: the transposed physical tensor goes back to logical
func.func @transpose_into_logical(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [64, 128], strides: [128, 1] {coordinate_set = #a2, memory_space = #ktdp.memory_space<global>} : memref<64x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<64x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [128, 64], strides: [64, 1] {coordinate_set = #t2, memory_space = #ktdp.memory_space<global>} : memref<128x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #a2, access_tile_order = #id2} : memref<64x128xf32> -> !ktdp.access_tile<64x128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<64x128xindex> -> tensor<64x128xf32>
  %e = tensor.empty() : tensor<128x64xf32>
  %t = linalg.transpose ins(%xd : tensor<64x128xf32>) outs(%e : tensor<128x64xf32>) permutation = [1, 0]
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #t2, access_tile_order = #id2} : memref<128x64xf32> -> !ktdp.access_tile<128x64xindex>
  ktdp.store %t, %ot : tensor<128x64xf32>, !ktdp.access_tile<128x64xindex>
  return
}

#m_a = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#m_b = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#m_c = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>

// c = a @ b     a: [32, 128] sticks on K; b: [128, 64] sticks on N; c: [32, 64] sticks on N
func.func @matmul_sticks_agree(%a: index, %b: index, %c: index) {
  %c0 = arith.constant 0 : index
  %av = ktdp.construct_memory_view %a, sizes: [32, 128], strides: [128, 1] {coordinate_set = #m_a, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %bv = ktdp.construct_memory_view %b, sizes: [128, 64], strides: [64, 1] {coordinate_set = #m_b, memory_space = #ktdp.memory_space<global>} : memref<128x64xf32>
  spyre.tensor_layout %bv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<128x64xf32>
  %cv = ktdp.construct_memory_view %c, sizes: [32, 64], strides: [64, 1] {coordinate_set = #m_c, memory_space = #ktdp.memory_space<global>} : memref<32x64xf32>
  spyre.tensor_layout %cv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x64xf32>
  %at = ktdp.construct_access_tile %av[%c0, %c0] {access_tile_set = #m_a, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  %bt = ktdp.construct_access_tile %bv[%c0, %c0] {access_tile_set = #m_b, access_tile_order = #id2} : memref<128x64xf32> -> !ktdp.access_tile<128x64xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf32>
  %bd = ktdp.load %bt : !ktdp.access_tile<128x64xindex> -> tensor<128x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r = linalg.matmul ins(%ad, %bd : tensor<32x128xf32>, tensor<128x64xf32>) outs(%init : tensor<32x64xf32>) -> tensor<32x64xf32>
  %ct = ktdp.construct_access_tile %cv[%c0, %c0] {access_tile_set = #m_c, access_tile_order = #id2} : memref<32x64xf32> -> !ktdp.access_tile<32x64xindex>
  ktdp.store %r, %ct : tensor<32x64xf32>, !ktdp.access_tile<32x64xindex>
  return
}

#row = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>

// out[0:4] = sum over k of x[4k : 4k + 4] (8 blocks of 4 rows), accumulated in an scf.for iter_arg
func.func @loop_carried_physical(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 128], strides: [128, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<4x128xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x128xf32>
  %zero = arith.constant dense<0.0> : tensor<4x128xf32>
  %acc = scf.for %i = %c0 to %c32 step %c4 iter_args(%a = %zero) -> (tensor<4x128xf32>) {
    %xt = ktdp.construct_access_tile %xv[%i, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
    %xd = ktdp.load %xt : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf32>
    %n = arith.addf %a, %xd : tensor<4x128xf32>
    scf.yield %n : tensor<4x128xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x128xf32> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %acc, %ot : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
  return
}

#r1 = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 127 >= 0)>

// softmax of every row of x: [32, 128] stick2 (reductions over the stick axis,
// tensor.extract of a reduced value, tensor.splat, unit-dim reshapes)
// out = exp(x - max) / sum(exp(x - max)) per row
func.func @softmax_rows(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  scf.for %r = %c0 to %c32 step %c1 {
    %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = #r1, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<1x128xindex>
    %row = ktdp.load %xt : !ktdp.access_tile<1x128xindex> -> tensor<1x128xf32>
    %ninf = arith.constant 0xFF800000 : f32
    %m0 = tensor.splat %ninf : tensor<1xf32>
    %max = linalg.reduce { arith.maximumf } ins(%row : tensor<1x128xf32>) outs(%m0 : tensor<1xf32>) dimensions = [1]
    %ms = tensor.extract %max[%c0] : tensor<1xf32>
    %mb = tensor.splat %ms : tensor<1x128xf32>
    %d = arith.subf %row, %mb : tensor<1x128xf32>
    %e = math.exp %d : tensor<1x128xf32>
    %flat = tensor.collapse_shape %e [[0, 1]] : tensor<1x128xf32> into tensor<128xf32>
    %back = tensor.expand_shape %flat [[0, 1]] output_shape [1, 128] : tensor<128xf32> into tensor<1x128xf32>
    %z = arith.constant 0.0 : f32
    %s0 = tensor.splat %z : tensor<1xf32>
    %sum = linalg.reduce { arith.addf } ins(%back : tensor<1x128xf32>) outs(%s0 : tensor<1xf32>) dimensions = [1]
    %sum2 = tensor.expand_shape %sum [[0, 1]] output_shape [1, 1] : tensor<1xf32> into tensor<1x1xf32>
    %e2 = tensor.empty() : tensor<1x128xf32>
    %sb = linalg.broadcast ins(%sum : tensor<1xf32>) outs(%e2 : tensor<1x128xf32>) dimensions = [1]
    %y = arith.divf %back, %sb : tensor<1x128xf32>
    %ot = ktdp.construct_access_tile %ov[%r, %c0] {access_tile_set = #r1, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<1x128xindex>
    ktdp.store %y, %ot : tensor<1x128xf32>, !ktdp.access_tile<1x128xindex>
  }
  return
}

// out = x + y   x: stick2 on N, y: sticks on M ([M, N] -> [M/32, N, 32]): two layouts, one relayout
func.func @pointwise_conflict(%x: index, %y: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %yv {phys_src = array<i64: 0, 1, 0>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<32x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf32>
  %yd = ktdp.load %yt : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf32>
  %s = arith.addf %xd, %yd : tensor<32x128xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  ktdp.store %s, %ot : tensor<32x128xf32>, !ktdp.access_tile<32x128xindex>
  return
}

#one = affine_set<(d0) : (d0 == 0)>

// out[0] = x[1, 65]     x: [32, 128] stick2 (a physical tensor.extract); out: [1] logical
func.func @extract_element(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c65 = arith.constant 65 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [1], strides: [1] {coordinate_set = #one, memory_space = #ktdp.memory_space<global>} : memref<1xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf32>
  %v = tensor.extract %xd[%c1, %c65] : tensor<32x128xf32>
  %s = tensor.splat %v : tensor<1xf32>
  %ot = ktdp.construct_access_tile %ov[%c0] {access_tile_set = #one, access_tile_order = #id1} : memref<1xf32> -> !ktdp.access_tile<1xindex>
  ktdp.store %s, %ot : tensor<1xf32>, !ktdp.access_tile<1xindex>
  return
}

// out = c > 0 ? exp(x) : x * 2   (a uniform branch: scf.if results carry the physical layout)
func.func @if_results(%x: index, %out: index, %c: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf32>
  %pos = arith.cmpi sgt, %c, %c0 : index
  %r = scf.if %pos -> (tensor<32x128xf32>) {
    %e = math.exp %xd : tensor<32x128xf32>
    scf.yield %e : tensor<32x128xf32>
  } else {
    %two = arith.constant dense<2.0> : tensor<32x128xf32>
    %m = arith.mulf %xd, %two : tensor<32x128xf32>
    scf.yield %m : tensor<32x128xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  ktdp.store %r, %ot : tensor<32x128xf32>, !ktdp.access_tile<32x128xindex>
  return
}

// row_sum = (x * x).sum(1), written as a reducing linalg.generic over the stick axis
func.func @generic_row_sum_of_squares(%x: index, %row_sum: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %rv = ktdp.construct_memory_view %row_sum, sizes: [32], strides: [1] {coordinate_set = #c1, memory_space = #ktdp.memory_space<global>} : memref<32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%xd : tensor<32x128xf32>) outs(%init : tensor<32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %n = arith.addf %acc, %sq : f32
    linalg.yield %n : f32
  } -> tensor<32xf32>
  %rt = ktdp.construct_access_tile %rv[%c0] {access_tile_set = #c1, access_tile_order = #id1} : memref<32xf32> -> !ktdp.access_tile<32xindex>
  ktdp.store %s, %rt : tensor<32xf32>, !ktdp.access_tile<32xindex>
  return
}

// out = x * w[None, :]   w: [128] logical (unmarked): the broadcast's carried axis is split
// in the consumer's layout but not in w, so w is converted (128 elements, not 32 x 128)
func.func @broadcast_conflict(%x: index, %w: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [128], strides: [1] {coordinate_set = #v1, memory_space = #ktdp.memory_space<global>} : memref<128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  %wt = ktdp.construct_access_tile %wv[%c0] {access_tile_set = #v1, access_tile_order = #id1} : memref<128xf32> -> !ktdp.access_tile<128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf32>
  %wd = ktdp.load %wt : !ktdp.access_tile<128xindex> -> tensor<128xf32>
  %e = tensor.empty() : tensor<32x128xf32>
  %wb = linalg.broadcast ins(%wd : tensor<128xf32>) outs(%e : tensor<32x128xf32>) dimensions = [0]
  %m = arith.mulf %xd, %wb : tensor<32x128xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  ktdp.store %m, %ot : tensor<32x128xf32>, !ktdp.access_tile<32x128xindex>
  return
}

#w_a = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#w_b = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#w_c = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>

// c = a @ b with sticks of two sizes on K: a [64, 128] sticks of 64 on K,
// b [128, 64] sticks of 32 on K ([K/32, N, 32]); b is converted to agree
func.func @matmul_sticks_disagree(%a: index, %b: index, %c: index) {
  %c0 = arith.constant 0 : index
  %av = ktdp.construct_memory_view %a, sizes: [64, 128], strides: [128, 1] {coordinate_set = #w_a, memory_space = #ktdp.memory_space<global>} : memref<64x128xf32>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<64x128xf32>
  %bv = ktdp.construct_memory_view %b, sizes: [128, 64], strides: [64, 1] {coordinate_set = #w_b, memory_space = #ktdp.memory_space<global>} : memref<128x64xf32>
  spyre.tensor_layout %bv {phys_src = array<i64: 0, 1, 0>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<128x64xf32>
  %cv = ktdp.construct_memory_view %c, sizes: [64, 64], strides: [64, 1] {coordinate_set = #w_c, memory_space = #ktdp.memory_space<global>} : memref<64x64xf32>
  spyre.tensor_layout %cv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<64x64xf32>
  %at = ktdp.construct_access_tile %av[%c0, %c0] {access_tile_set = #w_a, access_tile_order = #id2} : memref<64x128xf32> -> !ktdp.access_tile<64x128xindex>
  %bt = ktdp.construct_access_tile %bv[%c0, %c0] {access_tile_set = #w_b, access_tile_order = #id2} : memref<128x64xf32> -> !ktdp.access_tile<128x64xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<64x128xindex> -> tensor<64x128xf32>
  %bd = ktdp.load %bt : !ktdp.access_tile<128x64xindex> -> tensor<128x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%ad, %bd : tensor<64x128xf32>, tensor<128x64xf32>) outs(%init : tensor<64x64xf32>) -> tensor<64x64xf32>
  %ct = ktdp.construct_access_tile %cv[%c0, %c0] {access_tile_set = #w_c, access_tile_order = #id2} : memref<64x64xf32> -> !ktdp.access_tile<64x64xindex>
  ktdp.store %r, %ct : tensor<64x64xf32>, !ktdp.access_tile<64x64xindex>
  return
}
