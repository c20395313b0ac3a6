// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// ktdf.tiling.reserve_size, ktdf.tiling.derive_size, ktdf.tiling.linearize_index
// (KTDF.td): upstream's syntax, printed back as upstream prints it.

// CHECK-LABEL: func.func @tiling
func.func @tiling(%i0: index, %i1: index, %i2: index) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c23 = arith.constant 23 : index
  // The attributes print sorted, as a dictionary does.
  // CHECK: %[[TS:.*]] = ktdf.tiling.reserve_size {divisibility = 4 : index, min_value = 8 : index} : index
  %ts = ktdf.tiling.reserve_size {min_value = 8 : index, divisibility = 4 : index} : index
  // CHECK: ktdf.tiling.reserve_size {divisibility = 1 : index, min_value = 1 : index, tag} : index
  %ts1 = ktdf.tiling.reserve_size {divisibility = 1 : index, min_value = 1 : index, tag} : index
  // CHECK: ktdf.tiling.derive_size [%{{.*}} : %{{.*}}], total_size = %{{.*}} : index
  %x1 = ktdf.tiling.derive_size [%i0 : %c5], total_size = %c23 : index
  // CHECK: ktdf.tiling.derive_size [%{{.*}} : %{{.*}}], [%{{.*}} : %[[TS]]], total_size = %{{.*}} : index
  %x2 = ktdf.tiling.derive_size [%i0 : %c5], [%i1 : %ts], total_size = %c23 : index
  // The comma after a pair may be left out.
  // CHECK: ktdf.tiling.derive_size [%{{.*}} : %{{.*}}], [%{{.*}} : %{{.*}}], total_size = %{{.*}} {note} : index
  %x3 = ktdf.tiling.derive_size [%i0 : %c5] [%i1 : %c3] total_size = %c23 {note} : index
  // CHECK: ktdf.tiling.linearize_index [%{{.*}} : %{{.*}}] : index
  %l1 = ktdf.tiling.linearize_index [%i0 : %c1] : index
  // CHECK: ktdf.tiling.linearize_index [%{{.*}} : %{{.*}}], [%{{.*}} : %{{.*}}], [%{{.*}} : %{{.*}}] : index
  %l3 = ktdf.tiling.linearize_index [%i0 : %c5], [%i1 : %c3], [%i2 : %c1] : index
  return
}
