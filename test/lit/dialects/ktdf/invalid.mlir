// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per verifier rule of the ktdf dialect (docs/ktdf.md): upstream's
// rules (KTDF.td; dataflow-scheduler-mlir-dialects KTDFOps.cpp, or MLIR's ODS
// wording), with their messages. The rules of a well-formed schedule that
// upstream leaves to its passes (tokens and FIFO slots across stages, element
// counts of a transfer, nesting in a stage) are warnings of
// `-p ktdf-check-schedule` (test/lit/passes/schedule/ktdf-check-schedule.mlir).

// -----
// Types: a slot holds a number of elements of one type: `NxT`, not a shape ...
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
      // expected-error @+1 {{'ktdf.read_from_fifo' op data total elements (2) must match FIFO slot size (4)}}
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
// ... a tensor or a memref ...
func.func @read_scalar(%v: tensor<4xf32>) {
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
      // expected-error @+1 {{'ktdf.read_from_fifo' op result #0 must be ranked tensor of any type values or memref of any type values, but got 'f32'}}
      %r = ktdf.read_from_fifo %p#0 : <"a" -> "b", 4xf32> -> f32
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
      // expected-error @+1 {{'ktdf.write_to_fifo' op data total elements (8) must match FIFO slot size (4)}}
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
// A FIFO slot and the data read from or written to it are both dynamic or
// both static ...
func.func @read_dynamic_from_static(%s: !ktdf.fifo.slot<"a" -> "b", 4xf32>) {
  // expected-error @+1 {{'ktdf.read_from_fifo' op FIFO slot and data must both be dynamic or both be static}}
  %r = ktdf.read_from_fifo %s : <"a" -> "b", 4xf32> -> memref<?xf32>
  return
}

// -----

func.func @write_static_to_dynamic(%s: !ktdf.fifo.slot<"a" -> "b", ?xf32>, %v: memref<4xf32>) {
  // expected-error @+1 {{'ktdf.write_to_fifo' op FIFO slot and data must both be dynamic or both be static}}
  ktdf.write_to_fifo %v, %s : memref<4xf32>, <"a" -> "b", ?xf32>
  return
}

// -----
// ... and a memref holds as many elements as the slot.
func.func @write_memref_count(%s: !ktdf.fifo.slot<"a" -> "b", 4xf32>, %v: memref<2x4xf32>) {
  // expected-error @+1 {{'ktdf.write_to_fifo' op data total elements (8) must match FIFO slot size (4)}}
  ktdf.write_to_fifo %v, %s : memref<2x4xf32>, <"a" -> "b", 4xf32>
  return
}

// -----
// A transfer has one size operand per dynamic size.
func.func @transfer_dynamic_count(%a: memref<4xf32>, %b: memref<4xf32>, %i: index, %n: index) {
  // expected-error @+1 {{'ktdf.data_transfer' op number of dynamic source sizes (1) must match number of dynamic entries in static_source_sizes (0)}}
  "ktdf.data_transfer"(%a, %i, %n, %b, %i) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0>, source_map = affine_map<(d0) -> (d0)>, dest_map = affine_map<(d0) -> (d0)>, static_source_sizes = array<i64: 4>, static_dest_sizes = array<i64: 4>}> : (memref<4xf32>, index, index, memref<4xf32>, index) -> ()
  return
}

// -----
// create_token's unique_id is an index.
func.func @unique_id_type() {
  // expected-error @+1 {{'ktdf.create_token' op expected index attribute}}
  %t = "ktdf.create_token"() <{unique_id = 7 : i64}> : () -> !ktdf.token
  return
}

// -----
// tiling.reserve_size: index attributes, an index result.
func.func @reserve_size_attr() {
  // expected-error @+1 {{'ktdf.tiling.reserve_size' op attribute 'min_value' failed to satisfy constraint: index attribute}}
  %ts = ktdf.tiling.reserve_size {divisibility = 1 : index, min_value = 1 : i32} : index
  return
}

// -----

func.func @reserve_size_missing() {
  // expected-error @+1 {{'ktdf.tiling.reserve_size' op property 'divisibility' expected}}
  %ts = ktdf.tiling.reserve_size {min_value = 1 : index} : index
  return
}

// -----

func.func @reserve_size_result() {
  // expected-error @+1 {{'ktdf.tiling.reserve_size' op result #0 must be index, but got 'i64'}}
  %ts = ktdf.tiling.reserve_size {divisibility = 1 : index, min_value = 1 : index} : i64
  return
}

// -----
// tiling.derive_size and tiling.linearize_index: at least one pair.
func.func @derive_size_no_pair(%n: index) {
  // expected-error @+1 {{'ktdf.tiling.derive_size' op must have at least one [iv : tile_size] pair}}
  %x = ktdf.tiling.derive_size total_size = %n : index
  return
}

// -----

func.func @linearize_index_no_pair() {
  // expected-error @+1 {{'ktdf.tiling.linearize_index' op must have at least one [iv : stride] pair}}
  %x = ktdf.tiling.linearize_index : index
  return
}

