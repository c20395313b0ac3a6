// Tile ids in the inter-tile sets are *linear* core ids, so on a grid of more
// than one dimension the grouping depends on the interpreter's `grid_order`
// (docs/interpreter.md "Grid order"; docs/inter-tile.md §4.1). This is the
// shape of ktir-cpu's rmsnorm_4core_2x2.mlir: grid [2, 2], groups {2g, 2g+1}.
//
//   @allreduce_grid2d(x: f32[2, 2, 16], out: f32[2, 2, 16] zeros)
//     Tile (a, b) (a along grid dim 0, b along dim 1) contributes x[a, b] and
//     stores what it receives at out[a, b].
//     grid_order = "row-major" (linear id = 2a + b, groups = {(a, 0), (a, 1)}):
//       out[a, b] == x[a, 0] + x[a, 1]
//     grid_order = "col-major" (default, ktir-cpu; linear id = a + 2b, groups = {(0, b), (1, b)}):
//       out[a, b] == x[0, b] + x[1, b]
//     (the public rmsnorm_4core_2x2.mlir and sdpa_pv_ksplit.mlir reach their
//      stated results only with col-major: their comments say so)

#pairs = affine_set<(i)[g] : (i - 2*g >= 0, -i + 2*g + 1 >= 0)>
#two   = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#all   = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 1 >= 0, d2 >= 0, -d2 + 15 >= 0)>
#elem  = affine_set<(d0, d1, d2) : (d0 == 0, d1 == 0, d2 >= 0, -d2 + 15 >= 0)>
#id3   = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

func.func @allreduce_grid2d(%x: index, %out: index) attributes {grid = [2, 2]} {
  %a, %b = ktdp.get_compute_tile_id : index, index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [2, 2, 16], strides: [32, 16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<2x2x16xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [2, 2, 16], strides: [32, 16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<2x2x16xf32>
  %xt = ktdp.construct_access_tile %xv[%a, %b, %c0] {access_tile_set = #elem, access_tile_order = #id3} : memref<2x2x16xf32> -> !ktdp.access_tile<1x1x16xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x1x16xindex> -> tensor<1x1x16xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #pairs
      -> <(tensor<1x1x16xf32>), groups = #two> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x1x16xf32>
  }
  %zero = arith.constant dense<0.0> : tensor<1x1x16xf32>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #pairs, identity(%zero : tensor<1x1x16xf32>)
      : <(tensor<1x1x16xf32>), groups = #two> -> tensor<1x1x16xf32> {
  ^bb0(%lhs: tensor<1x1x16xf32>, %rhs: tensor<1x1x16xf32>):
    %s = arith.addf %lhs, %rhs : tensor<1x1x16xf32>
    ktdp.yield_reduced %s : tensor<1x1x16xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%a, %b, %c0] {access_tile_set = #elem, access_tile_order = #id3} : memref<2x2x16xf32> -> !ktdp.access_tile<1x1x16xindex>
  ktdp.store %r, %ot : tensor<1x1x16xf32>, !ktdp.access_tile<1x1x16xindex>
  return
}
