// Bad input: `FILE:LINE:COL: error: MESSAGE` on stderr, exit status 1, no traceback.

// With --strict-bounds, an access outside the view names the op, the coordinate and the core.
// RUN: not %spyre-run %s --func oob --arg x=random:8xf32 --strict-bounds 2>&1 | %FileCheck %s --check-prefix=OOB
// OOB: spyre-run-errors.mlir:[[# @LINE + 35]]:3: error: access outside the view: coordinate (8) is outside the 8xf32 view (valid: 0 <= c0 < 8) on core 1 (tile id (1))
// OOB-NEXT: %v = ktdp.load %t
// OOB-NEXT: ^
// OOB-NEXT: spyre-run-errors.mlir:[[# @LINE + 30]]:3: note: access tile constructed here
// OOB-NOT: Traceback

// By default (and with the old --mask-out-of-bounds) it is masked: the load reads 0 there.
// RUN: %spyre-run %s --func oob --arg x=zeros:8xf32 --print-summary | %FileCheck %s --check-prefix=MASK
// MASK: execution: batched

// Reading memory nobody wrote.
// RUN: not %spyre-run %s --func unwritten 2>&1 | %FileCheck %s --check-prefix=UNINIT
// UNINIT: spyre-run-errors.mlir:[[# @LINE + 34]]:3: error: read of uninitialized HBM: byte address 1024 (element address 256) was never written
// RUN: %spyre-run %s --func unwritten --allow-uninitialized

// An op without an implementation.
// RUN: not %spyre-run %s --func unsupported --arg t=zeros:4xf32 2>&1 | %FileCheck %s --check-prefix=UNSUP
// UNSUP: spyre-run-errors.mlir:[[# @LINE + 35]]:3: error: the interpreter does not support 'tensor.pad'

// Command-line mistakes.
// RUN: not %spyre-run %s --func oob 2>&1 | %FileCheck %s --check-prefix=MISSING
// MISSING: error: missing argument(s) x for @oob
// RUN: not %spyre-run %s --func oob --arg x=random:8xf17 2>&1 | %FileCheck %s --check-prefix=DTYPE
// DTYPE: spyre-run: error: unknown element type 'f17'

func.func @oob(%x: index) attributes {grid = [2]} {
  %core = ktdp.get_compute_tile_id : index
  %c4 = arith.constant 4 : index
  %start = arith.muli %core, %c4 : index
  %one = arith.constant 1 : index
  %first = arith.addi %start, %one : index
  %view = ktdp.construct_memory_view %x, sizes: [8], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %t = ktdp.construct_access_tile %view[%first] {
    access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<4xindex>
  %v = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf32>
  return
}

func.func @unwritten() {
  %c0 = arith.constant 0 : index
  %base = arith.constant 256 : index
  %view = ktdp.construct_memory_view %base, sizes: [4], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4xf32>
  %t = ktdp.construct_access_tile %view[%c0] {
    access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<4xf32> -> !ktdp.access_tile<4xindex>
  %v = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf32>
  return
}

func.func @unsupported(%t: tensor<4xf32>) -> tensor<6xf32> {
  %c0 = arith.constant 0.0 : f32
  %p = tensor.pad %t low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %c0 : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}
