// RUN: %spyre-opt --mlir-print-local-scope %s | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s | %spyre-opt --mlir-print-local-scope | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s --mlir-print-op-generic | %spyre-opt --mlir-print-local-scope | %FileCheck %s

// Round trip of the inter-tile ops (issue 8; docs/inter-tile.md §2): every op,
// the type, and every spelling in public use. Whatever the input spelling, the
// printed form is the upstream one (torch-spyre/ktir-mlir-frontend KTDP.td
// assemblyFormat, as its test/Dialect/KTDP/inter-tile-consume-roundtrip.mlir
// prints it): the future type stripped of `!ktdp.tile_future` inside the op
// (`-> <(T...), groups = S>`, `: <(T...), groups = S> -> ...`), partial types in
// parentheses, groups inside the type, identities as `identity(%a, %b : T, U)`.
// Affine sets print inline (this printer emits no aliases).

#g1     = affine_set<(g) : (g == 0)>
#g2     = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#tiles  = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#tile0  = affine_set<(i)[g] : (i - 4*g == 0)>
#lo2    = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 1 >= 0)>
#hi2    = affine_set<(i)[g] : (i - 4*g - 2 >= 0, -i + 4*g + 3 >= 0)>
#minus2 = affine_set<(p)[c] : (p - c + 2 == 0)>
#mirror = affine_set<(p)[c, g] : (p + c - 8*g - 3 == 0)>

// ---------------------------------------------------------------------------
// The type, as a function argument and result (fully qualified there).

// CHECK-LABEL: func.func @future_type(
// CHECK-SAME: %{{.*}}: !ktdp.tile_future<(tensor<1x64xf16>), groups = affine_set<(d0) : (d0 == 0)>>
// CHECK-SAME: %{{.*}}: !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>>
// CHECK-SAME: -> !ktdp.tile_future<(tensor<1x64xf16>), groups = affine_set<(d0) : (d0 == 0)>>
func.func @future_type(%a: !ktdp.tile_future<(tensor<1x64xf16>), groups = #g1>,
                       %b: !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #g2>)
    -> !ktdp.tile_future<(tensor<1x64xf16>), groups = #g1> {
  return %a : !ktdp.tile_future<(tensor<1x64xf16>), groups = #g1>
}

// The older type spelling (no parentheses around the partial types) reads as
// the same type and prints in the upstream form.
// CHECK-LABEL: func.func @future_type_old(
// CHECK-SAME: %{{.*}}: !ktdp.tile_future<(tensor<1x128xf16>), groups = affine_set<(d0) : (d0 == 0)>>
// CHECK-SAME: %{{.*}}: !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>>
func.func @future_type_old(%a: !ktdp.tile_future<tensor<1x128xf16>, groups = #g1>,
                           %b: !ktdp.tile_future<tensor<128xf32>, tensor<128xi32>, groups = #g2>) {
  return
}

// ---------------------------------------------------------------------------
// Upstream spelling: produce + reduce (all-reduce, one group).

// CHECK-LABEL: func.func @reduce_upstream(
// CHECK:      %[[F:.*]] = ktdp.inter_tile_produce producer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 >= 0, -d0 + s0 * 4 + 3 >= 0)> -> <(tensor<1x64xf16>), groups = affine_set<(d0) : (d0 == 0)>> {
// CHECK-NEXT: ^bb0(%{{.*}}: index):
// CHECK-NEXT:   ktdp.yield_partial %{{.*}} : tensor<1x64xf16>
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}} = ktdp.inter_tile_reduce(%[[F]]) consumer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 >= 0, -d0 + s0 * 4 + 3 >= 0)>, identity(%{{.*}} : tensor<1x64xf16>) : <(tensor<1x64xf16>), groups = affine_set<(d0) : (d0 == 0)>> -> tensor<1x64xf16> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<1x64xf16>, %{{.*}}: tensor<1x64xf16>):
// CHECK:        ktdp.yield_reduced %{{.*}} : tensor<1x64xf16>
// CHECK-NEXT: }
func.func @reduce_upstream(%p: tensor<1x64xf16>, %id: tensor<1x64xf16>) -> tensor<1x64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<1x64xf16>), groups = #g1> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<1x64xf16>
  }
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%id : tensor<1x64xf16>)
      : <(tensor<1x64xf16>), groups = #g1> -> tensor<1x64xf16> {
  ^bb0(%lhs: tensor<1x64xf16>, %rhs: tensor<1x64xf16>):
    %init = tensor.empty() : tensor<1x64xf16>
    %s = linalg.add ins(%lhs, %rhs : tensor<1x64xf16>, tensor<1x64xf16>) outs(%init : tensor<1x64xf16>) -> tensor<1x64xf16>
    ktdp.yield_reduced %s : tensor<1x64xf16>
  }
  return %r : tensor<1x64xf16>
}

