// RUN: %spyre-opt %s --split-input-file -p ktdp-check-inter-tile --verify-diagnostics

// One chunk per legality rule of issue 8 item 2 (docs/inter-tile.md §3). Rules
// the op verifiers own fail while the chunk is parsed; the cross-op rules fail
// in the `ktdp-check-inter-tile` pass. Messages start with the upstream wording
// (torch-spyre/ktir-mlir-frontend KTDPOps.cpp, KTDPTypes.cpp,
// KTIRCheckLegality.cpp) where upstream has the rule, and add the offending set
// or tiles; all of them are proposals, to be settled with the implementation.
// Chunks marked [ours] are rules upstream does not check.

// -----
// Set dimensions and symbols: the groups set has one dimension (g) ...
// expected-error @+1 {{tile_future `groups` must have exactly one dimension (g): affine_set<(d0, d1) : (d0 == 0, d1 == 0)>}}
func.func @groups_two_dims(%a: !ktdp.tile_future<(tensor<1x64xf16>), groups = affine_set<(g, h) : (g == 0, h == 0)>>) { return }

// -----
// ... and no symbols.
// expected-error @+1 {{tile_future `groups` must have no symbols: affine_set<(d0)[s0] : (d0 - s0 == 0)>}}
func.func @groups_symbol(%a: !ktdp.tile_future<(tensor<1x64xf16>), groups = affine_set<(g)[s] : (g == s)>>) { return }

// -----
// producer_tiles_per_group has exactly one symbol, the group index g.
#grp = affine_set<(g) : (g == 0)>
func.func @producer_no_symbol(%p: tensor<64xf16>) {
  // expected-error @+1 {{`producer_tiles_per_group` must have exactly one symbol (the group index g): affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = affine_set<(i) : (i >= 0, -i + 3 >= 0)>
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  return
}

// -----
// [ours] producer_tiles_per_group has exactly one dimension, the tile id i.
#grp = affine_set<(g) : (g == 0)>
func.func @producer_two_dims(%p: tensor<64xf16>) {
  // expected-error @+1 {{`producer_tiles_per_group` must have exactly one dimension (the tile id i): affine_set<(d0, d1)[s0] : (d0 - s0 * 4 >= 0, d1 >= 0)>}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = affine_set<(i, j)[g] : (i - 4*g >= 0, j >= 0)>
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  return
}

