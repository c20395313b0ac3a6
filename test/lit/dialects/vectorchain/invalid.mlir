// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per verifier rule of vectorchain (VectorChain.cpp's messages).

func.func @cast_size(%a: vector<64xf16>) {
  // expected-error @+1 {{result size does not match input size}}
  %0 = vectorchain.cast %a : vector<64xf16>, vector<32xf32>
  return
}

// -----

func.func @shuffle_scale(%a: vector<64xf16>) {
  // expected-error @+1 {{result does not scale with indices and repetitions}}
  %0 = vectorchain.shuffle input(%a) {indices = [0, 1], repetition = 16 : i32} : vector<64xf16>, vector<64xf16>
  return
}

// -----

func.func @shuffle_element_type(%a: vector<64xf16>) {
  // expected-error @+1 {{input element type does not match output element type}}
  %0 = vectorchain.shuffle input(%a) {indices = [0, 1], repetition = 32 : i32} : vector<64xf16>, vector<64xf32>
  return
}

// -----

// A negative index needs a variable or pad operand: -1 is out of bounds without one ...
func.func @shuffle_no_pad(%a: vector<64xf16>) {
  // expected-error @+1 {{out of bounds indices element}}
  %0 = vectorchain.shuffle input(%a) {indices = [0, -1], repetition = 32 : i32} : vector<64xf16>, vector<64xf16>
  return
}

// -----

// ... and an index past the input's last element too.
func.func @shuffle_past_the_end(%a: vector<64xf16>, %p: f16) {
  // expected-error @+1 {{out of bounds indices element}}
  %0 = vectorchain.shuffle input(%a), pad(%p) {indices = [64, -1], repetition = 32 : i32} : vector<64xf16>, f16, vector<64xf16>
  return
}

// -----

func.func @shuffle_index_type(%a: vector<64xf16>) {
  // expected-error @+1 {{indices element is not integer}}
  %0 = vectorchain.shuffle input(%a) {indices = [0, "one"], repetition = 32 : i32} : vector<64xf16>, vector<64xf16>
  return
}

// -----

func.func @shuffle_keyword(%a: vector<64xf16>, %p: f16) {
  // expected-error @+1 {{expected 'variable', 'pad', or 'mask' keyword}}
  %0 = vectorchain.shuffle input(%a), padding(%p) {indices = [0, -1], repetition = 32 : i32} : vector<64xf16>, f16, vector<64xf16>
  return
}

// -----

func.func @bitstream_count() {
  // expected-error @+1 {{result does not match value array}}
  %0 = vectorchain.constant_bitstream {value = [1, 2, 3]} : vector<4xi8>
  return
}

// -----

func.func @bitstream_width() {
  // expected-error @+1 {{value attribute contains element that exceeds bitwidth of output element type}}
  %0 = vectorchain.constant_bitstream {value = [0x100, 2]} : vector<2xi8>
  return
}

// -----

func.func @bitstream_integers() {
  // expected-error @+1 {{value attribute should only contain integer representations}}
  %0 = vectorchain.constant_bitstream {value = [1.0, 2]} : vector<2xf16>
  return
}

// -----

func.func @mask_rank(%a: vector<64xf16>, %m: vector<8x8xi1>) {
  // expected-error @+1 {{operand 'mask' must be vector of 1-bit signless integer values of ranks 1}}
  %0 = vectorchain.floor %a [%m : vector<8x8xi1>] : vector<64xf16>, vector<64xf16>
  return
}

// -----

func.func @enum_case(%a: vector<64xf16>) {
  // expected-error @+1 {{Expected `a`, or `b`.}}
  %0 = vectorchain.exp_estimate %a {version = #vectorchain.exp_estimate<c>} : vector<64xf16>, vector<64xf16>
  return
}
