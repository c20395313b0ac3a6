// RUN: %spyre-opt %s --split-input-file --verify-diagnostics
// arith verifiers (dialects/arith.py) with MLIR's messages: real MLIR
// (iree-opt --verify-diagnostics) meets the same expectations, see
// test/unit/test_verifier_parity.py.

func.func @shape(%a: tensor<4xi32>) {
  // expected-error @+1 {{'arith.sitofp' op failed to verify that input and output have the same tensor dimensions}}
  %f = arith.sitofp %a : tensor<4xi32> to tensor<8xf32>
  return
}

// -----

func.func @scalar_to_tensor(%a: i32) {
  // expected-error @+1 {{'arith.index_cast' op failed to verify that input and output have the same tensor dimensions}}
  %f = arith.index_cast %a : i32 to tensor<4xindex>
  return
}

// -----

func.func @trunc_widens(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand type 'tensor<4xi32>' and result type 'tensor<4xi64>' are cast incompatible}}
  %t = arith.trunci %a : tensor<4xi32> to tensor<4xi64>
  return
}

// -----

func.func @index_to_index(%a: tensor<4xindex>) {
  // expected-error @+1 {{'arith.index_cast' op operand type 'tensor<4xindex>' and result type 'tensor<4xindex>' are cast incompatible}}
  %t = arith.index_cast %a : tensor<4xindex> to tensor<4xindex>
  return
}

// -----

func.func @select_shapes(%c: tensor<4xi1>, %x: tensor<8xf32>) {
  // expected-error @+1 {{'arith.select' op failed to verify that condition is signless i1 or has matching shape}}
  %s = arith.select %c, %x, %x : tensor<4xi1>, tensor<8xf32>
  return
}

// -----

func.func @bad_predicate(%a: i32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge]}}
  %c = arith.cmpi less, %a, %a : i32
  return
}

// -----

func.func @extf_narrows(%a: f32) -> f16 {
  // expected-error @+1 {{'arith.extf' op operand type 'f32' and result type 'f16' are cast incompatible}}
  %0 = arith.extf %a : f32 to f16
  return %0 : f16
}

// -----

func.func @extf_same_width(%a: tensor<4xbf16>) -> tensor<4xf16> {
  // expected-error @+1 {{'arith.extf' op operand type 'tensor<4xbf16>' and result type 'tensor<4xf16>' are cast incompatible}}
  %0 = arith.extf %a : tensor<4xbf16> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @truncf_widens(%a: f16) -> f32 {
  // expected-error @+1 {{'arith.truncf' op operand type 'f16' and result type 'f32' are cast incompatible}}
  %0 = arith.truncf %a : f16 to f32
  return %0 : f32
}

// -----

func.func @extsi_same_width(%a: i32) -> i32 {
  // expected-error @+1 {{'arith.extsi' op operand type 'i32' and result type 'i32' are cast incompatible}}
  %0 = arith.extsi %a : i32 to i32
  return %0 : i32
}

// -----

func.func @extui_narrows(%a: i32) -> i16 {
  // expected-error @+1 {{'arith.extui' op operand type 'i32' and result type 'i16' are cast incompatible}}
  %0 = arith.extui %a : i32 to i16
  return %0 : i16
}

// -----

// arith.remf and arith.index_castui: MLIR's ops that xDSL 0.75 lacks.
// expected-note @+1 {{prior use here}}
func.func @remf_types(%a: f32, %b: f16) -> f32 {
  // expected-error @+1 {{use of value '%b' expects different type than prior uses: 'f32' vs 'f16'}}
  %0 = arith.remf %a, %b : f32
  return %0 : f32
}

// -----

func.func @index_castui_incompatible(%a: i32) -> i64 {
  // expected-error @+1 {{'arith.index_castui' op operand type 'i32' and result type 'i64' are cast incompatible}}
  %0 = arith.index_castui %a : i32 to i64
  return %0 : i64
}

// -----

// An index literal beyond 64 bits: MLIR's parser refuses it; xDSL bounds only iN literals.
func.func @index_constant_out_of_range() -> index {
  // expected-error @+1 {{integer constant out of range for attribute}}
  %c = arith.constant 18446744073709551616 : index
  return %c : index
}

// -----

func.func @index_constant_below_range() -> index {
  // expected-error @+1 {{integer constant out of range for attribute}}
  %c = arith.constant -9223372036854775809 : index
  return %c : index
}

// -----

func.func @index_constant_extremes() -> (index, index) {
  %max = arith.constant 9223372036854775807 : index
  %min = arith.constant -9223372036854775808 : index
  return %max, %min : index, index
}
