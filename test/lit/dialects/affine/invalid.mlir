// RUN: %spyre-opt %s --split-input-file --verify-diagnostics
// An affine map or set dividing by zero is refused where it is written
// (spyre_mlir/module_checks.py). Stricter than MLIR, which accepts it and leaves
// the division undefined when the map is evaluated.

func.func @floordiv_zero(%i: index) -> index {
  // expected-error @+1 {{'affine.apply' op affine expression `d0 floordiv 0` divides by zero}}
  %0 = affine.apply affine_map<(d0) -> (d0 floordiv 0)>(%i)
  return %0 : index
}

// -----

#m = affine_map<(d0) -> (d0 + 1, d0 ceildiv 0)>
func.func @ceildiv_zero_through_alias(%i: index) -> index {
  // expected-error @+1 {{'affine.apply' op affine expression `d0 ceildiv 0` divides by zero}}
  %0 = affine.apply #m(%i)
  return %0 : index
}

// -----

func.func @constant_mod_zero(%i: index) -> index {
  // A constant divided by zero stays unfolded (xDSL used to crash folding it).
  // expected-error @+1 {{'affine.apply' op affine expression `4 mod 0` divides by zero}}
  %0 = affine.apply affine_map<(d0) -> (d0 + 4 mod 0)>(%i)
  return %0 : index
}

// -----

// expected-error @+1 {{'func.func' op affine expression `d0 mod 0` divides by zero}}
func.func @in_a_set() attributes {s = [affine_set<(d0) : (d0 mod 0 >= 0)>]} {
  return
}

// -----

#box = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>
func.func @ktdp_subscript(%base: index, %r: index) {
  %v = ktdp.construct_memory_view %base, sizes: [8, 8], strides: [8, 1] {coordinate_set = #box, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  // expected-error @+1 {{'ktdp.construct_access_tile' op affine expression `d0 floordiv 0` divides by zero}}
  %t = ktdp.construct_access_tile %v[%r floordiv 0, 0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<2x4xindex>
  return
}

// -----

// Affine constants are 64-bit (index), as in MLIR: a literal above 2^63 is
// refused where it is written, with MLIR's message (2^63 itself is -2^63).
func.func @constant_too_large(%i: index) -> index {
  // expected-error @+1 {{constant too large for index}}
  %0 = affine.apply affine_map<(d0) -> (d0 + 18446744073709551616)>(%i)
  return %0 : index
}

// -----

// expected-error @+1 {{constant too large for index}}
#s = affine_set<(d0) : (-d0 * 9223372036854775809 >= 0)>
func.func @constant_too_large_in_a_set() attributes {s = #s} {
  return
}

// -----

func.func @affine_yield_outside_affine(%c: i1) {
  scf.if %c {
    // expected-error @+1 {{'affine.yield' op only terminates affine.if/for/parallel regions}}
    affine.yield
  }
  return
}

// -----

func.func @affine_yield_count(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %r = affine.for %i = 0 to 4 iter_args(%a = %c0) -> (index) {
    // expected-error @+1 {{'affine.yield' op parent of yield must have same number of results as the yield operands}}
    affine.yield
  }
  return %r : index
}
