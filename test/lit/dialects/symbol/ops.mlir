// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// Every op of dataflow-scheduler's symbol dialect (Symbol.td), in upstream's
// syntax: the .td's examples where they are valid IR.

// CHECK-LABEL: func.func @symbols
func.func @symbols(%value: f32, %lb: index, %ub: index) {
  // Symbol.td's example, verbatim.
  // CHECK-NEXT: %[[S0:.*]] = symbol.create_symbol : index
  %symbol = symbol.create_symbol : index
  // CHECK-NEXT: %[[S1:.*]] = symbol.create_symbol {SymbolId = 7 : i64} : index
  %s1 = symbol.create_symbol {SymbolId = 7 : i64} : index
  // The .td's example writes `-100 : i64`, which its own `SI64Attr` rejects
  // (invalid.mlir): the ID is a signed integer.
  // CHECK-NEXT: symbol.create_id %{{.*}} {symbol_id = -100 : si64} : f32
  symbol.create_id %value { symbol_id = -100 : si64 } : f32
  // CHECK-NEXT: symbol.create_id %[[S0]] {note, symbol_id = 3 : si64} : index
  symbol.create_id %symbol {symbol_id = 3 : si64, note} : index
  // CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
  // CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK-NEXT: %[[MAP:.*]] = symbol.symbol_immutable_mapping ([%[[C0]] -> %[[S0]]], [%[[C1]] -> %[[S1]]]) : index
  %map = symbol.symbol_immutable_mapping([%c0 -> %symbol], [%c1 -> %s1]) : index
  // CHECK-NEXT: %{{.*}} = symbol.symbol_immutable_mapping () : index
  %empty = symbol.symbol_immutable_mapping() : index
  // The key: a loop's induction variable ...
  // CHECK-NEXT: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
  // CHECK-NEXT: %{{.*}} = symbol.query_map(map:%[[MAP]], key:%[[I]]) : index
  scf.for %i = %lb to %ub step %c1 {
    %q = symbol.query_map(map: %map, key: %i) : index
  }
  // ... or any value.
  // CHECK: %{{.*}} = symbol.query_map(map:%[[MAP]], key:%[[C0]]) {note} : index
  %q0 = symbol.query_map(map:%map, key:%c0) {note} : index
  return
}