// The type inside the op may also be written fully qualified (MLIR's
// parseCustomTypeWithFallback accepts both); it prints stripped.
// CHECK-LABEL: func.func @reduce_upstream_qualified(
// CHECK:      ktdp.inter_tile_produce producer_tiles_per_group = {{.*}} -> <(tensor<1x64xf16>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>> {
// CHECK:      ktdp.inter_tile_reduce(%{{.*}}) consumer_tiles_per_group = {{.*}}, identity(%{{.*}} : tensor<1x64xf16>) : <(tensor<1x64xf16>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>> -> tensor<1x64xf16> {
func.func @reduce_upstream_qualified(%p: tensor<1x64xf16>, %id: tensor<1x64xf16>) -> tensor<1x64xf16> {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> !ktdp.tile_future<(tensor<1x64xf16>), groups = #g2> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<1x64xf16>
  }
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles, identity(%id : tensor<1x64xf16>)
      : !ktdp.tile_future<(tensor<1x64xf16>), groups = #g2> -> tensor<1x64xf16> {
  ^bb0(%lhs: tensor<1x64xf16>, %rhs: tensor<1x64xf16>):
    %s = arith.addf %lhs, %rhs : tensor<1x64xf16>
    ktdp.yield_reduced %s : tensor<1x64xf16>
  }
  return %r : tensor<1x64xf16>
}

// Reduce with a two-symbol dependency set and reduce-to-one.
// CHECK-LABEL: func.func @reduce_dependency_set(
// CHECK:      ktdp.inter_tile_reduce(%{{.*}}) consumer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 >= 0, -d0 + s0 * 4 + 3 >= 0)>, producer_dependency_per_consumer = affine_set<(d0)[s0, s1] : (d0 + s0 - s1 * 8 - 3 == 0)>, identity(%{{.*}} : tensor<64xf32>) : <(tensor<64xf32>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>> -> tensor<64xf32> {
// CHECK:      ktdp.inter_tile_reduce(%{{.*}}) consumer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 == 0)>, identity(%{{.*}} : tensor<64xf32>) : <(tensor<64xf32>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>> -> tensor<64xf32> {
func.func @reduce_dependency_set(%p: tensor<64xf32>, %id: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf32>), groups = #g2> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf32>
  }
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles,
      producer_dependency_per_consumer = #mirror,
      identity(%id : tensor<64xf32>)
      : <(tensor<64xf32>), groups = #g2> -> tensor<64xf32> {
  ^bb0(%lhs: tensor<64xf32>, %rhs: tensor<64xf32>):
    %s = arith.addf %lhs, %rhs : tensor<64xf32>
    ktdp.yield_reduced %s : tensor<64xf32>
  }
  %f2 = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf32>), groups = #g2> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf32>
  }
  %r2 = ktdp.inter_tile_reduce(%f2) consumer_tiles_per_group = #tile0, identity(%id : tensor<64xf32>)
      : <(tensor<64xf32>), groups = #g2> -> tensor<64xf32> {
  ^bb0(%lhs: tensor<64xf32>, %rhs: tensor<64xf32>):
    %s = arith.maximumf %lhs, %rhs : tensor<64xf32>
    ktdp.yield_reduced %s : tensor<64xf32>
  }
  return %r, %r2 : tensor<64xf32>, tensor<64xf32>
}

