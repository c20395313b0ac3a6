// RUN: %spyre-opt %s -p canonicalize --split-input-file | %FileCheck %s

// Upstream's folders (tiling.derive_size, buffer_phase, select_memref), its
// canonicalizer of fifo.allocate and its constant materializer (folded
// indices become arith.constant).

// A derive_size whose IV is 0 (its loop folded away) and operands constant is
// min(tile size, total size); with another IV, or two levels, it stays.
// CHECK-LABEL: func.func @derive_size
// CHECK: arith.constant 23 : index
// CHECK-NEXT: %[[FIVE:.*]] = arith.constant 5 : index
// CHECK-NEXT: %[[SEVEN:.*]] = arith.constant 7 : index
// CHECK-NEXT: %[[KEPT:.*]] = ktdf.tiling.derive_size [%{{.*}} : %{{.*}}], total_size = %{{.*}} : index
// CHECK-NEXT: ktdf.tiling.derive_size [%{{.*}} : %{{.*}}], [%{{.*}} : %{{.*}}], total_size = %{{.*}} : index
// CHECK-NEXT: return %[[FIVE]], %[[SEVEN]], %[[KEPT]]
func.func @derive_size() -> (index, index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c23 = arith.constant 23 : index
  %full = ktdf.tiling.derive_size [%c0 : %c5], total_size = %c23 : index
  %rest = ktdf.tiling.derive_size [%c0 : %c23], total_size = %c7 : index
  %other = ktdf.tiling.derive_size [%c1 : %c5], total_size = %c23 : index
  %two = ktdf.tiling.derive_size [%c0 : %c5], [%c0 : %c1], total_size = %c23 : index
  return %full, %rest, %other, %two : index, index, index, index
}

// -----

// buffer_phase drops constant operands; all constant, it is 0.
// CHECK-LABEL: func.func @buffer_phase
// CHECK: arith.constant 8 : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: scf.for %[[I:.*]] =
// CHECK-NEXT: %[[P:.*]] = ktdf.buffer_phase(%[[I]]) {num_phases = 2 : i64} : index
// CHECK-NEXT: memref.store %[[P]], %{{.*}}[%[[ZERO]]] : memref<8xindex>
func.func @buffer_phase(%m: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %phase = ktdf.buffer_phase(%c0, %i) {num_phases = 2 : i64} : index
    %fixed = ktdf.buffer_phase(%c0, %c1) {num_phases = 2 : i64} : index
    memref.store %phase, %m[%fixed] : memref<8xindex>
  }
  return
}

// -----

// A constant phase selects its candidate; one out of range selects nothing.
// CHECK-LABEL: func.func @select_memref
// CHECK-SAME: (%[[A:[^:]*]]: memref<4xf16>, %[[B:[^:]*]]: memref<4xf16>)
// CHECK: %[[KEPT:.*]] = ktdf.select_memref %{{.*}}[%[[A]], %[[B]]] : memref<4xf16>
// CHECK: return %[[B]], %[[KEPT]]
func.func @select_memref(%a: memref<4xf16>, %b: memref<4xf16>) -> (memref<4xf16>, memref<4xf16>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = ktdf.select_memref %c1[%a, %b] : memref<4xf16>
  %out = ktdf.select_memref %c2[%a, %b] : memref<4xf16>
  return %s, %out : memref<4xf16>, memref<4xf16>
}

// -----

// Slots nobody uses are not allocated; tokens nobody uses go too (dead code).
// CHECK-LABEL: func.func @unused
// CHECK-NEXT: %[[S:.*]] = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf16>
// CHECK-NEXT: return %[[S]]
func.func @unused() -> !ktdf.fifo.slot<"a" -> "b", 4xf16> {
  %dead:2 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf16>, !ktdf.fifo.slot<"a" -> "b", 4xf16>
  %t = ktdf.create_token : !ktdf.token
  %live = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf16>
  return %live : !ktdf.fifo.slot<"a" -> "b", 4xf16>
}
