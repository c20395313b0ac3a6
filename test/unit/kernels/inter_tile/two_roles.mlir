// Two partial roles (issue 8: "two partial roles"): a future carrying
// (values, indices), an argmax-style combiner with 2N = 4 block arguments
// yielding N = 2 values, two identities, two results.
// grid [4], one group (tiles 0..3).
//
//   @argmax_reduce(x: f32[4, 16], out_v: f32[4, 16] zeros, out_i: i32[4, 16] zeros)
//     Tile c contributes (x[c], full(c)). The combiner keeps the right-hand pair
//     only when its value is strictly greater, so with the ascending-tile-id fold
//     (docs/inter-tile.md §4) ties keep the lowest tile id, as np.argmax does.
//     Every tile stores both results at row c.
//     out_v[c] == x.max(axis=0)
//     out_i[c] == x.argmax(axis=0).astype(np.int32)          for every c
//     (use inputs without NaN; exact)
//
//   @two_role_broadcast(x: f32[4, 16], out_v: f32[4, 16] zeros, out_i: i32[4, 16] zeros)
//     Tile 0 alone produces (x[0], full(7)); inter_tile_consume delivers both
//     roles to every tile.
//     out_v[c] == x[0];  out_i[c] == 7                        for every c

#tiles  = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#tile0  = affine_set<(i)[g] : (i - 4*g == 0)>
#one    = affine_set<(g) : (g == 0)>
#all    = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#row    = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 15 >= 0)>
#id2    = affine_map<(d0, d1) -> (d0, d1)>

func.func @argmax_reduce(%x: index, %out_v: index, %out_i: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %ovv = ktdp.construct_memory_view %out_v, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %ovi = ktdp.construct_memory_view %out_i, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xi32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
  %val = ktdp.load %xt : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
  %ci = arith.index_cast %c : index to i32
  %idx = tensor.splat %ci : tensor<1x16xi32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x16xf32>, tensor<1x16xi32>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %val, %idx : tensor<1x16xf32>, tensor<1x16xi32>
  }
  %ninf = arith.constant dense<0xFF800000> : tensor<1x16xf32>
  %izero = arith.constant dense<0> : tensor<1x16xi32>
  %rv, %ri = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles,
      identity(%ninf, %izero : tensor<1x16xf32>, tensor<1x16xi32>)
      : <(tensor<1x16xf32>, tensor<1x16xi32>), groups = #one> -> tensor<1x16xf32>, tensor<1x16xi32> {
  ^bb0(%lv: tensor<1x16xf32>, %li: tensor<1x16xi32>, %rv2: tensor<1x16xf32>, %ri2: tensor<1x16xi32>):
    %take = arith.cmpf ogt, %rv2, %lv : tensor<1x16xf32>
    %v = arith.select %take, %rv2, %lv : tensor<1x16xi1>, tensor<1x16xf32>
    %i = arith.select %take, %ri2, %li : tensor<1x16xi1>, tensor<1x16xi32>
    ktdp.yield_reduced %v, %i : tensor<1x16xf32>, tensor<1x16xi32>
  }
  %tv = ktdp.construct_access_tile %ovv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
  ktdp.store %rv, %tv : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
  %ti = ktdp.construct_access_tile %ovi[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xi32> -> !ktdp.access_tile<1x16xindex>
  ktdp.store %ri, %ti : tensor<1x16xi32>, !ktdp.access_tile<1x16xindex>
  return
}

func.func @two_role_broadcast(%x: index, %out_v: index, %out_i: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %ovv = ktdp.construct_memory_view %out_v, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %ovi = ktdp.construct_memory_view %out_i, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xi32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tile0
      -> <(tensor<1x16xf32>, tensor<1x16xi32>), groups = #one> {
  ^bb0(%gid: index):
    %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
    %val = ktdp.load %xt : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
    %seven = arith.constant dense<7> : tensor<1x16xi32>
    ktdp.yield_partial %val, %seven : tensor<1x16xf32>, tensor<1x16xi32>
  }
  %a, %b = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #tiles
      : <(tensor<1x16xf32>, tensor<1x16xi32>), groups = #one> -> tensor<1x16xf32>, tensor<1x16xi32>
  %tv = ktdp.construct_access_tile %ovv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
  ktdp.store %a, %tv : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
  %ti = ktdp.construct_access_tile %ovi[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xi32> -> !ktdp.access_tile<1x16xindex>
  ktdp.store %b, %ti : tensor<1x16xi32>, !ktdp.access_tile<1x16xindex>
  return
}