// Two partial roles: 2N = 4 combiner arguments, two identities, two results.
// CHECK-LABEL: func.func @reduce_two_roles(
// CHECK:      ktdp.inter_tile_produce producer_tiles_per_group = {{.*}} -> <(tensor<16xf32>, tensor<16xi32>), groups = affine_set<(d0) : (d0 == 0)>> {
// CHECK:        ktdp.yield_partial %{{.*}}, %{{.*}} : tensor<16xf32>, tensor<16xi32>
// CHECK:      %{{.*}}, %{{.*}} = ktdp.inter_tile_reduce(%{{.*}}) consumer_tiles_per_group = {{.*}}, identity(%{{.*}}, %{{.*}} : tensor<16xf32>, tensor<16xi32>) : <(tensor<16xf32>, tensor<16xi32>), groups = affine_set<(d0) : (d0 == 0)>> -> tensor<16xf32>, tensor<16xi32> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<16xf32>, %{{.*}}: tensor<16xi32>, %{{.*}}: tensor<16xf32>, %{{.*}}: tensor<16xi32>):
// CHECK:        ktdp.yield_reduced %{{.*}}, %{{.*}} : tensor<16xf32>, tensor<16xi32>
// The older interleaved identity list `identity(%a : T, %b : U)` reads the same.
// CHECK:      identity(%{{.*}}, %{{.*}} : tensor<16xf32>, tensor<16xi32>) : <(tensor<16xf32>, tensor<16xi32>), groups = affine_set<(d0) : (d0 == 0)>> -> tensor<16xf32>, tensor<16xi32> {
func.func @reduce_two_roles(%v: tensor<16xf32>, %i: tensor<16xi32>, %iv: tensor<16xf32>, %ii: tensor<16xi32>)
    -> (tensor<16xf32>, tensor<16xi32>, tensor<16xf32>, tensor<16xi32>) {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<16xf32>, tensor<16xi32>), groups = #g1> {
  ^bb0(%gid: index):
    ktdp.yield_partial %v, %i : tensor<16xf32>, tensor<16xi32>
  }
  %rv, %ri = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #tiles,
      identity(%iv, %ii : tensor<16xf32>, tensor<16xi32>)
      : <(tensor<16xf32>, tensor<16xi32>), groups = #g1> -> tensor<16xf32>, tensor<16xi32> {
  ^bb0(%lv: tensor<16xf32>, %li: tensor<16xi32>, %rv2: tensor<16xf32>, %ri2: tensor<16xi32>):
    %take = arith.cmpf ogt, %rv2, %lv : tensor<16xf32>
    %mv = arith.select %take, %rv2, %lv : tensor<16xi1>, tensor<16xf32>
    %mi = arith.select %take, %ri2, %li : tensor<16xi1>, tensor<16xi32>
    ktdp.yield_reduced %mv, %mi : tensor<16xf32>, tensor<16xi32>
  }
  %f2 = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<16xf32>, tensor<16xi32>), groups = #g1> {
  ^bb0(%gid: index):
    ktdp.yield_partial %v, %i : tensor<16xf32>, tensor<16xi32>
  }
  %sv, %si = ktdp.inter_tile_reduce(%f2) consumer_tiles_per_group = #tiles,
      identity(%iv : tensor<16xf32>, %ii : tensor<16xi32>)
      : <(tensor<16xf32>, tensor<16xi32>), groups = #g1> -> tensor<16xf32>, tensor<16xi32> {
  ^bb0(%lv: tensor<16xf32>, %li: tensor<16xi32>, %rv2: tensor<16xf32>, %ri2: tensor<16xi32>):
    ktdp.yield_reduced %lv, %li : tensor<16xf32>, tensor<16xi32>
  }
  return %rv, %ri, %sv, %si : tensor<16xf32>, tensor<16xi32>, tensor<16xf32>, tensor<16xi32>
}

// ---------------------------------------------------------------------------
// inter_tile_consume: broadcast, routing (one-symbol dependency set), two roles.

