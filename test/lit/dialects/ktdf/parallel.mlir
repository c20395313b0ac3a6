// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// ktdf.parallel and ktdf.parallel_yield (KTDF.td): the induction variables and
// the instance id are the block arguments; a pipeline may be inside.

// CHECK-LABEL: func.func @parallel_1d
// CHECK: ktdf.parallel (%{{.*}}, %[[INST:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) distribute(num_instances = 2) {
// CHECK-NEXT: arith.addi %{{.*}}, %[[INST]] : index
// CHECK-NEXT: ktdf.parallel_yield
// CHECK-NEXT: }
func.func @parallel_1d() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  ktdf.parallel (%m, %inst) = (%c0) to (%c64) step (%c1)
                              distribute(num_instances = 2) {
    %s = arith.addi %m, %inst : index
    ktdf.parallel_yield
  }
  return
}

// CHECK-LABEL: func.func @parallel_2d_around_a_pipeline
// CHECK: ktdf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step (%{{.*}}, %{{.*}}) distribute(num_instances = 4) {
// CHECK-NEXT: ktdf.pipeline {
// CHECK-NEXT: ktdf.stage depends_in(none) depends_out(%{{.*}}) {
// CHECK: ktdf.stage depends_in(%{{.*}}) depends_out(none) {
// CHECK: ktdf.parallel_yield
// CHECK-NEXT: } {tag}
func.func @parallel_2d_around_a_pipeline() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %t = ktdf.create_token : !ktdf.token
  ktdf.parallel (%p, %q, %inst) = (%c0, %c0) to (%c5, %c7) step (%c1, %c1) distribute(num_instances = 4) {
    ktdf.pipeline {
      ktdf.stage depends_in(none) depends_out(%t) {
      }
      ktdf.stage depends_in(%t) depends_out(none) {
      }
    }
    ktdf.parallel_yield
  } {tag}
  return
}
