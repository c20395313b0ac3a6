// Errors are `FILE:LINE:COL: error: MESSAGE`, exit 1, no traceback.
// RUN: not %spyre-opt %S/Inputs/bad-syntax.mlir 2>&1 | %FileCheck %s --check-prefix=PARSE
// PARSE: bad-syntax.mlir:2:50: error: Expected ','
// PARSE-NOT: Traceback

// A verifier error points at the op.
// RUN: not %spyre-opt %S/Inputs/wrong-expectations.mlir --split-input-file 2>&1 | %FileCheck %s --check-prefix=VERIFY
// VERIFY: wrong-expectations.mlir:4:3: error: 'ktdp.construct_memory_view' op coordinate_set has 2 dims but the view has rank 1
// VERIFY-NEXT: %v = ktdp.construct_memory_view
// VERIFY-NEXT: ^
// Notes point at the other op involved.
// VERIFY: wrong-expectations.mlir:16:3: error: 'ktdp.load' op result element type f16 must match the element type f32
// VERIFY: wrong-expectations.mlir:15:3: note: access tile on a view of f32 built here

// --verify-diagnostics fails on an unmet or unexpected diagnostic, in every split chunk.
// RUN: not %spyre-opt %S/Inputs/wrong-expectations.mlir --split-input-file --verify-diagnostics 2>&1 | %FileCheck %s --check-prefix=EXPECT
// EXPECT-DAG: wrong-expectations.mlir:4:3: error: unexpected error: 'ktdp.construct_memory_view' op coordinate_set has 2 dims
// EXPECT-DAG: wrong-expectations.mlir:3:6: error: expected error "this is not what the verifier says" was not produced
// EXPECT-DAG: wrong-expectations.mlir:9:6: error: expected warning "never emitted" was not produced

// Unknown passes and pipelines are user errors too.
// RUN: not %spyre-opt %s -p no-such-pass 2>&1 | %FileCheck %s --check-prefix=PASS
// PASS: error: unknown pass 'no-such-pass'
// RUN: not %spyre-opt %s --pipeline no-such-pipeline 2>&1 | %FileCheck %s --check-prefix=PIPE
// PIPE: error: unknown pipeline 'no-such-pipeline'; available: default
// RUN: not %spyre-opt %s -p 'cse{' 2>&1 | %FileCheck %s --check-prefix=SPEC
// SPEC: error: invalid pass pipeline 'cse{'
// RUN: not %spyre-opt %S/Inputs/does-not-exist.mlir 2>&1 | %FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot read '{{.*}}does-not-exist.mlir'

func.func @ok() {
  return
}
