// RUN: %spyre-opt %s --split-input-file --verify-diagnostics -p 'spatial-tile{scalars="N=8"}'
// RUN: not %spyre-opt %s --split-input-file -p 'spatial-tile{scalars="N8"}' 2>&1 | %FileCheck %s --check-prefix=SYNTAX
// RUN: not %spyre-opt %s --split-input-file -p 'spatial-tile{scalars="M=8"}' 2>&1 | %FileCheck %s --check-prefix=UNKNOWN
// RUN: not %spyre-opt %s --split-input-file -p 'spatial-tile{scalars="N=99999999999999999999,B=1"}' 2>&1 | %FileCheck %s --check-prefix=BIG

// Every refusal of spatial-tile is a located error, before anything changes.
// SYNTAX: error: spatial-tile: scalars: expected NAME=VALUE, got 'N8'
// UNKNOWN: error: spatial-tile: scalars: @missing_scalar has no argument named 'M'
// BIG: spatial-tile-invalid.mlir:{{[0-9]+}}:1: error: spatial-tile: scalars: N = 99999999999999999999 does not fit in 64 bits

// A scalar argument a loop's step is computed from, without a value: the program
// fixes its steps per site.
// expected-error@+1 {{the spatial program of @missing_scalar is specialized for the scalar arguments its addresses, tile origins, conditions and loop steps are computed from, and 1 of them has no value: %B (index); pass scalars="B=..."}}
func.func @missing_scalar(%x: index, %N: index, %B: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  scf.for %i = %c0 to %N step %B {
    %t = ktdp.construct_access_tile %v[%i] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<2xindex>
    %a = ktdp.load %t : !ktdp.access_tile<2xindex> -> tensor<2xf32>
    %b = math.exp %a : tensor<2xf32>
    ktdp.store %b, %t : tensor<2xf32>, !ktdp.access_tile<2xindex>
  }
  func.return
}

// -----

// Data-dependent control flow has no static choreography.
func.func @branch(%x: index, %N: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %t = ktdp.construct_access_tile %v[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<8xindex>
  %a = ktdp.load %t : !ktdp.access_tile<8xindex> -> tensor<8xf32>
  %e = tensor.extract %a[%c0] : tensor<8xf32>
  %z = arith.constant 0.0 : f32
  %p = arith.cmpf ogt, %e, %z : f32
  // expected-error@+1 {{this scf.if's condition is computed from data}}
  scf.if %p {
    %b = math.exp %a : tensor<8xf32>
  }
  func.return
}

// -----

// An index that is not affine per site: a loop number times a loop number.
func.func @not_affine(%x: index, %N: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v = ktdp.construct_memory_view %x, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    // expected-error@+1 {{this index is not affine per site}}
    %sq = arith.muli %i, %i : index
    %t = ktdp.construct_access_tile %v[%sq] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<2xindex>
    %a = ktdp.load %t : !ktdp.access_tile<2xindex> -> tensor<2xf32>
    %b = math.exp %a : tensor<2xf32>
    %u = ktdp.construct_memory_view %N, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
    %w = ktdp.construct_access_tile %u[%sq] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<2xindex>
    ktdp.store %b, %w : tensor<2xf32>, !ktdp.access_tile<2xindex>
  }
  func.return
}

// -----

// A loop whose count depends on an enclosing loop (a triangle): a spatial
// loop's count is fixed per site.
func.func @triangle(%x: index, %N: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v = ktdp.construct_memory_view %x, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    // expected-error@+1 {{the upper bound is d0 here, which depends on an enclosing loop}}
    scf.for %j = %c0 to %i step %c1 {
      %t = ktdp.construct_access_tile %v[%j] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<2xindex>
      %a = ktdp.load %t : !ktdp.access_tile<2xindex> -> tensor<2xf32>
      %b = math.exp %a : tensor<2xf32>
      %u = ktdp.construct_memory_view %N, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
      %w = ktdp.construct_access_tile %u[%j] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<2xindex>
      ktdp.store %b, %w : tensor<2xf32>, !ktdp.access_tile<2xindex>
    }
  }
  func.return
}

// -----

// A memory view from a computed address: a spatial.tensor is a kernel argument or at a constant address.
func.func @computed_base(%N: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %base = arith.addi %N, %c64 : index
  // expected-error@+1 {{the base of this memory view is neither a pointer argument of the kernel nor a constant HBM address}}
  %v = ktdp.construct_memory_view %base, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %t = ktdp.construct_access_tile %v[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<8xindex>
  %a = ktdp.load %t : !ktdp.access_tile<8xindex> -> tensor<8xf32>
  func.return
}

// -----

// A grid of more blocks than a spatial program is built for (one site each).
// expected-error@+1 {{the grid [65536, 2] has 131072 blocks, more than the 4096 a spatial program is built for}}
func.func @huge_grid(%x: index, %N: index) attributes {grid = [65536, 2]} {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %t = ktdp.construct_access_tile %v[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<8xindex>
  %a = ktdp.load %t : !ktdp.access_tile<8xindex> -> tensor<8xf32>
  %b = math.exp %a : tensor<8xf32>
  %u = ktdp.construct_memory_view %N, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %w = ktdp.construct_access_tile %u[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<8xindex>
  ktdp.store %b, %w : tensor<8xf32>, !ktdp.access_tile<8xindex>
  func.return
}

// -----

// A loop running to a runtime scalar (%n) that nothing bounds: no tile moves
// along it, and %n states no admitted range. (%N, specialized, is unused.)
func.func @unbounded_trip(%x: index, %N: index, %n: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = ktdp.construct_memory_view %x, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %t = ktdp.construct_access_tile %v[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<8xindex>
  // expected-error@+1 {{this loop runs to %n, a runtime scalar, and nothing bounds it: a spatial program admits a stated range of each loop count it reads at run time (a trip), and no tile this loop moves bounds it within a view; state the range: give %n the type !ktdp.runtime_arg<index, upperbound = U[, granularity = G]> or the argument attribute {spyre.admit = {upperbound = U[, granularity = G]}}, or specialize it (scalars="n=...")}}
  scf.for %i = %c0 to %n step %c1 {
    %a = ktdp.load %t : !ktdp.access_tile<8xindex> -> tensor<8xf32>
    %b = math.exp %a : tensor<8xf32>
    ktdp.store %b, %t : tensor<8xf32>, !ktdp.access_tile<8xindex>
  }
  func.return
}

// -----

// A malformed spyre.admit: a located error naming the form.
// expected-error@+1 {{%n's spyre.admit must be {upperbound = U[, granularity = G]} of positive integers, got {upperbound = 0 : i64}}}
func.func @bad_admit(%x: index, %N: index, %n: index {spyre.admit = {upperbound = 0 : i64}}) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = ktdp.construct_memory_view %x, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %t = ktdp.construct_access_tile %v[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<8xindex>
  scf.for %i = %c0 to %n step %c1 {
    %a = ktdp.load %t : !ktdp.access_tile<8xindex> -> tensor<8xf32>
    %b = math.exp %a : tensor<8xf32>
    ktdp.store %b, %t : tensor<8xf32>, !ktdp.access_tile<8xindex>
  }
  func.return
}
