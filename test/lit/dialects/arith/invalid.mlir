// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

func.func @shape(%a: tensor<4xi32>) {
  // expected-error @+1 {{'arith.sitofp' operand and result must have the same shape, got tensor<4xi32> and tensor<8xf32>}}
  %f = arith.sitofp %a : tensor<4xi32> to tensor<8xf32>
  return
}

// -----

func.func @scalar_to_tensor(%a: i32) {
  // expected-error @+1 {{'arith.index_cast' casts i32 to tensor<4xindex>: both must be scalars or both tensors}}
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
  // expected-error @+1 {{'arith.index_cast' casts between index and an integer type}}
  %t = arith.index_cast %a : tensor<4xindex> to tensor<4xindex>
  return
}

// -----

func.func @select_shapes(%c: tensor<4xi1>, %x: tensor<8xf32>) {
  // expected-error @+1 {{a tensor condition tensor<4xi1> needs values of the same shape, got tensor<8xf32>}}
  %s = arith.select %c, %x, %x : tensor<4xi1>, tensor<8xf32>
  return
}

// -----

func.func @bad_predicate(%a: i32) {
  // expected-error @+1 {{unknown comparison predicate 'less'}}
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
