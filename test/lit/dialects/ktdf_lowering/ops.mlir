// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// Every op of dataflow-scheduler's ktdf_lowering dialect (KTDFLowering.td).
// The .td's examples write the units in parentheses; upstream's parser
// (KTDFLoweringOps.cpp) and printer use a bare list: both are read, the bare
// list is printed.

// CHECK-LABEL: func.func @td_examples
func.func @td_examples(%sfu_unit: index, %mnilu_unit: index, %mnisu_unit: index, %l1lu_unit: index, %a: f32, %b: f32) {
    // Single unit operand
    // CHECK-NEXT: ktdf_lowering.execute_on %[[SFU:[^ ]*]] {
    // CHECK-NEXT:   %{{.*}} = arith.addf %{{.*}}, %{{.*}} : f32
    // CHECK-NEXT: }
    ktdf_lowering.execute_on(%sfu_unit) {
      %result = arith.addf %a, %b : f32
    }

    // Multiple unit operands
    // CHECK-NEXT: ktdf_lowering.execute_on %[[MNILU:[^,]*]], %{{[^ ]*}} {
    // CHECK-NEXT: }
    ktdf_lowering.execute_on(%mnilu_unit, %mnisu_unit) {
      // Operations for multiple units
    }

    // Signal between MNILU and L1LU
    // CHECK-NEXT: ktdf_lowering.signal %[[MNILU]], %[[L1LU:.*]]{{$}}
    ktdf_lowering.signal(%mnilu_unit, %l1lu_unit)

    // Signal between L1LU and SFU
    // CHECK-NEXT: ktdf_lowering.signal %[[L1LU]], %[[SFU]]{{$}}
    ktdf_lowering.signal(%l1lu_unit, %sfu_unit)
  return
}

// Upstream's printed form: nested, with attributes, and with no units.
// CHECK-LABEL: func.func @printed_form
func.func @printed_form(%su: index, %lu: index) {
  // CHECK-NEXT: ktdf_lowering.execute_on %[[SU:[^,]*]], %[[LU:[^ ]*]] {
  ktdf_lowering.execute_on %su, %lu {
    // CHECK-NEXT: ktdf_lowering.execute_on %[[SU]] {
    // CHECK-NEXT:   ktdf_lowering.signal %[[SU]], %[[LU]] {phase = 2 : i64}
    // CHECK-NEXT: } {unit = "su"}
    ktdf_lowering.execute_on %su {
      ktdf_lowering.signal %su, %lu {phase = 2 : i64}
    } {unit = "su"}
    // CHECK-NEXT: ktdf_lowering.execute_on {
    // CHECK-NEXT: }
    ktdf_lowering.execute_on {
    }
    // CHECK-NEXT: ktdf_lowering.signal{{$}}
    ktdf_lowering.signal
  }
  return
}
