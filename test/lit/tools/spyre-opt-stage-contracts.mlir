// Stage contracts: spyre-opt refuses a pass of ours whose input is in the wrong
// stage (spyre_mlir.passes.contracts), before the pass runs, with a located
// error naming what to run first, and exits 1.
// RUN: not %spyre-opt %s -p spatial-place 2>&1 | %FileCheck %s --check-prefix=PLACE
// RUN: not %spyre-opt %s -p spyre-emit-bundle 2>&1 | %FileCheck %s --check-prefix=EMIT
// RUN: not %spyre-opt %s -p ktdp-extract-compute-groups,spyre-emit-bundle{out-dir=%t,format=ktir},ktdp-extract-compute-groups 2>&1 | %FileCheck %s --check-prefix=EXTRACT
// RUN: not %spyre-opt %s -p spatial-tile,spatial-tile 2>&1 | %FileCheck %s --check-prefix=TILE
// RUN: not %spyre-opt %s -p ktdp-extract-compute-groups,spyre-physicalize-layouts 2>&1 | %FileCheck %s --check-prefix=PHYS
// RUN: not %spyre-opt %s -p ktdp-extract-compute-groups,spyre-plan-scratchpad,spyre-coarse-tile 2>&1 | %FileCheck %s --check-prefix=PLANNED
// RUN: not %spyre-opt %s -p spatial-tile,spatial-place,spatial-verify 2>&1 | %FileCheck %s --check-prefix=VERIFY

// PLACE: spyre-opt-stage-contracts.mlir:[[# @LINE + 19]]:3: error: spatial-place needs a spatial.program in phase tiled; the module has none: run spatial-tile first
// EMIT: spyre-opt-stage-contracts.mlir:[[# @LINE + 18]]:3: error: pass 'spyre-emit-bundle' needs extracted compute groups: run 'ktdp-extract-compute-groups' first
// EXTRACT: error: pass 'ktdp-extract-compute-groups' needs a kernel, but this module is already an emitted bundle: 'ktdp-extract-compute-groups' has run on it already
// TILE: spyre-opt-stage-contracts.mlir:[[# @LINE + 9]]:1: error: pass 'spatial-tile' needs a kernel, but this module is already a spatial program (@scale, phase tiled): 'spatial-tile' has run on it already
// PHYS: spyre-opt-stage-contracts.mlir:[[# @LINE + 8]]:1: error: pass 'spyre-physicalize-layouts' needs a kernel, but this module is already split into compute groups: run 'spyre-physicalize-layouts' before 'ktdp-extract-compute-groups'
// PLANNED: error: pass 'spyre-coarse-tile' needs compute groups that 'spyre-plan-scratchpad' has not processed yet, but group @local_schedule_0 has 'spyre.peak_lx_bytes'
// VERIFY: spyre-opt-stage-contracts.mlir:[[# @LINE + 6]]:1: error: spatial-verify needs a program in phase synthesized, got placed (program @scale; a verified program is re-checked); run spatial-fuse-readers, spatial-size-buffers, spatial-synthesize-handshakes first

// In order, the same passes run (exit 0).
// RUN: %spyre-opt %s -p spatial-tile,spatial-place,spatial-fuse-readers,spatial-size-buffers,spatial-synthesize-handshakes,spatial-verify | %FileCheck %s --check-prefix=SPATIAL
// SPATIAL: spatial.program @scale attributes {{[{].*}}spatial.phase = "verified"

func.func @scale(%x: index, %y: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c4 = arith.constant 4 : index
  %o = arith.muli %c, %c4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %t = ktdp.construct_access_tile %xv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<4xindex>
  %a = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf32>
  %b = arith.addf %a, %a : tensor<4xf32>
  %u = ktdp.construct_access_tile %yv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<4xindex>
  ktdp.store %b, %u : tensor<4xf32>, !ktdp.access_tile<4xindex>
  func.return
}

// --target FILE: the target the passes read (here 2 cores: spatial-place puts
// blocks 2 and 3 on the cores of blocks 0 and 1), recorded on the module; a
// bad file is an error (exit 1).
// RUN: echo '{"cores": 2}' > %t.json
// RUN: %spyre-opt %s --target %t.json -p spatial-tile,spatial-place | %FileCheck %s --check-prefix=TARGET
// TARGET: module attributes {spyre.target = {cores = 2 : i64}} {
// TARGET: spatial.site @b0 at [0] engines ["load", "compute", "store"] attributes {blocks = {{\[}}[0], [2]], core = 0 : i64}
// RUN: echo '{"cores": 0}' > %t.bad.json
// RUN: not %spyre-opt %s --target %t.bad.json -p spatial-tile 2>&1 | %FileCheck %s --check-prefix=BADTARGET
// BADTARGET: spyre-opt: error: {{.*}}.bad.json: target fact 'cores' must be positive, not 0
