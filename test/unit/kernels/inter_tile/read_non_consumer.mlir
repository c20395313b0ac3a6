// A tile outside consumer_tiles_per_group gets no value from a delivery op;
// reading it is a located error (issue 8: "a read of a non-consumer's result";
// docs/inter-tile.md §4.6). "Reading" = any op that uses the result while
// executing on such a tile; a tile that never uses it is fine.
// grid [4], one group {0, 1, 2, 3}. x: f32[4, 16], out: f32[4, 16] zeros.
// `import functools`
//
//   @reduce_to_one_unguarded   reduce-to-one (consumers {0}), every tile stores the result
//     Expected: DiagnosticError at the ktdp.store (its first use), e.g.
//       "%r has no value on tiles 1, 2, 3: they are not in consumer_tiles_per_group
//        of the ktdp.inter_tile_reduce that defines it"
//     with a note at the ktdp.inter_tile_reduce.
//
//   @reduce_to_one_guarded     same, the store is under `scf.if c == 0`. VALID:
//     out[0] == functools.reduce(np.add, x); out[1:] == 0
//
//   @consume_result_used_by_non_consumer   routing consume (producers {0, 1},
//     consumers {2, 3}); every tile computes r + r before a guarded store.
//     Expected: DiagnosticError at the arith.addf, naming tiles 0 and 1.

#tiles  = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#tile0  = affine_set<(i)[g] : (i - 4*g == 0)>
#lo2    = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 1 >= 0)>
#hi2    = affine_set<(i)[g] : (i - 4*g - 2 >= 0, -i + 4*g + 3 >= 0)>
#minus2 = affine_set<(p)[c] : (p - c + 2 == 0)>
#one    = affine_set<(g) : (g == 0)>
#all    = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#row    = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 15 >= 0)>
#id2    = affine_map<(d0, d1) -> (d0, d1)>

func.func @reduce_to_one_unguarded(%x: index, %out: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
  %mine = ktdp.load %xt : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x16xf32>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %mine : tensor<1x16xf32>
  }
  %zero = arith.constant dense<0.0> : tensor<1x16xf32>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tile0, identity(%zero : tensor<1x16xf32>)
      : <(tensor<1x16xf32>), groups = #one> -> tensor<1x16xf32> {
  ^bb0(%lhs: tensor<1x16xf32>, %rhs: tensor<1x16xf32>):
    %s = arith.addf %lhs, %rhs : tensor<1x16xf32>
    ktdp.yield_reduced %s : tensor<1x16xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
  ktdp.store %r, %ot : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
  return
}

func.func @reduce_to_one_guarded(%x: index, %out: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
  %mine = ktdp.load %xt : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x16xf32>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %mine : tensor<1x16xf32>
  }
  %zero = arith.constant dense<0.0> : tensor<1x16xf32>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tile0, identity(%zero : tensor<1x16xf32>)
      : <(tensor<1x16xf32>), groups = #one> -> tensor<1x16xf32> {
  ^bb0(%lhs: tensor<1x16xf32>, %rhs: tensor<1x16xf32>):
    %s = arith.addf %lhs, %rhs : tensor<1x16xf32>
    ktdp.yield_reduced %s : tensor<1x16xf32>
  }
  %is_writer = arith.cmpi eq, %c, %c0 : index
  scf.if %is_writer {
    %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
    ktdp.store %r, %ot : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
  }
  return
}

func.func @consume_result_used_by_non_consumer(%x: index, %out: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
  %mine = ktdp.load %xt : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #lo2
      -> <(tensor<1x16xf32>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %mine : tensor<1x16xf32>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #hi2,
      producer_dependency_per_consumer = #minus2
      : <(tensor<1x16xf32>), groups = #one> -> tensor<1x16xf32>
  %twice = arith.addf %r, %r : tensor<1x16xf32>
  %is_consumer = arith.cmpi uge, %c, %c2 : index
  scf.if %is_consumer {
    %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
    ktdp.store %twice, %ot : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
  }
  return
}
