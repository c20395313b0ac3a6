// torch-spyre's `relu` example as KTIR: z = max(a, 0) over [512, 1024] f16 in their default
// device layout, split 2 x 16 as theirs: one sfp relufwd (test_superdsc_bundle.py).
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu(%a: index, %z: index) attributes {grid = [2, 16]} {
  %m, %o = ktdp.get_compute_tile_id : index, index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %row = arith.muli %m, %c256 : index
  %col = arith.muli %o, %c64 : index
  %av = ktdp.construct_memory_view %a, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %zv = ktdp.construct_memory_view %z, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %zv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %at = ktdp.construct_access_tile %av[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<256x64xindex>
  %zt = ktdp.construct_access_tile %zv[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<256x64xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<256x64xindex> -> tensor<256x64xf16>
  %zero = arith.constant dense<0.0> : tensor<256x64xf16>
  %y = arith.maximumf %ad, %zero : tensor<256x64xf16>
  ktdp.store %y, %zt : tensor<256x64xf16>, !ktdp.access_tile<256x64xindex>
  return
}
