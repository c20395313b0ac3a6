// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// The rules of ktir-mlir-frontend's test/Dialect/SpyreOp/invalid.mlir, with
// its messages where the op states them.

func.func @softplus_beta_zero(%arg0: f16) {
  // expected-error @+1 {{attribute 'beta' failed to satisfy constraint: 32-bit float attribute which is non-zero}}
  %0 = spyreop.softplus %arg0 beta 0.0 threshold 0.0 : f16
  return
}

// -----

func.func @exx2_fused_wrong_pair(%arg0: f16) {
  // expected-error @+1 {{inferred type(s) '!spyreop.fp16_fused' are incompatible with return type(s) of operation '!spyreop.fp32_fused'}}
  %0 = spyreop.exx2_fused %arg0 : f16 -> !spyreop.fp32_fused
  return
}

// -----

func.func @layernormscale_fused_wrong_scalar(%arg0: !spyreop.fp16_fused) {
  // expected-error @+1 {{inferred type(s) 'f16' are incompatible with return type(s) of operation 'f32'}}
  %0 = spyreop.layernormscale_fused %arg0 : !spyreop.fp16_fused -> f32
  return
}

// -----

func.func @constant_integer() {
  // expected-error @+1 {{result #0 must be 16-bit float or 32-bit float, but got 'i32'}}
  %c = spyreop.constant 0 : i32
  return
}

// -----

func.func @constant_type_mismatch() {
  // expected-error @+1 {{failed to verify that all of {value, result} have same type}}
  %c = "spyreop.constant"() <{value = 0.0 : f32}> : () -> f16
  return
}
