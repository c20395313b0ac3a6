// Divergent control flow (issue 8: "a divergent-control-flow case (some
// producer never reaches the delivery op)"). Rule (docs/inter-tile.md §4.5):
// when a delivery op executes, every producer that an arriving consumer depends
// on must have executed the matching produce (same block instance); otherwise it
// is a located error at the delivery op naming the op, the group and the missing
// tiles. Never a hang, never a silent partial fold.
// grid [4], one group {0, 1, 2, 3} unless stated. x: f32[4, 16], out: f32[4, 16] zeros.
//
//   @producer_skips_reduce     the produce/reduce pair is inside `scf.if c < 3`
//     Expected: DiagnosticError at the ktdp.inter_tile_reduce, e.g.
//       "producer tile 3 of group 0 does not reach this ktdp.inter_tile_reduce
//        (divergent control flow): tiles 0, 1, 2 would wait for it forever"
//     out is not written (the run stops at the error).
//
//   @divergent_trip_count      reduce inside `scf.for %k = 0 to c + 1`
//     Iteration 0 has all four tiles; in iteration 1 tile 0 has left the loop.
//     Expected: DiagnosticError at the ktdp.inter_tile_reduce naming group 0 and
//     missing tile 0 (iteration 1 of the enclosing scf.for).
//
//   @consume_producer_missing  routing consume, producers {0, 1}, consumers {2, 3},
//     dep (p)[c] : (p - c + 2 == 0); the pair is inside `scf.if c != 0`.
//     Consumer 2 depends on tile 0, which never produces.
//     Expected: DiagnosticError at the ktdp.inter_tile_consume naming group 0,
//     consumer tile 2 and missing producer tile 0.
//
//   @consumer_absent_is_legal  same routing, but the pair is inside `scf.if c != 3`:
//     the consumer 3 is absent, every producer that an arriving consumer (2)
//     depends on is present. VALID, no error:
//     out[2] == x[0]; every other row of out stays 0.

#tiles  = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#lo2    = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 1 >= 0)>
#hi2    = affine_set<(i)[g] : (i - 4*g - 2 >= 0, -i + 4*g + 3 >= 0)>
#minus2 = affine_set<(p)[c] : (p - c + 2 == 0)>
#one    = affine_set<(g) : (g == 0)>
#all    = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#row    = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 15 >= 0)>
#id2    = affine_map<(d0, d1) -> (d0, d1)>

func.func @producer_skips_reduce(%x: index, %out: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
  %mine = ktdp.load %xt : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
  %enter = arith.cmpi ult, %c, %c3 : index
  scf.if %enter {
    %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
        -> <(tensor<1x16xf32>), groups = #one> {
    ^bb0(%gid: index):
      ktdp.yield_partial %mine : tensor<1x16xf32>
    }
    %zero = arith.constant dense<0.0> : tensor<1x16xf32>
    %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%zero : tensor<1x16xf32>)
        : <(tensor<1x16xf32>), groups = #one> -> tensor<1x16xf32> {
    ^bb0(%lhs: tensor<1x16xf32>, %rhs: tensor<1x16xf32>):
      %s = arith.addf %lhs, %rhs : tensor<1x16xf32>
      ktdp.yield_reduced %s : tensor<1x16xf32>
    }
    %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
    ktdp.store %r, %ot : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
  }
  return
}

func.func @divergent_trip_count(%x: index, %out: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
  %mine = ktdp.load %xt : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
  %trips = arith.addi %c, %c1 : index
  %zero = arith.constant dense<0.0> : tensor<1x16xf32>
  %acc = scf.for %k = %c0 to %trips step %c1 iter_args(%a = %zero) -> (tensor<1x16xf32>) {
    %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
        -> <(tensor<1x16xf32>), groups = #one> {
    ^bb0(%gid: index):
      ktdp.yield_partial %mine : tensor<1x16xf32>
    }
    %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%zero : tensor<1x16xf32>)
        : <(tensor<1x16xf32>), groups = #one> -> tensor<1x16xf32> {
    ^bb0(%lhs: tensor<1x16xf32>, %rhs: tensor<1x16xf32>):
      %s = arith.addf %lhs, %rhs : tensor<1x16xf32>
      ktdp.yield_reduced %s : tensor<1x16xf32>
    }
    %n = arith.addf %a, %r : tensor<1x16xf32>
    scf.yield %n : tensor<1x16xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
  ktdp.store %acc, %ot : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
  return
}

func.func @consume_producer_missing(%x: index, %out: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
  %mine = ktdp.load %xt : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
  %enter = arith.cmpi ne, %c, %c0 : index
  scf.if %enter {
    %f = ktdp.inter_tile_produce producer_tiles_per_group = #lo2
        -> <(tensor<1x16xf32>), groups = #one> {
    ^bb0(%gid: index):
      ktdp.yield_partial %mine : tensor<1x16xf32>
    }
    %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #hi2,
        producer_dependency_per_consumer = #minus2
        : <(tensor<1x16xf32>), groups = #one> -> tensor<1x16xf32>
    %is_consumer = arith.cmpi uge, %c, %c2 : index
    scf.if %is_consumer {
      %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
      ktdp.store %r, %ot : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
    }
  }
  return
}

func.func @consumer_absent_is_legal(%x: index, %out: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x16xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
  %mine = ktdp.load %xt : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
  %enter = arith.cmpi ne, %c, %c3 : index
  scf.if %enter {
    %f = ktdp.inter_tile_produce producer_tiles_per_group = #lo2
        -> <(tensor<1x16xf32>), groups = #one> {
    ^bb0(%gid: index):
      ktdp.yield_partial %mine : tensor<1x16xf32>
    }
    %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #hi2,
        producer_dependency_per_consumer = #minus2
        : <(tensor<1x16xf32>), groups = #one> -> tensor<1x16xf32>
    %is_consumer = arith.cmpi uge, %c, %c2 : index
    scf.if %is_consumer {
      %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x16xf32> -> !ktdp.access_tile<1x16xindex>
      ktdp.store %r, %ot : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
    }
  }
  return
}
