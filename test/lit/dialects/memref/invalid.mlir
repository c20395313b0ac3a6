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

// -----

// memref.memory_space_cast changes the memory space only (MLIR's areCastCompatible).
func.func @memory_space_cast_shape(%m: memref<4x4xf16>) {
  // expected-error @+1 {{'memref.memory_space_cast' op operand type 'memref<4x4xf16>' and result type 'memref<2x8xf16, "DDR">' are cast incompatible}}
  %0 = memref.memory_space_cast %m : memref<4x4xf16> to memref<2x8xf16, "DDR">
  return
}

// -----

func.func @memory_space_cast_layout(%m: memref<4x4xf16>) {
  // expected-error @+1 {{'memref.memory_space_cast' op operand type 'memref<4x4xf16>' and result type 'memref<4x4xf16, strided<[4, 1], offset: ?>, "DDR">' are cast incompatible}}
  %0 = memref.memory_space_cast %m : memref<4x4xf16> to memref<4x4xf16, strided<[4, 1], offset: ?>, "DDR">
  return
}

// -----

// memref.cast keeps the memory space, and static strides, offset and sizes that both sides give.
func.func @cast_memory_space(%m: memref<4x4xf16>) {
  // expected-error @+1 {{'memref.cast' op operand type 'memref<4x4xf16>' and result type 'memref<4x4xf16, "DDR">' are cast incompatible}}
  %0 = memref.cast %m : memref<4x4xf16> to memref<4x4xf16, "DDR">
  return
}

// -----

func.func @cast_stride(%m: memref<4x4xf16, strided<[4, 1]>>) {
  // expected-error @+1 {{'memref.cast' op operand type 'memref<4x4xf16, strided<[4, 1]>>' and result type 'memref<4x4xf16, strided<[8, 1], offset: ?>>' are cast incompatible}}
  %0 = memref.cast %m : memref<4x4xf16, strided<[4, 1]>> to memref<4x4xf16, strided<[8, 1], offset: ?>>
  return
}

// -----

func.func @cast_size(%m: memref<4x4xf16>) {
  // expected-error @+1 {{'memref.cast' op operand type 'memref<4x4xf16>' and result type 'memref<4x8xf16>' are cast incompatible}}
  %0 = memref.cast %m : memref<4x4xf16> to memref<4x8xf16>
  return
}

// -----

// Unranked to unranked only to the same type.
func.func @cast_unranked(%m: memref<*xf16>) {
  // expected-error @+1 {{'memref.cast' op operand type 'memref<*xf16>' and result type 'memref<*xf32>' are cast incompatible}}
  %0 = memref.cast %m : memref<*xf16> to memref<*xf32>
  return
}
