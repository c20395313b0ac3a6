// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// Forms upstream's verifiers accept that a stricter reading of the dialect
// refused: transfers between two memrefs and of dynamic sizes, memref FIFO
// reads and writes, a stage signaling nothing, FIFO ends given as
// attributes, fifo.allocate outside ktdf.private, create_token's unique_id.

// CHECK-LABEL: func.func @memref_to_memref
// CHECK: ktdf.data_transfer from %{{.*}}[%{{.*}}, %{{.*}}] size [1, 64] to %{{.*}}[%{{.*}}] size [64] : memref<4x64xf16, "DDR">, memref<64xf16, "L1">
// CHECK: ktdf.data_transfer from %{{.*}}[%{{.*}} + %{{.*}}, %{{.*}}] size [1, %[[K:.*]]] to %{{.*}}[%{{.*}}] size [%[[K]]] : memref<4x64xf16, "DDR">, memref<64xf16, "L1">
// CHECK: ktdf.data_transfer from %{{.*}}[] size [] to %{{.*}}[] size [] : memref<f16>, memref<f16>
func.func @memref_to_memref(%A: memref<4x64xf16, "DDR">, %B: memref<64xf16, "L1">, %m: index, %n: index, %k: index,
                            %s0: memref<f16>, %s1: memref<f16>) {
  %c0 = arith.constant 0 : index
  %t = ktdf.create_token : !ktdf.token
  ktdf.pipeline {
    ktdf.stage depends_in(none) depends_out(%t) {
      ktdf.data_transfer from %A[%m, %n] size [1, 64] to %B[%c0] size [64] : memref<4x64xf16, "DDR">, memref<64xf16, "L1">
      ktdf.data_transfer from %A[%m + %n, %c0] size [1, %k] to %B[%c0] size [%k]
        : memref<4x64xf16, "DDR">, memref<64xf16, "L1">
      ktdf.data_transfer from %s0[] size [] to %s1[] size [] : memref<f16>, memref<f16>
    }
  }
  return
}

// CHECK-LABEL: func.func @memref_fifo_ends
// CHECK: ktdf.private -> (!ktdf.fifo.slot<#ktdp.memory_space<global> -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> #ktdp.memory_space<ct_local>, 64xf16>, !ktdf.token)
// CHECK: ktdf.stage depends_in(none) depends_out(%[[T:.*]]) {
// CHECK-NEXT: ktdf.write_to_fifo %{{.*}}, %{{.*}} : memref<1x64xf16, "SFU_REG">, <#ktdp.memory_space<global> -> "SFU", 64xf16>
// CHECK: ktdf.stage depends_in(%[[T]]) depends_out(none) {
// CHECK-NEXT: ktdf.read_from_fifo %{{.*}} : <#ktdp.memory_space<global> -> "SFU", 64xf16> -> memref<64xf16>
func.func @memref_fifo_ends(%buf: memref<1x64xf16, "SFU_REG">) {
  ktdf.pipeline {
    %p:3 = ktdf.private -> (!ktdf.fifo.slot<#ktdp.memory_space<global> -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> #ktdp.memory_space<ct_local>, 64xf16>, !ktdf.token) {
      %f0 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<#ktdp.memory_space<global> -> "SFU", 64xf16>
      %f1 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"SFU" -> #ktdp.memory_space<ct_local>, 64xf16>
      %t = ktdf.create_token : !ktdf.token
      ktdf.private_yield %f0, %f1, %t : !ktdf.fifo.slot<#ktdp.memory_space<global> -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> #ktdp.memory_space<ct_local>, 64xf16>, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#2) {
      ktdf.write_to_fifo %buf, %p#0 : memref<1x64xf16, "SFU_REG">, <#ktdp.memory_space<global> -> "SFU", 64xf16>
    }
    ktdf.stage depends_in(%p#2) depends_out(none) {
      %r = ktdf.read_from_fifo %p#0 : <#ktdp.memory_space<global> -> "SFU", 64xf16> -> memref<64xf16>
    }
  }
  return
}

// A slot allocated outside ktdf.private; a dynamic slot read into a memref of dynamic shape.
// CHECK-LABEL: func.func @allocate_anywhere
// CHECK: %[[S:.*]] = ktdf.fifo.allocate(%{{.*}}) -> !ktdf.fifo.slot<"L1LU" -> "SFU", ?xf16>
// CHECK: ktdf.read_from_fifo %[[S]] : <"L1LU" -> "SFU", ?xf16> -> memref<?xf16>
// CHECK: ktdf.fifo.allocate() {tag} -> !ktdf.fifo.slot<"a" -> "b", 1xf16>
func.func @allocate_anywhere(%n: index) {
  %s = ktdf.fifo.allocate(%n) -> !ktdf.fifo.slot<"L1LU" -> "SFU", ?xf16>
  %t = ktdf.create_token : !ktdf.token
  ktdf.pipeline {
    ktdf.stage depends_in(none) depends_out(%t) {
      %r = ktdf.read_from_fifo %s : <"L1LU" -> "SFU", ?xf16> -> memref<?xf16>
    }
  }
  %one = ktdf.fifo.allocate() {tag} -> !ktdf.fifo.slot<"a" -> "b", 1xf16>
  return
}

// create_token's unique_id (an index property upstream) is read and kept; the
// custom form leaves it out, as upstream's does.
// CHECK-LABEL: func.func @unique_id
// CHECK: ktdf.create_token : !ktdf.token
// CHECK: ktdf.create_token {note} : !ktdf.token
func.func @unique_id() -> (!ktdf.token, !ktdf.token) {
  %a = "ktdf.create_token"() <{unique_id = 7 : index}> : () -> !ktdf.token
  %b = ktdf.create_token {note} : !ktdf.token
  return %a, %b : !ktdf.token, !ktdf.token
}