// -----
// parallel: at least one induction variable and the instance id ...
func.func @parallel_no_iv(%c0: index) {
  // expected-error @+1 {{expected at least one induction variable plus an instance id (got 1 block arguments)}}
  ktdf.parallel (%inst) = () to () step () distribute(num_instances = 2) {
    ktdf.parallel_yield
  }
  return
}

// -----
// ... one bound per induction variable ...
func.func @parallel_bounds(%c0: index, %c1: index) {
  // expected-error @+1 {{expected 1 upper bounds, got 2}}
  ktdf.parallel (%i, %inst) = (%c0) to (%c1, %c1) step (%c1) distribute(num_instances = 2) {
    ktdf.parallel_yield
  }
  return
}

// -----
// ... at least one instance ...
func.func @parallel_instances(%c0: index, %c1: index) {
  // expected-error @+1 {{'ktdf.parallel' op expected num_instances >= 1, got 0}}
  ktdf.parallel (%i, %inst) = (%c0) to (%c1) step (%c1) distribute(num_instances = 0) {
    ktdf.parallel_yield
  }
  return
}

// -----
// ... its block arguments the IVs and the instance id ...
func.func @parallel_args(%c0: index, %c1: index) {
  // expected-error @+1 {{'ktdf.parallel' op expected 2 block arguments (one per induction variable plus the instance id), got 1}}
  "ktdf.parallel"(%c0, %c1, %c1) <{num_instances = 2 : i64}> ({
  ^bb0(%i: index):
    ktdf.parallel_yield
  }) : (index, index, index) -> ()
  return
}

// -----

func.func @parallel_arg_types(%c0: index, %c1: index) {
  // expected-error @+1 {{'ktdf.parallel' op all block arguments (induction variables and instance id) must be of type index}}
  "ktdf.parallel"(%c0, %c1, %c1) <{num_instances = 2 : i64}> ({
  ^bb0(%i: index, %inst: i32):
    ktdf.parallel_yield
  }) : (index, index, index) -> ()
  return
}

// -----
// ... ending in ktdf.parallel_yield.
func.func @parallel_terminator(%c0: index, %c1: index) {
  // expected-error @+1 {{'ktdf.parallel' op region must be terminated by a ktdf.parallel_yield operation}}
  ktdf.parallel (%i, %inst) = (%c0) to (%c1) step (%c1) distribute(num_instances = 2) {
    %s = arith.addi %i, %inst : index
  }
  return
}

// -----

func.func @parallel_yield_parent() {
  // expected-error @+1 {{'ktdf.parallel_yield' op expects parent op 'ktdf.parallel'}}
  ktdf.parallel_yield
}

// -----
// buffer_phase: at least one IV, at least two phases.
func.func @buffer_phase_no_iv() {
  // expected-error @+1 {{'ktdf.buffer_phase' op requires at least one induction variable operand}}
  %p = ktdf.buffer_phase() {num_phases = 2 : i64} : index
  return
}

// -----

func.func @buffer_phase_one_phase(%i: index) {
  // expected-error @+1 {{'ktdf.buffer_phase' op attribute 'num_phases' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 2}}
  %p = ktdf.buffer_phase(%i) {num_phases = 1 : i64} : index
  return
}

// -----
// select_memref: at least two candidates of the result type ...
func.func @select_one(%p: index, %a: memref<4xf16>) {
  // expected-error @+1 {{'ktdf.select_memref' op requires at least 2 candidate memrefs, got 1}}
  %x = ktdf.select_memref %p[%a] : memref<4xf16>
  return
}

// -----

func.func @select_types(%p: index, %a: memref<4xf16>, %b: memref<8xf16>) {
  // expected-error @+1 {{'ktdf.select_memref' op failed to verify that all of {candidates} have the type of result}}
  %x = "ktdf.select_memref"(%p, %a, %b) : (index, memref<4xf16>, memref<8xf16>) -> memref<4xf16>
  return
}

// -----
// ... as many as the phases of its buffer_phase.
func.func @select_phases(%i: index, %a: memref<4xf16>, %b: memref<4xf16>) {
  %p = ktdf.buffer_phase(%i) {num_phases = 3 : i64} : index
  // expected-error @+1 {{'ktdf.select_memref' op phase op num_phases (3) must equal candidate count (2)}}
  %x = ktdf.select_memref %p[%a, %b] : memref<4xf16>
  return
}

// -----
// opaque: one tensor result per tensor output, of its type.
func.func @opaque_results(%a: tensor<4xf16>, %o: tensor<4xf16>) {
  // expected-error @+1 {{'ktdf.opaque' op expected the number of tensor results (0) to be equal to the number of output tensors (1)}}
  ktdf.opaque "ADD" ins(%a: tensor<4xf16>) outs(%o: tensor<4xf16>)
  return
}

// -----

func.func @opaque_result_type(%a: tensor<4xf16>, %o: tensor<4xf16>) {
  // expected-error @+1 {{'ktdf.opaque' op expected type of operand #1 (tensor<4xf16>) to match type of corresponding result (tensor<8xf16>)}}
  %r = ktdf.opaque "ADD" -> tensor<8xf16> ins(%a: tensor<4xf16>) outs(%o: tensor<4xf16>)
  return
}
