// torch-spyre's `mm` example as KTIR: c = a @ b, [512, 1024] x [1024, 256] f16 in torch-spyre's
// default device layout, 32 cores split 8 x 4 (rows x column sticks of c), the whole contraction
// per core. ktir-to-bundle writes their batchmatmul SuperDSC and bundle.mlir (test_superdsc_bundle.py).
// Grid order is column-major: core c = (c mod 8, c div 8) = (row slice, column slice).
#a = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#b = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1023 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#c = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#at = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#bt = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1023 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#ct = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @mm(%a: index, %b: index, %c: index) attributes {grid = [8, 4]} {
  %m, %o = ktdp.get_compute_tile_id : index, index
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %m, %c64 : index
  %col = arith.muli %o, %c64 : index
  %av = ktdp.construct_memory_view %a, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #a, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %bv = ktdp.construct_memory_view %b, sizes: [1024, 256], strides: [256, 1] {coordinate_set = #b, memory_space = #ktdp.memory_space<global>} : memref<1024x256xf16>
  spyre.tensor_layout %bv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<1024x256xf16>
  %cv = ktdp.construct_memory_view %c, sizes: [512, 256], strides: [256, 1] {coordinate_set = #c, memory_space = #ktdp.memory_space<global>} : memref<512x256xf16>
  spyre.tensor_layout %cv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x256xf16>
  %att = ktdp.construct_access_tile %av[%row, %c0] {access_tile_set = #at, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<64x1024xindex>
  %btt = ktdp.construct_access_tile %bv[%c0, %col] {access_tile_set = #bt, access_tile_order = #id2} : memref<1024x256xf16> -> !ktdp.access_tile<1024x64xindex>
  %ctt = ktdp.construct_access_tile %cv[%row, %col] {access_tile_set = #ct, access_tile_order = #id2} : memref<512x256xf16> -> !ktdp.access_tile<64x64xindex>
  %ad = ktdp.load %att : !ktdp.access_tile<64x1024xindex> -> tensor<64x1024xf16>
  %bd = ktdp.load %btt : !ktdp.access_tile<1024x64xindex> -> tensor<1024x64xf16>
  %zero = arith.constant 0.0 : f16
  %init = tensor.splat %zero : tensor<64x64xf16>
  %cd = linalg.matmul ins(%ad, %bd : tensor<64x1024xf16>, tensor<1024x64xf16>) outs(%init : tensor<64x64xf16>) -> tensor<64x64xf16>
  ktdp.store %cd, %ctt : tensor<64x64xf16>, !ktdp.access_tile<64x64xindex>
  return
}
