// An RMSNorm whose hidden dimension is split over two tiles, on grid [2, 2],
// written for linear tile ids with grid dim 0 varying fastest (the default,
// spyre_mlir.analysis.grid; KTDP-SEMANTICS §1): tile (col, row) has linear id
// pid = row * 2 + col. Same structure as ktir-cpu's rmsnorm_4core_2x2.mlir,
// our own kernel and sizes.
//
//   @rmsnorm_rowgroups(x: f32[8, 16], w: f32[16], y: f32[8, 16], p: f32[16], eps: f32)
//     Tile (col, row) owns rows 4*row .. 4*row+3 and columns 8*col .. 8*col+7.
//     It folds its sum of squares per row (partial, 4 values), writes it at
//     p[4*pid .. 4*pid+3] (pid: a single-result ktdp.get_compute_tile_id, the
//     linear id), all-reduces it over its row group {2g, 2g+1} (g = row: the
//     two tiles that share rows), and stores
//       y[r, c] = x[r, c] * rsqrt(sum(x[r, :]**2) / 16 + eps) * w[c]
//   Under row-major ids (the option) pid = col * 2 + row: the groups pair the
//   two row blocks of one column half instead, and p is laid out differently.

#pairs = affine_set<(i)[g] : (i - 2*g >= 0, -i + 2*g + 1 >= 0)>
#two   = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#x_all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#v16   = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>
#blk   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#w_blk = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>
#p_blk = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>
#id1   = affine_map<(d0) -> (d0)>
#id2   = affine_map<(d0, d1) -> (d0, d1)>

func.func @rmsnorm_rowgroups(%x: index, %w: index, %y: index, %p: index, %eps: f32) attributes {grid = [2, 2]} {
  %col, %row = ktdp.get_compute_tile_id : index, index
  %pid = ktdp.get_compute_tile_id : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %r0 = arith.muli %row, %c4 : index
  %k0 = arith.muli %col, %c8 : index
  %p0 = arith.muli %pid, %c4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 16], strides: [16, 1] {coordinate_set = #x_all, memory_space = #ktdp.memory_space<global>} : memref<8x16xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 16], strides: [16, 1] {coordinate_set = #x_all, memory_space = #ktdp.memory_space<global>} : memref<8x16xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [16], strides: [1] {coordinate_set = #v16, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %pv = ktdp.construct_memory_view %p, sizes: [16], strides: [1] {coordinate_set = #v16, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %xt = ktdp.construct_access_tile %xv[%r0, %k0] {access_tile_set = #blk, access_tile_order = #id2} : memref<8x16xf32> -> !ktdp.access_tile<4x8xindex>
  %xs = ktdp.load %xt : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf32>
  %sq = arith.mulf %xs, %xs : tensor<4x8xf32>
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %partial = linalg.reduce { arith.addf } ins(%sq : tensor<4x8xf32>) outs(%zero : tensor<4xf32>) dimensions = [1]
  %pt = ktdp.construct_access_tile %pv[%p0] {access_tile_set = #p_blk, access_tile_order = #id1} : memref<16xf32> -> !ktdp.access_tile<4xindex>
  ktdp.store %partial, %pt : tensor<4xf32>, !ktdp.access_tile<4xindex>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #pairs -> <(tensor<4xf32>), groups = #two> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<4xf32>
  }
  %full = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #pairs, identity(%zero : tensor<4xf32>)
      : <(tensor<4xf32>), groups = #two> -> tensor<4xf32> {
  ^bb0(%lhs: tensor<4xf32>, %rhs: tensor<4xf32>):
    %s = arith.addf %lhs, %rhs : tensor<4xf32>
    ktdp.yield_reduced %s : tensor<4xf32>
  }
  %n = arith.constant dense<16.0> : tensor<4xf32>
  %mean = arith.divf %full, %n : tensor<4xf32>
  %e = tensor.splat %eps : tensor<4xf32>
  %ms = arith.addf %mean, %e : tensor<4xf32>
  %rstd = math.rsqrt %ms : tensor<4xf32>
  %empty = tensor.empty() : tensor<4x8xf32>
  %rb = linalg.broadcast ins(%rstd : tensor<4xf32>) outs(%empty : tensor<4x8xf32>) dimensions = [1]
  %wt = ktdp.construct_access_tile %wv[%k0] {access_tile_set = #w_blk, access_tile_order = #id1} : memref<16xf32> -> !ktdp.access_tile<8xindex>
  %ws = ktdp.load %wt : !ktdp.access_tile<8xindex> -> tensor<8xf32>
  %wb = linalg.broadcast ins(%ws : tensor<8xf32>) outs(%empty : tensor<4x8xf32>) dimensions = [0]
  %xn = arith.mulf %xs, %rb : tensor<4x8xf32>
  %ys = arith.mulf %xn, %wb : tensor<4x8xf32>
  %yt = ktdp.construct_access_tile %yv[%r0, %k0] {access_tile_set = #blk, access_tile_order = #id2} : memref<8x16xf32> -> !ktdp.access_tile<4x8xindex>
  ktdp.store %ys, %yt : tensor<4x8xf32>, !ktdp.access_tile<4x8xindex>
  return
}
