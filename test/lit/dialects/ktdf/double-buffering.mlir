// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// ktdf.buffer_phase and ktdf.select_memref (KTDF.td).

// CHECK-LABEL: func.func @phases
// CHECK: %[[PHASE:.*]] = ktdf.buffer_phase(%{{.*}}, %{{.*}}) {num_phases = 2 : i64} : index
// CHECK-NEXT: ktdf.select_memref %[[PHASE]][%{{.*}}, %{{.*}}] : memref<64xf16, #ktdp.memory_space<ct_local>>
// CHECK: ktdf.buffer_phase(%{{.*}}) {num_phases = 3 : i64} : index
// CHECK-NEXT: ktdf.select_memref %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {tag} : memref<?x?xf16, "L1">
func.func @phases(%a0: memref<64xf16, #ktdp.memory_space<ct_local>>, %a1: memref<64xf16, #ktdp.memory_space<ct_local>>,
                  %x0: memref<?x?xf16, "L1">, %x1: memref<?x?xf16, "L1">, %x2: memref<?x?xf16, "L1">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %m = %c0 to %c4 step %c1 {
    scf.for %n = %c0 to %c4 step %c1 {
      %phase = ktdf.buffer_phase(%m, %n) {num_phases = 2 : i64} : index
      %a = ktdf.select_memref %phase[%a0, %a1] : memref<64xf16, #ktdp.memory_space<ct_local>>
      %phase3 = ktdf.buffer_phase(%m) {num_phases = 3 : i64} : index
      %x = ktdf.select_memref %phase3[%x0, %x1, %x2] {tag} : memref<?x?xf16, "L1">
    }
  }
  return
}
