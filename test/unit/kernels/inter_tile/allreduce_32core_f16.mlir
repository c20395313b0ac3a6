// 32-core all-reduce of a [1, 8192] f16 partial (issue 8, "Measure and report":
// interpreter time of this kernel against NumPy doing the same sums in one call).
// grid [32], one group {0 .. 31}; tile c contributes row c of x; core 0 stores.
//
//   @allreduce_32core_f16(x: f16[32, 8192], out: f16[1, 8192] zeros)
//     Folded in ascending tile id, rounding to f16 after every addition
//     (docs/inter-tile.md §4):
//       expected = functools.reduce(np.add, x)            # f16 + f16 -> f16, per step
//       out[0] == expected                                # bitwise
//     Equivalently np.add.reduce(x, axis=0) on the f16 array (NumPy reduces
//     along axis 0 row by row in f16, checked equal on NumPy 2.x), which is the
//     "same sums in one NumPy call" for the timing ratio.
//     Against the exact sum: np.abs(out[0] - x.astype(np.float64).sum(0)) stays
//     within 31 * 2**-11 * max|partial sum| (31 roundings); compare with the
//     f64 sum only within that tolerance, never bitwise.
//
//   @allreduce_32core_f16_all_store(x: f16[32, 8192], out: f16[32, 8192] zeros)
//     Same, every core stores its copy: out[c] == functools.reduce(np.add, x)
//     for all c (all consumers hold the identical value).

#all32  = affine_set<(i)[g] : (i - 32*g >= 0, -i + 32*g + 31 >= 0)>
#one    = affine_set<(g) : (g == 0)>
#xall   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 8191 >= 0)>
#row    = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 8191 >= 0)>
#id2    = affine_map<(d0, d1) -> (d0, d1)>

func.func @allreduce_32core_f16(%x: index, %out: index) attributes {grid = [32]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 8192], strides: [8192, 1] {coordinate_set = #xall, memory_space = #ktdp.memory_space<global>} : memref<32x8192xf16>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<32x8192xf16> -> !ktdp.access_tile<1x8192xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x8192xindex> -> tensor<1x8192xf16>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all32
      -> <(tensor<1x8192xf16>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x8192xf16>
  }
  %zero = arith.constant 0.0 : f16
  %id_init = tensor.empty() : tensor<1x8192xf16>
  %add_id = linalg.fill ins(%zero : f16) outs(%id_init : tensor<1x8192xf16>) -> tensor<1x8192xf16>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all32, identity(%add_id : tensor<1x8192xf16>)
      : <(tensor<1x8192xf16>), groups = #one> -> tensor<1x8192xf16> {
  ^bb0(%lhs: tensor<1x8192xf16>, %rhs: tensor<1x8192xf16>):
    %init = tensor.empty() : tensor<1x8192xf16>
    %sum = linalg.add ins(%lhs, %rhs : tensor<1x8192xf16>, tensor<1x8192xf16>) outs(%init : tensor<1x8192xf16>) -> tensor<1x8192xf16>
    ktdp.yield_reduced %sum : tensor<1x8192xf16>
  }
  %is_writer = arith.cmpi eq, %c, %c0 : index
  scf.if %is_writer {
    %ov = ktdp.construct_memory_view %out, sizes: [1, 8192], strides: [8192, 1] {
      coordinate_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 8191 >= 0)>,
      memory_space = #ktdp.memory_space<global>} : memref<1x8192xf16>
    %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<1x8192xf16> -> !ktdp.access_tile<1x8192xindex>
    ktdp.store %r, %ot : tensor<1x8192xf16>, !ktdp.access_tile<1x8192xindex>
  }
  return
}

func.func @allreduce_32core_f16_all_store(%x: index, %out: index) attributes {grid = [32]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 8192], strides: [8192, 1] {coordinate_set = #xall, memory_space = #ktdp.memory_space<global>} : memref<32x8192xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [32, 8192], strides: [8192, 1] {coordinate_set = #xall, memory_space = #ktdp.memory_space<global>} : memref<32x8192xf16>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<32x8192xf16> -> !ktdp.access_tile<1x8192xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x8192xindex> -> tensor<1x8192xf16>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all32
      -> <(tensor<1x8192xf16>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x8192xf16>
  }
  %zero = arith.constant dense<0.0> : tensor<1x8192xf16>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all32, identity(%zero : tensor<1x8192xf16>)
      : <(tensor<1x8192xf16>), groups = #one> -> tensor<1x8192xf16> {
  ^bb0(%lhs: tensor<1x8192xf16>, %rhs: tensor<1x8192xf16>):
    %sum = arith.addf %lhs, %rhs : tensor<1x8192xf16>
    ktdp.yield_reduced %sum : tensor<1x8192xf16>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<32x8192xf16> -> !ktdp.access_tile<1x8192xindex>
  ktdp.store %r, %ot : tensor<1x8192xf16>, !ktdp.access_tile<1x8192xindex>
  return
}
