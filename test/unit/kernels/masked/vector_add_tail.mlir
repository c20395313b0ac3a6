// Out-of-view accesses are masked by default (KTDP-SEMANTICS §4 Rec; Triton
// tensor-descriptor semantics, as ktir-cpu's vector_add_dynamic_ktir.mlir
// asks): the views are n elements long, n not a multiple of the 8-element
// block, so the last tile's block runs past the end.
//
//   @vector_add_tail(x: f32[*], y: f32[*], out: f32[*], sums: f32[grid], n: i32)
//     Tile t adds elements 8t .. 8t+7 of x and y (views of n elements):
//       out[i] == x[i] + y[i] for i < n; out[i] for i >= n is never written
//       sums[t] == sum(x[8t : min(8t + 8, n)])   (elements past n load 0)
//   With strict bounds (spyre-run --strict-bounds, mask_out_of_bounds=False)
//   the tail tile's load of x is a located error.

#upto_n = affine_set<(d0)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0)>
#block  = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>
#grid_s = affine_set<(d0) : (d0 >= 0, -d0 + 2 >= 0)>
#one    = affine_set<(d0) : (d0 == 0)>
#id1    = affine_map<(d0) -> (d0)>

func.func @vector_add_tail(%x: index, %y: index, %out: index, %sums: index, %n_i32: i32) attributes {grid = [3]} {
  %t = ktdp.get_compute_tile_id : index
  %c8 = arith.constant 8 : index
  %o = arith.muli %t, %c8 : index
  %n = arith.index_cast %n_i32 : i32 to index
  %xv = ktdp.construct_memory_view %x, sizes: [%n], strides: [1] {coordinate_set = #upto_n, memory_space = #ktdp.memory_space<global>} : memref<?xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [%n], strides: [1] {coordinate_set = #upto_n, memory_space = #ktdp.memory_space<global>} : memref<?xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [%n], strides: [1] {coordinate_set = #upto_n, memory_space = #ktdp.memory_space<global>} : memref<?xf32>
  %sv = ktdp.construct_memory_view %sums, sizes: [3], strides: [1] {coordinate_set = #grid_s, memory_space = #ktdp.memory_space<global>} : memref<3xf32>
  %xt = ktdp.construct_access_tile %xv[%o] {access_tile_set = #block, access_tile_order = #id1} : memref<?xf32> -> !ktdp.access_tile<8xindex>
  %xs = ktdp.load %xt : !ktdp.access_tile<8xindex> -> tensor<8xf32>
  %yt = ktdp.construct_access_tile %yv[%o] {access_tile_set = #block, access_tile_order = #id1} : memref<?xf32> -> !ktdp.access_tile<8xindex>
  %ys = ktdp.load %yt : !ktdp.access_tile<8xindex> -> tensor<8xf32>
  %r = arith.addf %xs, %ys : tensor<8xf32>
  %ot = ktdp.construct_access_tile %ov[%o] {access_tile_set = #block, access_tile_order = #id1} : memref<?xf32> -> !ktdp.access_tile<8xindex>
  ktdp.store %r, %ot : tensor<8xf32>, !ktdp.access_tile<8xindex>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %s0 = linalg.reduce { arith.addf } ins(%xs : tensor<8xf32>) outs(%zero : tensor<f32>) dimensions = [0]
  %sc = tensor.extract %s0[] : tensor<f32>
  %s = tensor.from_elements %sc : tensor<1xf32>
  %st = ktdp.construct_access_tile %sv[%t] {access_tile_set = #one, access_tile_order = #id1} : memref<3xf32> -> !ktdp.access_tile<1xindex>
  ktdp.store %s, %st : tensor<1xf32>, !ktdp.access_tile<1xindex>
  return
}
