// RUN: rm -rf %t && %spyre-opt --mlir-print-local-scope %s -p 'spyre-physicalize-layouts,ktdp-extract-compute-groups,spyre-coarse-tile,spyre-plan-scratchpad,spyre-emit-bundle{format=ktir out-dir="%t"}' | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=FILE < %t/bundle.mlir
// RUN: %FileCheck %s --check-prefix=SDSC < %t/sdsc_0.json
// RUN: %FileCheck %s --check-prefix=SDSC1 < %t/sdsc_1.json

// spyre-emit-bundle turns the kernel into @sdsc_bundle (what spyre-opt
// prints, and DIR/bundle.mlir) and writes one DIR/sdsc_N.json per group.
//
// Group 0 (z = (x + y) * x on 8 x 32 f16, hinted on its store): a 2 x 4 nest,
// 2 tiles of 16 columns outside, 4 tiles of 2 rows inside. Per-tile HBM
// addresses move 16 elements x 2 bytes = 32 bytes per outer step and
// 2 rows x 32 elements x 2 bytes = 128 bytes per inner step, from the byte
// address of each pointer argument (element offset x 2 for f16).
// Group 1 (exp on 64 f32, untiled) is dispatched once, outside any loop, on
// byte addresses element offset x 4.

// CHECK:       module {
// CHECK-NEXT:    func.func @sdsc_bundle(%x: index, %y: index, %out: index, %v: index, %w: index) attributes {grid = [1], spyre.kernel = "add_mul"} {
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[XB:.*]] = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%x]
// CHECK-NEXT:      %[[YB:.*]] = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%y]
// CHECK-NEXT:      %[[OB:.*]] = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%out]
// CHECK-NEXT:      %[[VB:.*]] = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%v]
// CHECK-NEXT:      %[[WB:.*]] = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%w]
// CHECK-NEXT:      %[[N0:.*]] = arith.constant 2 : index
// CHECK-NEXT:      scf.for %[[I:.*]] = %[[C0]] to %[[N0]] step %[[C1]] {
// CHECK-NEXT:        %[[N1:.*]] = arith.constant 4 : index
// CHECK-NEXT:        scf.for %[[J:.*]] = %[[C0]] to %[[N1]] step %[[C1]] {
// CHECK-NEXT:          %[[XA:.*]] = affine.apply affine_map<(d0, d1)[s0] -> (s0 + d0 * 32 + d1 * 128)>(%[[I]], %[[J]])[%[[XB]]]
// CHECK-NEXT:          %[[YA:.*]] = affine.apply affine_map<(d0, d1)[s0] -> (s0 + d0 * 32 + d1 * 128)>(%[[I]], %[[J]])[%[[YB]]]
// CHECK-NEXT:          %[[OA:.*]] = affine.apply affine_map<(d0, d1)[s0] -> (s0 + d0 * 32 + d1 * 128)>(%[[I]], %[[J]])[%[[OB]]]
// CHECK-NEXT:          "sdscbundle.sdsc_execute"(%[[XA]], %[[YA]], %[[OA]]) {sdsc_filename = "sdsc_0.json"} : (index, index, index) -> ()
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      "sdscbundle.sdsc_execute"(%[[VB]], %[[WB]]) {sdsc_filename = "sdsc_1.json"} : (index, index) -> ()
// CHECK-NEXT:      return
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NOT:   local_schedule

// The file is the printed bundle.
// The bundle file names its maps by MLIR's aliases.
// FILE:        #[[BMAP:map[0-9]*]] = affine_map<(d0, d1)[s0] -> (s0 + d0 * 32 + d1 * 128)>
// FILE:        func.func @sdsc_bundle(%x: index, %y: index, %out: index, %v: index, %w: index)
// FILE:        affine.apply #[[BMAP]](
// FILE:        "sdscbundle.sdsc_execute"({{.*}}) {sdsc_filename = "sdsc_0.json"}
// FILE:        "sdscbundle.sdsc_execute"({{.*}}) {sdsc_filename = "sdsc_1.json"}

