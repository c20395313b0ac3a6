// RUN: %spyre-opt %s -p ktdp-hbm-roundtrip --verify-diagnostics

// A compute -> compute tensor of dynamic shape has no scratch slot size.
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{cannot route a dynamically shaped tensor through HBM scratch}}
  %e = math.exp %x : tensor<?xf32>
  %s = math.sqrt %e : tensor<?xf32>
  return %s : tensor<?xf32>
}