// -----
// consumer_tiles_per_group (consume) has exactly one symbol.
#grp = affine_set<(g) : (g == 0)>
#t0  = affine_set<(i)[g] : (i - 4*g == 0)>
func.func @consumer_no_symbol(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #t0
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{`consumer_tiles_per_group` must have exactly one symbol (the group index g): affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = affine_set<(i) : (i >= 0, -i + 3 >= 0)>
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16>
  return %r : tensor<64xf16>
}

// -----
// [ours for reduce; upstream checks it on consume only] consumer_tiles_per_group
// has exactly one dimension.
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @reduce_consumer_two_dims(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{`consumer_tiles_per_group` must have exactly one dimension (the tile id i): affine_set<(d0, d1)[s0] : (d0 - s0 * 4 >= 0, d1 >= 0)>}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = affine_set<(i, j)[g] : (i - 4*g >= 0, j >= 0)>, identity(%p : tensor<64xf16>)
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %rr: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// producer_dependency_per_consumer has one symbol (c) or two (c, g) ...
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @dep_three_symbols(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{`producer_dependency_per_consumer` must have one symbol (c) or two symbols (c, g): affine_set<(d0)[s0, s1, s2] : (d0 - s0 == 0, s2 >= 0)>}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #tiles, producer_dependency_per_consumer = affine_set<(p)[c, g, x] : (p - c == 0, x >= 0)>
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16>
  return %r : tensor<64xf16>
}

// -----
// ... and exactly one dimension, the producer tile id p (checked on reduce as
// well as consume [ours for reduce]).
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @reduce_dep_two_dims(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{`producer_dependency_per_consumer` must have exactly one dimension (the producer tile id p): affine_set<(d0, d1)[s0] : (d0 - s0 == 0, d1 == 0)>}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, producer_dependency_per_consumer = affine_set<(p, q)[c] : (p - c == 0, q == 0)>, identity(%p : tensor<64xf16>)
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %rr: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// Group disjointness, when enumerable (R1): tiles 3g .. 3g+3 over g = 0, 1 put
// tile 3 in both groups.
#two  = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#over = affine_set<(i)[g] : (i - 3*g >= 0, -i + 3*g + 3 >= 0)>
func.func @producer_groups_overlap(%p: tensor<64xf16>) {
  // expected-error @+1 {{producer_tiles_per_group for groups 0 and 1 are not disjoint: tile 3 is in both}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #over
      -> <(tensor<64xf16>), groups = #two> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  return
}

// -----
// [ours] The consumer sets of distinct groups are disjoint too: a tile holds one
// delivered value per role.
#two   = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#first = affine_set<(i)[g] : (i - 4*g == 0)>
#over  = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 4 >= 0)>
func.func @consumer_groups_overlap(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first
      -> <(tensor<64xf16>), groups = #two> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{consumer_tiles_per_group for groups 0 and 1 are not disjoint: tile 4 is in both}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #over
      : <(tensor<64xf16>), groups = #two> -> tensor<64xf16>
  return %r : tensor<64xf16>
}

// -----
// Partial types: a future carries at least one role ...
// expected-error @+1 {{tile_future must carry at least one partial type}}
func.func @future_no_partials(%a: !ktdp.tile_future<(), groups = affine_set<(g) : (g == 0)>>) { return }

// -----
// ... each a ranked tensor.
// expected-error @+1 {{tile_future partial types must be ranked tensors, got index}}
func.func @future_scalar_partial(%a: !ktdp.tile_future<(index), groups = affine_set<(g) : (g == 0)>>) { return }

// -----
// The producer region takes one `index` argument (the group id).
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @producer_region_arg(%p: tensor<64xf16>) {
  // expected-error @+1 {{producer region must take a single `index` group-id argument, got (i32)}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: i32):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  return
}

// -----
// yield_partial yields one value per role ...
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @yield_partial_arity(%p: tensor<64xf16>) {
  // expected-error @+1 {{yield_partial yields 1 values but the future carries 2 partial type(s)}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>, tensor<64xi32>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  return
}

// -----
// ... of the role's partial type.
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @yield_partial_type(%p: tensor<1x64xf16>) {
  // expected-error @+1 {{yield_partial operand #0 type tensor<1x64xf16> does not match future partial type tensor<64xf16>}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<1x64xf16>
  }
  return
}

// -----
// Result types: a delivery result is the partial type, or (the older public
// spelling) the partial type with unit dims dropped; nothing else.
#grp = affine_set<(g) : (g == 0)>
#t0  = affine_set<(i)[g] : (i - 4*g == 0)>
#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @consume_result_type(%p: tensor<2x64xf16>) -> tensor<128xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #t0
      -> <(tensor<2x64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<2x64xf16>
  }
  // expected-error @+1 {{result #0 type tensor<128xf16> is neither the future partial type tensor<2x64xf16> nor that type with unit dimensions dropped}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all
      : <(tensor<2x64xf16>), groups = #grp> -> tensor<128xf16>
  return %r : tensor<128xf16>
}

// -----
// One result per role.
#grp = affine_set<(g) : (g == 0)>
#t0  = affine_set<(i)[g] : (i - 4*g == 0)>
#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @consume_result_arity(%v: tensor<128xf32>, %i: tensor<128xi32>) -> tensor<128xf32> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #t0
      -> <(tensor<128xf32>, tensor<128xi32>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %v, %i : tensor<128xf32>, tensor<128xi32>
  }
  // expected-error @+1 {{has 1 results but the future carries 2 partial type(s)}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all
      : <(tensor<128xf32>, tensor<128xi32>), groups = #grp> -> tensor<128xf32>
  return %r : tensor<128xf32>
}

// -----
// The reduce result follows the same rule.
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @reduce_result_type(%p: tensor<1x64xf16>) -> tensor<64xf32> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<1x64xf16>
  }
  // expected-error @+1 {{result #0 type tensor<64xf32> is neither the future partial type tensor<1x64xf16> nor that type with unit dimensions dropped}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%p : tensor<1x64xf16>)
      : <(tensor<1x64xf16>), groups = #grp> -> tensor<64xf32> {
  ^bb0(%l: tensor<1x64xf16>, %rr: tensor<1x64xf16>):
    ktdp.yield_reduced %l : tensor<1x64xf16>
  }
  return %r : tensor<64xf32>
}

// -----
// Identity types: one identity per role, of the partial type (R11).
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @identity_type(%p: tensor<1x64xf16>, %id: tensor<2x64xf16>) -> tensor<1x64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<1x64xf16>
  }
  // expected-error @+1 {{identity #0 type tensor<2x64xf16> must match the future partial type tensor<1x64xf16>}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%id : tensor<2x64xf16>)
      : <(tensor<1x64xf16>), groups = #grp> -> tensor<1x64xf16> {
  ^bb0(%l: tensor<1x64xf16>, %rr: tensor<1x64xf16>):
    ktdp.yield_reduced %l : tensor<1x64xf16>
  }
  return %r : tensor<1x64xf16>
}

