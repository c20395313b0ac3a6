// torch-spyre's `softmax` example as KTIR: y = softmax(x, dim=-1) over [512, 1024] f16 in
// torch-spyre's default device layout, 32 cores of 16 rows each. ktir-to-bundle writes their six
// SuperDSCs (identity HBM->LX, max, sub, exp, sum, realdiv) and their bundle.mlir
// (test_superdsc_bundle.py).
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @softmax(%x: index, %y: index) attributes {grid = [32, 1]} {
  %core, %unused = ktdp.get_compute_tile_id : index, index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %row = arith.muli %core, %c16 : index
  %xv = ktdp.construct_memory_view %x, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %yv = ktdp.construct_memory_view %y, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %yv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %xt = ktdp.construct_access_tile %xv[%row, %c0] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<16x1024xindex>
  %yt = ktdp.construct_access_tile %yv[%row, %c0] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<16x1024xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<16x1024xindex> -> tensor<16x1024xf16>
  %ninf = arith.constant 0xFC00 : f16
  %minit = tensor.splat %ninf : tensor<16xf16>
  %m = linalg.reduce { arith.maximumf } ins(%xd : tensor<16x1024xf16>) outs(%minit : tensor<16xf16>) dimensions = [1]
  %e0 = tensor.empty() : tensor<16x1024xf16>
  %mb = linalg.broadcast ins(%m : tensor<16xf16>) outs(%e0 : tensor<16x1024xf16>) dimensions = [1]
  %s = arith.subf %xd, %mb : tensor<16x1024xf16>
  %e = math.exp %s : tensor<16x1024xf16>
  %zero = arith.constant 0.0 : f16
  %sinit = tensor.splat %zero : tensor<16xf16>
  %sum = linalg.reduce { arith.addf } ins(%e : tensor<16x1024xf16>) outs(%sinit : tensor<16xf16>) dimensions = [1]
  %e1 = tensor.empty() : tensor<16x1024xf16>
  %sb = linalg.broadcast ins(%sum : tensor<16xf16>) outs(%e1 : tensor<16x1024xf16>) dimensions = [1]
  %r = arith.divf %e, %sb : tensor<16x1024xf16>
  ktdp.store %r, %yt : tensor<16x1024xf16>, !ktdp.access_tile<16x1024xindex>
  return
}
