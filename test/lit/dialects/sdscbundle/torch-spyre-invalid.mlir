// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per rule of torch-spyre's forms: input_arg_extract gives the
// type its input_arg holds; symbol_ids, when given, holds one distinct
// negative i64 per operand, and the operands are then index values (the
// custom form of sdsc_execute writes no types: every operand is an index).

func.func @wrong_result(%p: !sdscbundle.input_arg<index>) {
  // expected-error @+1 {{result type i64 must be the type the input_arg holds, index}}
  %v = sdscbundle.input_arg_extract value from %p : !sdscbundle.input_arg<index> -> i64
  func.return
}

// -----
func.func @not_an_input_arg(%p: index) {
  // expected-error @+1 {{index should be of base attribute sdscbundle.input_arg}}
  %v = sdscbundle.input_arg_extract value from %p : index -> index
  func.return
}

// -----
// expected-error @+1 {{type expected}}
func.func @not_a_type(%p: !sdscbundle.input_arg<3>) {
  func.return
}

// -----
func.func @fewer_ids(%a: index, %b: index) {
  // expected-error @+1 {{symbol_ids has 1 entries for 2 operands: one symbol id per operand}}
  sdscbundle.sdsc_execute (%a, %b) {sdsc_filename = "sdsc_0.json", symbol_ids = [-1]}
  func.return
}

// -----
func.func @more_ids() {
  // expected-error @+1 {{symbol_ids has 1 entries for 0 operands: one symbol id per operand}}
  sdscbundle.sdsc_execute () {sdsc_filename = "sdsc_0.json", symbol_ids = [-1]}
  func.return
}

// -----
func.func @positive_id(%a: index, %b: index) {
  // expected-error @+1 {{symbol id #1 must be negative (a symbolic address of the SDSC file), got 2}}
  sdscbundle.sdsc_execute (%a, %b) {sdsc_filename = "sdsc_0.json", symbol_ids = [-1, 2]}
  func.return
}

// -----
func.func @zero_id(%a: index) {
  // expected-error @+1 {{symbol id #0 must be negative (a symbolic address of the SDSC file), got 0}}
  sdscbundle.sdsc_execute (%a) {sdsc_filename = "sdsc_0.json", symbol_ids = [0]}
  func.return
}

// -----
func.func @repeated_id(%a: index, %b: index, %c: index) {
  // expected-error @+1 {{symbol id -2 is given twice (#1 and #2): each operand has its own}}
  sdscbundle.sdsc_execute (%a, %b, %c) {sdsc_filename = "sdsc_0.json", symbol_ids = [-1, -2, -2]}
  func.return
}

// -----
func.func @i32_id(%a: index) {
  // expected-error @+1 {{symbol_ids must be an array of i64 integers, but element #0 is -1 : i32}}
  sdscbundle.sdsc_execute (%a) {sdsc_filename = "sdsc_0.json", symbol_ids = [-1 : i32]}
  func.return
}

// -----
func.func @not_an_array(%a: index) {
  // expected-error @+1 {{"x" should be of base attribute array}}
  sdscbundle.sdsc_execute (%a) {sdsc_filename = "sdsc_0.json", symbol_ids = "x"}
  func.return
}

// -----
func.func @scalar_with_ids(%a: f32) {
  // expected-error @+1 {{operand #0 must be an index (a start address) when symbol_ids is given, but got f32}}
  "sdscbundle.sdsc_execute"(%a) {sdsc_filename = "sdsc_0.json", symbol_ids = [-1]} : (f32) -> ()
  func.return
}

// -----
// expected-note @+1 {{prior use here}}
func.func @scalar_in_custom_form(%a: f32) {
  // expected-error @+1 {{use of value '%a' expects different type than prior uses: 'index' vs 'f32'}}
  sdscbundle.sdsc_execute (%a) {sdsc_filename = "sdsc_0.json"}
  func.return
}

// -----
func.func @no_filename(%a: index) {
  // expected-error @+1 {{attribute 'sdsc_filename' expected}}
  sdscbundle.sdsc_execute (%a) {symbol_ids = [-1]}
  func.return
}

// -----
func.func @bad_filename(%a: index) {
  // expected-error @+1 {{sdsc_filename must be a plain file name beside the bundle (no '/' or '..'), got '../sdsc_0.json'}}
  sdscbundle.sdsc_execute (%a) {sdsc_filename = "../sdsc_0.json", symbol_ids = [-1]}
  func.return
}

// -----
func.func @no_parentheses(%a: index) {
  // expected-error @+1 {{'(' expected}}
  sdscbundle.sdsc_execute %a {sdsc_filename = "sdsc_0.json", symbol_ids = [-1]}
  func.return
}

// -----
func.func @no_keywords(%p: !sdscbundle.input_arg<index>) {
  // expected-error @+1 {{Expected 'value'}}
  %v = sdscbundle.input_arg_extract %p : !sdscbundle.input_arg<index> -> index
  func.return
}
