// Reduce with `producer_dependency_per_consumer` (issue 8: "a reduce with a
// dependency set"). Consumer c of group g folds only the producers the set
// gives it; the others count as the identity (docs/inter-tile.md §4: the fold
// runs over all producers of the group in ascending tile id, each undeclared
// producer contributing the identity operand at its position).
// grid [8], groups {0..3} and {4..7}; x: f32[8, 64], out: f32[8, 64] zeros.
// `import functools`; g(c) = c // 4.
//
//   @reduce_prefix_scan   dep (p)[c, g] : (p - 4g >= 0, c - p >= 0), i.e. D(c) = {4g .. c}
//     out[c] == functools.reduce(np.add, x[4 * (c // 4) : c + 1])
//     (bitwise: the undeclared producers add +0.0, which changes nothing
//      unless a partial sum is -0.0; random normal inputs never give one)
//
//   @reduce_self_only     dep (p)[c] : (p - c == 0)   (one-symbol spelling)
//     out[c] == x[c]      (bitwise: x[c] + 0.0 + 0.0 + 0.0 in f32)
//
//   @reduce_dep_nonneutral_identity   same D(c) as the prefix scan, identity 0.5
//     Pins "the others count as the identity" literally (the identity is
//     folded in at each undeclared producer's position, in ascending tile id):
//     half = np.full(64, 0.5, np.float32)
//     out[c] == functools.reduce(np.add, [x[p] if p <= c else half
//                                         for p in range(4 * (c // 4), 4 * (c // 4) + 4)])
//     (a reading that skips undeclared producers would give R(x[4g : c + 1]) instead;
//      see the open question in docs/inter-tile.md §7)

#tiles  = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#groups = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#prefix = affine_set<(p)[c, g] : (p - 4*g >= 0, c - p >= 0)>
#self   = affine_set<(p)[c] : (p - c == 0)>
#all    = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#row    = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>
#id2    = affine_map<(d0, d1) -> (d0, d1)>

func.func @reduce_prefix_scan(%x: index, %out: index) attributes {grid = [8]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<1x64xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x64xf32>), groups = #groups> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x64xf32>
  }
  %zero = arith.constant dense<0.0> : tensor<1x64xf32>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles,
      producer_dependency_per_consumer = #prefix,
      identity(%zero : tensor<1x64xf32>)
      : <(tensor<1x64xf32>), groups = #groups> -> tensor<1x64xf32> {
  ^bb0(%lhs: tensor<1x64xf32>, %rhs: tensor<1x64xf32>):
    %s = arith.addf %lhs, %rhs : tensor<1x64xf32>
    ktdp.yield_reduced %s : tensor<1x64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<1x64xindex>
  ktdp.store %r, %ot : tensor<1x64xf32>, !ktdp.access_tile<1x64xindex>
  return
}

func.func @reduce_self_only(%x: index, %out: index) attributes {grid = [8]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<1x64xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x64xf32>), groups = #groups> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x64xf32>
  }
  %zero = arith.constant dense<0.0> : tensor<1x64xf32>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles,
      producer_dependency_per_consumer = #self,
      identity(%zero : tensor<1x64xf32>)
      : <(tensor<1x64xf32>), groups = #groups> -> tensor<1x64xf32> {
  ^bb0(%lhs: tensor<1x64xf32>, %rhs: tensor<1x64xf32>):
    %s = arith.addf %lhs, %rhs : tensor<1x64xf32>
    ktdp.yield_reduced %s : tensor<1x64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<1x64xindex>
  ktdp.store %r, %ot : tensor<1x64xf32>, !ktdp.access_tile<1x64xindex>
  return
}

func.func @reduce_dep_nonneutral_identity(%x: index, %out: index) attributes {grid = [8]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<1x64xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x64xf32>), groups = #groups> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x64xf32>
  }
  %half = arith.constant dense<0.5> : tensor<1x64xf32>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles,
      producer_dependency_per_consumer = #prefix,
      identity(%half : tensor<1x64xf32>)
      : <(tensor<1x64xf32>), groups = #groups> -> tensor<1x64xf32> {
  ^bb0(%lhs: tensor<1x64xf32>, %rhs: tensor<1x64xf32>):
    %s = arith.addf %lhs, %rhs : tensor<1x64xf32>
    ktdp.yield_reduced %s : tensor<1x64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<1x64xindex>
  ktdp.store %r, %ot : tensor<1x64xf32>, !ktdp.access_tile<1x64xindex>
  return
}
