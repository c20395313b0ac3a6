// All-reduce over one group (issue 8: "all-reduce over one group").
//
// Semantics pinned here (docs/inter-tile.md §4): every producer's partial is
// folded in ascending tile id, left-associative, rounding in the element type
// at each step; every consumer of the group receives the same value.
//
// Expected results, as NumPy expressions of the inputs (`import functools`):
//
//   @allreduce_one_group(x: f32[4, 64], out: f32[4, 64] zeros)
//     out == np.stack([functools.reduce(np.add, x)] * 4)          # bitwise:
//     i.e. every row of out is ((x[0] + x[1]) + x[2]) + x[3] in float32.
//
//   @allreduce_one_group_linalg(x: f16[4, 64], out: f16[4, 64] zeros)
//     same, in float16: out[c] == functools.reduce(np.add, x) for all c,
//     each step rounded to f16 (NumPy's f16 + f16 rounds per step).
//
//   @allreduce_one_group_old_spelling(x: f16[4, 128], out: f16[128] zeros)
//     The corpus spelling (type before `->`, `tile_future<T, groups = S>`
//     without parentheses, result rank-reduced 1x128 -> 128):
//     out == functools.reduce(np.add, x)    # f16, per-step rounding
//
//   @allreduce_one_group_attr_spelling(x: f16[4, 128], out: f16[128] zeros)
//     The oldest spelling (`groups = S` as an op attribute,
//     `!ktdp.tile_future<T>` without groups): same result as above.

#tiles  = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#groups = affine_set<(g) : (g == 0)>
#row64  = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>
#row128 = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 127 >= 0)>
#id2    = affine_map<(d0, d1) -> (d0, d1)>

func.func @allreduce_one_group(%x: index, %out: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 64], strides: [64, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 64], strides: [64, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row64, access_tile_order = #id2} : memref<4x64xf32> -> !ktdp.access_tile<1x64xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x64xf32>), groups = #groups> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x64xf32>
  }
  %zero = arith.constant dense<0.0> : tensor<1x64xf32>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%zero : tensor<1x64xf32>)
      : <(tensor<1x64xf32>), groups = #groups> -> tensor<1x64xf32> {
  ^bb0(%lhs: tensor<1x64xf32>, %rhs: tensor<1x64xf32>):
    %s = arith.addf %lhs, %rhs : tensor<1x64xf32>
    ktdp.yield_reduced %s : tensor<1x64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row64, access_tile_order = #id2} : memref<4x64xf32> -> !ktdp.access_tile<1x64xindex>
  ktdp.store %r, %ot : tensor<1x64xf32>, !ktdp.access_tile<1x64xindex>
  return
}

// The combiner as the public kernels write it (linalg.add into tensor.empty), in f16.
func.func @allreduce_one_group_linalg(%x: index, %out: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 64], strides: [64, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 64], strides: [64, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row64, access_tile_order = #id2} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> !ktdp.tile_future<(tensor<1x64xf16>), groups = affine_set<(g) : (g == 0)>> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x64xf16>
  }
  %zero = arith.constant 0.0 : f16
  %id_init = tensor.empty() : tensor<1x64xf16>
  %add_id = linalg.fill ins(%zero : f16) outs(%id_init : tensor<1x64xf16>) -> tensor<1x64xf16>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%add_id : tensor<1x64xf16>)
      : !ktdp.tile_future<(tensor<1x64xf16>), groups = affine_set<(g) : (g == 0)>> -> tensor<1x64xf16> {
  ^bb0(%lhs: tensor<1x64xf16>, %rhs: tensor<1x64xf16>):
    %init = tensor.empty() : tensor<1x64xf16>
    %sum = linalg.add ins(%lhs, %rhs : tensor<1x64xf16>, tensor<1x64xf16>) outs(%init : tensor<1x64xf16>) -> tensor<1x64xf16>
    ktdp.yield_reduced %sum : tensor<1x64xf16>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row64, access_tile_order = #id2} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
  ktdp.store %r, %ot : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
  return
}

