// RUN: %spyre-opt %s --split-input-file -p ktdf-check-schedule --verify-diagnostics | %FileCheck %s

// Each rule of a well-formed schedule that upstream's verifiers leave to its
// passes: the IR verifies, and ktdf-check-schedule warns at the op breaking
// the rule, leaving the IR as it was.

// CHECK-LABEL: func.func @well_formed
// CHECK: ktdf.stage depends_in(none) depends_out(%[[T:[^)]*]]) {
// CHECK: ktdf.stage depends_in(%[[T]]) depends_out(none) {
// CHECK-LABEL: func.func @token_twice
// CHECK: ktdf.stage depends_in(%[[U:[^,]*]], %[[U]]) depends_out
func.func @well_formed(%v: tensor<4xf32>) {
  ktdf.pipeline {
    %p:2 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      ktdf.write_to_fifo %v, %p#0 : tensor<4xf32>, <"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(none) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... each listed once.
func.func @token_twice() {
  %t = ktdf.create_token : !ktdf.token
  %u = ktdf.create_token : !ktdf.token
  ktdf.pipeline {
    ktdf.stage depends_in(none) depends_out(%t) {
    }
    // expected-warning @+1 {{depends_in lists token %t twice}}
    ktdf.stage depends_in(%t, %t) depends_out(%u) {
    }
  }
  return
}

// -----
// A token is signaled by exactly one stage of its pipeline ...
func.func @two_signalers() {
  %t = ktdf.create_token : !ktdf.token
  ktdf.pipeline {
    // expected-remark @+1 {{stage #0 signals it here}}
    ktdf.stage depends_in(none) depends_out(%t) {
    }
    // expected-warning @+1 {{stage #1 signals token %t, which stage #0 signals already: a token is signaled (depends_out) by exactly one stage of a pipeline}}
    ktdf.stage depends_in(none) depends_out(%t) {
    }
  }
  return
}

// -----
// ... and the stages waiting for it come after that stage: a token no stage
// signals ...
func.func @never_signaled() {
  %t = ktdf.create_token : !ktdf.token
  %u = ktdf.create_token : !ktdf.token
  ktdf.pipeline {
    // expected-warning @+1 {{stage #0 waits for token %t that no stage of the pipeline signals}}
    ktdf.stage depends_in(%t) depends_out(%u) {
    }
  }
  return
}

// -----
// ... a stage waiting for itself ...
func.func @waits_for_itself() {
  %t = ktdf.create_token : !ktdf.token
  ktdf.pipeline {
    // expected-warning @+1 {{stage #0 waits for token %t that it signals itself}}
    ktdf.stage depends_in(%t) depends_out(%t) {
    }
  }
  return
}

// -----
// ... a stage waiting for a later stage.
func.func @waits_for_later() {
  %t = ktdf.create_token : !ktdf.token
  %u = ktdf.create_token : !ktdf.token
  ktdf.pipeline {
    // expected-warning @+1 {{stage #0 waits for token %t that stage #1, after it, signals: a stage comes after the stages signaling its depends_in tokens}}
    ktdf.stage depends_in(%t) depends_out(%u) {
    }
    // expected-remark @+1 {{stage #1 signals it here}}
    ktdf.stage depends_in(none) depends_out(%t) {
    }
  }
  return
}

// -----
// FIFO slots: a slot is written by exactly one stage ...
func.func @two_writers(%v: tensor<4xf32>) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    // expected-remark @+1 {{stage #0 writes it here}}
    ktdf.stage depends_in(none) depends_out(%p#1) {
      ktdf.write_to_fifo %v, %p#0 : tensor<4xf32>, <"a" -> "b", 4xf32>
    }
    // expected-warning @+1 {{stage #1 writes FIFO slot %p#0, which stage #0 writes already: a slot is written by exactly one stage}}
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      ktdf.write_to_fifo %v, %p#0 : tensor<4xf32>, <"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#2) depends_out(%p#3) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... and read by exactly one stage ...
func.func @two_readers(%v: tensor<4xf32>) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      ktdf.write_to_fifo %v, %p#0 : tensor<4xf32>, <"a" -> "b", 4xf32>
    }
    // expected-remark @+1 {{stage #1 reads it here}}
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
    // expected-warning @+1 {{stage #2 reads FIFO slot %p#0, which stage #1 reads already: a slot is read by exactly one stage}}
    ktdf.stage depends_in(%p#2) depends_out(%p#3) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... a slot written is read ...
func.func @never_read(%v: tensor<4xf32>) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    // expected-warning @+1 {{stage #0 writes FIFO slot %p#0 that no stage reads}}
    ktdf.stage depends_in(none) depends_out(%p#1) {
      ktdf.write_to_fifo %v, %p#0 : tensor<4xf32>, <"a" -> "b", 4xf32>
    }
  }
  return
}

// -----
// ... a slot read is written ...
func.func @never_written(%v: tensor<4xf32>) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    // expected-warning @+1 {{stage #0 reads FIFO slot %p#0 that no stage writes}}
    ktdf.stage depends_in(none) depends_out(%p#1) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... by an earlier stage: not the same one ...
func.func @read_by_writer(%v: tensor<4xf32>) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    // expected-warning @+1 {{stage #0 reads FIFO slot %p#0 that it writes itself: a slot is read by a later stage than the one writing it}}
    ktdf.stage depends_in(none) depends_out(%p#1) {
      ktdf.write_to_fifo %v, %p#0 : tensor<4xf32>, <"a" -> "b", 4xf32>
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... nor a later one.
func.func @read_before_write(%v: tensor<4xf32>) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    // expected-warning @+1 {{stage #0 reads FIFO slot %p#0 that stage #1, after it, writes: a slot is read by a later stage than the one writing it}}
    ktdf.stage depends_in(none) depends_out(%p#1) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
    // expected-remark @+1 {{stage #1 writes it here}}
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      ktdf.write_to_fifo %v, %p#0 : tensor<4xf32>, <"a" -> "b", 4xf32>
    }
  }
  return
}

// -----
// ... moving exactly the slot's element count ...
func.func @transfer_count(%a: memref<8x4xf32>, %i: index, %j: index) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-warning @+1 {{source size [1, 2] moves 2 elements but the FIFO slot holds 4: a transfer fills or drains its slot exactly}}
      ktdf.data_transfer from %a[%i, %j] size [1, 2] to %p#0 : memref<8x4xf32>, !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----

func.func @slot_side_count(%a: memref<8x4xf32>, %i: index, %j: index) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-warning @+1 {{dest size [2] moves 2 elements but the FIFO slot holds 4: a transfer fills or drains its slot exactly}}
      ktdf.data_transfer from %a[%i, %j] size [1, 4] to %p#0 size [2] : memref<8x4xf32>, !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// Slots are read, written and transferred inside a stage.
func.func @read_outside() {
  ktdf.pipeline {
    %p = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      // expected-warning @+1 {{'ktdf.read_from_fifo' outside a 'ktdf.stage': it belongs to no step of a pipeline}}
      %r = ktdf.read_from_fifo %s : <"a" -> "b", 4xf32> -> tensor<4xf32>
      ktdf.private_yield %s : !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
  }
  return
}

// -----
// A slot holds at least one element (upstream's type reads a count of 0).
func.func @empty_slot() -> !ktdf.fifo.slot<"a" -> "b", 0xf32> {
  // expected-warning @+1 {{FIFO slot %s holds no elements}}
  %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 0xf32>
  return %s : !ktdf.fifo.slot<"a" -> "b", 0xf32>
}
