// Pass and pipeline options, one syntax for -p and --pipeline (MLIR's):
// options separated by spaces (as mlir-opt and xdsl-opt write them) or
// commas, a value with spaces or commas in double quotes, a path without.

// --pipeline, spaces: slices=2 is applied (a loop of 2 tiles, 128 bytes a
// step) and out-dir is the path alone, not "out slices=2".
// RUN: rm -rf %t && mkdir -p %t
// RUN: %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{format=ktir out-dir=%t/space slices=2}' | %FileCheck %s --check-prefix=SLICED
// RUN: ls %t | %FileCheck %s --check-prefix=DIRS1
// DIRS1: {{^}}space{{$}}
// RUN: %FileCheck %s --check-prefix=SDSC < %t/space/sdsc_0.json
// The order does not matter; commas work too.
// RUN: %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{format=ktir slices=2 out-dir=%t/reversed}' | %FileCheck %s --check-prefix=SLICED
// RUN: %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{format=ktir out-dir=%t/comma,slices=2}' | %FileCheck %s --check-prefix=SLICED
// RUN: %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{format=ktir out-dir=%t/both, slices=2 lx-bytes=4096}' | %FileCheck %s --check-prefix=SLICED
// A quoted value keeps its spaces.
// RUN: %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{format=ktir out-dir="%t/with space" slices=2}' | %FileCheck %s --check-prefix=SLICED
// RUN: %FileCheck %s --check-prefix=SDSC < "%t/with space/sdsc_0.json"
// Without slices=, no loop.
// RUN: %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{format=ktir out-dir=%t/plain}' | %FileCheck %s --check-prefix=PLAIN

// -p, the same syntax: spaces, commas, and an unquoted path.
// RUN: %spyre-opt --mlir-print-local-scope %s -p 'ktdp-extract-compute-groups,spyre-coarse-tile{slices=2 lx-bytes=4096},spyre-distribute-work,spyre-plan-scratchpad,spyre-emit-bundle{format=ktir out-dir=%t/p-space kernel=add_mul}' | %FileCheck %s --check-prefix=SLICED
// RUN: %spyre-opt --mlir-print-local-scope %s -p 'ktdp-extract-compute-groups,spyre-coarse-tile{slices=2,lx-bytes=4096},spyre-distribute-work,spyre-plan-scratchpad,spyre-emit-bundle{format=ktir out-dir=%t/p-comma}' | %FileCheck %s --check-prefix=SLICED
// RUN: %FileCheck %s --check-prefix=SDSC < %t/p-comma/sdsc_0.json
// RUN: ls %t | %FileCheck %s --check-prefix=DIRS
// DIRS: {{^}}both{{$}}
// DIRS-NEXT: {{^}}comma{{$}}
// DIRS-NEXT: {{^}}p-comma{{$}}
// DIRS-NEXT: {{^}}p-space{{$}}
// DIRS-NEXT: {{^}}plain{{$}}
// DIRS-NEXT: {{^}}reversed{{$}}
// DIRS-NEXT: {{^}}space{{$}}
// DIRS-NEXT: {{^}}with space{{$}}
// DIRS-NOT: {{.}}

// SLICED:      func.func @sdsc_bundle(
// SLICED:        %[[N:.*]] = arith.constant 2 : index
// SLICED-NEXT:   scf.for %{{.*}} = %{{.*}} to %[[N]] step
// SLICED-NEXT:     affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 128)>
// SDSC: "count": 2,
// PLAIN-NOT: scf.for

