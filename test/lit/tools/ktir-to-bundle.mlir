// The named pipeline ktir-to-bundle with options: each option goes to the
// passes that take it (out-dir: spyre-emit-bundle; slices: spyre-coarse-tile;
// lx-bytes: spyre-coarse-tile and spyre-plan-scratchpad; cores:
// spyre-distribute-work).
// RUN: rm -rf %t && %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{format=ktir out-dir=%t,slices=2}' | %FileCheck %s
// RUN: ls %t | %FileCheck %s --check-prefix=LS
// RUN: %FileCheck %s --check-prefix=SDSC < %t/sdsc_0.json

// The bundle computes what the kernel computes (every element of z).
// RUN: rm -rf %t.src %t.run
// RUN: %spyre-run %s --arg a=random:8x32xf16:1 --arg b=random:8x32xf16:2 --arg c=random:8x32xf16:3 --arg z=zeros:8x32xf16 --out %t.src
// RUN: %spyre-run %t/bundle.mlir --func sdsc_bundle --arg a=random:8x32xf16:1 --arg b=random:8x32xf16:2 --arg c=random:8x32xf16:3 --arg z=zeros:8x32xf16 --out %t.run
// RUN: %python -c "import numpy as n; s = n.load(r'%t.src/z.npy'); r = n.load(r'%t.run/z.npy'); print('same' if n.array_equal(s, r) else 'different', int((s != 0).sum()))" | %FileCheck %s --check-prefix=SAME
// SAME: same 256

// Without slices= the group fits LX untiled: one dispatch, no loop.
// RUN: rm -rf %t.plain && %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{format=ktir out-dir=%t.plain}' | %FileCheck %s --check-prefix=PLAIN
// With lx-bytes=256 the 3 x 256 bytes live at once per core need 4 slices
// (tiles of one row: 32 x 2 = 64 bytes a step).
// RUN: rm -rf %t.lx && %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{format=ktir out-dir=%t.lx,lx-bytes=256}' | %FileCheck %s --check-prefix=LX
// slices=2 with lx-bytes=100: the 2 x 32 f16 intermediate (128 bytes) falls
// back to HBM, with a remark, and its SDSC file says so.
// RUN: rm -rf %t.spill && %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{format=ktir out-dir=%t.spill,slices=2,lx-bytes=100}' 2>&1 >/dev/null | %FileCheck %s --check-prefix=SPILL
// RUN: %FileCheck %s --check-prefix=SPILLSDSC < %t.spill/sdsc_0.json

// Option errors.
// RUN: not %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{out-dir=%t.bad,bogus=1}' 2>&1 | %FileCheck %s --check-prefix=BOGUS
// RUN: not %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{out-dir=%t.bad,slices}' 2>&1 | %FileCheck %s --check-prefix=NOVALUE
// RUN: not %spyre-opt --mlir-print-local-scope %s --pipeline ktir-to-bundle 2>&1 | %FileCheck %s --check-prefix=NODIR
// RUN: not %spyre-opt --mlir-print-local-scope %s --pipeline 'ktir-to-bundle{out-dir=%t.bad,cores=1}' 2>&1 | %FileCheck %s --check-prefix=CORES
// RUN: not ls %t.bad

// 2 cores take 4 rows each; slices=2 cuts each core's rows in 2 tiles of 2:
// the addresses move 2 rows x 32 x 2 bytes = 128 bytes per iteration.
// CHECK:       func.func @sdsc_bundle(%a: index, %b: index, %c: index, %z: index) attributes {grid = [2], spyre.kernel = "add_mul"} {
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[A:.*]] = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%a]
// CHECK-NEXT:    %[[B:.*]] = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%b]
// CHECK-NEXT:    %[[C:.*]] = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%c]
// CHECK-NEXT:    %[[Z:.*]] = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%z]
// CHECK-NEXT:    %[[N:.*]] = arith.constant 2 : index
// CHECK-NEXT:    scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]] {
// CHECK-NEXT:      %[[AA:.*]] = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 128)>(%[[I]])[%[[A]]]
// CHECK-NEXT:      %[[BA:.*]] = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 128)>(%[[I]])[%[[B]]]
// CHECK-NEXT:      %[[CA:.*]] = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 128)>(%[[I]])[%[[C]]]
// CHECK-NEXT:      %[[ZA:.*]] = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 128)>(%[[I]])[%[[Z]]]
// The tile's anchor depends on the core (pid * 4), so its slice views are
// sized per iteration (rows left from the slice's origin, masked beyond the
// view: docs/coarse-tiling.md "Tail tiles"): the loop number goes to the SDSC.
// CHECK-NEXT:      "sdscbundle.sdsc_execute"(%[[I]], %[[AA]], %[[BA]], %[[CA]], %[[ZA]]) {sdsc_filename = "sdsc_0.json"} : (index, index, index, index, index) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    return

// LS:      {{^}}bundle.mlir{{$}}
// LS-NEXT: {{^}}sdsc_0.json{{$}}
// LS-NOT:  {{.}}

// SDSC: "loops": [
// SDSC-NEXT:   {
// SDSC-NEXT:     "count": 2,
// SDSC:      "core_split": {
// SDSC-NEXT:   "cores": 2,
// SDSC-NEXT:   "machine_cores": 32,
// SDSC-NEXT:   "dims": [
// SDSC-NEXT:     0
// SDSC-NEXT:   ],
// SDSC-NEXT:   "per_core": [
// SDSC-NEXT:     2,
// SDSC-NEXT:     32
// SDSC-NEXT:   ],
// SDSC-NEXT:   "per_iteration": [
// SDSC-NEXT:     4,
// SDSC-NEXT:     32
// SDSC-NEXT:   ]
// SDSC:      "lx": 0
// SDSC:      "peak_lx_bytes_per_core": 128,

// PLAIN:       func.func @sdsc_bundle(
// PLAIN-NOT:   scf.for
// PLAIN:       "sdscbundle.sdsc_execute"(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}) {sdsc_filename = "sdsc_0.json"}
// PLAIN-NEXT:  return

// LX:          %[[N:.*]] = arith.constant 4 : index
// LX-NEXT:     scf.for %[[I:.*]] = %{{.*}} to %[[N]] step
// LX-NEXT:     affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 64)>

// SPILL: ktir-to-bundle.mlir:[[# @LINE + 29]]:3: remark: intermediate of 128 bytes does not fit in LX (100 bytes, 0 in use by the buffers live with it): it falls back to HBM
// SPILLSDSC: "op": "arith.addf",
// SPILLSDSC: "is_input": false,
// SPILLSDSC-NEXT: "allocation": {
// SPILLSDSC-NEXT:   "hbm_spill": true
// SPILLSDSC: "peak_lx_bytes_per_core": 0,

// BOGUS: error: pipeline 'ktir-to-bundle' has no pass taking option 'bogus'
// NOVALUE: error: invalid pipeline 'ktir-to-bundle{out-dir={{.*}},slices}': expected key=value options, got 'slices'
// NODIR: error: spyre-emit-bundle needs out-dir=DIR: where to write bundle.mlir and its SDSC files
// CORES: ktir-to-bundle.mlir:[[# @LINE + 4]]:1: error: the kernel's grid [2] asks for 2 cores; the machine has 1
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
