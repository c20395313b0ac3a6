// spyre-run executes a kernel: outputs, summary, grid order and modes.
// RUN: %spyre-run %s --func ids --arg out=zeros:2x4xi32 --print-outputs --print-summary | %FileCheck %s
// CHECK: function: @ids
// CHECK-NEXT: grid: [2, 4] (8 cores, col-major)
// CHECK-NEXT: execution: batched
// CHECK: {{^}}out: 2x4 int32
// CHECK-NEXT: 0  1  2  3]
// CHECK-NEXT: [10 11 12 13]]

// One core after another gives the same memory.
// RUN: %spyre-run %s --func ids --arg out=zeros:2x4xi32 --print-outputs --execution per-core | %FileCheck %s --check-prefix=PERCORE
// PERCORE: out: 2x4 int32
// PERCORE-NEXT: 0  1  2  3]
// PERCORE-NEXT: [10 11 12 13]]

// --grid overrides the kernel's grid; outputs land in --out as .npy files.
// RUN: rm -rf %t && %spyre-run %s --func ids --grid 1x4 --arg out=zeros:2x4xi32 --out %t --print-outputs | %FileCheck %s --check-prefix=GRID
// GRID: out: 2x4 int32
// GRID-NEXT: 0 1 2 3]
// GRID-NEXT: [0 0 0 0]]
// RUN: %python -c "import numpy; print(numpy.load('%t/out.npy').sum())" | %FileCheck %s --check-prefix=NPY
// NPY: 6

// A single-result tile id on a grid of two dims is the linear tile id: grid
// dim 0 varies fastest by default (spyre_mlir.analysis.grid), --grid-order row-major
// makes the last dim fastest.
// RUN: %spyre-run %s --func linear --arg out=zeros:2x4xi32 --print-outputs | %FileCheck %s --check-prefix=COL
// COL: out: 2x4 int32
// COL-NEXT: {{\[\[}}0 2 4 6]
// COL-NEXT: [1 3 5 7]]
// RUN: %spyre-run %s --func linear --arg out=zeros:2x4xi32 --print-outputs --grid-order row-major | %FileCheck %s --check-prefix=ROW
// ROW: out: 2x4 int32
// ROW-NEXT: {{\[\[}}0 1 2 3]
// ROW-NEXT: [4 5 6 7]]

// A kernel at constant addresses, fed with --hbm.
// RUN: %spyre-run %s --func constant_address --hbm 256=zeros:4xf32 --print-outputs | %FileCheck %s --check-prefix=HBM
// HBM: hbm@256: 4 float32
// HBM-NEXT: [1.5 1.5 1.5 1.5]

func.func @ids(%out: index) attributes {grid = [2, 4]} {
  %i, %j = ktdp.get_compute_tile_id : index, index
  %c10 = arith.constant 10 : index
  %a = arith.muli %i, %c10 : index
  %v = arith.addi %a, %j : index
  %v32 = arith.index_cast %v : index to i32
  %t = tensor.splat %v32 : tensor<1x1xi32>
  %view = ktdp.construct_memory_view %out, sizes: [2, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x4xi32>
  %tile = ktdp.construct_access_tile %view[%i, %j] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 == 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x4xi32> -> !ktdp.access_tile<1x1xindex>
  ktdp.store %t, %tile : tensor<1x1xi32>, !ktdp.access_tile<1x1xindex>
  return
}

func.func @constant_address() {
  %c0 = arith.constant 0 : index
  %base = arith.constant 256 : index
  %v = arith.constant dense<1.5> : tensor<4xf32>
  %view = ktdp.construct_memory_view %base, sizes: [4], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4xf32>
  %t = ktdp.construct_access_tile %view[%c0] {
    access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<4xf32> -> !ktdp.access_tile<4xindex>
  ktdp.store %v, %t : tensor<4xf32>, !ktdp.access_tile<4xindex>
  return
}

func.func @linear(%out: index) attributes {grid = [2, 4]} {
  %i, %j = ktdp.get_compute_tile_id : index, index
  %pid = ktdp.get_compute_tile_id : index
  %v32 = arith.index_cast %pid : index to i32
  %t = tensor.splat %v32 : tensor<1x1xi32>
  %view = ktdp.construct_memory_view %out, sizes: [2, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x4xi32>
  %tile = ktdp.construct_access_tile %view[%i, %j] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 == 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x4xi32> -> !ktdp.access_tile<1x1xindex>
  ktdp.store %t, %tile : tensor<1x1xi32>, !ktdp.access_tile<1x1xindex>
  return
}
