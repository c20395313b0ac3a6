// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per verifier rule of ktdf_arch (docs/ktdf_arch.md), with
// upstream's messages (KTDFArch.td and its ops and intrinsics).

// -----
// expected-error @+1 {{empty device requires 'import_path' attribute}}
"ktdf_arch.device"() <{sym_name = "d"}> ({}) : () -> ()

// -----
// expected-error @+1 {{non-empty device can't have 'import_path' attribute}}
"ktdf_arch.device"() <{sym_name = "d", import_path = "x.mlir"}> ({
  "ktdf_arch.exec_unit"() : () -> !ktdf_arch.exec_unit
}) : () -> ()

// -----
// expected-error @+1 {{attribute 'version' failed to satisfy constraint: 64-bit signless integer attribute}}
ktdf_arch.device @d attributes {version = "one"} import("x.mlir")

// -----
// expected-error @+1 {{expects child ops to be resources}}
ktdf_arch.device @d {
  // expected-note @+1 {{unexpected child is here}}
  %x = arith.constant 0 : i32
}

// -----
ktdf_arch.device @d {
  // expected-note @+1 {{previous definition is here}}
  %m = memory @a {kind = "L1"}
  // expected-error @+1 {{resource with id "a" redefined}}
  %e = exec_unit @a
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{attribute 'kind' requires valid memory space}}
  %m = memory {size = 64}
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{attribute 'size' failed to satisfy constraint: 64-bit integer attribute whose minimum value is 1}}
  %m = memory {kind = "L1", size = 0}
}

// -----
ktdf_arch.device @d {
  %e = exec_unit
  // expected-error @+1 {{can't link resource to itself}}
  datapath %e to %e : exec_unit, exec_unit
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{expected connectivity shape {2, 2}, but got {3, 3}}}
  %sw:2 = switch [2] {connectivity = dense<true> : tensor<3x3xi1>}
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{yields 1 execution unit(s), but has 0 result(s)}}
  group share() {
    %e = exec_unit
    yield %e
  }
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{expects child ops to be 'pdl.pattern'}}
  patterns {
    // expected-note @+1 {{unexpected child is here}}
    %x = arith.constant 0 : i32
  }
}

// -----
// expected-error @+1 {{'ktdf_arch.patterns' op expects parent op 'ktdf_arch.device'}}
ktdf_arch.patterns {}

// -----
ktdf_arch.device @d {
  %m = memory {kind = "L1"}
  // A group sees only what it shares.
  group share() {
    %e = exec_unit
    // expected-error @+1 {{use of undeclared SSA value name}}
    datapath %m to %e : memory, exec_unit
  }
}

// -----
// Intrinsic attributes.
ktdf_arch.device @d {
  // expected-error @+1 {{unrecognized 'ktdf_arch' intrinsic: ktdf_arch.bogus (expected one of: ktdf_arch.bandwidth, ktdf_arch.features, ktdf_arch.maps_to, ktdf_arch.overlaps, ktdf_arch.transfer_granularity)}}
  %e = exec_unit {ktdf_arch.bogus = 1}
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{'ktdf_arch.transfer_granularity' intrinsic only valid on datapath}}
  %e = exec_unit {ktdf_arch.transfer_granularity = array<i64: 64>}
}

// -----
ktdf_arch.device @d {
  %e = exec_unit
  %m = memory {kind = 1}
  // expected-error @+1 {{'ktdf_arch.transfer_granularity' intrinsic repeated granularity (64)}}
  datapath {ktdf_arch.transfer_granularity = array<i64: 64, 64>} %e to %m : exec_unit, memory
}

// -----
ktdf_arch.device @d {
  %e = exec_unit
  %m = memory {kind = 1}
  // expected-error @+1 {{'ktdf_arch.transfer_granularity' intrinsic requires dense 64-bit integer array attribute}}
  datapath {ktdf_arch.transfer_granularity = 64} %e to %m : exec_unit, memory
}

// -----
ktdf_arch.device @d {
  %e = exec_unit
  %m = memory {kind = 1}
  // expected-error @+1 {{'ktdf_arch.bandwidth' intrinsic value must be > 0}}
  datapath {ktdf_arch.bandwidth = 0} %e to %m : exec_unit, memory
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{'ktdf_arch.maps_to' intrinsic only valid on mappable ops}}
  %e = exec_unit {ktdf_arch.maps_to = @d}
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{'ktdf_arch.overlaps' intrinsic requires array attribute}}
  %e = exec_unit {ktdf_arch.overlaps = 1}
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{'ktdf_arch.features' intrinsic requires dictionary attribute}}
  %e = exec_unit {ktdf_arch.features = [1]}
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{unrecognized 'ktdf_arch' feature: ktdf_arch.feature.teleport}}
  %e = exec_unit {ktdf_arch.features = {ktdf_arch.feature.teleport}}
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{'ktdf_arch.feature.queue' intrinsic only valid on datapath}}
  %e = exec_unit {ktdf_arch.features = {ktdf_arch.feature.queue}}
}

// -----
ktdf_arch.device @d {
  %e = exec_unit
  %m = memory {kind = 1}
  // expected-error @+1 {{'ktdf_arch.feature.queue' intrinsic 'depth' must be > 0}}
  datapath {ktdf_arch.features = {ktdf_arch.feature.queue = {depth = 0}}} %e to %m : exec_unit, memory
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{'ktdf_arch.feature.simd' intrinsic attribute 'splat' requires unit}}
  %e = exec_unit {ktdf_arch.features = {ktdf_arch.feature.simd = {splat = 1}}}
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{'ktdf_arch.feature.simd' intrinsic attribute 'lanes' requires map from type to 64-bit integer}}
  %e = exec_unit {ktdf_arch.features = {ktdf_arch.feature.simd = {lanes = #ktdf_arch.map<"f16" = 64>}}}
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{'ktdf_arch.feature.load' intrinsic attribute 'word_size["DDR"]' must be > 0}}
  %e = exec_unit {ktdf_arch.features = {ktdf_arch.feature.load = {word_size = #ktdf_arch.map<"DDR" = 0>}}}
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{'ktdf_arch.feature.store' intrinsic attribute 'access_granularity["DDR"]' attribute 'size_in_words' requires 64-bit integer}}
  %e = exec_unit {ktdf_arch.features = {ktdf_arch.feature.store = {access_granularity = #ktdf_arch.map<"DDR" = [{align_in_words = 1}]>}}}
}

// -----
ktdf_arch.device @d {
  // expected-error @+1 {{'ktdf_arch.feature.compute' intrinsic requires unit or dictionary attribute}}
  %e = exec_unit {ktdf_arch.features = {ktdf_arch.feature.compute = 1}}
}

// -----
// expected-error @+1 {{#ktdf_arch.map maps key "a" more than once}}
func.func private @dup() attributes {m = #ktdf_arch.map<"a" = 1, "a" = 2>}
