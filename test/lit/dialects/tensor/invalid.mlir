// RUN: %spyre-opt %s --split-input-file --verify-diagnostics
// MLIR's tensor verifiers (dialects/tensor.py), with MLIR's messages: real
// MLIR (iree-opt --verify-diagnostics) meets the same expectations, see
// test/unit/test_verifier_parity.py.

func.func @extract_indices(%t: tensor<4x4xf32>, %i: index) -> f32 {
  // expected-error @+1 {{'tensor.extract' op incorrect number of indices for extract_element}}
  %0 = tensor.extract %t[%i] : tensor<4x4xf32>
  return %0 : f32
}

// -----

func.func @insert_indices(%t: tensor<4x4xf32>, %i: index, %v: f32) -> tensor<4x4xf32> {
  // expected-error @+1 {{'tensor.insert' op incorrect number of indices}}
  %0 = tensor.insert %v into %t[%i, %i, %i] : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @slice_runs_out(%t: tensor<8x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{slice along dimension 0 runs out-of-bounds: 9 >= 8}}
  %0 = tensor.extract_slice %t[6, 0] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @slice_stride_runs_out(%t: tensor<8x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{slice along dimension 1 runs out-of-bounds: 9 >= 8}}
  %0 = tensor.extract_slice %t[0, 0] [4, 4] [1, 3] : tensor<8x8xf32> to tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @slice_offset_out(%t: tensor<8x8xf32>) -> tensor<0x4xf32> {
  // expected-error @+1 {{offset 0 is out-of-bounds: 8 >= 8}}
  %0 = tensor.extract_slice %t[8, 0] [0, 4] [1, 1] : tensor<8x8xf32> to tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}

// -----

func.func @slice_negative_offset(%t: tensor<8x8xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{expected offsets to be non-negative, but got -1}}
  %0 = tensor.extract_slice %t[-1, 0] [1, 4] [1, 1] : tensor<8x8xf32> to tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @slice_negative_size(%t: tensor<8x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{expected sizes to be non-negative, but got -4}}
  %0 = tensor.extract_slice %t[0, 0] [-4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @slice_rank(%t: tensor<8x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{expected 2 offset values, got 3}}
  %0 = tensor.extract_slice %t[0, 0, 0] [4, 4, 1] [1, 1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @slice_mixed_ranks(%t: tensor<8x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected mixed offsets rank to match mixed sizes rank (2 vs 1) so the rank of the result type is well-formed.}}
  %0 = tensor.extract_slice %t[0, 0] [4] [1] : tensor<8x8xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @slice_result_sizes(%t: tensor<8x8xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{expected type to be 'tensor<4x4xf32>' or a rank-reduced version. (size mismatch)}}
  %0 = tensor.extract_slice %t[0, 0] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @slice_result_static_for_dynamic(%t: tensor<8x8xf32>, %n: index) -> tensor<4x4xf32> {
  // expected-error @+1 {{expected type to be 'tensor<?x4xf32>' or a rank-reduced version. (size mismatch)}}
  %0 = tensor.extract_slice %t[0, 0] [%n, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @slice_result_rank(%t: tensor<8x8xf32>) -> tensor<4x1x1xf32> {
  // expected-error @+1 {{expected rank to be smaller or equal to the other rank.}}
  %0 = tensor.extract_slice %t[0, 0] [1, 4] [1, 1] : tensor<8x8xf32> to tensor<4x1x1xf32>
  return %0 : tensor<4x1x1xf32>
}

// -----

func.func @slice_result_element(%t: tensor<8x8xf32>) -> tensor<1x4xf16> {
  // expected-error @+1 {{expected element type to be 'f32'}}
  %0 = tensor.extract_slice %t[0, 0] [1, 4] [1, 1] : tensor<8x8xf32> to tensor<1x4xf16>
  return %0 : tensor<1x4xf16>
}

// -----

func.func @insert_slice_runs_out(%s: tensor<4x4xf32>, %t: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{slice along dimension 0 runs out-of-bounds: 9 >= 8}}
  %0 = tensor.insert_slice %s into %t[6, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @insert_slice_source(%s: tensor<4x2xf32>, %t: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{expected type to be 'tensor<4x4xf32>' or a rank-reduced version. (size mismatch)}}
  %0 = tensor.insert_slice %s into %t[0, 0] [4, 4] [1, 1] : tensor<4x2xf32> into tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @collapse_product(%t: tensor<4x8xf32>) -> tensor<30xf32> {
  // expected-error @+1 {{'tensor.collapse_shape' op expected dimension 0 of collapsed type to be static value of 32}}
  %0 = tensor.collapse_shape %t [[0, 1]] : tensor<4x8xf32> into tensor<30xf32>
  return %0 : tensor<30xf32>
}

// -----

func.func @collapse_uncovered(%t: tensor<4x8x1xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{'tensor.collapse_shape' op expected reassociation map #0 to have size equal to the expanded rank (3), but it is  2.}}
  %0 = tensor.collapse_shape %t [[0, 1]] : tensor<4x8x1xf32> into tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

func.func @collapse_not_from_zero(%t: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'tensor.collapse_shape' op expected reassociation map #0 to be valid and contiguous.}}
  %0 = tensor.collapse_shape %t [[1]] : tensor<4x8xf32> into tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @collapse_empty_group(%t: tensor<1x1xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{'tensor.collapse_shape' op reassociation indices must not be empty}}
  %0 = tensor.collapse_shape %t [[0, 1], []] : tensor<1x1xf32> into tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @collapse_dynamic(%t: tensor<?x8xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{'tensor.collapse_shape' op expected dimension 0 of collapsed type to be dynamic since one or more of the corresponding dimensions in the expanded type is dynamic}}
  %0 = tensor.collapse_shape %t [[0, 1]] : tensor<?x8xf32> into tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

func.func @collapse_element(%t: tensor<4x8xf32>) -> tensor<32xf16> {
  // expected-error @+1 {{'tensor.collapse_shape' op expected collapsed type to be 'tensor<32xf32>', but got 'tensor<32xf16>'}}
  %0 = tensor.collapse_shape %t [[0, 1]] : tensor<4x8xf32> into tensor<32xf16>
  return %0 : tensor<32xf16>
}

// -----

func.func @collapse_rank(%t: tensor<32xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.collapse_shape' op expected the expanded type, 'tensor<32xf32>' to have a higher (or same) rank than the collapsed type, 'tensor<4x8xf32>'.}}
  %0 = tensor.collapse_shape %t [[0, 1]] : tensor<32xf32> into tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @collapse_to_rank0(%t: tensor<2x1xf32>) -> tensor<f32> {
  // expected-error @+1 {{'tensor.collapse_shape' op number of elements must be preserved: 2 != 1}}
  %0 = tensor.collapse_shape %t [] : tensor<2x1xf32> into tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @expand_negative(%t: tensor<32xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.expand_shape' op invalid output shape provided at pos 0}}
  %0 = tensor.expand_shape %t [[0, 1]] output_shape [-4, 8] : tensor<32xf32> into tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @expand_inconsistent(%t: tensor<32xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.expand_shape' op invalid output shape provided at pos 0}}
  %0 = tensor.expand_shape %t [[0, 1]] output_shape [8, 4] : tensor<32xf32> into tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @expand_static_for_dynamic(%t: tensor<?xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'tensor.expand_shape' op incorrect number of dynamic sizes, has 0, expected 1}}
  %0 = tensor.expand_shape %t [[0, 1]] output_shape [4, 8] : tensor<?xf32> into tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @expand_dynamic_for_static(%t: tensor<32xf32>, %n: index) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.expand_shape' op incorrect number of dynamic sizes, has 1, expected 0}}
  %0 = tensor.expand_shape %t [[0, 1]] output_shape [%n, 8] : tensor<32xf32> into tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @expand_output_rank(%t: tensor<32xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.expand_shape' op expected number of static shape dims to be equal to the output rank (2) but found 3 inputs instead}}
  %0 = tensor.expand_shape %t [[0, 1]] output_shape [4, 8, 1] : tensor<32xf32> into tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @expand_source(%t: tensor<30xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.expand_shape' op expected dimension 0 of collapsed type to be static value of 32}}
  %0 = tensor.expand_shape %t [[0, 1]] output_shape [4, 8] : tensor<30xf32> into tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @expand_from_rank0(%t: tensor<f32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tensor.expand_shape' op number of elements must be preserved: 6 != 1}}
  %0 = tensor.expand_shape %t [] output_shape [2, 3] : tensor<f32> into tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @expand_empty_group(%t: tensor<32xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.expand_shape' op reassociation indices must not be empty}}
  %0 = tensor.expand_shape %t [[0, 1], []] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @from_elements_count(%a: f32) -> tensor<3xf32> {
  // expected-error @+1 {{'tensor.from_elements' op failed to verify that operand types match result element type}}
  %0 = "tensor.from_elements"(%a, %a) : (f32, f32) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @empty_too_many(%n: index) -> tensor<?x4xf32> {
  // expected-error @+1 {{'tensor.empty' op incorrect number of dynamic sizes, has 2, expected 1}}
  %0 = tensor.empty(%n, %n) : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @empty_missing() -> tensor<?x4xf32> {
  // expected-error @+1 {{'tensor.empty' op incorrect number of dynamic sizes, has 0, expected 1}}
  %0 = tensor.empty() : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// tensor.pad: MLIR's verifier (xDSL accepted a body argument of any type).
func.func @pad_argument_type(%t: tensor<4xf32>, %c: f32) -> tensor<6xf32> {
  // expected-error @+1 {{'tensor.pad' op expected block argument 1 to be an index}}
  %p = tensor.pad %t low[1] high[1] {
  ^bb0(%i: f8E4M3FN):
    tensor.yield %c : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}

// -----

func.func @pad_argument_count(%t: tensor<4x4xf32>, %c: f32) -> tensor<6x6xf32> {
  // expected-error @+1 {{expected the block to have 2 arguments}}
  %p = tensor.pad %t low[1, 1] high[1, 1] {
  ^bb0(%i: index):
    tensor.yield %c : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  return %p : tensor<6x6xf32>
}

// -----

func.func @pad_yield_type(%t: tensor<4xf32>, %c: f16) -> tensor<6xf32> {
  // expected-error @+1 {{'tensor.pad' op expected yield type to match shape element type}}
  %p = tensor.pad %t low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %c : f16
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}

// -----

func.func @pad_result_shape(%t: tensor<4x?xf32>, %c: f32) -> tensor<7x?xf32> {
  // expected-error @+1 {{specified type 'tensor<7x?xf32>' does not match the inferred type 'tensor<6x?xf32>'}}
  %p = tensor.pad %t low[1, 0] high[1, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<4x?xf32> to tensor<7x?xf32>
  return %p : tensor<7x?xf32>
}

// -----

func.func @pad_dynamic_result_for_static(%t: tensor<4xf32>, %c: f32) -> tensor<?xf32> {
  // expected-error @+1 {{specified type 'tensor<?xf32>' does not match the inferred type 'tensor<6xf32>'}}
  %p = tensor.pad %t low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %c : f32
  } : tensor<4xf32> to tensor<?xf32>
  return %p : tensor<?xf32>
}

// -----

func.func @pad_sizes(%t: tensor<4xf32>, %c: f32) -> tensor<6xf32> {
  // expected-error @+1 {{failed to infer expectedType from sourceType 'tensor<4xf32>', specified resultType is 'tensor<6xf32>'}}
  %p = tensor.pad %t low[1, 1] high[1, 1] {
  ^bb0(%i: index):
    tensor.yield %c : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}

// -----

// The body's errors come first, as in MLIR (pad's checks of its body run after them).
func.func @pad_body_first(%t: tensor<4xf32>, %c: f32, %m: tensor<4x4xf32>, %n: index) -> tensor<6xf32> {
  %p = tensor.pad %t low[1] high[1] {
  ^bb0(%i: f32):
    // expected-error @+1 {{'tensor.extract' op incorrect number of indices for extract_element}}
    %x = tensor.extract %m[%n] : tensor<4x4xf32>
    tensor.yield %c : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}

// -----

// tensor.yield terminates tensor.pad (or tensor.generate) only.
func.func @yield_in_reduce(%x: tensor<4x8xf16>, %i: tensor<4xf16>) -> tensor<4xf16> {
  %b = linalg.reduce ins(%x : tensor<4x8xf16>) outs(%i : tensor<4xf16>) dimensions = [1]
    (%in: f16, %acc: f16) {
      %s = arith.addf %acc, %in : f16
      // expected-error @+1 {{'tensor.yield' op expects parent op to be one of 'tensor.generate, tensor.pad'}}
      tensor.yield %s : f16
    }
  return %b : tensor<4xf16>
}

// -----

func.func @yield_two_values(%t: tensor<4xf32>, %c: f32) -> tensor<6xf32> {
  %p = tensor.pad %t low[1] high[1] {
  ^bb0(%i: index):
    // expected-error @+1 {{'tensor.yield' op requires a single operand}}
    "tensor.yield"(%c, %c) : (f32, f32) -> ()
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}