// CHECK-LABEL: func.func @consume(
// CHECK:      %[[B:.*]] = ktdp.inter_tile_produce producer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 == 0)> -> <(tensor<64x128xf16>), groups = affine_set<(d0) : (d0 == 0)>> {
// CHECK:      ktdp.inter_tile_consume(%[[B]]) consumer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 >= 0, -d0 + s0 * 4 + 3 >= 0)> : <(tensor<64x128xf16>), groups = affine_set<(d0) : (d0 == 0)>> -> tensor<64x128xf16>
// CHECK:      ktdp.inter_tile_consume(%{{.*}}) consumer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 - 2 >= 0, -d0 + s0 * 4 + 3 >= 0)>, producer_dependency_per_consumer = affine_set<(d0)[s0] : (d0 - s0 + 2 == 0)> : <(tensor<64xf16>), groups = affine_set<(d0) : (d0 == 0)>> -> tensor<64xf16>
// CHECK:      %{{.*}}, %{{.*}} = ktdp.inter_tile_consume(%{{.*}}) consumer_tiles_per_group = {{.*}} : <(tensor<128xf32>, tensor<128xi32>), groups = affine_set<(d0) : (d0 == 0)>> -> tensor<128xf32>, tensor<128xi32>
func.func @consume(%w: tensor<64x128xf16>, %d: tensor<64xf16>, %v: tensor<128xf32>, %i: tensor<128xi32>)
    -> (tensor<64x128xf16>, tensor<64xf16>, tensor<128xf32>, tensor<128xi32>) {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tile0
      -> <(tensor<64x128xf16>), groups = #g1> {
  ^bb0(%gid: index):
    ktdp.yield_partial %w : tensor<64x128xf16>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #tiles
      : <(tensor<64x128xf16>), groups = #g1> -> tensor<64x128xf16>
  %f2 = ktdp.inter_tile_produce producer_tiles_per_group = #lo2
      -> <(tensor<64xf16>), groups = #g1> {
  ^bb0(%gid: index):
    ktdp.yield_partial %d : tensor<64xf16>
  }
  %r2 = ktdp.inter_tile_consume(%f2) consumer_tiles_per_group = #hi2,
      producer_dependency_per_consumer = #minus2
      : <(tensor<64xf16>), groups = #g1> -> tensor<64xf16>
  %f3 = ktdp.inter_tile_produce producer_tiles_per_group = #tile0
      -> <(tensor<128xf32>, tensor<128xi32>), groups = #g1> {
  ^bb0(%gid: index):
    ktdp.yield_partial %v, %i : tensor<128xf32>, tensor<128xi32>
  }
  %a, %b = ktdp.inter_tile_consume(%f3) consumer_tiles_per_group = #tiles
      : !ktdp.tile_future<(tensor<128xf32>, tensor<128xi32>), groups = #g1> -> tensor<128xf32>, tensor<128xi32>
  return %r, %r2, %a, %b : tensor<64x128xf16>, tensor<64xf16>, tensor<128xf32>, tensor<128xi32>
}

// ---------------------------------------------------------------------------
// The older spelling of the corpus ring_reduce examples: the partial types
// before `->`, `tile_future<T, groups = S>` without parentheses, and a reduce
// result that drops the unit dims of the partial. It prints in the upstream
// form; the rank-reduced result type is kept as written (docs/inter-tile.md §2.8).

// CHECK-LABEL: func.func @old_spelling(
// CHECK:      %[[O:.*]] = ktdp.inter_tile_produce producer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 >= 0, -d0 + s0 * 4 + 3 >= 0)> -> <(tensor<1x128xf16>), groups = affine_set<(d0) : (d0 == 0)>> {
// CHECK:      ktdp.inter_tile_reduce(%[[O]]) consumer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 >= 0, -d0 + s0 * 4 + 3 >= 0)>, identity(%{{.*}} : tensor<1x128xf16>) : <(tensor<1x128xf16>), groups = affine_set<(d0) : (d0 == 0)>> -> tensor<128xf16> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<1x128xf16>, %{{.*}}: tensor<1x128xf16>):
func.func @old_spelling(%partial: tensor<1x128xf16>, %add_id: tensor<1x128xf16>) -> tensor<128xf16> {
  %fut = ktdp.inter_tile_produce
      producer_tiles_per_group = #tiles
      : tensor<1x128xf16> -> !ktdp.tile_future<tensor<1x128xf16>, groups = affine_set<(g) : (g == 0)>>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %partial : tensor<1x128xf16>
  }
  %reduced = ktdp.inter_tile_reduce(%fut)
      consumer_tiles_per_group = #tiles,
      identity(%add_id : tensor<1x128xf16>)
      : !ktdp.tile_future<tensor<1x128xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<128xf16>
  {
    ^bb0(%lhs: tensor<1x128xf16>, %rhs: tensor<1x128xf16>):
      %init = tensor.empty() : tensor<1x128xf16>
      %sum  = linalg.add ins(%lhs, %rhs : tensor<1x128xf16>, tensor<1x128xf16>)
                         outs(%init : tensor<1x128xf16>) -> tensor<1x128xf16>
      ktdp.yield_reduced %sum : tensor<1x128xf16>
  }
  return %reduced : tensor<128xf16>
}

