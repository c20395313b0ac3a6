// All-reduce over several groups (issue 8: "over several groups (contiguous
// and strided)"). 16 cores, 4 groups of 4; every core is a producer and a
// consumer of its own group and stores what it received at out[c].
// Each group's partials are folded in ascending tile id (docs/inter-tile.md §4).
//
// Expected results (x: f32[16, 32], out: f32[16, 32] zeros; `import functools`):
//
//   @allreduce_contiguous   groups {4g, 4g+1, 4g+2, 4g+3}, g in 0..3
//     out[c] == functools.reduce(np.add, x[4 * (c // 4) : 4 * (c // 4) + 4])   for c in range(16)
//
//   @allreduce_strided      groups {g, g+4, g+8, g+12}, g in 0..3
//     out[c] == functools.reduce(np.add, x[c % 4 :: 4])                        for c in range(16)
//     (fold order ((x[g] + x[g+4]) + x[g+8]) + x[g+12]: ascending tile id)
//
//   @allreduce_strided_mod  the same strided groups written with `mod`, as
//     ktir-cpu's sdpa_pv_ksplit.mlir writes them:
//     (i)[g] : ((i - g) mod 4 == 0, i - g >= 0, -i + g + 12 >= 0)
//     out == same as @allreduce_strided
//
// All bitwise (f32 throughout, one addition per step).

#contig  = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#strided = affine_set<(i)[g] : (i - g - 4*(i floordiv 4) == 0, i >= 0, -i + 15 >= 0)>
#strmod  = affine_set<(i)[g] : ((i - g) mod 4 == 0, i - g >= 0, -i + g + 12 >= 0)>
#four    = affine_set<(g) : (g >= 0, -g + 3 >= 0)>
#row     = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 31 >= 0)>
#all     = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2     = affine_map<(d0, d1) -> (d0, d1)>

func.func @allreduce_contiguous(%x: index, %out: index) attributes {grid = [16]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [16, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<16x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [16, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<16x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<16x32xf32> -> !ktdp.access_tile<1x32xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #contig
      -> <(tensor<1x32xf32>), groups = #four> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x32xf32>
  }
  %zero = arith.constant dense<0.0> : tensor<1x32xf32>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #contig, identity(%zero : tensor<1x32xf32>)
      : <(tensor<1x32xf32>), groups = #four> -> tensor<1x32xf32> {
  ^bb0(%lhs: tensor<1x32xf32>, %rhs: tensor<1x32xf32>):
    %s = arith.addf %lhs, %rhs : tensor<1x32xf32>
    ktdp.yield_reduced %s : tensor<1x32xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<16x32xf32> -> !ktdp.access_tile<1x32xindex>
  ktdp.store %r, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  return
}

func.func @allreduce_strided(%x: index, %out: index) attributes {grid = [16]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [16, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<16x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [16, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<16x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<16x32xf32> -> !ktdp.access_tile<1x32xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #strided
      -> <(tensor<1x32xf32>), groups = #four> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x32xf32>
  }
  %zero = arith.constant dense<0.0> : tensor<1x32xf32>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #strided, identity(%zero : tensor<1x32xf32>)
      : <(tensor<1x32xf32>), groups = #four> -> tensor<1x32xf32> {
  ^bb0(%lhs: tensor<1x32xf32>, %rhs: tensor<1x32xf32>):
    %s = arith.addf %lhs, %rhs : tensor<1x32xf32>
    ktdp.yield_reduced %s : tensor<1x32xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<16x32xf32> -> !ktdp.access_tile<1x32xindex>
  ktdp.store %r, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  return
}

func.func @allreduce_strided_mod(%x: index, %out: index) attributes {grid = [16]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [16, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<16x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [16, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<16x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<16x32xf32> -> !ktdp.access_tile<1x32xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #strmod
      -> <(tensor<1x32xf32>), groups = #four> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x32xf32>
  }
  %zero = arith.constant dense<0.0> : tensor<1x32xf32>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #strmod, identity(%zero : tensor<1x32xf32>)
      : <(tensor<1x32xf32>), groups = #four> -> tensor<1x32xf32> {
  ^bb0(%lhs: tensor<1x32xf32>, %rhs: tensor<1x32xf32>):
    %s = arith.addf %lhs, %rhs : tensor<1x32xf32>
    ktdp.yield_reduced %s : tensor<1x32xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<16x32xf32> -> !ktdp.access_tile<1x32xindex>
  ktdp.store %r, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  return
}
