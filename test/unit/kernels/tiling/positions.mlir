// Kernels whose values depend on their position in the iteration space
// (issue 18, item 9): inside a tile, a structured op iterates over the tile
// only, so spyre-coarse-tile must add the tile's origin to every
// `linalg.index` of a tiled loop (test_coarse_tiling.py: POSITIONS).

#m8x64 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// row_index: out[i, j] = i over [8, 64] (slices=2: tiles of 4 rows).
func.func @row_index(%out: index) {
  %c0 = arith.constant 0 : index
  %ov = ktdp.construct_memory_view %out, sizes: [8, 64], strides: [64, 1] {coordinate_set = #m8x64, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #m8x64, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x64xindex>
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x64xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    linalg.yield %f : f32
  } -> tensor<8x64xf32>
  ktdp.store %r, %ot : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>
  return
}

// both_indices: out[i, j] = x[i, j] + 100 i + j over [8, 64], columns in 2
// (outer) and rows in 4 (inner): both indices move, each with its own loop.
func.func @both_indices(%x: index, %out: index) attributes {spyre.slices = [[2, [1]], [4, [0]]]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = #m8x64, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 64], strides: [64, 1] {coordinate_set = #m8x64, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #m8x64, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x64xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #m8x64, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x64xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c100 = arith.constant 100 : index
    %hi = arith.muli %i, %c100 : index
    %p = arith.addi %hi, %j : index
    %pi = arith.index_cast %p : index to i32
    %pf = arith.sitofp %pi : i32 to f32
    %s = arith.addf %v, %pf : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  ktdp.store %r, %ot : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>
  return
}
