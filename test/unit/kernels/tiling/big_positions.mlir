// A [1024, 1024] f32 group (12 MiB live: x, y and the result) that exceeds
// LX (2 MiB): ktir-to-bundle with default options slices it automatically
// (8 tiles of 128 rows). z[i, j] = x[i, j] + y[i, j] * i: every row but the
// first tile's came out wrong while linalg.index stayed tile-local (issue 18,
// item 9: 896 of 1024 rows).
#m = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1023 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @big_positions(%x: index, %y: index, %z: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [1024, 1024], strides: [1024, 1] {coordinate_set = #m, memory_space = #ktdp.memory_space<global>} : memref<1024x1024xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [1024, 1024], strides: [1024, 1] {coordinate_set = #m, memory_space = #ktdp.memory_space<global>} : memref<1024x1024xf32>
  %zv = ktdp.construct_memory_view %z, sizes: [1024, 1024], strides: [1024, 1] {coordinate_set = #m, memory_space = #ktdp.memory_space<global>} : memref<1024x1024xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #m, access_tile_order = #id2} : memref<1024x1024xf32> -> !ktdp.access_tile<1024x1024xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #m, access_tile_order = #id2} : memref<1024x1024xf32> -> !ktdp.access_tile<1024x1024xindex>
  %zt = ktdp.construct_access_tile %zv[%c0, %c0] {access_tile_set = #m, access_tile_order = #id2} : memref<1024x1024xf32> -> !ktdp.access_tile<1024x1024xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<1024x1024xindex> -> tensor<1024x1024xf32>
  %b = ktdp.load %yt : !ktdp.access_tile<1024x1024xindex> -> tensor<1024x1024xf32>
  %e = tensor.empty() : tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %w = arith.mulf %v, %f : f32
    %q = arith.addf %u, %w : f32
    linalg.yield %q : f32
  } -> tensor<1024x1024xf32>
  ktdp.store %r, %zt : tensor<1024x1024xf32>, !ktdp.access_tile<1024x1024xindex>
  return
}
