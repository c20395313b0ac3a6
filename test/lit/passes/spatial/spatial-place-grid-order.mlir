// RUN: %spyre-opt %s -p 'spatial-tile,spatial-place{cores=2}' | %FileCheck %s --check-prefix=COL
// RUN: %spyre-opt %s -p 'spatial-tile,spatial-place{cores=2 grid-order=row-major}' | %FileCheck %s --check-prefix=ROW
// RUN: not %spyre-opt %s -p 'spatial-tile,spatial-place{grid-order=rows}' 2>&1 | %FileCheck %s --check-prefix=ORDER

// spatial-place numbers blocks by their linear tile id (spyre_mlir.analysis.grid, the
// one definition): grid dim 0 varies fastest by default, so on grid [2, 2]
// block (1, 0) is block 1 and (0, 1) is block 2; with 2 cores, core 0 runs
// blocks 0 and 2, i.e. (0, 0) and (0, 1). Row-major numbering (the option)
// pairs (0, 0) with (1, 0) instead.

// COL-LABEL: spatial.program @scale2
// COL: spatial.site @b0_0 at [0, 0] engines ["load", "compute", "store"] attributes {blocks = {{\[}}[0, 0], [0, 1]], core = 0 : i64}
// COL: spatial.site @b1_0 at [1, 0] engines ["load", "compute", "store"] attributes {blocks = {{\[}}[1, 0], [1, 1]], core = 1 : i64}
// COL-NOT: spatial.site

// ROW-LABEL: spatial.program @scale2
// ROW: spatial.site @b0_0 at [0, 0] engines ["load", "compute", "store"] attributes {blocks = {{\[}}[0, 0], [1, 0]], core = 0 : i64}
// ROW: spatial.site @b0_1 at [0, 1] engines ["load", "compute", "store"] attributes {blocks = {{\[}}[0, 1], [1, 1]], core = 1 : i64}
// ROW-NOT: spatial.site

// ORDER: error: spatial-place: grid-order must be col-major or row-major, got 'rows'

func.func @scale2(%x: index, %y: index) attributes {grid = [2, 2]} {
  %i, %j = ktdp.get_compute_tile_id : index, index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %a0 = arith.muli %j, %c8 : index
  %a1 = arith.muli %i, %c4 : index
  %o = arith.addi %a0, %a1 : index
  %xv = ktdp.construct_memory_view %x, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %t = ktdp.construct_access_tile %xv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<4xindex>
  %a = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf32>
  %b = arith.addf %a, %a : tensor<4xf32>
  %u = ktdp.construct_access_tile %yv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<4xindex>
  ktdp.store %b, %u : tensor<4xf32>, !ktdp.access_tile<4xindex>
  func.return
}
