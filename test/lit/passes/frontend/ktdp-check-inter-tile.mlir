// RUN: %spyre-opt --mlir-print-local-scope %s --split-input-file -p ktdp-check-inter-tile --verify-diagnostics | %FileCheck %s

// The pass changes no IR: legal kernels print unchanged (the rules, one chunk
// each, are in test/lit/dialects/ktdp/inter-tile-invalid.mlir).

// All-reduce in two groups of four (upstream check-legality.mlir's valid cases:
// all-reduce with a one-symbol dependency set, reduce-to-one).
// CHECK-LABEL: func.func @all_reduce
// CHECK: ktdp.inter_tile_produce producer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 >= 0, -d0 + s0 * 4 + 3 >= 0)> -> <(tensor<64xf32>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>> {
// CHECK: ktdp.inter_tile_reduce(%{{.*}}) consumer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 >= 0, -d0 + s0 * 4 + 3 >= 0)>, producer_dependency_per_consumer = affine_set<(d0)[s0] : (d0 - s0 == 0)>, identity(%{{.*}} : tensor<64xf32>)
#groups = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#tiles  = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#first  = affine_set<(i)[g] : (i - 4*g == 0)>
#self   = affine_set<(p)[c] : (p - c == 0)>
func.func @all_reduce(%p: tensor<64xf32>, %id: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) attributes {grid = [8]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles -> <(tensor<64xf32>), groups = #groups> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf32>
  }
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, producer_dependency_per_consumer = #self,
      identity(%id : tensor<64xf32>) : <(tensor<64xf32>), groups = #groups> -> tensor<64xf32> {
  ^bb0(%l: tensor<64xf32>, %r2: tensor<64xf32>):
    %s = arith.addf %l, %r2 : tensor<64xf32>
    ktdp.yield_reduced %s : tensor<64xf32>
  }
  %f2 = ktdp.inter_tile_produce producer_tiles_per_group = #tiles -> <(tensor<64xf32>), groups = #groups> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf32>
  }
  %r3 = ktdp.inter_tile_reduce(%f2) consumer_tiles_per_group = #first,
      identity(%id : tensor<64xf32>) : <(tensor<64xf32>), groups = #groups> -> tensor<64xf32> {
  ^bb0(%l: tensor<64xf32>, %r2: tensor<64xf32>):
    %s = arith.maximumf %l, %r2 : tensor<64xf32>
    ktdp.yield_reduced %s : tensor<64xf32>
  }
  return %r, %r3 : tensor<64xf32>, tensor<64xf32>
}

// -----
// Broadcast (one producer, no dependency set) and routing with multicast.
// CHECK-LABEL: func.func @consume
// CHECK: ktdp.inter_tile_consume(%{{.*}}) consumer_tiles_per_group = affine_set<(d0)[s0] : (d0 >= 0, -d0 + 3 >= 0)> : <(tensor<64xf16>), groups = affine_set<(d0) : (d0 == 0)>> -> tensor<64xf16>
// CHECK: ktdp.inter_tile_consume(%{{.*}}) consumer_tiles_per_group = affine_set<(d0)[s0] : (d0 >= 0, -d0 + 3 >= 0)>, producer_dependency_per_consumer = affine_set<(d0)[s0] : (s0 - d0 * 2 >= 0, -s0 + d0 * 2 + 1 >= 0)> : <(tensor<64xf16>), groups = affine_set<(d0) : (d0 == 0)>> -> tensor<64xf16>
#one   = affine_set<(g) : (g == 0)>
#t0    = affine_set<(i)[g] : (i == 0)>
#t01   = affine_set<(i)[g] : (i >= 0, -i + 1 >= 0)>
#all   = affine_set<(i)[g] : (i >= 0, -i + 3 >= 0)>
#multi = affine_set<(p)[c] : (c - 2*p >= 0, -c + 2*p + 1 >= 0)>
func.func @consume(%p: tensor<64xf16>) -> (tensor<64xf16>, tensor<64xf16>) {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #t0 -> <(tensor<64xf16>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  %b = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all : <(tensor<64xf16>), groups = #one> -> tensor<64xf16>
  %f2 = ktdp.inter_tile_produce producer_tiles_per_group = #t01 -> <(tensor<64xf16>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  %m = ktdp.inter_tile_consume(%f2) consumer_tiles_per_group = #all, producer_dependency_per_consumer = #multi
      : <(tensor<64xf16>), groups = #one> -> tensor<64xf16>
  return %b, %m : tensor<64xf16>, tensor<64xf16>
}

// -----
// An unbounded dependency set: coverage cannot be checked, nothing is diagnosed.
// CHECK-LABEL: func.func @unbounded
#one  = affine_set<(g) : (g == 0)>
#all  = affine_set<(i)[g] : (i >= 0, -i + 3 >= 0)>
#ge   = affine_set<(p)[c] : (p - c >= 0)>
func.func @unbounded(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all -> <(tensor<64xf16>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all, producer_dependency_per_consumer = #ge,
      identity(%p : tensor<64xf16>) : <(tensor<64xf16>), groups = #one> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %r2: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// A violation: a located error naming the offending tiles.
#one  = affine_set<(g) : (g == 0)>
#prod = affine_set<(i)[g] : (i >= 0, -i + 3 >= 0)>
#cons = affine_set<(i)[g] : (i - 2 >= 0, -i + 5 >= 0)>
func.func @not_a_producer(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #prod -> <(tensor<64xf16>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{consumer_tiles_per_group for group 0 is not a subset of producer_tiles_per_group: tiles 4, 5 consume but do not produce}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #cons, identity(%p : tensor<64xf16>)
      : <(tensor<64xf16>), groups = #one> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %r2: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// Producer coverage (R4) is a rule of reduce only (KTDP-SEMANTICS §8): a
// consume that broadcasts producer 0's tile to every consumer, leaving
// producers 1..3 unclaimed, is legal and prints unchanged.
// CHECK-LABEL: func.func @broadcast_one_of_several
// CHECK: ktdp.inter_tile_consume(%{{.*}}) consumer_tiles_per_group = affine_set<(d0)[s0] : (d0 >= 0, -d0 + 3 >= 0)>, producer_dependency_per_consumer = affine_set<(d0)[s0] : (d0 == 0)>
#one  = affine_set<(g) : (g == 0)>
#all  = affine_set<(i)[g] : (i >= 0, -i + 3 >= 0)>
#zero = affine_set<(p)[c] : (p == 0)>
func.func @broadcast_one_of_several(%p: tensor<64xf16>) -> tensor<64xf16> attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all -> <(tensor<64xf16>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  %b = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all, producer_dependency_per_consumer = #zero
      : <(tensor<64xf16>), groups = #one> -> tensor<64xf16>
  return %b : tensor<64xf16>
}

// -----
// The same dependency set on a reduce still leaves producers 1..3 out of every
// fold: a located error (R4).
#one  = affine_set<(g) : (g == 0)>
#all  = affine_set<(i)[g] : (i >= 0, -i + 3 >= 0)>
#zero = affine_set<(p)[c] : (p == 0)>
func.func @reduce_unclaimed(%p: tensor<64xf16>) -> tensor<64xf16> attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all -> <(tensor<64xf16>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{producer_dependency_per_consumer for group 0 does not cover producer tile 1 (no consumer has it as a dependency)}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all, producer_dependency_per_consumer = #zero,
      identity(%p : tensor<64xf16>) : <(tensor<64xf16>), groups = #one> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %r2: tensor<64xf16>):
    %s = arith.addf %l, %r2 : tensor<64xf16>
    ktdp.yield_reduced %s : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}
