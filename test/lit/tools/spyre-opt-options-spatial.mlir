// Options of ktir-to-spatial and its passes in MLIR's syntax: a quoted value
// (scalars="n_rows=64": the quotes are not part of the name), options
// separated by spaces or commas, a list option (grid=2,1) wherever it stands.
// RUN: %spyre-opt %s --pipeline 'ktir-to-spatial{scalars="n_rows=64" cores=4}' | %FileCheck %s --check-prefix=FOUR
// RUN: %spyre-opt %s --pipeline 'ktir-to-spatial{cores=4,scalars="n_rows=64"}' | %FileCheck %s --check-prefix=FOUR
// FOUR: spatial.program @bias attributes {{[{].*}}spatial.phase = "verified"
// FOUR: spatial.scalar @n_rows : index = 64
// FOUR: spatial.site @b0 at [0] {{.*}}blocks = {{\[\[}}0]]
// FOUR: spatial.site @b1 at [1] {{.*}}blocks = {{\[\[}}1]]
// cores=1 reaches spatial-place: both blocks on one site.
// RUN: %spyre-opt %s --pipeline 'ktir-to-spatial{scalars="n_rows=64" cores=1}' | %FileCheck %s --check-prefix=ONE
// RUN: %spyre-opt %s -p 'spatial-tile{scalars="n_rows=64"},spatial-place{cores=1}' | %FileCheck %s --check-prefix=ONE
// ONE: spatial.scalar @n_rows : index = 64
// ONE: spatial.site @b0 at [0] {{.*}}blocks = {{\[\[}}0], [1]]
// ONE-NOT: spatial.site @b1
// RUN: %spyre-opt %s -p 'spatial-tile{scalars="n_rows=64" grid=2,1}' | %FileCheck %s --check-prefix=GRID
// RUN: %spyre-opt %s -p 'spatial-tile{grid=2,1 scalars="n_rows=64"}' | %FileCheck %s --check-prefix=GRID
// RUN: %spyre-opt %s -p 'spatial-tile{grid=2,1,scalars=n_rows=64}' | %FileCheck %s --check-prefix=GRID
// GRID: spatial.program @bias attributes {grid = [2, 1], spatial.phase = "tiled"}
// GRID: spatial.scalar @n_rows : index = 64

// Two scalars need quotes (a comma separates options); unquoted, the second
// is read as an option, which spatial-tile does not take.
// RUN: not %spyre-opt %s -p 'spatial-tile{scalars=n_rows=64,M=2}' 2>&1 | %FileCheck %s --check-prefix=UNQUOTED
// UNQUOTED: spyre-opt: error: invalid options for pass 'spatial-tile': unknown option 'M' (options of 'spatial-tile': scalars, grid
// RUN: not %spyre-opt %s --pipeline 'ktir-to-spatial{scalars="n_rows=64" cores=four}' 2>&1 | %FileCheck %s --check-prefix=CORES
// CORES: spyre-opt: error: invalid pipeline {{.*}}: option 'cores' of pass 'spatial-place' expects an int, got 'four'
// RUN: not %spyre-opt %s --pipeline 'ktir-to-spatial{scalars="n_rows=64" grid=2,x}' 2>&1 | %FileCheck %s --check-prefix=GRIDBAD
// GRIDBAD: spyre-opt: error: invalid pipeline {{.*}}: option 'grid' of pass 'spatial-tile' expects int,..., got '2,x'

// Each row block adds the same 16-wide weight tile to its 4 column tiles.
func.func @bias(%x: index, %w: index, %y: index, %n_rows: index) attributes {grid = [2]} {
  %r = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %xv = ktdp.construct_memory_view %x, sizes: [2, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x64xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [1, 16], strides: [16, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<1x16xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [2, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x64xf32>
  scf.for %j = %c0 to %n_rows step %c16 {
    %xt = ktdp.construct_access_tile %xv[%r, %j] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x64xf32> -> !ktdp.access_tile<1x16xindex>
    %wt = ktdp.construct_access_tile %wv[%c0, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<1x16xf32> -> !ktdp.access_tile<1x16xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
    %b = ktdp.load %wt : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
    %s = arith.addf %a, %b : tensor<1x16xf32>
    %yt = ktdp.construct_access_tile %yv[%r, %j] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x64xf32> -> !ktdp.access_tile<1x16xindex>
    ktdp.store %s, %yt : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
  }
  func.return
}
