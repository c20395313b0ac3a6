// ktdp.inter_tile_consume: broadcast, and routing with a dependency set
// (issue 8: "consume with a dependency set"). A consumer receives a copy of
// exactly one producer's partial (docs/inter-tile.md §4); no combiner, no
// identity; the result type is the partial type.
// grid [8], groups g = 0, 1 (tiles 4g .. 4g+3). `out` starts as zeros.
//
//   @consume_broadcast(x: f32[2, 32], out: f32[8, 32])
//     producers {4g} (one per group, no dependency set); every tile of the group
//     consumes. The load is inside the produce region and indexed by %gid, so
//     only the producers run it (x has one row per group, 2 rows in all).
//     out[c] == x[c // 4]
//
//   @consume_routing(x: f32[8, 32], out: f32[8, 32])
//     producers {4g, 4g+1}, consumers {4g+2, 4g+3}, dep (p)[c] : (p - c + 2 == 0)
//     Only consumers store (under scf.if), so non-consumers never read the result.
//     out[c] == x[c - 2]   if c % 4 >= 2
//     out[c] == 0          otherwise
//
//   @consume_butterfly(x: f32[8, 32], out: f32[8, 32])
//     every tile produces and consumes; dep (p)[c, g] : (p + c - 8g - 3 == 0)
//     (tile c = 4g + l receives from its mirror 4g + 3 - l)
//     out[c] == x[8 * (c // 4) + 3 - c]
//
//   @consume_multicast(x: f32[8, 32], out: f32[8, 32])
//     producers {4g, 4g+1}, every tile consumes, dep (p)[c, g] : (c - 4g - 2(p - 4g) >= 0, -c + 4g + 2(p - 4g) + 1 >= 0)
//     (a producer may serve several consumers: 4g -> {4g, 4g+1}, 4g+1 -> {4g+2, 4g+3})
//     out[c] == x[4 * (c // 4) + (c % 4) // 2]
//
// All results are exact copies (bitwise).

#groups  = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#first   = affine_set<(i)[g] : (i - 4*g == 0)>
#tiles   = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#lo2     = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 1 >= 0)>
#hi2     = affine_set<(i)[g] : (i - 4*g - 2 >= 0, -i + 4*g + 3 >= 0)>
#minus2  = affine_set<(p)[c] : (p - c + 2 == 0)>
#mirror  = affine_set<(p)[c, g] : (p + c - 8*g - 3 == 0)>
#halves  = affine_set<(p)[c, g] : (c - 4*g - 2*(p - 4*g) >= 0, -c + 4*g + 2*(p - 4*g) + 1 >= 0)>
#out_all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#row     = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 31 >= 0)>
#id2     = affine_map<(d0, d1) -> (d0, d1)>

func.func @consume_broadcast(%x: index, %out: index) attributes {grid = [8]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [2, 32], strides: [32, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 31 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #out_all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first
      -> <(tensor<1x32xf32>), groups = #groups> {
  ^bb0(%gid: index):
    %xt = ktdp.construct_access_tile %xv[%gid, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<2x32xf32> -> !ktdp.access_tile<1x32xindex>
    %v = ktdp.load %xt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
    ktdp.yield_partial %v : tensor<1x32xf32>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #tiles
      : <(tensor<1x32xf32>), groups = #groups> -> tensor<1x32xf32>
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
  ktdp.store %r, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  return
}

func.func @consume_routing(%x: index, %out: index) attributes {grid = [8]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #out_all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #out_all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
  %mine = ktdp.load %xt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #lo2
      -> <(tensor<1x32xf32>), groups = #groups> {
  ^bb0(%gid: index):
    ktdp.yield_partial %mine : tensor<1x32xf32>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #hi2,
      producer_dependency_per_consumer = #minus2
      : <(tensor<1x32xf32>), groups = #groups> -> tensor<1x32xf32>
  %l = arith.remui %c, %c4 : index
  %is_consumer = arith.cmpi uge, %l, %c2 : index
  scf.if %is_consumer {
    %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
    ktdp.store %r, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  }
  return
}

func.func @consume_butterfly(%x: index, %out: index) attributes {grid = [8]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #out_all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #out_all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
  %mine = ktdp.load %xt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x32xf32>), groups = #groups> {
  ^bb0(%gid: index):
    ktdp.yield_partial %mine : tensor<1x32xf32>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #tiles,
      producer_dependency_per_consumer = #mirror
      : <(tensor<1x32xf32>), groups = #groups> -> tensor<1x32xf32>
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
  ktdp.store %r, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  return
}

func.func @consume_multicast(%x: index, %out: index) attributes {grid = [8]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #out_all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #out_all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
  %mine = ktdp.load %xt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #lo2
      -> <(tensor<1x32xf32>), groups = #groups> {
  ^bb0(%gid: index):
    ktdp.yield_partial %mine : tensor<1x32xf32>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #tiles,
      producer_dependency_per_consumer = #halves
      : <(tensor<1x32xf32>), groups = #groups> -> tensor<1x32xf32>
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
  ktdp.store %r, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  return
}
