// Access tiles that are not plain row-major boxes.

// Lower triangle (d1 <= d0) of a 4x4 f32 view: the load fills the holes with
// 0; `full` gets the whole loaded 4x4 tile, `tri` is written through the
// triangular tile (its upper triangle keeps what was there).
func.func @triangle(%src: index, %full: index, %tri: index) {
  %c0 = arith.constant 0 : index
  %src_view = ktdp.construct_memory_view %src, sizes: [4, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x4xf32>
  %lower = ktdp.construct_access_tile %src_view[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0, d0 - d1 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x4xf32> -> !ktdp.access_tile<4x4xindex>
  %data = ktdp.load %lower : !ktdp.access_tile<4x4xindex> -> tensor<4x4xf32>
  %full_view = ktdp.construct_memory_view %full, sizes: [4, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x4xf32>
  %box = ktdp.construct_access_tile %full_view[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x4xf32> -> !ktdp.access_tile<4x4xindex>
  ktdp.store %data, %box : tensor<4x4xf32>, !ktdp.access_tile<4x4xindex>
  %tri_view = ktdp.construct_memory_view %tri, sizes: [4, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x4xf32>
  %tri_tile = ktdp.construct_access_tile %tri_view[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0, d0 - d1 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x4xf32> -> !ktdp.access_tile<4x4xindex>
  ktdp.store %data, %tri_tile : tensor<4x4xf32>, !ktdp.access_tile<4x4xindex>
  return
}

// A triangle d0 + d1 <= 2, written inside looser 4x4 bounds, anchored at
// row 1: the tile shape comes from the set itself, a 3x3 bounding box (rows
// 1..3 of the 4-row view), holes loading 0.
func.func @triangle_at_edge(%src: index, %dst: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %src_view = ktdp.construct_memory_view %src, sizes: [4, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x4xf32>
  %t = ktdp.construct_access_tile %src_view[%c1, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0, -d0 - d1 + 2 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x4xf32> -> !ktdp.access_tile<3x3xindex>
  %data = ktdp.load %t : !ktdp.access_tile<3x3xindex> -> tensor<3x3xf32>
  %dst_view = ktdp.construct_memory_view %dst, sizes: [4, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x4xf32>
  %d = ktdp.construct_access_tile %dst_view[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2 >= 0, d1 >= 0, -d1 + 2 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x4xf32> -> !ktdp.access_tile<3x3xindex>
  ktdp.store %data, %d : tensor<3x3xf32>, !ktdp.access_tile<3x3xindex>
  return
}

// Transposed order: core c loads the 2x4 block at [2c, 4] of an 8x8 view as
// a 4x2 tile (tile[j][i] = v[2c + i][4 + j]) and stores it to rows [4c, 4c+4)
// of an 8x2 output. A 3-cycle order on a 2x3x4 view: tile[k][i][j] = v[i][j][k],
// stored back through the same tile into `back` (a round trip) and as is into `perm`.
func.func @transposed(%src: index, %out: index, %cube: index, %perm: index, %back: index) attributes {grid = [2]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %row = arith.muli %core, %c2 : index
  %src_view = ktdp.construct_memory_view %src, sizes: [8, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  %t = ktdp.construct_access_tile %src_view[%row, %c4] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d1, d0)>} : memref<8x8xf32> -> !ktdp.access_tile<4x2xindex>
  %block = ktdp.load %t : !ktdp.access_tile<4x2xindex> -> tensor<4x2xf32>
  %out_view = ktdp.construct_memory_view %out, sizes: [8, 2], strides: [2, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 1 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x2xf32>
  %out_row = arith.muli %core, %c4 : index
  %o = ktdp.construct_access_tile %out_view[%out_row, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 1 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x2xf32> -> !ktdp.access_tile<4x2xindex>
  ktdp.store %block, %o : tensor<4x2xf32>, !ktdp.access_tile<4x2xindex>

  %cube_view = ktdp.construct_memory_view %cube, sizes: [2, 3, 4], strides: [12, 4, 1] {
    coordinate_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 2 >= 0, d2 >= 0, -d2 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x3x4xf32>
  %ct = ktdp.construct_access_tile %cube_view[%c0, %c0, %c0] {
    access_tile_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 2 >= 0, d2 >= 0, -d2 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1, d2) -> (d2, d0, d1)>} : memref<2x3x4xf32> -> !ktdp.access_tile<4x2x3xindex>
  %c = ktdp.load %ct : !ktdp.access_tile<4x2x3xindex> -> tensor<4x2x3xf32>
  %perm_view = ktdp.construct_memory_view %perm, sizes: [4, 2, 3], strides: [6, 3, 1] {
    coordinate_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 1 >= 0, d2 >= 0, -d2 + 2 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x2x3xf32>
  %pt = ktdp.construct_access_tile %perm_view[%c0, %c0, %c0] {
    access_tile_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 1 >= 0, d2 >= 0, -d2 + 2 >= 0)>,
    access_tile_order = affine_map<(d0, d1, d2) -> (d0, d1, d2)>} : memref<4x2x3xf32> -> !ktdp.access_tile<4x2x3xindex>
  ktdp.store %c, %pt : tensor<4x2x3xf32>, !ktdp.access_tile<4x2x3xindex>
  %back_view = ktdp.construct_memory_view %back, sizes: [2, 3, 4], strides: [12, 4, 1] {
    coordinate_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 2 >= 0, d2 >= 0, -d2 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x3x4xf32>
  %bt = ktdp.construct_access_tile %back_view[%c0, %c0, %c0] {
    access_tile_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 2 >= 0, d2 >= 0, -d2 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1, d2) -> (d2, d0, d1)>} : memref<2x3x4xf32> -> !ktdp.access_tile<4x2x3xindex>
  ktdp.store %c, %bt : tensor<4x2x3xf32>, !ktdp.access_tile<4x2x3xindex>
  return
}

// One logical 8x8 view over two 4x8 partitions at unrelated addresses
// (global rows [0, 4) in %top, [4, 8) in %bottom). `all` reads across both;
// `inside` reads rows 5-6 (one partition); the doubled block is stored back
// across the partition boundary (rows 2-5).
func.func @distributed(%top: index, %bottom: index, %all: index, %inside: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %p0 = ktdp.construct_memory_view %top, sizes: [4, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x8xf32>
  %p1 = ktdp.construct_memory_view %bottom, sizes: [4, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 - 4 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x8xf32>
  %g = ktdp.construct_distributed_memory_view (%p0, %p1 : memref<4x8xf32>, memref<4x8xf32>) : memref<8x8xf32>
  %whole = ktdp.construct_access_tile %g[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<8x8xindex>
  %w = ktdp.load %whole : !ktdp.access_tile<8x8xindex> -> tensor<8x8xf32>
  %all_view = ktdp.construct_memory_view %all, sizes: [8, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  %all_tile = ktdp.construct_access_tile %all_view[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<8x8xindex>
  ktdp.store %w, %all_tile : tensor<8x8xf32>, !ktdp.access_tile<8x8xindex>
  %part = ktdp.construct_access_tile %g[%c5, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<2x8xindex>
  %p = ktdp.load %part : !ktdp.access_tile<2x8xindex> -> tensor<2x8xf32>
  %inside_view = ktdp.construct_memory_view %inside, sizes: [2, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x8xf32>
  %inside_tile = ktdp.construct_access_tile %inside_view[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x8xf32> -> !ktdp.access_tile<2x8xindex>
  ktdp.store %p, %inside_tile : tensor<2x8xf32>, !ktdp.access_tile<2x8xindex>
  %mid = ktdp.construct_access_tile %g[%c2, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<4x8xindex>
  %m = ktdp.load %mid : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf32>
  %m2 = arith.addf %m, %m : tensor<4x8xf32>
  ktdp.store %m2, %mid : tensor<4x8xf32>, !ktdp.access_tile<4x8xindex>
  return
}

// Overlapping partitions are an error (KTDP-SEMANTICS §3 Rec).
func.func @overlapping(%a: index, %b: index) {
  %c0 = arith.constant 0 : index
  %p0 = ktdp.construct_memory_view %a, sizes: [4, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x8xf32>
  %p1 = ktdp.construct_memory_view %b, sizes: [4, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 - 3 >= 0, -d0 + 6 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x8xf32>
  %g = ktdp.construct_distributed_memory_view (%p0, %p1 : memref<4x8xf32>, memref<4x8xf32>) : memref<7x8xf32>
  return
}

// Gather and scatter rows through an index table: core c reads rows idx[c, :]
// of `src` (columns [4c, 4c + 4), a captured core-dependent offset) and
// writes them to rows idx[c, :] of `dst`, doubled.
func.func @indirect(%src: index, %idx: index, %dst: index, %out: index) attributes {grid = [2]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %col = arith.muli %core, %c4 : index
  %src_view = ktdp.construct_memory_view %src, sizes: [16, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<16x8xf32>
  %idx_view = ktdp.construct_memory_view %idx, sizes: [2, 3], strides: [3, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 2 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x3xi32>
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%b, %e)
       %src_view[ind(%idx_view[%core, %b]), (%e + %col)] {
       variables_space_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
       variables_space_order = affine_map<(d0, d1) -> (d0, d1)>}
     : memref<16x8xf32>, memref<2x3xi32> -> !ktdp.access_tile<3x4xindex>
  %rows = ktdp.load %t : !ktdp.access_tile<3x4xindex> -> tensor<3x4xf32>
  %out_view = ktdp.construct_memory_view %out, sizes: [2, 3, 4], strides: [12, 4, 1] {
    coordinate_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 2 >= 0, d2 >= 0, -d2 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x3x4xf32>
  %o = ktdp.construct_access_tile %out_view[%core, %c0, %c0] {
    access_tile_set = affine_set<(d0, d1, d2) : (d0 == 0, d1 >= 0, -d1 + 2 >= 0, d2 >= 0, -d2 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1, d2) -> (d0, d1, d2)>} : memref<2x3x4xf32> -> !ktdp.access_tile<1x3x4xindex>
  %rows3 = tensor.expand_shape %rows [[0, 1], [2]] output_shape [1, 3, 4] : tensor<3x4xf32> into tensor<1x3x4xf32>
  ktdp.store %rows3, %o : tensor<1x3x4xf32>, !ktdp.access_tile<1x3x4xindex>
  %dst_view = ktdp.construct_memory_view %dst, sizes: [16, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<16x8xf32>
  %s = ktdp.construct_indirect_access_tile intermediate_variables(%b, %e)
       %dst_view[ind(%idx_view[%core, %b]), (%e + %col)] {
       variables_space_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
       variables_space_order = affine_map<(d0, d1) -> (d0, d1)>}
     : memref<16x8xf32>, memref<2x3xi32> -> !ktdp.access_tile<3x4xindex>
  %twice = arith.addf %rows, %rows : tensor<3x4xf32>
  ktdp.store %twice, %s : tensor<3x4xf32>, !ktdp.access_tile<3x4xindex>
  return
}

// A launch-time row count: a multiple of 32, at most 128.
func.func @runtime_rows(%M: !ktdp.runtime_arg<index, granularity=32, upperbound=128>, %src: index, %dst: index) {
  %c0 = arith.constant 0 : index
  %m = ktdp.runtime_arg_extract value from %M : !ktdp.runtime_arg<index, granularity=32, upperbound=128> -> index
  %g = ktdp.runtime_arg_extract granularity from %M : !ktdp.runtime_arg<index, granularity=32, upperbound=128> -> index
  %src_view = ktdp.construct_memory_view %src, sizes: [%m, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<?x4xf32>
  %dst_view = ktdp.construct_memory_view %dst, sizes: [%m, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<?x4xf32>
  scf.for %r = %c0 to %m step %g {
    %t = ktdp.construct_access_tile %src_view[%r, %c0] symbols(%g) {
      access_tile_set = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<?x4xf32> -> !ktdp.access_tile<32x4xindex>
    %v = ktdp.load %t : !ktdp.access_tile<32x4xindex> -> tensor<32x4xf32>
    %v2 = arith.mulf %v, %v : tensor<32x4xf32>
    %d = ktdp.construct_access_tile %dst_view[%r, %c0] symbols(%g) {
      access_tile_set = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<?x4xf32> -> !ktdp.access_tile<32x4xindex>
    ktdp.store %v2, %d : tensor<32x4xf32>, !ktdp.access_tile<32x4xindex>
  }
  return
}

// bf16 in memory (bit patterns) and in arithmetic (rounded after every op).
func.func @bf16_square_plus_one(%x: index, %y: index) attributes {grid = [2]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %x_view = ktdp.construct_memory_view %x, sizes: [2, 16], strides: [16, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x16xbf16>
  %y_view = ktdp.construct_memory_view %y, sizes: [2, 16], strides: [16, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x16xbf16>
  %t = ktdp.construct_access_tile %x_view[%core, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 15 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x16xbf16> -> !ktdp.access_tile<1x16xindex>
  %v = ktdp.load %t : !ktdp.access_tile<1x16xindex> -> tensor<1x16xbf16>
  %sq = arith.mulf %v, %v : tensor<1x16xbf16>
  %one = arith.constant dense<1.0> : tensor<1x16xbf16>
  %r = arith.addf %sq, %one : tensor<1x16xbf16>
  %o = ktdp.construct_access_tile %y_view[%core, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 15 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x16xbf16> -> !ktdp.access_tile<1x16xindex>
  ktdp.store %r, %o : tensor<1x16xbf16>, !ktdp.access_tile<1x16xindex>
  return
}
