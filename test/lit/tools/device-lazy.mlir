// A ktdf_arch.device declared in the module is read only when something asks
// for a fact it may state (docs/target.md): a pass that asks none runs on a
// module whose device cannot be read, as dataflow-scheduler's tool runs its
// passes on test/Transforms/ReductionLoopExposure/muil_fifo_dest.mlir, which
// imports a device its file does not define. A pass that needs a fact gets
// the device's error, located at the declaration and naming the fact.

// RUN: %spyre-opt %s --split-input-file -p canonicalize | %FileCheck %s --check-prefix=RUNS
// RUN: %spyre-opt %s --split-input-file -p cse | %FileCheck %s --check-prefix=RUNS
// RUN: %spyre-opt %s --split-input-file | %FileCheck %s --check-prefix=RUNS
// RUNS: ktdf_arch.device @spyre_single_corelet import("../dialects/ktdf_arch/Inputs/card.mlir")
// RUNS: func.func @ids
// RUNS: ktdf_arch.device @card import("missing/card.mlir")
// RUNS: func.func @ids
// RUNS: module attributes {spyre.target = {lx_bytes = 4096 : i64}}
// RUNS: ktdf_arch.device @imported import("../dialects/ktdf_arch/Inputs/card.mlir")
// RUNS: func.func @ids

// Tiling needs the LX size: each chunk's device error, at its declaration.
// RUN: not %spyre-opt %s --split-input-file -p ktdp-extract-compute-groups,spyre-coarse-tile 2>&1 | %FileCheck %s --check-prefix=NEEDS
// NEEDS: device-lazy.mlir:[[# @LINE + 6]]:1: error: 'ktdf_arch.device' op unable to import device graph: no device named 'spyre_single_corelet' (needed for target fact 'lx_bytes')
// NEEDS: device-lazy.mlir:[[# @LINE + 23]]:1: error: 'ktdf_arch.device' op unable to import device graph: cannot open input file '{{.*}}missing{{/|\\}}card.mlir': No such file or directory (needed for target fact 'lx_bytes')
// A spyre.target fact the device states otherwise: a located error at the device.
// NEEDS: device-lazy.mlir:[[# @LINE + 40]]:3: error: 'ktdf_arch.device' op @imported and spyre.target (the module's, or --target's) disagree: lx_bytes is 65536 on the device, 4096 there


ktdf_arch.device @spyre_single_corelet import("../dialects/ktdf_arch/Inputs/card.mlir")
func.func @ids(%out: index) attributes {grid = [2, 4]} {
  %i, %j = ktdp.get_compute_tile_id : index, index
  %v = arith.addi %i, %j : index
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

// -----

ktdf_arch.device @card import("missing/card.mlir")
func.func @ids(%out: index) attributes {grid = [2, 4]} {
  %i, %j = ktdp.get_compute_tile_id : index, index
  %v = arith.addi %i, %j : index
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

// -----

module attributes {spyre.target = {lx_bytes = 4096 : i64}} {
  ktdf_arch.device @imported import("../dialects/ktdf_arch/Inputs/card.mlir")
  func.func @ids(%out: index) attributes {grid = [2, 4]} {
    %i, %j = ktdp.get_compute_tile_id : index, index
    %v = arith.addi %i, %j : index
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
}