// -----
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @identity_count(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{has 2 identity operands but the future carries 1 partial type(s)}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%p, %p : tensor<64xf16>, tensor<64xf16>)
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %rr: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// The combiner takes 2N arguments (lhs_1..lhs_N, rhs_1..rhs_N) ...
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @combiner_arity(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{reducer region must take 2*1 arguments, got 1}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%p : tensor<64xf16>)
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// ... each pair of the role's partial type ...
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @combiner_arg_type(%p: tensor<1x64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<1x64xf16>
  }
  // expected-error @+1 {{reducer region argument pair #0 must both have partial type tensor<1x64xf16>}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%p : tensor<1x64xf16>)
      : <(tensor<1x64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %rr: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// ... and yields N values of the partial types (not the rank-reduced result types).
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @yield_reduced_type(%p: tensor<1x64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<1x64xf16>
  }
  // expected-error @+1 {{yield_reduced operand #0 type tensor<64xf16> must match partial type tensor<1x64xf16>}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%p : tensor<1x64xf16>)
      : <(tensor<1x64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<1x64xf16>, %rr: tensor<1x64xf16>):
    %c = tensor.collapse_shape %l [[0, 1]] : tensor<1x64xf16> into tensor<64xf16>
    ktdp.yield_reduced %c : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// [ours] The combiner must be pure (R10): it is run in an order of the
// implementation's choosing.
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @combiner_not_pure(%p: tensor<1x64xf16>, %at: !ktdp.access_tile<1x64xindex>) -> tensor<1x64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<1x64xf16>
  }
  // expected-error @+1 {{the combiner region must be pure: 'ktdp.store' has memory effects}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%p : tensor<1x64xf16>)
      : <(tensor<1x64xf16>), groups = #grp> -> tensor<1x64xf16> {
  ^bb0(%l: tensor<1x64xf16>, %rr: tensor<1x64xf16>):
    ktdp.store %l, %at : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
    ktdp.yield_reduced %l : tensor<1x64xf16>
  }
  return %r : tensor<1x64xf16>
}

// -----
// The future is used exactly once (R2): two deliveries ...
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @future_two_uses(%p: tensor<64xf16>) -> (tensor<64xf16>, tensor<64xf16>) {
  // expected-error @+1 {{future result must have exactly one use, has 2}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  %r1 = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%p : tensor<64xf16>)
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %rr: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  %r2 = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%p : tensor<64xf16>)
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %rr: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r1, %r2 : tensor<64xf16>, tensor<64xf16>
}

// -----
// ... or none.
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @future_unused(%p: tensor<64xf16>) {
  // expected-error @+1 {{future result must have exactly one use, has 0}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  return
}

// -----
// [ours] A delivery op takes its future from a ktdp.inter_tile_produce in the
// same block (the pairing the interpreter and a lowering rely on) ...
func.func @future_from_argument(%f: !ktdp.tile_future<(tensor<64xf16>), groups = affine_set<(g) : (g == 0)>>) -> tensor<64xf16> {
  // expected-error @+1 {{the future of ktdp.inter_tile_consume must be the result of a ktdp.inter_tile_produce in the same block}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
      : <(tensor<64xf16>), groups = affine_set<(g) : (g == 0)>> -> tensor<64xf16>
  return %r : tensor<64xf16>
}

// -----
// ... not in a nested region (a delivery inside a loop would run once per
// iteration on one production).
#grp = affine_set<(g) : (g == 0)>
#t0  = affine_set<(i)[g] : (i - 4*g == 0)>
#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @delivery_in_nested_region(%p: tensor<64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #t0
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  scf.for %k = %c0 to %n step %c1 {
    // expected-error @+1 {{the future of ktdp.inter_tile_consume must be the result of a ktdp.inter_tile_produce in the same block}}
    %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all
        : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16>
  }
  return
}

