// memref ops in MLIR's form that xDSL 0.75 reads only generic (dialects/memref.py),
// with string memory spaces as dataflow-scheduler writes them.
// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// CHECK-LABEL: func.func @casts
func.func @casts(%a: memref<96x64xf16>, %x: index) -> memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR"> {
  // CHECK: %{{.*}} = memref.memory_space_cast %{{.*}} : memref<96x64xf16> to memref<96x64xf16, "DDR">
  %m = memref.memory_space_cast %a : memref<96x64xf16> to memref<96x64xf16, "DDR">
  // CHECK: memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1, 64], strides: [64, 1] : memref<96x64xf16, "DDR"> to memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">
  %v = memref.reinterpret_cast %m to offset: [%x], sizes: [1, 64], strides: [64, 1] : memref<96x64xf16, "DDR"> to memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">
  // CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [1, 64], strides: [64, 1] : memref<96x64xf16, "DDR"> to memref<1x64xf16, strided<[64, 1]>, "DDR">
  %r = memref.reinterpret_cast %m to offset: [0], sizes: [1, 64], strides: [64, 1] : memref<96x64xf16, "DDR"> to memref<1x64xf16, strided<[64, 1]>, "DDR">
  // A static offset may become dynamic.
  // CHECK: memref.cast %{{.*}} : memref<1x64xf16, strided<[64, 1]>, "DDR"> to memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">
  %c = memref.cast %r : memref<1x64xf16, strided<[64, 1]>, "DDR"> to memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">
  // ... and a static size too, to unranked and back.
  // CHECK: memref.cast %{{.*}} : memref<96x64xf16> to memref<?x64xf16>
  %d = memref.cast %a : memref<96x64xf16> to memref<?x64xf16>
  // CHECK: memref.cast %{{.*}} : memref<?x64xf16> to memref<*xf16>
  %u = memref.cast %d : memref<?x64xf16> to memref<*xf16>
  // CHECK: memref.subview %{{.*}}[0, 0] [1, 64] [1, 1] : memref<96x64xf16, "DDR"> to memref<1x64xf16, strided<[64, 1]>, "DDR">
  %s = memref.subview %m[0, 0] [1, 64] [1, 1] : memref<96x64xf16, "DDR"> to memref<1x64xf16, strided<[64, 1]>, "DDR">
  // CHECK: memref.alloc() : memref<1x64xf16, "L1">
  %l = memref.alloc() : memref<1x64xf16, "L1">
  return %c : memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">
}

// A cast to the same type, also unranked, is a cast MLIR accepts.
// CHECK-LABEL: func.func @same_type
// CHECK: memref.cast %{{.*}} : memref<*xf16> to memref<*xf16>
func.func @same_type(%m: memref<*xf16>) {
  %0 = memref.cast %m : memref<*xf16> to memref<*xf16>
  return
}

// memref.copy in MLIR's form (their map-reduction-partials output copies a tile into an SFU register).
// CHECK-LABEL: func.func @copy
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<1x64xf16> to memref<1x64xf16, "SFU_REG">
func.func @copy(%a: memref<1x64xf16>, %b: memref<1x64xf16, "SFU_REG">) {
  memref.copy %a, %b : memref<1x64xf16> to memref<1x64xf16, "SFU_REG">
  return
}