// Older spelling with two roles (upstream test/Ktdp/inter-tile-reduce-roundtrip.mlir
// @497fe79): `: T, U -> !ktdp.tile_future<T, U, groups = S>`, interleaved identities,
// interior unit dims dropped in the results.
// CHECK-LABEL: func.func @old_spelling_two_roles(
// CHECK:      ktdp.inter_tile_produce producer_tiles_per_group = {{.*}} -> <(tensor<1x64xf32>, tensor<1x64xi32>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>> {
// CHECK:      ktdp.inter_tile_reduce(%{{.*}}) consumer_tiles_per_group = {{.*}}, producer_dependency_per_consumer = affine_set<(d0)[s0, s1] : (d0 + s0 - s1 * 8 - 3 == 0)>, identity(%{{.*}}, %{{.*}} : tensor<1x64xf32>, tensor<1x64xi32>) : <(tensor<1x64xf32>, tensor<1x64xi32>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>> -> tensor<64xf32>, tensor<64xi32> {
func.func @old_spelling_two_roles(%pv: tensor<1x64xf32>, %pi: tensor<1x64xi32>,
                                  %iv: tensor<1x64xf32>, %ii: tensor<1x64xi32>)
    -> (tensor<64xf32>, tensor<64xi32>) {
  %f = ktdp.inter_tile_produce
      producer_tiles_per_group = #tiles
      : tensor<1x64xf32>, tensor<1x64xi32>
        -> !ktdp.tile_future<tensor<1x64xf32>, tensor<1x64xi32>, groups = #g2>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %pv, %pi : tensor<1x64xf32>, tensor<1x64xi32>
  }
  %rv, %ri = ktdp.inter_tile_reduce(%f)
      consumer_tiles_per_group = #tiles,
      producer_dependency_per_consumer = #mirror,
      identity(%iv : tensor<1x64xf32>, %ii : tensor<1x64xi32>)
      : !ktdp.tile_future<tensor<1x64xf32>, tensor<1x64xi32>, groups = #g2>
        -> tensor<64xf32>, tensor<64xi32>
  {
    ^bb0(%lv: tensor<1x64xf32>, %li: tensor<1x64xi32>,
         %rv2: tensor<1x64xf32>, %ri2: tensor<1x64xi32>):
      %take_lhs = arith.cmpf ogt, %lv, %rv2 : tensor<1x64xf32>
      %max_v = arith.maxnumf %lv, %rv2 : tensor<1x64xf32>
      %max_i = arith.select %take_lhs, %li, %ri2 : tensor<1x64xi1>, tensor<1x64xi32>
      ktdp.yield_reduced %max_v, %max_i : tensor<1x64xf32>, tensor<1x64xi32>
  }
  return %rv, %ri : tensor<64xf32>, tensor<64xi32>
}

// The oldest spelling (ktir-cpu ring_reduce_multi_group.mlir): `groups = S` as an
// attribute of both ops and `!ktdp.tile_future<T>` with no groups. The set moves
// into the type; no `groups` attribute is printed.
// CHECK-LABEL: func.func @attr_spelling(
// CHECK:      %[[A:.*]] = ktdp.inter_tile_produce producer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 >= 0, -d0 + s0 * 4 + 3 >= 0)> -> <(tensor<1x128xf16>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>> {
// CHECK:      ktdp.inter_tile_reduce(%[[A]]) consumer_tiles_per_group = affine_set<(d0)[s0] : (d0 - s0 * 4 >= 0, -d0 + s0 * 4 + 3 >= 0)>, identity(%{{.*}} : tensor<1x128xf16>) : <(tensor<1x128xf16>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>> -> tensor<128xf16> {
// CHECK-NOT:  groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>,
func.func @attr_spelling(%partial: tensor<1x128xf16>, %add_id: tensor<1x128xf16>) -> tensor<128xf16> {
  %fut = ktdp.inter_tile_produce
      producer_tiles_per_group = #tiles,
      groups                   = #g2
      : tensor<1x128xf16> -> !ktdp.tile_future<tensor<1x128xf16>>
  {
    ^bb0(%gid: index):
      ktdp.yield_partial %partial : tensor<1x128xf16>
  }
  %reduced = ktdp.inter_tile_reduce(%fut)
      consumer_tiles_per_group = #tiles,
      groups                   = #g2,
      identity(%add_id : tensor<1x128xf16>)
      : !ktdp.tile_future<tensor<1x128xf16>> -> tensor<128xf16>
  {
    ^bb0(%lhs: tensor<1x128xf16>, %rhs: tensor<1x128xf16>):
      %init = tensor.empty() : tensor<1x128xf16>
      %sum  = linalg.add ins(%lhs, %rhs : tensor<1x128xf16>, tensor<1x128xf16>)
                         outs(%init : tensor<1x128xf16>) -> tensor<1x128xf16>
      ktdp.yield_reduced %sum : tensor<1x128xf16>
  }
  return %reduced : tensor<128xf16>
}

