// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// ktdf_lowering states no verifier rules (KTDFLowering.td has no
// hasVerifier): what is checked is the ODS constraints. Units are `index`
// values ...

// -----
func.func @unit_type(%u: i32) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%u' expects different type than prior uses: 'index' vs 'i32'}}
  ktdf_lowering.signal %u
  return
}

// -----
// ... and the body of execute_on is a single block (SizedRegion<1>, SingleBlock).
func.func @two_blocks(%u: index) {
  // expected-error @+1 {{'ktdf_lowering.execute_on' op Region 'body' at position 0 expected a single block, but got 2 blocks}}
  ktdf_lowering.execute_on %u {
    cf.br ^bb1
  ^bb1:
  }
  return
}
