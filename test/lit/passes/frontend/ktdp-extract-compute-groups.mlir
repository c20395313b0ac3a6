// RUN: %spyre-opt %s --split-input-file -p ktdp-extract-compute-groups | %FileCheck %s
// RUN: %spyre-opt %s --split-input-file -p cse,ktdp-extract-compute-groups | %FileCheck %s --check-prefix=CSE

// The public basic case (dataflow-scheduler's compute-group-extraction-basic):
// one group, outlined into module @local_schedule_0 with every view, tile,
// index computation and constant it uses re-materialized inside; the kernel
// keeps a private declaration and the call.
// CHECK-LABEL: func.func @add() attributes {grid = [2{{( : i64)?}}, 2{{( : i64)?}}]} {
// CHECK-NEXT:    {{(func\.)?}}call @local_schedule_0() : () -> ()
// CHECK-NEXT:    {{(func\.)?}}return
// CHECK:       func.func private @local_schedule_0()
// CHECK:       {{(builtin\.)?}}module @local_schedule_0 {
// CHECK-NEXT:    func.func @local_schedule_0() attributes {grid = [2{{( : i64)?}}, 2{{( : i64)?}}], spyre.compute_group} {
// CHECK-DAG:       %[[A:.*]] = ktdp.construct_memory_view %{{.*}}, sizes: [96, 64]
// CHECK-DAG:       %[[ID:.*]] = ktdp.get_compute_tile_id : index
// CHECK-DAG:       %[[ROW:.*]] = arith.muli %[[ID]], %{{.*}} : index
// CHECK:           %[[AL:.*]] = ktdp.load %{{.*}} : {{(!ktdp.access_tile)?}}<3x64xindex> -> tensor<3x64xf16>
// CHECK:           %[[BL:.*]] = ktdp.load %{{.*}} : {{(!ktdp.access_tile)?}}<3x64xindex> -> tensor<3x64xf16>
// CHECK:           %[[R:.*]] = linalg.add ins(%[[AL]], %[[BL]] : tensor<3x64xf16>, tensor<3x64xf16>)
// CHECK:           ktdp.store %[[R]], %{{.*}} : tensor<3x64xf16>, {{(!ktdp.access_tile)?}}<3x64xindex>
// CHECK-NEXT:      {{(func\.)?}}return
// CSE-LABEL: func.func @add()
// CSE: {{(func\.)?}}call @local_schedule_0()
func.func @add() attributes {grid = [2, 2]} {
  %c0 = arith.constant 0 : index
  %tile_size = arith.constant 3 : index
  %A_start_address = arith.constant 1024 : index
  %B_start_address = arith.constant 12288 : index
  %C_start_address = arith.constant 18432 : index
  %id = ktdp.get_compute_tile_id : index
  %start_row = arith.muli %id, %tile_size : index
  %A_view = ktdp.construct_memory_view %A_start_address, sizes: [96, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  %A_access_tile = ktdp.construct_access_tile %A_view[%start_row, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<96x64xf16> -> !ktdp.access_tile<3x64xindex>
  %B_view = ktdp.construct_memory_view %B_start_address, sizes: [96, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  %B_access_tile = ktdp.construct_access_tile %B_view[%start_row, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<96x64xf16> -> !ktdp.access_tile<3x64xindex>
  %A_data_tile = ktdp.load %A_access_tile : !ktdp.access_tile<3x64xindex> -> tensor<3x64xf16>
  %B_data_tile = ktdp.load %B_access_tile : !ktdp.access_tile<3x64xindex> -> tensor<3x64xf16>
  %C_data_tile = tensor.empty() : tensor<3x64xf16>
  %result = linalg.add ins(%A_data_tile, %B_data_tile : tensor<3x64xf16>, tensor<3x64xf16>) outs(%C_data_tile: tensor<3x64xf16>) -> tensor<3x64xf16>
  %C_view = ktdp.construct_memory_view %C_start_address, sizes: [96, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  %C_access_tile = ktdp.construct_access_tile %C_view[%start_row, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<96x64xf16> -> !ktdp.access_tile<3x64xindex>
  ktdp.store %result, %C_access_tile : tensor<3x64xf16>, !ktdp.access_tile<3x64xindex>
  return
}

// -----

// An author-written HBM round trip (seed 001): exp(x) is stored to %s and
// loaded back. The store's and the load's access tiles are separate values
// here; after CSE (second RUN) they are one, and the groups are the same:
// found by dataflow, ordered by the round trip, each with its own tile.
// CHECK-LABEL: func.func @sqrt_exp(%x: index, %s: index, %out: index) {
// CHECK-NEXT:    {{(func\.)?}}call @[[G0:local_schedule_[0-9]+]](%x, %s) : (index, index) -> ()
// CHECK-NEXT:    {{(func\.)?}}call @[[G1:local_schedule_[0-9]+]](%s, %out) : (index, index) -> ()
// CHECK:       {{(builtin\.)?}}module @[[G0]] {
// CHECK:         math.exp
// CHECK:         ktdp.store
// CHECK:       {{(builtin\.)?}}module @[[G1]] {
// CHECK:         ktdp.load
// CHECK:         math.sqrt
// CSE-LABEL: func.func @sqrt_exp
// CSE-NEXT:    {{(func\.)?}}call @[[G0:local_schedule_[0-9]+]](%x, %s) : (index, index) -> ()
// CSE-NEXT:    {{(func\.)?}}call @[[G1:local_schedule_[0-9]+]](%s, %out) : (index, index) -> ()
// CSE:       {{(builtin\.)?}}module @[[G0]] {
// CSE:         ktdp.construct_access_tile
// CSE:       {{(builtin\.)?}}module @[[G1]] {
// CSE:         ktdp.construct_access_tile
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @sqrt_exp(%x: index, %s: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %sv = ktdp.construct_memory_view %s, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %d = ktdp.load %xt : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %e = math.exp %d : tensor<4x32xf32>
  %st = ktdp.construct_access_tile %sv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  ktdp.store %e, %st : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  %lt = ktdp.construct_access_tile %sv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %l = ktdp.load %lt : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %q = math.sqrt %l : tensor<4x32xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  ktdp.store %q, %ot : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  return
}

// -----

// Groups inside a loop: the loop stays in the kernel, its induction variable
// is a parameter; a loop-carried accumulator keeps its loop inside one group.
// CHECK-LABEL: func.func @loops(%x: index, %out: index, %sum: index) {
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      {{(func\.)?}}call @[[ROW:local_schedule_[0-9]+]](%x, %i, %out) : (index, index, index) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    {{(func\.)?}}call @[[ACC:local_schedule_[0-9]+]](%x, %sum) : (index, index) -> ()
// CHECK:       {{(builtin\.)?}}module @[[ROW]] {
// CHECK-NEXT:    func.func @[[ROW]](%x: index, %i: index, %out: index) attributes {spyre.compute_group} {
// CHECK:       {{(builtin\.)?}}module @[[ACC]] {
// CHECK:         scf.for {{.*}} iter_args
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#row = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @loops(%x: index, %out: index, %sum: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %sv = ktdp.construct_memory_view %sum, sizes: [1, 32], strides: [32, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<1x32xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %t = ktdp.construct_access_tile %xv[%i, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<1x32xindex>
    %r = ktdp.load %t : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
    %e = math.exp %r : tensor<1x32xf32>
    %ot = ktdp.construct_access_tile %ov[%i, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<1x32xindex>
    ktdp.store %e, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  }
  %zero = arith.constant dense<0.0> : tensor<1x32xf32>
  %acc = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (tensor<1x32xf32>) {
    %t = ktdp.construct_access_tile %xv[%i, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<1x32xindex>
    %r = ktdp.load %t : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
    %n = arith.addf %a, %r : tensor<1x32xf32>
    scf.yield %n : tensor<1x32xf32>
  }
  %st = ktdp.construct_access_tile %sv[%c0, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<1x32xf32> -> !ktdp.access_tile<1x32xindex>
  ktdp.store %acc, %st : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  return
}
