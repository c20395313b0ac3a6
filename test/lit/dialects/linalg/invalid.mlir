// RUN: %spyre-opt %s --split-input-file --verify-diagnostics
// MLIR's linalg.fill and linalg.yield checks (dialects/linalg.py); real MLIR
// meets the same expectations (test/unit/test_verifier_parity.py).

func.func @fill_type(%a: f16, %t: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.fill' op expected fill value type ('f16') to match output element type ('f32')}}
  %0 = linalg.fill ins(%a : f16) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @generic_yield_type(%a: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%t : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %h = arith.truncf %x : f32 to f16
    // expected-error @+1 {{'linalg.yield' op type of yield operand 1 ('f16') doesn't match the element type of the enclosing linalg.generic op ('f32')}}
    linalg.yield %h : f16
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @generic_yield_count(%a: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%t : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    // expected-error @+1 {{'linalg.yield' op expected number of yield values (2) to match the number of inits / outs operands of the enclosing LinalgOp (1)}}
    linalg.yield %x, %y : f32, f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_yield_type(%a: tensor<4x8xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%t : tensor<4xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %h = arith.truncf %x : f32 to f16
      // expected-error @+1 {{'linalg.yield' op type of yield operand 1 ('f16') doesn't match the element type of the enclosing linalg.generic op ('f32')}}
      linalg.yield %h : f16
    }
  return %0 : tensor<4xf32>
}

// -----

func.func @yield_outside_linalg(%x: f32) {
  // expected-error @+1 {{'linalg.yield' op expected parent op with LinalgOp interface}}
  linalg.yield %x : f32
}

// -----

func.func @reduce_block_arguments(%a: tensor<4x8xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.reduce' op mismatching number of operands and block arguments}}
  %0 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%t : tensor<4xf32>) dimensions = [1]
    (%x: f32) {
      linalg.yield %x : f32
    }
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_block_argument_type(%a: tensor<4x8xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.reduce' op input element type 'f32' does not match corresponding block argument type 'f16'}}
  %0 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%t : tensor<4xf32>) dimensions = [1]
    (%x: f16, %y: f32) {
      linalg.yield %y : f32
    }
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_dimension_out_of_range(%a: tensor<4x8xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.reduce' op dimensions for reduction should be in the range [0, 1].}}
  %0 = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%t : tensor<4xf32>) dimensions = [2]
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_dimensions_order(%a: tensor<4x8xf32>, %t: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'linalg.reduce' op attribute 'dimensions' failed to satisfy constraint: i64 dense array attribute should be in increasing order}}
  %0 = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%t : tensor<f32>) dimensions = [1, 0]
  return %0 : tensor<f32>
}

// -----

func.func @index_outside_linalg() -> index {
  // expected-error @+1 {{'linalg.index' op expected parent op with LinalgOp interface}}
  %0 = linalg.index 0 : index
  return %0 : index
}

// -----

func.func @index_beyond_loops(%a: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%t : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    // expected-error @+1 {{'linalg.index' op expected dim (1) to be lower than the number of loops (1) of the enclosing LinalgOp}}
    %i = linalg.index 1 : index
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The body's errors come first, as in MLIR (its LinalgOp checks run after them).
func.func @generic_body_first(%a: tensor<4xf32>, %t: tensor<4xf32>, %m: tensor<4x4xf32>, %n: index) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%t : tensor<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'tensor.extract' op incorrect number of indices for extract_element}}
    %z = tensor.extract %m[%n] : tensor<4x4xf32>
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// linalg.transpose: MLIR's verifier (xDSL's crashed on a permutation out of range).
func.func @transpose_permutation(%a: tensor<4x8xf32>, %e: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'linalg.transpose' op permutation is not valid}}
  %tr = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [2, 0]
  return %tr : tensor<8x4xf32>
}

// -----

func.func @transpose_permutation_size(%a: tensor<4x8xf32>, %e: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'linalg.transpose' op size of permutation 3 does not match the argument rank 2}}
  %tr = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0, 2]
  return %tr : tensor<8x4xf32>
}

// -----

func.func @transpose_ranks(%a: tensor<4x8xf32>, %e: tensor<8x4x1xf32>) -> tensor<8x4x1xf32> {
  // expected-error @+1 {{'linalg.transpose' op input rank (2) does not match init rank (3)}}
  %tr = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4x1xf32>) permutation = [1, 0]
  return %tr : tensor<8x4x1xf32>
}


// -----

func.func @fill_scalar_output(%a: f32, %t: f32) {
  // expected-error @+1 {{'linalg.fill' op operand #1 must be variadic of shaped of any non-token type values, but got 'f32'}}
  linalg.fill ins(%a : f32) outs(%t : f32)
  return
}
