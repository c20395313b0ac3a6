// A single-result ktdp.get_compute_tile_id on a multi-dimensional grid is the
// linear tile id (KTDP-SEMANTICS §1; spyre_mlir.analysis.grid), in the run's grid order.
//
//   @linear_id(out: i32[2, 3])
//     out[a, b] == the linear id of tile (a, b):
//       a + 2 * b under col-major (the default), a * 3 + b under row-major

#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 2 >= 0)>
#one = affine_set<(d0, d1) : (d0 == 0, d1 == 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @linear_id(%out: index) attributes {grid = [2, 3]} {
  %a, %b = ktdp.get_compute_tile_id : index, index
  %pid = ktdp.get_compute_tile_id : index
  %ov = ktdp.construct_memory_view %out, sizes: [2, 3], strides: [3, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<2x3xi32>
  %v = arith.index_cast %pid : index to i32
  %t = tensor.from_elements %v : tensor<1x1xi32>
  %ot = ktdp.construct_access_tile %ov[%a, %b] {access_tile_set = #one, access_tile_order = #id2} : memref<2x3xi32> -> !ktdp.access_tile<1x1xindex>
  ktdp.store %t, %ot : tensor<1x1xi32>, !ktdp.access_tile<1x1xindex>
  return
}
