// RUN: %spyre-opt %s --split-input-file --verify-diagnostics
// One index per dimension, a located error with MLIR's message
// (dialects/memref.py); xDSL raised an internal error.

func.func @load_indices(%m: memref<4x4xf32>, %i: index) -> f32 {
  // expected-error @+1 {{'memref.load' op invalid number of indices for accessed memref, expected 2 but got 1}}
  %0 = memref.load %m[%i] : memref<4x4xf32>
  return %0 : f32
}

// -----

func.func @store_indices(%m: memref<4xf32>, %i: index, %v: f32) {
  // expected-error @+1 {{'memref.store' op invalid number of indices for accessed memref, expected 1 but got 2}}
  memref.store %v, %m[%i, %i] : memref<4xf32>
  return
}
