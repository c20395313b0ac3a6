// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per verifier rule of the symbol dialect. Messages are upstream's
// (Symbol.cpp of dataflow-scheduler-mlir-dialects; ODS wording for the
// attribute constraint), after MLIR's `'op' op` prefix.

// -----
// create_id: the ID is an `SI64Attr`; the .td's own example (`-100 : i64`) fails it.
func.func @signless_id(%value: f32) {
  // expected-error @+1 {{'symbol.create_id' op attribute 'symbol_id' failed to satisfy constraint: 64-bit signed integer attribute}}
  symbol.create_id %value { symbol_id = -100 : i64 } : f32
  return
}

// -----
func.func @i32_id(%value: f32) {
  // expected-error @+1 {{attribute 'symbol_id' failed to satisfy constraint: 64-bit signed integer attribute}}
  symbol.create_id %value { symbol_id = 1 : si32 } : f32
  return
}

// -----
// symbol_immutable_mapping: keys are constants ...
func.func @key_not_constant(%k: index) {
  %s = symbol.create_symbol : index
  // expected-error @+1 {{'symbol.symbol_immutable_mapping' op All keys expected to be constant operations}}
  %m = symbol.symbol_immutable_mapping([%k -> %s]) : index
  return
}

// -----
// ... values are results of symbol.create_symbol ...
func.func @value_not_symbol() {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'symbol.symbol_immutable_mapping' op Values in SymbolImmutableMapping should be results of symbol.create_symbol}}
  %m = symbol.symbol_immutable_mapping([%c0 -> %c0]) : index
  return
}

// -----
// ... as many keys as values (SameVariadicOperandSize, checked before upstream's own check can be).
func.func @sizes() {
  %c0 = arith.constant 0 : index
  %s = symbol.create_symbol : index
  // expected-error @+1 {{'symbol.symbol_immutable_mapping' op Operation has 3 operands for 2 variadic operands marked as having the same size}}
  %m = "symbol.symbol_immutable_mapping"(%c0, %s, %c0) : (index, index, index) -> index
  return
}

// -----
// query_map: the map is a symbol_immutable_mapping ...
func.func @map_not_mapping(%m: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'symbol.query_map' op map's defOp must be symbol_immutable_mapping op.}}
  %q = symbol.query_map(map:%m, key:%c0) : index
  return
}

// -----
// ... and a key that is a block argument belongs to a loop.
func.func @key_not_loop_variable(%k: index) {
  %c0 = arith.constant 0 : index
  %s = symbol.create_symbol : index
  %m = symbol.symbol_immutable_mapping([%c0 -> %s]) : index
  // expected-error @+1 {{'symbol.query_map' op key's parentOp must be a ForOp.}}
  %q = symbol.query_map(map:%m, key:%k) : index
  return
}

// -----
// Syntax: `[key -> value]` pairs.
func.func @pair_syntax() {
  %c0 = arith.constant 0 : index
  %s = symbol.create_symbol : index
  // expected-error @+1 {{Expected '->'}}
  %m = symbol.symbol_immutable_mapping([%c0, %s]) : index
  return
}