// sdsc_0.json: the format, three HBM byte-address arguments, the nest, a
// [2, 16] tile; x + y is an intermediate in LX at offset 0 (2 x 16 f16 = 64
// bytes, the peak); the product is written to the output's HBM argument.
// The "ktir" function takes the byte addresses and converts them back to
// f16 element offsets (divide by 2).
// SDSC:        "format": "spyre-mlir.sdsc/1",
// SDSC-NEXT:   "entry": "sdsc_0",
// SDSC-NEXT:   "group": "local_schedule_0",
// SDSC-NEXT:   "arguments": [
// SDSC-NEXT:     {
// SDSC-NEXT:       "name": "x_tile",
// SDSC-NEXT:       "kind": "hbm_address",
// SDSC-NEXT:       "bytes_per_element": 2
// SDSC:            "name": "y_tile",
// SDSC:            "name": "out_tile",
// SDSC:        "loops": [
// SDSC-NEXT:     {
// SDSC-NEXT:       "count": 2,
// SDSC-NEXT:       "tiled_dims": [
// SDSC-NEXT:         1
// SDSC-NEXT:       ],
// SDSC-NEXT:       "tile_sizes": [
// SDSC-NEXT:         16
// SDSC:            "count": 4,
// SDSC-NEXT:       "tiled_dims": [
// SDSC-NEXT:         0
// SDSC-NEXT:       ],
// SDSC-NEXT:       "tile_sizes": [
// SDSC-NEXT:         2
// SDSC:        "iteration_space": [
// SDSC-NEXT:     2,
// SDSC-NEXT:     16
// SDSC-NEXT:   ],
// SDSC:        "op": "arith.addf",
// SDSC:            "is_input": true,
// SDSC:              "hbm": "x_tile"
// SDSC:            "is_input": true,
// SDSC:              "hbm": "y_tile"
// SDSC:            "is_input": false,
// SDSC-NEXT:       "device_size": [
// SDSC-NEXT:         2,
// SDSC-NEXT:         16
// SDSC-NEXT:       ],
// SDSC-NEXT:       "device_dtype": "f16",
// SDSC-NEXT:       "allocation": {
// SDSC-NEXT:         "lx": 0
// SDSC-NEXT:       }
// SDSC:        "op": "arith.mulf",
// SDSC:              "lx": 0
// SDSC:              "hbm": "x_tile"
// SDSC:            "is_input": false,
// SDSC:            "allocation": {
// SDSC-NEXT:         "hbm": "out_tile"
// SDSC-NEXT:       }
// SDSC:        "peak_lx_bytes_per_core": 64,
// SDSC-NEXT:   "ktir": "{{.*}}module {\n  func.func @sdsc_0(%x_tile: index, %y_tile: index, %out_tile: index) attributes {grid = [1]} {\n    %0 = arith.constant 2 : index\n    %1 = arith.divui %x_tile, %0 : index\n
// SDSC-SAME:   memory_space = #ktdp.memory_space<ct_local>, spyre.lx_offset = 0 : i64} : memref<2x16xf16>

// sdsc_1.json: no loops, the whole vector, f32 (4 bytes per element), no LX.
// SDSC1:       "entry": "sdsc_1",
// SDSC1-NEXT:  "group": "local_schedule_1",
// SDSC1:         "name": "v",
// SDSC1-NEXT:    "kind": "hbm_address",
// SDSC1-NEXT:    "bytes_per_element": 4
// SDSC1:         "name": "w",
// SDSC1:       "loops": [],
// SDSC1-NEXT:  "iteration_space": [
// SDSC1-NEXT:    64
// SDSC1-NEXT:  ],
// SDSC1:       "op": "math.exp",
// SDSC1:       "peak_lx_bytes_per_core": 0,
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#vec = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_mul(%x: index, %y: index, %out: index, %v: index, %w: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf16>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf16>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf16> -> !ktdp.access_tile<8x32xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf16> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf16> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf16>
  %b = ktdp.load %yt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf16>
  %s = arith.addf %a, %b : tensor<8x32xf16>
  %z = arith.mulf %s, %a : tensor<8x32xf16>
  ktdp.store %z, %ot {spyre.slices = [[2, [1]], [4, [0]]]} : tensor<8x32xf16>, !ktdp.access_tile<8x32xindex>
  %vv = ktdp.construct_memory_view %v, sizes: [64], strides: [1] {coordinate_set = #vec, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [64], strides: [1] {coordinate_set = #vec, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %vt = ktdp.construct_access_tile %vv[%c0] {access_tile_set = #vec, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %wt = ktdp.construct_access_tile %wv[%c0] {access_tile_set = #vec, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %c = ktdp.load %vt : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %e = math.exp %c : tensor<64xf32>
  ktdp.store %e, %wt : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}
