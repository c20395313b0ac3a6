// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per verifier rule of sdscbundle.sdsc_execute: index or scalar
// (integer, float) operands, a required sdsc_filename attribute naming a
// .json file beside the bundle.

func.func @up(%a: index) {
  // expected-error @+1 {{sdsc_filename must be a plain file name beside the bundle (no '/' or '..'), got '../sdsc_0.json'}}
  "sdscbundle.sdsc_execute"(%a) {sdsc_filename = "../sdsc_0.json"} : (index) -> ()
  func.return
}

// -----
func.func @subdir(%a: index) {
  // expected-error @+1 {{sdsc_filename must be a plain file name beside the bundle (no '/' or '..'), got 'dir/sdsc_0.json'}}
  "sdscbundle.sdsc_execute"(%a) {sdsc_filename = "dir/sdsc_0.json"} : (index) -> ()
  func.return
}

// -----
func.func @absolute(%a: index) {
  // expected-error @+1 {{sdsc_filename must be a plain file name beside the bundle (no '/' or '..'), got '/tmp/sdsc_0.json'}}
  "sdscbundle.sdsc_execute"(%a) {sdsc_filename = "/tmp/sdsc_0.json"} : (index) -> ()
  func.return
}

// -----
func.func @not_json(%a: index) {
  // expected-error @+1 {{sdsc_filename must name a .json file, got 'sdsc_0.mlir'}}
  "sdscbundle.sdsc_execute"(%a) {sdsc_filename = "sdsc_0.mlir"} : (index) -> ()
  func.return
}

// -----
func.func @missing(%a: index) {
  // expected-error @+1 {{attribute 'sdsc_filename' expected}}
  "sdscbundle.sdsc_execute"(%a) : (index) -> ()
  func.return
}

// -----
func.func @not_a_scalar(%a: tensor<4xf16>) {
  // expected-error @+1 {{operand 'args' at position 0 does not verify}}
  "sdscbundle.sdsc_execute"(%a) {sdsc_filename = "sdsc_0.json"} : (tensor<4xf16>) -> ()
  func.return
}
