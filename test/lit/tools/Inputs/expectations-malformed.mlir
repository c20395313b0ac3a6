// Each chunk has one annotation that --verify-diagnostics must refuse (never a vacuous pass).
func.func @f() {
  return // expected-foo {{an unknown kind}}
}
// -----
func.func @f() {
  return // expected-error @bogus {{an unknown location}}
}
// -----
func.func @f() {
  return // expected-error-2 {{a count, which MLIR does not have}}
}
// -----
func.func @f() {
  return // expected-error {{unterminated
}
// -----
func.func @f() {
  return // expected-error {{text after the message}} trailing
}
// -----
func.func @f() {
  return // expected-error-re {{an invalid {{[regex}}}}
}
// -----
func.func @f() {
  return // expected-error without a message
}
// -----
// expected-error @unknown {{a diagnostic without a location}}
func.func @f() {
  return
}