// ---------------------------------------------------------------------------
// Discardable attributes go where KTDP.td's attr-dict is: after the sets,
// before `->` (produce) or `:` (consume, reduce).

// CHECK-LABEL: func.func @attr_dict(
// CHECK:      ktdp.inter_tile_produce producer_tiles_per_group = {{.*}} {tag = 1 : i64} -> <(tensor<64xf16>), groups = affine_set<(d0) : (d0 == 0)>> {
// CHECK:      ktdp.inter_tile_consume(%{{.*}}) consumer_tiles_per_group = {{.*}} {tag = 2 : i64} : <(tensor<64xf16>), groups = affine_set<(d0) : (d0 == 0)>> -> tensor<64xf16>
// CHECK:      ktdp.inter_tile_reduce(%{{.*}}) consumer_tiles_per_group = {{.*}}, identity(%{{.*}} : tensor<64xf16>) {tag = 3 : i64} : <(tensor<64xf16>), groups = affine_set<(d0) : (d0 == 0)>> -> tensor<64xf16> {
func.func @attr_dict(%d: tensor<64xf16>) -> (tensor<64xf16>, tensor<64xf16>) {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tile0 {tag = 1 : i64}
      -> <(tensor<64xf16>), groups = #g1> {
  ^bb0(%gid: index):
    ktdp.yield_partial %d : tensor<64xf16>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #tiles {tag = 2 : i64}
      : <(tensor<64xf16>), groups = #g1> -> tensor<64xf16>
  %f2 = ktdp.inter_tile_produce producer_tiles_per_group = #tiles
      -> <(tensor<64xf16>), groups = #g1> {
  ^bb0(%gid: index):
    ktdp.yield_partial %d : tensor<64xf16>
  }
  %r2 = ktdp.inter_tile_reduce(%f2) consumer_tiles_per_group = #tiles, identity(%d : tensor<64xf16>) {tag = 3 : i64}
      : <(tensor<64xf16>), groups = #g1> -> tensor<64xf16> {
  ^bb0(%lhs: tensor<64xf16>, %rhs: tensor<64xf16>):
    %s = arith.addf %lhs, %rhs : tensor<64xf16>
    ktdp.yield_reduced %s : tensor<64xf16>
  }
  return %r, %r2 : tensor<64xf16>, tensor<64xf16>
}

// ---------------------------------------------------------------------------
// A producer region with real work in it (loads indexed by %gid run only on
// producers), inside an scf.for body.

// CHECK-LABEL: func.func @region_body_in_loop(
// CHECK:      scf.for
// CHECK:        ktdp.inter_tile_produce producer_tiles_per_group = {{.*}} -> <(tensor<1x32xf32>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>> {
// CHECK-NEXT:   ^bb0(%[[GID:.*]]: index):
// CHECK-NEXT:     ktdp.construct_access_tile %{{.*}}[%[[GID]], %{{.*}}]
// CHECK:          ktdp.yield_partial %{{.*}} : tensor<1x32xf32>
// CHECK:        ktdp.inter_tile_consume(%{{.*}}) consumer_tiles_per_group = {{.*}} : <(tensor<1x32xf32>), groups = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>> -> tensor<1x32xf32>
func.func @region_body_in_loop(%x: index, %n: index) attributes {grid = [8]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xv = ktdp.construct_memory_view %x, sizes: [2, 32], strides: [32, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 31 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x32xf32>
  scf.for %k = %c0 to %n step %c1 {
    %f = ktdp.inter_tile_produce producer_tiles_per_group = #tile0
        -> <(tensor<1x32xf32>), groups = #g2> {
    ^bb0(%gid: index):
      %t = ktdp.construct_access_tile %xv[%gid, %c0] {
        access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 31 >= 0)>,
        access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x32xf32> -> !ktdp.access_tile<1x32xindex>
      %v = ktdp.load %t : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
      ktdp.yield_partial %v : tensor<1x32xf32>
    }
    %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #tiles
        : <(tensor<1x32xf32>), groups = #g2> -> tensor<1x32xf32>
  }
  return
}
