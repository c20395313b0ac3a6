// RUN: rm -rf %t && %spyre-opt %s --pipeline 'ktir-to-bundle{out-dir=%t scalars="n_rows=8"}' | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=SDSC < %t/sdsc_0.json
// RUN: rm -rf %t.uneven && not %spyre-opt %s --pipeline 'ktir-to-bundle{out-dir=%t.uneven scalars="n_rows=6"}' 2>&1 | %FileCheck %s --check-prefix=UNEVEN -DFILE=%s
// RUN: rm -rf %t.none && not %spyre-opt %s --pipeline 'ktir-to-bundle{out-dir=%t.none}' 2>&1 | %FileCheck %s --check-prefix=NONE -DFILE=%s

// A per-core row loop (Triton's `for row in range(pid, n_rows, 4)`) over a row-major [8, 64] f16
// tensor on 4 cores, %n_rows fixed by scalars=: one bundle scf.for of 2 iterations around the
// SuperDSCs, iteration i on every core at once (core c at row 4 i + c), the HBM starts moved by
// 4 rows x 128 bytes per iteration. %n_rows is no argument of the bundle; its value is recorded.

// CHECK:      #map = affine_map<(d0)[s0] -> (s0 + d0 * 512)>
// CHECK:      func.func @sdsc_bundle(%arg_0_base_addr: !sdscbundle.input_arg<index>, %arg_1_base_addr: !sdscbundle.input_arg<index>) attributes {spyre.kernel = "row_loop", spyre.specialize = {n_rows = 8 : index}} {
// CHECK:        %arg_0_core_offset_128 = arith.constant 128 : index
// CHECK:        %loop_bound_0 = arith.constant 2 : index
// CHECK-NEXT:   scf.for %i_0 = %c0 to %loop_bound_0 step %c1 {
// CHECK-NEXT:     %addr_0 = affine.apply #map(%i_0)[%arg_0]
// CHECK:          sdscbundle.sdsc_execute (%addr_0, %addr_1, %addr_2, %addr_3) {sdsc_filename = "sdsc_0.json", symbol_ids = [-1, -2, -3, -4]}
// CHECK-NEXT:     sdscbundle.sdsc_execute () {sdsc_filename = "sdsc_1.json", symbol_ids = []}
// CHECK:          sdscbundle.sdsc_execute (%addr_4, %addr_5, %addr_6, %addr_7) {sdsc_filename = "sdsc_2.json", symbol_ids = [-5, -6, -7, -8]}
// CHECK-NEXT:   }
// CHECK-NEXT:   return

// One iteration's rows, one per core: 4 slices of 1 row.
// SDSC:      "0_identity": {
// SDSC:      "numWkSlicesPerDim_": {
// SDSC-NEXT:   "mb": 4,
// SDSC-NEXT:   "out": 1

// UNEVEN: [[FILE]]:[[# @LINE + 10]]:3: error: this per-core loop runs 1 to 2 iterations depending on the core
// NONE: [[FILE]]:[[# @LINE + 3]]:1: error: argument %n_rows of @row_loop is an index known only at run time{{.*}}specialize it with scalars="n_rows=..."
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
func.func @row_loop(%x: index, %y: index, %n_rows: index) attributes {grid = [4]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf16>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf16>
  scf.for %r = %core to %n_rows step %c4 {
    %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = #row, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x64xf16> -> !ktdp.access_tile<1x64xindex>
    %yt = ktdp.construct_access_tile %yv[%r, %c0] {access_tile_set = #row, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x64xf16> -> !ktdp.access_tile<1x64xindex>
    %xd = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %e = math.exp %xd : tensor<1x64xf16>
    %p = arith.mulf %xd, %e : tensor<1x64xf16>
    ktdp.store %p, %yt : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
  }
  return
}
