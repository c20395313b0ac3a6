// ktdp.inter_tile_consume broadcasting one producer's tile to every consumer
// while the other producers of the group send nothing: legal (producer
// coverage, R4, is a rule of inter_tile_reduce only: KTDP-SEMANTICS §8).
// grid [8], groups g = 0, 1 (tiles 4g .. 4g+3); every tile produces its own
// row of x and every tile consumes. `out` starts as zeros.
//
//   @broadcast_leader(x: f32[8, 32], out: f32[8, 32])
//     dep (p)[c, g] : (p - 4g == 0): every tile receives its group's first tile
//     out[c] == x[4 * (c // 4)]
//
//   @broadcast_last(x: f32[8, 32], out: f32[8, 32])
//     one group of all 8 tiles, dep (p)[c] : (p == 7)
//     out[c] == x[7]
//
// All results are exact copies (bitwise).

#groups  = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#one     = affine_set<(g) : (g == 0)>
#tiles   = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#all8    = affine_set<(i)[g] : (i >= 0, -i + 7 >= 0)>
#leader  = affine_set<(p)[c, g] : (p - 4*g == 0)>
#seventh = affine_set<(p)[c] : (p - 7 == 0)>
#x_all   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#row     = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 31 >= 0)>
#id2     = affine_map<(d0, d1) -> (d0, d1)>

func.func @broadcast_leader(%x: index, %out: index) attributes {grid = [8]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #x_all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #x_all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
  %v = ktdp.load %xt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles -> <(tensor<1x32xf32>), groups = #groups> {
  ^bb0(%gid: index):
    ktdp.yield_partial %v : tensor<1x32xf32>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #tiles, producer_dependency_per_consumer = #leader
      : <(tensor<1x32xf32>), groups = #groups> -> tensor<1x32xf32>
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
  ktdp.store %r, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  return
}

func.func @broadcast_last(%x: index, %out: index) attributes {grid = [8]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #x_all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #x_all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
  %v = ktdp.load %xt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all8 -> <(tensor<1x32xf32>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %v : tensor<1x32xf32>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all8, producer_dependency_per_consumer = #seventh
      : <(tensor<1x32xf32>), groups = #one> -> tensor<1x32xf32>
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
  ktdp.store %r, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  return
}