// -----
// Consumers among producers for reduce (R13).
#grp  = affine_set<(g) : (g == 0)>
#prod = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#cons = affine_set<(i)[g] : (i - 4*g - 2 >= 0, -i + 4*g + 5 >= 0)>
func.func @reduce_consumer_not_producer(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #prod
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{consumer_tiles_per_group for group 0 is not a subset of producer_tiles_per_group: tiles 4, 5 consume but do not produce}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #cons, identity(%p : tensor<64xf16>)
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %rr: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// Reduce mode gate (R14, upstream's legality pass): all-reduce (C == P) or
// reduce-to-one (|C| == 1); a strict multi-tile subset is rejected.
#grp  = affine_set<(g) : (g == 0)>
#prod = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#cons = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 1 >= 0)>
func.func @reduce_to_subset(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #prod
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{consumer_tiles_per_group for group 0 is a strict subset of producer_tiles_per_group with more than one tile (reduce-to-subset is unsupported; only all-reduce and reduce-to-one are supported)}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #cons, identity(%p : tensor<64xf16>)
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %rr: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// A consume with several producers needs a dependency set (R8) ...
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
func.func @consume_several_producers_no_dep(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{producer_tiles_per_group for group 0 has 4 producers, so producer_dependency_per_consumer is required to name each consumer tile's single source}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #tiles
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16>
  return %r : tensor<64xf16>
}

// -----
// ... that gives each consumer exactly one source: not two ...
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#two   = affine_set<(p)[c] : (p >= 0, -p + 1 >= 0)>
func.func @consume_two_sources(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{consumer tile 0 in group 0 depends on 2 producers; inter_tile_consume delivers one contribution per consumer tile, so exactly one is required: tiles 0, 1}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #tiles, producer_dependency_per_consumer = #two
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16>
  return %r : tensor<64xf16>
}

// -----
// ... and not none [ours: upstream skips groups with at most one producer].
#grp  = affine_set<(g) : (g == 0)>
#t0   = affine_set<(i)[g] : (i - 4*g == 0)>
#all  = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#only0 = affine_set<(p)[c] : (p == 0, c == 0)>
func.func @consume_no_source(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #t0
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{consumer tile 1 in group 0 depends on 0 producers; inter_tile_consume delivers one contribution per consumer tile, so exactly one is required}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all, producer_dependency_per_consumer = #only0
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16>
  return %r : tensor<64xf16>
}

// -----
// Declared dependencies are producers (R3): D(c) = {c, c + 1} names tile 4 for
// consumer 3, and tile 4 produces for no group.
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#next  = affine_set<(p)[c] : (p - c >= 0, -p + c + 1 >= 0)>
func.func @dep_not_a_producer(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{producer_dependency_per_consumer for consumer 3 group 0 references producer tile 4 which is not in producer_tiles_per_group}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, producer_dependency_per_consumer = #next, identity(%p : tensor<64xf16>)
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %rr: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// Every producer is claimed (R4), on reduce (a consume may broadcast one producer's tile).
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#low   = affine_set<(p)[c] : (p >= 0, -p + 2 >= 0)>
func.func @reduce_producer_unclaimed(%p: tensor<64xf16>) -> tensor<64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  // expected-error @+1 {{producer_dependency_per_consumer for group 0 does not cover producer tile 3 (no consumer has it as a dependency)}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, producer_dependency_per_consumer = #low, identity(%p : tensor<64xf16>)
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %rr: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// [ours] With a `grid` attribute the tile ids are bounded: a set naming a tile
// outside the grid names a producer that never exists.
#grp   = affine_set<(g) : (g == 0)>
#eight = affine_set<(i)[g] : (i >= 0, -i + 7 >= 0)>
#t0    = affine_set<(i)[g] : (i == 0)>
func.func @producer_outside_grid(%p: tensor<64xf16>) -> tensor<64xf16> attributes {grid = [4]} {
  // expected-error @+1 {{producer_tiles_per_group for group 0 names tiles 4, 5, 6, 7, outside the grid of 4 tiles}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #eight
      -> <(tensor<64xf16>), groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #t0, identity(%p : tensor<64xf16>)
      : <(tensor<64xf16>), groups = #grp> -> tensor<64xf16> {
  ^bb0(%l: tensor<64xf16>, %rr: tensor<64xf16>):
    ktdp.yield_reduced %l : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----
// [ours] The positional groups set of the design document (§7) is not KTDP
// syntax (upstream does not parse it either): an error with a hint.
#g = affine_set<(g) : (g == 0)>
// expected-error @+1 {{expected a partial type or `groups = affine_set<...>`: write the groups set as `groups = #set`}}
func.func @positional_groups(%a: !ktdp.tile_future<tensor<4xf16>, #g>) { return }

// -----
// [ours] Older spelling: the partial types written before `->` must be the
// future's partial types.
#grp   = affine_set<(g) : (g == 0)>
#tiles = affine_set<(i)[g] : (i >= 0, -i + 3 >= 0)>
func.func @old_spelling_mismatch(%p: tensor<1x64xf16>) {
  // expected-error @+2 {{the partial types before '->' (tensor<1x64xf16>) do not match the future type}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      : tensor<1x64xf16> -> !ktdp.tile_future<tensor<64xf16>, groups = #grp> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<1x64xf16>
  }
  return
}

// -----
// [ours] The groups set is required: in the type, or (older spelling) as the
// ops' `groups` attribute.
#tiles = affine_set<(i)[g] : (i >= 0, -i + 3 >= 0)>
func.func @groups_missing(%p: tensor<64xf16>) {
  // expected-error @+1 {{the groups set is missing: write `groups = affine_set<(g) : ...>` in the tile_future type}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles -> <(tensor<64xf16>)> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf16>
  }
  return
}
