// RUN: rm -rf %t && %spyre-opt %s --pipeline 'ktir-to-bundle{out-dir=%t format=superdsc}' | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=FILE < %t/bundle.mlir
// RUN: %FileCheck %s --check-prefix=SDSC < %t/sdsc_0.json
// RUN: %FileCheck %s --check-prefix=SDSC1 < %t/sdsc_1.json

// torch-spyre's format (format=superdsc, the default): z = exp(a * b) over [64, 128] f16 in torch-spyre's default
// device layout ([2, 64, 64]), 4 cores split 2 x 2 (rows x column sticks). Two SuperDSCs: mul
// writes LX, exp reads it and writes HBM; each core's start address once at the top, one
// sdsc_execute per SuperDSC for all cores.

// CHECK:      func.func @sdsc_bundle(%arg_0_base_addr: !sdscbundle.input_arg<index>, %arg_1_base_addr: !sdscbundle.input_arg<index>, %arg_2_base_addr: !sdscbundle.input_arg<index>) attributes {spyre.kernel = "mul_exp"} {
// CHECK-NEXT:   %arg_0 = sdscbundle.input_arg_extract value from %arg_0_base_addr : !sdscbundle.input_arg<index> -> index
// CHECK:        %arg_0_core_offset_4096 = arith.constant 4096 : index
// CHECK-NEXT:   %arg_0_core_4096 = arith.addi %arg_0, %arg_0_core_offset_4096 : index
// CHECK-NEXT:   %arg_0_core_offset_8192 = arith.constant 8192 : index
// CHECK:        sdscbundle.sdsc_execute{{"? ?}}(%arg_0, %arg_0_core_4096, %arg_0_core_8192, %arg_0_core_12288, %arg_1, %arg_1_core_4096, %arg_1_core_8192, %arg_1_core_12288) {sdsc_filename = "sdsc_0.json", symbol_ids = [-1, -2, -3, -4, -5, -6, -7, -8]}
// CHECK-NEXT:   sdscbundle.sdsc_execute{{"? ?}}(%arg_2, %arg_2_core_4096, %arg_2_core_8192, %arg_2_core_12288) {sdsc_filename = "sdsc_1.json", symbol_ids = [-9, -10, -11, -12]}
// CHECK-NEXT:   return

// The file upstream MLIR reads: sdscbundle ops generic.
// FILE: %arg_0 = "sdscbundle.input_arg_extract"(%arg_0_base_addr) : (!sdscbundle.input_arg<index>) -> index
// FILE: "sdscbundle.sdsc_execute"(%arg_2,

// SDSC:  "0_mul": {
// SDSC:  "numWkSlicesPerDim_": {
// SDSC-NEXT:   "mb": 2,
// SDSC-NEXT:   "out": 2
// SDSC:  "N_": {
// SDSC-NEXT:    "name_": "n",
// SDSC-NEXT:    "mb_": 64,
// SDSC-NEXT:    "out_": 128
// SDSC:  "name_": "allocate-Tensor2_lx",
// SDSC:  "layoutDimOrder_": [
// SDSC-NEXT:    "mb",
// SDSC-NEXT:    "out"
// SDSC:  "data_": {
// SDSC-NEXT:    "[0, 0, 0]": "0",
// SDSC:  "opFuncName": "mul",

// SDSC1: "1_exp": {
// SDSC1: "name_": "allocate-Tensor0_lx",
// SDSC1: "name_": "allocate-Tensor1_hbm",
// SDSC1: "[0, 0, 0]": "-9",
// SDSC1: "opFuncName": "exp",

#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @mul_exp(%a: index, %b: index, %z: index) attributes {grid = [2, 2]} {
  %m, %o = ktdp.get_compute_tile_id : index, index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %m, %c32 : index
  %col = arith.muli %o, %c64 : index
  %av = ktdp.construct_memory_view %a, sizes: [64, 128], strides: [128, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64x128xf16>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<64x128xf16>
  %bv = ktdp.construct_memory_view %b, sizes: [64, 128], strides: [128, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64x128xf16>
  spyre.tensor_layout %bv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<64x128xf16>
  %zv = ktdp.construct_memory_view %z, sizes: [64, 128], strides: [128, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64x128xf16>
  spyre.tensor_layout %zv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<64x128xf16>
  %at = ktdp.construct_access_tile %av[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<64x128xf16> -> !ktdp.access_tile<32x64xindex>
  %bt = ktdp.construct_access_tile %bv[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<64x128xf16> -> !ktdp.access_tile<32x64xindex>
  %zt = ktdp.construct_access_tile %zv[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<64x128xf16> -> !ktdp.access_tile<32x64xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<32x64xindex> -> tensor<32x64xf16>
  %bd = ktdp.load %bt : !ktdp.access_tile<32x64xindex> -> tensor<32x64xf16>
  %p = arith.mulf %ad, %bd : tensor<32x64xf16>
  %e = math.exp %p : tensor<32x64xf16>
  ktdp.store %e, %zt : tensor<32x64xf16>, !ktdp.access_tile<32x64xindex>
  return
}