// Older spelling of the corpus ring_reduce examples: `: T -> !ktdp.tile_future<T, groups = S>`
// and a reduce result with the unit dim dropped (tensor<1x128xf16> -> tensor<128xf16>).
func.func @allreduce_one_group_old_spelling(%x: index, %out: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 128], strides: [128, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row128, access_tile_order = #id2} : memref<4x128xf16> -> !ktdp.access_tile<1x128xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x128xindex> -> tensor<1x128xf16>
  %fut = ktdp.inter_tile_produce
      producer_tiles_per_group = #tiles
      : tensor<1x128xf16> -> !ktdp.tile_future<tensor<1x128xf16>, groups = affine_set<(g) : (g == 0)>>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %partial : tensor<1x128xf16>
  }
  %zero = arith.constant 0.0 : f16
  %id_init = tensor.empty() : tensor<1x128xf16>
  %add_id = linalg.fill ins(%zero : f16) outs(%id_init : tensor<1x128xf16>) -> tensor<1x128xf16>
  %reduced = ktdp.inter_tile_reduce(%fut)
      consumer_tiles_per_group = #tiles,
      identity(%add_id : tensor<1x128xf16>)
      : !ktdp.tile_future<tensor<1x128xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<128xf16>
  {
    ^bb0(%lhs: tensor<1x128xf16>, %rhs: tensor<1x128xf16>):
      %init = tensor.empty() : tensor<1x128xf16>
      %sum = linalg.add ins(%lhs, %rhs : tensor<1x128xf16>, tensor<1x128xf16>) outs(%init : tensor<1x128xf16>) -> tensor<1x128xf16>
      ktdp.yield_reduced %sum : tensor<1x128xf16>
  }
  %is_writer = arith.cmpi eq, %c, %c0 : index
  scf.if %is_writer {
    %ov = ktdp.construct_memory_view %out, sizes: [128], strides: [1] {
      coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>,
      memory_space = #ktdp.memory_space<global>} : memref<128xf16>
    %ot = ktdp.construct_access_tile %ov[%c0] {
      access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>,
      access_tile_order = affine_map<(d0) -> (d0)>} : memref<128xf16> -> !ktdp.access_tile<128xindex>
    ktdp.store %reduced, %ot : tensor<128xf16>, !ktdp.access_tile<128xindex>
  }
  return
}

// Oldest spelling (ktir-cpu examples/latency/ring_reduce_multi_group.mlir, older
// rmsnorm_4core_2x2.mlir): `groups` as an op attribute on both ops, no groups in the type.
func.func @allreduce_one_group_attr_spelling(%x: index, %out: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 128], strides: [128, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row128, access_tile_order = #id2} : memref<4x128xf16> -> !ktdp.access_tile<1x128xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x128xindex> -> tensor<1x128xf16>
  %fut = ktdp.inter_tile_produce
      producer_tiles_per_group = #tiles,
      groups                   = #groups
      : tensor<1x128xf16> -> !ktdp.tile_future<tensor<1x128xf16>>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %partial : tensor<1x128xf16>
  }
  %zero = arith.constant 0.0 : f16
  %id_init = tensor.empty() : tensor<1x128xf16>
  %add_id = linalg.fill ins(%zero : f16) outs(%id_init : tensor<1x128xf16>) -> tensor<1x128xf16>
  %reduced = ktdp.inter_tile_reduce(%fut)
      consumer_tiles_per_group = #tiles,
      groups                   = #groups,
      identity(%add_id : tensor<1x128xf16>)
      : !ktdp.tile_future<tensor<1x128xf16>> -> tensor<128xf16>
  {
    ^bb0(%lhs: tensor<1x128xf16>, %rhs: tensor<1x128xf16>):
      %init = tensor.empty() : tensor<1x128xf16>
      %sum = linalg.add ins(%lhs, %rhs : tensor<1x128xf16>, tensor<1x128xf16>) outs(%init : tensor<1x128xf16>) -> tensor<1x128xf16>
      ktdp.yield_reduced %sum : tensor<1x128xf16>
  }
  %is_writer = arith.cmpi eq, %c, %c0 : index
  scf.if %is_writer {
    %ov = ktdp.construct_memory_view %out, sizes: [128], strides: [1] {
      coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>,
      memory_space = #ktdp.memory_space<global>} : memref<128xf16>
    %ot = ktdp.construct_access_tile %ov[%c0] {
      access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>,
      access_tile_order = affine_map<(d0) -> (d0)>} : memref<128xf16> -> !ktdp.access_tile<128xindex>
    ktdp.store %reduced, %ot : tensor<128xf16>, !ktdp.access_tile<128xindex>
  }
  return
}
