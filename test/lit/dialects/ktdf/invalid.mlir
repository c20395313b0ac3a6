// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per verifier rule of the ktdf dialect (docs/ktdf.md). Messages
// are upstream's (dataflow-scheduler-mlir-dialects KTDFOps.cpp, or MLIR's ODS
// wording) where upstream has the rule; the token and FIFO-slot rules across
// stages, element counts and nesting in a stage are ours.

// -----
// Types: a slot holds a positive number of elements ...
// expected-error @+1 {{a FIFO slot holds a positive number of elements, got 0}}
func.func private @zero(!ktdf.fifo.slot<"a" -> "b", 0xf16>)

// -----
// ... of one scalar type: `NxT`, not a shape ...
// expected-error @+1 {{a FIFO slot holds a number of elements of one type: expected `NxT` or `?xT` (e.g. 64xf16)}}
func.func private @shape(!ktdf.fifo.slot<"a" -> "b", 4x4xf16>)

// -----
// ... from a source unit to a destination unit.
// expected-error @+1 {{Expected '->'}}
func.func private @no_arrow(!ktdf.fifo.slot<"a", 4xf16>)

// -----
// expected-error @+1 {{unknown loop type 'vector_loop', expected one of: parallel_loop, reduction_loop}}
func.func private @loop() attributes {loop_type = #ktdf.loop_type<vector_loop>}

// -----
// Pipeline: only stages and one private region inside.
func.func @pipeline_child() {
  // expected-error @+1 {{'ktdf.pipeline' op immediate children must be 'ktdf.stage' or 'ktdf.private' ops}}
  ktdf.pipeline {
    // expected-note @+1 {{found 'arith.constant' op}}
    %c = arith.constant 0 : index
  }
  return
}

// -----
func.func @two_privates() {
  // expected-error @+1 {{'ktdf.pipeline' op at most one immediate 'ktdf.private' child is allowed}}
  ktdf.pipeline {
    // expected-note @+1 {{previous 'ktdf.private' is here}}
    ktdf.private {
    }
    ktdf.private {
    }
  }
  return
}

// -----
func.func @modulo() {
  // expected-error @+1 {{attribute 'modulo' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  ktdf.pipeline modulo(size: 0) {
  }
  return
}

// -----
// Private region: in a pipeline, yielding its results.
func.func @private_outside() {
  // expected-error @+1 {{'ktdf.private' op expects parent op 'ktdf.pipeline'}}
  ktdf.private {
  }
  return
}

// -----
func.func @yield_count() {
  ktdf.pipeline {
    // expected-error @+1 {{'ktdf.private' op yield operands count (1) must match results count (2)}}
    %p:2 = ktdf.private -> (!ktdf.token, !ktdf.token) {
      %t = ktdf.create_token : !ktdf.token
      // expected-note @+1 {{yield here}}
      ktdf.private_yield %t : !ktdf.token
    }
  }
  return
}

// -----
func.func @yield_type() {
  ktdf.pipeline {
    // expected-error @+1 {{'ktdf.private' op yield operand type !ktdf.token must match result type index}}
    %p = ktdf.private -> (index) {
      %t = ktdf.create_token : !ktdf.token
      // expected-note @+1 {{yield here}}
      ktdf.private_yield %t : !ktdf.token
    }
  }
  return
}

// -----
func.func @yield_outside() {
  // expected-error @+1 {{'ktdf.private_yield' op expects parent op 'ktdf.private'}}
  ktdf.private_yield
}

// -----
// FIFO slots are allocated in a private region ...
func.func @allocate_outside() {
  // expected-error @+1 {{'ktdf.fifo.allocate' op expects parent op 'ktdf.private'}}
  %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
  return
}

