// spyre-run executes dataflow-scheduler's public-form schedule IR
// (docs/ktdf.md, "Execution"): memref parameters take arrays, L1 buffers and
// FIFOs live per pipeline instance, and a schedule that could never finish is
// a located error.
// RUN: %python -c "import numpy; numpy.save('%t.npy', (numpy.arange(512) %% 7).astype('f2').reshape(8, 64))"
// RUN: %spyre-run %s --func double_buffered --arg src=%t.npy --arg dst=zeros:8x64xf16 --print-outputs --print-summary | %FileCheck %s
// CHECK: function: @double_buffered
// CHECK: l1 buffers peak per core: 256 bytes (memref.alloc)
// CHECK: {{^}}src: 8x64 float16
// CHECK-NEXT: {{\[\[}}0. 1. 2. 3. 4. 5. 6. 0. 1.
// CHECK: {{^}}dst: 8x64 float16
// CHECK-NEXT: {{\[\[}} 0.  2.  4.  6.  8. 10. 12.  0.  2.

// A stage waiting for a token that no stage signals: the error, at the stage.
// RUN: not %spyre-run %s --func deadlock --arg src=zeros:8x64xf16 --arg dst=zeros:8x64xf16 2>&1 | %FileCheck %s --check-prefix=DEADLOCK
// DEADLOCK: spyre-run-schedule.mlir:[[# @LINE + 55]]:5: error: stage #1 waits for token %p#2 that no stage before it signals: it could never run

func.func @double_buffered(%src: memref<8x64xf16, #ktdp.memory_space<global>>, %dst: memref<8x64xf16, #ktdp.memory_space<global>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %x0 = memref.alloc() : memref<1x64xf16, #ktdp.memory_space<ct_local>>
  %x1 = memref.alloc() : memref<1x64xf16, #ktdp.memory_space<ct_local>>
  scf.for %i = %c0 to %c8 step %c1 {
    %phase = ktdf.buffer_phase(%i) {num_phases = 2 : i64} : index
    %sel = ktdf.select_memref %phase[%x0, %x1] : memref<1x64xf16, #ktdp.memory_space<ct_local>>
    ktdf.pipeline modulo(size: 2) {
      %p:6 = ktdf.private -> (!ktdf.fifo.slot<"L1" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "L1", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token, !ktdf.token) {
        %in = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"L1" -> "SFU", 64xf16>
        %out = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"SFU" -> "L1", 64xf16>
        %t0 = ktdf.create_token : !ktdf.token
        %t1 = ktdf.create_token : !ktdf.token
        %t2 = ktdf.create_token : !ktdf.token
        %t3 = ktdf.create_token : !ktdf.token
        ktdf.private_yield %in, %out, %t0, %t1, %t2, %t3 : !ktdf.fifo.slot<"L1" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "L1", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token, !ktdf.token
      }
      ktdf.stage depends_in(none) depends_out(%p#2) {
        ktdf.data_transfer from %src[%i, %c0] size [1, 64] to %sel[%c0, %c0] size [1, 64] : memref<8x64xf16, #ktdp.memory_space<global>>, memref<1x64xf16, #ktdp.memory_space<ct_local>>
      }
      ktdf.stage depends_in(%p#2) depends_out(%p#3) {
        ktdf.data_transfer from %sel[%c0, %c0] size [1, 64] to %p#0 size [64] : memref<1x64xf16, #ktdp.memory_space<ct_local>>, !ktdf.fifo.slot<"L1" -> "SFU", 64xf16>
      }
      ktdf.stage depends_in(%p#3) depends_out(%p#4) {
        %x = ktdf.read_from_fifo %p#0 : <"L1" -> "SFU", 64xf16> -> tensor<64xf16>
        %e = tensor.empty() : tensor<64xf16>
        %y = ktdf.opaque "ADD" -> tensor<64xf16> ins(%x, %x : tensor<64xf16>, tensor<64xf16>) outs(%e : tensor<64xf16>)
        ktdf.write_to_fifo %y, %p#1 : tensor<64xf16>, <"SFU" -> "L1", 64xf16>
      } {applicable_units = ["SFU"]}
      ktdf.stage depends_in(%p#4) depends_out(%p#5) {
        ktdf.data_transfer from %p#1 size [64] to %dst[%i, %c0] size [1, 64] : !ktdf.fifo.slot<"SFU" -> "L1", 64xf16>, memref<8x64xf16, #ktdp.memory_space<global>>
      }
    }
  } {loop_type = #ktdf.loop_type<parallel_loop>}
  memref.dealloc %x0 : memref<1x64xf16, #ktdp.memory_space<ct_local>>
  memref.dealloc %x1 : memref<1x64xf16, #ktdp.memory_space<ct_local>>
  return
}

func.func @deadlock(%src: memref<8x64xf16, #ktdp.memory_space<global>>, %dst: memref<8x64xf16, #ktdp.memory_space<global>>) {
  %c0 = arith.constant 0 : index
  ktdf.pipeline {
    %p:3 = ktdf.private -> (memref<1x64xf16, "L1">, !ktdf.token, !ktdf.token) {
      %b = memref.alloc() : memref<1x64xf16, "L1">
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %b, %t0, %t1 : memref<1x64xf16, "L1">, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      ktdf.data_transfer from %src[%c0, %c0] size [1, 64] to %p#0[%c0, %c0] size [1, 64] : memref<8x64xf16, #ktdp.memory_space<global>>, memref<1x64xf16, "L1">
    }
    ktdf.stage depends_in(%p#2) depends_out(%p#1) {
      ktdf.data_transfer from %p#0[%c0, %c0] size [1, 64] to %dst[%c0, %c0] size [1, 64] : memref<1x64xf16, "L1">, memref<8x64xf16, #ktdp.memory_space<global>>
    }
  }
  return
}
