// A k-split matrix-vector product on grid [2, 16] (32 tiles), written for
// linear tile ids with grid dim 0 varying fastest (the default,
// spyre_mlir.analysis.grid; KTDP-SEMANTICS §1): tile (nb, kb) has linear id
// kb * 2 + nb. Same structure as ktir-cpu's sdpa_pv_ksplit.mlir (an output
// split over grid dim 0, the contraction over grid dim 1, partials folded by
// inter_tile_reduce in strided groups), our own kernel and sizes.
//
//   @ksplit_matvec(a: f32[1, 256], b: f32[256, 32], c: f32[1, 32])
//     Tile (nb, kb) multiplies a[0, 16*kb : 16*kb+16] by
//     b[16*kb : 16*kb+16, 16*nb : 16*nb+16] (a 1x16 partial); group g holds
//     the tiles of output block g, linear ids {g, g+2, ..., g+30}; the fold is
//     an all-reduce, and the kb == 0 tile of each group stores it:
//       c[0, 16*nb : 16*nb+16] == sum over kb of the partials  (c = a @ b)
//   Under row-major ids (the option) the linear id is nb * 16 + kb: group 0
//   holds the even kb of both output blocks and both kb == 0 tiles store it.

#strided = affine_set<(i)[g] : ((i - g) mod 2 == 0, i >= 0, -i + 31 >= 0)>
#two     = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#a_all   = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 255 >= 0)>
#b_all   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#c_all   = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 31 >= 0)>
#row16   = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 15 >= 0)>
#sq16    = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#id2     = affine_map<(d0, d1) -> (d0, d1)>

func.func @ksplit_matvec(%a: index, %b: index, %c: index) attributes {grid = [2, 16]} {
  %nb, %kb = ktdp.get_compute_tile_id : index, index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %k0 = arith.muli %kb, %c16 : index
  %n0 = arith.muli %nb, %c16 : index
  %av = ktdp.construct_memory_view %a, sizes: [1, 256], strides: [256, 1] {coordinate_set = #a_all, memory_space = #ktdp.memory_space<global>} : memref<1x256xf32>
  %bv = ktdp.construct_memory_view %b, sizes: [256, 32], strides: [32, 1] {coordinate_set = #b_all, memory_space = #ktdp.memory_space<global>} : memref<256x32xf32>
  %cv = ktdp.construct_memory_view %c, sizes: [1, 32], strides: [32, 1] {coordinate_set = #c_all, memory_space = #ktdp.memory_space<global>} : memref<1x32xf32>
  %at = ktdp.construct_access_tile %av[%c0, %k0] {access_tile_set = #row16, access_tile_order = #id2} : memref<1x256xf32> -> !ktdp.access_tile<1x16xindex>
  %bt = ktdp.construct_access_tile %bv[%k0, %n0] {access_tile_set = #sq16, access_tile_order = #id2} : memref<256x32xf32> -> !ktdp.access_tile<16x16xindex>
  %as = ktdp.load %at : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
  %bs = ktdp.load %bt : !ktdp.access_tile<16x16xindex> -> tensor<16x16xf32>
  %zero = arith.constant dense<0.0> : tensor<1x16xf32>
  %partial = linalg.matmul ins(%as, %bs : tensor<1x16xf32>, tensor<16x16xf32>) outs(%zero : tensor<1x16xf32>) -> tensor<1x16xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #strided -> <(tensor<1x16xf32>), groups = #two> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x16xf32>
  }
  %sum = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #strided, identity(%zero : tensor<1x16xf32>)
      : <(tensor<1x16xf32>), groups = #two> -> tensor<1x16xf32> {
  ^bb0(%lhs: tensor<1x16xf32>, %rhs: tensor<1x16xf32>):
    %s = arith.addf %lhs, %rhs : tensor<1x16xf32>
    ktdp.yield_reduced %s : tensor<1x16xf32>
  }
  %first = arith.cmpi eq, %kb, %c0 : index
  scf.if %first {
    %ct = ktdp.construct_access_tile %cv[%c0, %n0] {access_tile_set = #row16, access_tile_order = #id2} : memref<1x32xf32> -> !ktdp.access_tile<1x16xindex>
    ktdp.store %sum, %ct : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
  }
  return
}
