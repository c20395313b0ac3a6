// --verify-diagnostics (spyre_mlir.verify_diagnostics): MLIR's expected-* annotations.

// Every form met (plain, -re with {{regex}} pieces, @+N, @below, @above, same
// line, notes, a parse error, an empty chunk); text in string literals is not
// an annotation. Exit 0; chunks without diagnostics are still printed.
// RUN: %spyre-opt %S/Inputs/expectations-ok.mlir --split-input-file --verify-diagnostics | %FileCheck %s --check-prefix=OK
// OK: func.func @strings() attributes {doc = "// expected-error {{[{][{]}}not an annotation{{[}][}]}}"
// OK: // -----
// OK-NEXT: module {
// OK-NEXT: }
// OK-NOT: func.func

// A malformed annotation is an error, never silently ignored.
// RUN: not %spyre-opt %S/Inputs/expectations-malformed.mlir --split-input-file --verify-diagnostics 2>&1 >/dev/null | %FileCheck %s --check-prefix=BAD
// BAD: expectations-malformed.mlir:3:13: error: unknown annotation 'expected-foo'
// BAD: expectations-malformed.mlir:7:13: error: unknown location '@bogus' in 'expected-error' (use @+N, @-N, @above, @below or @unknown)
// BAD: expectations-malformed.mlir:11:13: error: 'expected-error-2': MLIR's --verify-diagnostics has no count form; write one annotation per expected diagnostic
// BAD: expectations-malformed.mlir:15:13: error: unterminated '{{[{][{]}}' in 'expected-error'
// BAD: expectations-malformed.mlir:19:13: error: text after the closing '{{[}][}]}}' of 'expected-error': the annotation must end its line
// BAD: expectations-malformed.mlir:23:13: error: invalid regex '[regex'
// BAD: expectations-malformed.mlir:27:13: error: 'expected-error' must be followed by {{[{][{]}}message{{[}][}]}}
// BAD: expectations-malformed.mlir:30:4: error: expected error "a diagnostic without a location" was not produced

// A diagnostic of another kind than expected: MLIR's near-miss message.
// RUN: not %spyre-opt %S/Inputs/expectations-kind.mlir -p ktdp-normalize-memory-space --verify-diagnostics 2>&1 >/dev/null | %FileCheck %s --check-prefix=KIND
// KIND: expectations-kind.mlir:3:6: error: 'warning' diagnostic emitted when expecting a 'error'
// KIND-NEXT: // expected-error @+1
// KIND: expectations-kind.mlir:3:6: error: expected error "has no #ktdp.memory_space equivalent" was not produced
// KIND-NOT: unexpected
// ... which --verify-diagnostics=only-expected also reports, as the expectation is unmet.
// RUN: not %spyre-opt %S/Inputs/expectations-kind.mlir -p ktdp-normalize-memory-space --verify-diagnostics=only-expected 2>&1 >/dev/null | %FileCheck %s --check-prefix=ONLY
// ONLY: expectations-kind.mlir:3:6: error: expected error "has no #ktdp.memory_space equivalent" was not produced
// ONLY-NOT: warning

// only-expected ignores diagnostics nobody annotated (exit 0, nothing reported).
// RUN: %spyre-opt %S/Inputs/bad-syntax.mlir --verify-diagnostics=only-expected 2>&1 | %FileCheck %s --check-prefix=IGNORE --allow-empty
// IGNORE-NOT: error