// Anything that does not parse is a usage error (exit 2) naming the bad item
// and the pass; nothing is run and nothing written.
// RUN: not %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{out-dir=%t/bad slices=two}' 2> %t.err
// RUN: %FileCheck %s --check-prefix=BADINT < %t.err
// BADINT: usage: spyre-opt
// BADINT: spyre-opt: error: invalid pipeline 'ktir-to-bundle{out-dir={{.*}}/bad slices=two}': option 'slices' of pass 'spyre-coarse-tile' expects an int, got 'two'
// RUN: not %spyre-opt --mlir-print-local-scope %s -p 'spyre-coarse-tile{slices=2 bogus=1}' 2>&1 | %FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: spyre-opt: error: invalid options for pass 'spyre-coarse-tile': unknown option 'bogus' (options of 'spyre-coarse-tile': slices, lx-bytes,
// RUN: not %spyre-opt --mlir-print-local-scope %s -p 'spyre-coarse-tile{slices 2}' 2>&1 | %FileCheck %s --check-prefix=NOEQ
// NOEQ: spyre-opt: error: invalid options for pass 'spyre-coarse-tile': expected key=value options, got 'slices'
// RUN: not %spyre-opt --mlir-print-local-scope %s -p 'spyre-emit-bundle{out-dir="%t/bad}' 2>&1 | %FileCheck %s --check-prefix=QUOTE
// QUOTE: spyre-opt: error: invalid pass pipeline 'spyre-emit-bundle{out-dir="{{.*}}/bad}': unterminated quote at column 27
// RUN: not %spyre-opt --mlir-print-local-scope %s -p 'spyre-raise-counted-loops{remarks=yes}' 2>&1 | %FileCheck %s --check-prefix=BOOL
// BOOL: spyre-opt: error: invalid options for pass 'spyre-raise-counted-loops': option 'remarks' expects a bool, got 'yes'
// A comma continues only a list option's value: quote a path with a comma.
// RUN: not %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{out-dir=%t/bad,x}' 2>&1 | %FileCheck %s --check-prefix=COMMA
// COMMA: spyre-opt: error: invalid pipeline 'ktir-to-bundle{out-dir={{.*}}/bad,x}': expected key=value options, got 'x' (option 'out-dir' of pass 'spyre-emit-bundle' takes one string; quote a value that holds a comma)
// RUN: not %spyre-opt --mlir-print-local-scope %s -p 'cse,no-such-pass{a=1}' 2>&1 | %FileCheck %s --check-prefix=PASS
// PASS: spyre-opt: error: unknown pass 'no-such-pass'
// RUN: not %spyre-opt --mlir-print-local-scope %s -p 'cse,' 2>&1 | %FileCheck %s --check-prefix=TRAIL
// TRAIL: spyre-opt: error: invalid pass pipeline 'cse,': expected a pass name at column 5, got the end
// RUN: not %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{out-dir=%t/bad cores=1 cores=2}' 2>&1 | %FileCheck %s --check-prefix=TWICE
// TWICE: spyre-opt: error: invalid pipeline {{.*}}: option 'cores' is given twice
// RUN: not ls %t/bad

#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_mul(%a: index, %b: index, %c: index, %z: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %core = ktdp.get_compute_tile_id : index
  %row = arith.muli %core, %c4 : index
  %av = ktdp.construct_memory_view %a, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf16>
  %bv = ktdp.construct_memory_view %b, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf16>
  %cv = ktdp.construct_memory_view %c, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf16>
  %zv = ktdp.construct_memory_view %z, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf16>
  %at = ktdp.construct_access_tile %av[%row, %c0] {access_tile_set = #mine, access_tile_order = #id2} : memref<8x32xf16> -> !ktdp.access_tile<4x32xindex>
  %bt = ktdp.construct_access_tile %bv[%row, %c0] {access_tile_set = #mine, access_tile_order = #id2} : memref<8x32xf16> -> !ktdp.access_tile<4x32xindex>
  %ct = ktdp.construct_access_tile %cv[%row, %c0] {access_tile_set = #mine, access_tile_order = #id2} : memref<8x32xf16> -> !ktdp.access_tile<4x32xindex>
  %zt = ktdp.construct_access_tile %zv[%row, %c0] {access_tile_set = #mine, access_tile_order = #id2} : memref<8x32xf16> -> !ktdp.access_tile<4x32xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf16>
  %bd = ktdp.load %bt : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf16>
  %y = arith.addf %ad, %bd : tensor<4x32xf16>
  %cd = ktdp.load %ct : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf16>
  %zz = arith.mulf %y, %cd : tensor<4x32xf16>
  ktdp.store %zz, %zt : tensor<4x32xf16>, !ktdp.access_tile<4x32xindex>
  return
}
