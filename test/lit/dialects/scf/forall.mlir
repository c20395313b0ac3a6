// scf.forall without shared_outs (dialects/scf.py): MLIR's two custom forms,
// static and SSA bounds, the implicit scf.forall.in_parallel terminator, and
// MLIR's generic form (test/unit/test_real_mlir.py reads this file with iree-opt).
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %FileCheck %s --check-prefix=GENERIC
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt --mlir-print-op-generic | %FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @normalized
// GENERIC-LABEL: sym_name = "normalized"
func.func @normalized(%n: index) {
  %c4 = arith.constant 4 : index
  // CHECK:      scf.forall (%[[I:.*]], %[[J:.*]]) in (%c4, %n) {
  // CHECK-NEXT:   arith.addi %[[I]], %[[J]] : index
  // CHECK-NEXT: }
  // GENERIC:      "scf.forall"(%c4, %n) <{
  // GENERIC-SAME: operandSegmentSizes = array<i32: 0, 2, 0, 0>
  // GENERIC-SAME: staticLowerBound = array<i64: 0, 0>
  // GENERIC-SAME: staticStep = array<i64: 1, 1>
  // GENERIC-SAME: staticUpperBound = array<i64: -9223372036854775808, -9223372036854775808>
  // GENERIC-SAME: }> ({
  // GENERIC-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index):
  // GENERIC-NEXT:   "arith.addi"
  // GENERIC-NEXT:   "scf.forall.in_parallel"() ({
  // GENERIC-NEXT:   ^bb0:
  // GENERIC-NEXT:   }) : () -> ()
  // GENERIC-NEXT: }) : (index, index) -> ()
  scf.forall (%i, %j) in (%c4, %n) {
    %s = arith.addi %i, %j : index
  }
  // Integer literals in the list: static upper bounds.
  // CHECK: scf.forall (%{{.*}}, %{{.*}}) in (4, %n) {
  // GENERIC:      "scf.forall"(%n) <{
  // GENERIC-SAME: operandSegmentSizes = array<i32: 0, 1, 0, 0>
  // GENERIC-SAME: staticUpperBound = array<i64: 4, -9223372036854775808>
  scf.forall (%i, %j) in (4, %n) {
  }
  // An explicit empty terminator reads as the implicit one.
  // CHECK:      scf.forall (%{{.*}}) in (8) {
  // CHECK-NEXT: }
  scf.forall (%i) in (8) {
    scf.forall.in_parallel {
    }
  }
  return
}

// CHECK-LABEL: func.func @general
// GENERIC-LABEL: sym_name = "general"
func.func @general(%lb: index, %ub: index, %s: index) {
  // CHECK: scf.forall (%{{.*}}) = (%lb) to (%ub) step (%s) {
  // GENERIC:      "scf.forall"(%lb, %ub, %s) <{
  // GENERIC-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 0>
  // GENERIC-SAME: staticLowerBound = array<i64: -9223372036854775808>
  // GENERIC-SAME: staticStep = array<i64: -9223372036854775808>
  // GENERIC-SAME: staticUpperBound = array<i64: -9223372036854775808>
  scf.forall (%i) = (%lb) to (%ub) step (%s) {
  }
  // Mixed static and SSA bounds, a negative lower bound.
  // CHECK:      scf.forall (%[[I:.*]], %[[J:.*]]) = (-2, %lb) to (%ub, 8) step (2, %s) {
  // CHECK-NEXT:   arith.muli %[[I]], %[[J]] : index
  // CHECK-NEXT: } {tag = "kept"}
  // GENERIC:      "scf.forall"(%lb, %ub, %s) <{
  // GENERIC-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 0>
  // GENERIC-SAME: staticLowerBound = array<i64: -2, -9223372036854775808>
  // GENERIC-SAME: staticStep = array<i64: 2, -9223372036854775808>
  // GENERIC-SAME: staticUpperBound = array<i64: -9223372036854775808, 8>
  // GENERIC:      }) {tag = "kept"} : (index, index, index) -> ()
  scf.forall (%i, %j) = (-2, %lb) to (%ub, 8) step (2, %s) {
    %p = arith.muli %i, %j : index
  } {tag = "kept"}
  // Static lower bounds 0 and steps 1 print normalized; SSA ones are kept.
  // CHECK: scf.forall (%{{.*}}, %{{.*}}) in (%ub, 8) {
  scf.forall (%i, %j) = (0, 0) to (%ub, 8) step (1, 1) {
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: scf.forall (%{{.*}}) = (%c0) to (%ub) step (%c1) {
  scf.forall (%i) = (%c0) to (%ub) step (%c1) {
  }
  return
}

// CHECK-LABEL: func.func @nested
func.func @nested(%n: index) {
  // CHECK:      scf.forall (%[[I:.*]]) in (%n) {
  // CHECK-NEXT:   scf.forall (%[[J:.*]]) = (%[[I]]) to (%n) step (3) {
  // CHECK-NEXT:     arith.subi %[[J]], %[[I]] : index
  // CHECK-NEXT:   }
  // CHECK:        scf.for %[[K:.*]] = %{{.*}} to %n step %{{.*}} {
  // CHECK-NEXT:     arith.addi %[[K]], %[[I]] : index
  // CHECK-NEXT:   }
  // CHECK-NEXT: }
  // CHECK-NEXT: return
  scf.forall (%i) in (%n) {
    scf.forall (%j) = (%i) to (%n) step (3) {
      %d = arith.subi %j, %i : index
    }
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %c0 to %n step %c1 {
      %e = arith.addi %k, %i : index
    }
  }
  return
}

// CHECK-LABEL: func.func @rank_zero
func.func @rank_zero() {
  // CHECK: scf.forall () in () {
  scf.forall () in () {
  }
  return
}

// CHECK-LABEL: func.func @generic_input
func.func @generic_input(%n: index) {
  // CHECK:      scf.forall (%[[A:.*]], %{{.*}}) = (1, 0) to (%n, 4) step (1, 2) {
  // CHECK-NEXT:   arith.addi %[[A]], %n : index
  // CHECK-NEXT: }
  "scf.forall"(%n) <{operandSegmentSizes = array<i32: 0, 1, 0, 0>, staticLowerBound = array<i64: 1, 0>, staticStep = array<i64: 1, 2>, staticUpperBound = array<i64: -9223372036854775808, 4>}> ({
  ^bb0(%a: index, %b: index):
    %x = "arith.addi"(%a, %n) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
    "scf.forall.in_parallel"() ({
    ^bb0:
    }) : () -> ()
  }) : (index) -> ()
  return
}