// -----
// ... one size operand per `?` ...
func.func @dynamic_sizes(%n: index) {
  ktdf.pipeline {
    ktdf.private {
      // expected-error @+1 {{'ktdf.fifo.allocate' op number of dynamic size operands (1) must match number of dynamic sizes in result types (0)}}
      %s = ktdf.fifo.allocate(%n) -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
  }
  return
}

// -----
// ... and at least one slot.
func.func @no_slot() {
  ktdf.pipeline {
    ktdf.private {
      // expected-error @+1 {{'ktdf.fifo.allocate' op expects at least one FIFO slot result}}
      "ktdf.fifo.allocate"() : () -> ()
    }
  }
  return
}

// -----
// Stages: in a pipeline ...
func.func @stage_outside() {
  %t = ktdf.create_token : !ktdf.token
  // expected-error @+1 {{'ktdf.stage' op expects parent op 'ktdf.pipeline'}}
  ktdf.stage depends_in(none) depends_out(%t) {
  }
  return
}

// -----
// ... with tokens as dependencies ...
func.func @not_a_token(%i: index) {
  %t = ktdf.create_token : !ktdf.token
  ktdf.pipeline {
    // expected-error @+1 {{'ktdf.stage' op operand #0 must be variadic of KTDF token type for dataflow synchronization, but got 'index'}}
    "ktdf.stage"(%i, %t) <{operandSegmentSizes = array<i32: 1, 1>}> ({
      %c = arith.constant 0 : index
    }) : (index, !ktdf.token) -> ()
  }
  return
}

// -----
// ... signaling at least one token ...
func.func @no_depends_out() {
  ktdf.pipeline {
    // expected-error @+1 {{'ktdf.stage' op expects at least one 'depends_out' token: a stage signals the stages that depend on it}}
    ktdf.stage depends_in(none) depends_out(none) {
    }
  }
  return
}

// -----
// ... made by ktdf.create_token (upstream's rule) ...
func.func @token_argument(%t: !ktdf.token) {
  ktdf.pipeline {
    // expected-error @+1 {{'ktdf.stage' op depends_out operand must originate from ktdf.create_token or ktdf.private operation yielding a token created by ktdf.create_token}}
    ktdf.stage depends_in(none) depends_out(%t) {
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
    // expected-error @+1 {{'ktdf.stage' op depends_in lists token %t twice}}
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
    // expected-note @+1 {{stage #0 signals it here}}
    ktdf.stage depends_in(none) depends_out(%t) {
    }
    // expected-error @+1 {{'ktdf.stage' op stage #1 signals token %t, which stage #0 signals already: a token is signaled (depends_out) by exactly one stage of a pipeline}}
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
    // expected-error @+1 {{'ktdf.stage' op stage #0 waits for token %t that no stage of the pipeline signals}}
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
    // expected-error @+1 {{'ktdf.stage' op stage #0 waits for token %t that it signals itself}}
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
    // expected-error @+1 {{'ktdf.stage' op stage #0 waits for token %t that stage #1, after it, signals: a stage comes after the stages signaling its depends_in tokens}}
    ktdf.stage depends_in(%t) depends_out(%u) {
    }
    // expected-note @+1 {{stage #1 signals it here}}
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
    // expected-note @+1 {{stage #0 writes it here}}
    ktdf.stage depends_in(none) depends_out(%p#1) {
      ktdf.write_to_fifo %v, %p#0 : tensor<4xf32>, <"a" -> "b", 4xf32>
    }
    // expected-error @+1 {{'ktdf.stage' op stage #1 writes FIFO slot %p#0, which stage #0 writes already: a slot is written by exactly one stage}}
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
    // expected-note @+1 {{stage #1 reads it here}}
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
    // expected-error @+1 {{'ktdf.stage' op stage #2 reads FIFO slot %p#0, which stage #1 reads already: a slot is read by exactly one stage}}
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
    // expected-error @+1 {{'ktdf.stage' op stage #0 writes FIFO slot %p#0 that no stage reads}}
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
    // expected-error @+1 {{'ktdf.stage' op stage #0 reads FIFO slot %p#0 that no stage writes}}
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
    // expected-error @+1 {{'ktdf.stage' op stage #0 reads FIFO slot %p#0 that it writes itself: a slot is read by a later stage than the one writing it}}
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
    // expected-error @+1 {{'ktdf.stage' op stage #0 reads FIFO slot %p#0 that stage #1, after it, writes: a slot is read by a later stage than the one writing it}}
    ktdf.stage depends_in(none) depends_out(%p#1) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
    // expected-note @+1 {{stage #1 writes it here}}
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      ktdf.write_to_fifo %v, %p#0 : tensor<4xf32>, <"a" -> "b", 4xf32>
    }
  }
  return
}

// -----
// Transfers: exactly one side is a FIFO slot ...
func.func @two_memrefs(%a: memref<8x4xf32>, %i: index, %j: index) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.data_transfer' op expects exactly one of source and destination to be a FIFO slot, got two memrefs}}
      ktdf.data_transfer from %a[%i, %j] size [1, 4] to %a[%j, %i] size [1, 4] : memref<8x4xf32>, memref<8x4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----

func.func @two_slots(%a: memref<8x4xf32>, %i: index, %j: index) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.data_transfer' op expects exactly one of source and destination to be a FIFO slot, got two FIFO slots}}
      ktdf.data_transfer from %p#0 to %p#0 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... the other a memref ...
func.func @tensor_side(%t: tensor<4xf32>, %v: tensor<4xf32>) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.data_transfer' op operand #0 must be memref of any type values or KTDF FIFO slot type for dataflow buffering, but got 'tensor<4xf32>'}}
      "ktdf.data_transfer"(%t, %p#0) <{static_source_sizes = array<i64: 4>, operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0>}> : (tensor<4xf32>, !ktdf.fifo.slot<"a" -> "b", 4xf32>) -> ()
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... with one index per dim ...
func.func @index_count(%a: memref<8x4xf32>, %i: index, %j: index) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.data_transfer' op source memref has rank 2 but source_map has 1 results}}
      ktdf.data_transfer from %a[%i] size [1, 4] to %p#0 : memref<8x4xf32>, !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... and one size per dim ...
func.func @size_count(%a: memref<8x4xf32>, %i: index, %j: index) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.data_transfer' op source size count (1) must match memref rank (2)}}
      ktdf.data_transfer from %a[%i, %j] size [4] to %p#0 : memref<8x4xf32>, !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----

func.func @no_size(%a: memref<8x4xf32>, %i: index, %j: index) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.data_transfer' op source size count (0) must match memref rank (2)}}
      ktdf.data_transfer from %a[%i, %j] to %p#0 : memref<8x4xf32>, !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... positive ...
func.func @size_zero(%a: memref<8x4xf32>, %i: index, %j: index) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.data_transfer' op source sizes must be positive, got [0, 4]}}
      ktdf.data_transfer from %a[%i, %j] size [0, 4] to %p#0 : memref<8x4xf32>, !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... static ...
func.func @dynamic_size(%a: memref<8x4xf32>, %i: index, %j: index) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.data_transfer' op dynamic source sizes are not supported: the sizes of a transfer are static}}
      "ktdf.data_transfer"(%a, %i, %j, %i, %p#0) <{source_map = affine_map<(d0, d1) -> (d0, d1)>, static_source_sizes = array<i64: 1, -9223372036854775808>, operandSegmentSizes = array<i32: 1, 2, 1, 1, 0, 0>}> : (memref<8x4xf32>, index, index, index, !ktdf.fifo.slot<"a" -> "b", 4xf32>) -> ()
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... subscripts of dims only ...
func.func @symbol_subscript(%a: memref<8x4xf32>, %i: index, %j: index) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.data_transfer' op source_map must have 0 symbols (dims-only); got 1}}
      ktdf.data_transfer from %a[symbol(%i), %j] size [1, 4] to %p#0 : memref<8x4xf32>, !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... none on the slot side ...
func.func @slot_indices(%a: memref<8x4xf32>, %i: index, %j: index) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.data_transfer' op FIFO slot dest cannot have indices specified}}
      "ktdf.data_transfer"(%a, %i, %j, %p#0, %i) <{source_map = affine_map<(d0, d1) -> (d0, d1)>, static_source_sizes = array<i64: 1, 4>, operandSegmentSizes = array<i32: 1, 2, 0, 1, 1, 0>}> : (memref<8x4xf32>, index, index, !ktdf.fifo.slot<"a" -> "b", 4xf32>, index) -> ()
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
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
      // expected-error @+1 {{'ktdf.data_transfer' op source size [1, 2] moves 2 elements but the FIFO slot holds 4: a transfer fills or drains its slot exactly}}
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
      // expected-error @+1 {{'ktdf.data_transfer' op dest size [2] moves 2 elements but the FIFO slot holds 4: a transfer fills or drains its slot exactly}}
      ktdf.data_transfer from %a[%i, %j] size [1, 4] to %p#0 size [2] : memref<8x4xf32>, !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// ... of the slot's element type.
func.func @transfer_type(%h: memref<8x4xf16>, %i: index, %j: index, %v: tensor<4xf32>) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.data_transfer' op failed to verify that all of {source, destination} have same element type}}
      ktdf.data_transfer from %h[%i, %j] size [1, 4] to %p#0 : memref<8x4xf16>, !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----
// Reads and writes: a tensor of the slot's element count ...
func.func @read_count(%v: tensor<4xf32>) {
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
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      // expected-error @+1 {{'ktdf.read_from_fifo' op result tensor<2xf32> has 2 elements but the FIFO slot holds 4: a slot holds one tile}}
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<2xf32>
    }
  }
  return
}

// -----
// ... and element type ...
func.func @read_type(%v: tensor<4xf32>) {
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
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      // expected-error @+1 {{'ktdf.read_from_fifo' op failed to verify that all of {fifo_slot, result} have same element type}}
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf16>
    }
  }
  return
}

// -----
// ... a tensor, not a memref ...
func.func @read_memref(%v: tensor<4xf32>) {
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
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      // expected-error @+1 {{'ktdf.read_from_fifo' op result must be ranked tensor of any type values, but got 'memref<4xf32>'}}
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> memref<4xf32>
    }
  }
  return
}

// -----

func.func @write_count(%w: tensor<2x4xf32>) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.write_to_fifo' op data tensor<2x4xf32> has 8 elements but the FIFO slot holds 4: a slot holds one tile}}
      ktdf.write_to_fifo %w, %p#0 : tensor<2x4xf32>, <"a" -> "b", 4xf32>
    }
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> tensor<4xf32>
    }
  }
  return
}

// -----

func.func @write_type(%w: tensor<4xi32>) {
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token) {
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"a" -> "b", 4xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      %t2 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1, %t2 : !ktdf.fifo.slot<"a" -> "b", 4xf32>, !ktdf.token, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#1) {
      // expected-error @+1 {{'ktdf.write_to_fifo' op failed to verify that all of {data, fifo_slot} have same element type}}
      ktdf.write_to_fifo %w, %p#0 : tensor<4xi32>, <"a" -> "b", 4xf32>
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
      // expected-error @+1 {{'ktdf.read_from_fifo' op expects ancestor op 'ktdf.stage'}}
      %r = ktdf.read_from_fifo %s : <"a" -> "b", 4xf32> -> tensor<4xf32>
      ktdf.private_yield %s : !ktdf.fifo.slot<"a" -> "b", 4xf32>
    }
  }
  return
}
