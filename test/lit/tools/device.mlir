// --device FILE: spyre-opt and spyre-run compile for, and run on, the
// ktdf_arch.device of FILE (docs/target.md): it is declared in the module,
// and the target facts are the ones it states.

// The device is declared (by absolute path) before the first pass.
// RUN: %spyre-opt %s --device %S/../dialects/ktdf_arch/Inputs/card.mlir | %FileCheck %s --check-prefix=DECLARED
// DECLARED: module {
// DECLARED-NEXT: ktdf_arch.device @imported import("{{.*}}dialects{{/|\\}}ktdf_arch{{/|\\}}Inputs{{/|\\}}card.mlir")
// DECLARED-NEXT: func.func @ids

// spyre-run runs on it: the LX limit is its core-local memory's size (65536),
// the default device's is Spyre's 2 MiB.
// RUN: %spyre-run %s --func ids --arg out=zeros:2x4xi32 --print-summary --device %S/../dialects/ktdf_arch/Inputs/card.mlir | %FileCheck %s --check-prefix=LIMIT
// RUN: %spyre-opt %s --device %S/../dialects/ktdf_arch/Inputs/card.mlir | %spyre-run - --func ids --arg out=zeros:2x4xi32 --print-summary | %FileCheck %s --check-prefix=LIMIT
// LIMIT-DAG: lx peak per core: {{.*}} of 65536
// RUN: %spyre-run %s --func ids --arg out=zeros:2x4xi32 --print-summary --device %S/../../../spyre_mlir/devices/spyre.mlir | %FileCheck %s --check-prefix=DEFAULT
// DEFAULT-DAG: lx peak per core: {{.*}} of 2097152

// A --target fact that the device states otherwise is a located error at the device,
// before the first pass, even one that needs no fact (a device declared in the module
// is read only when a fact is needed: device-lazy.mlir).
// RUN: echo '{"lx_bytes": 4096}' > %t.json
// RUN: not %spyre-opt %s -p canonicalize --device %S/../dialects/ktdf_arch/Inputs/card.mlir --target %t.json 2>&1 | %FileCheck %s --check-prefix=CLASH
// RUN: not %spyre-opt %s --device %S/../dialects/ktdf_arch/Inputs/card.mlir --target %t.json 2>&1 | %FileCheck %s --check-prefix=CLASH
// RUN: not %spyre-run %s --func ids --arg out=zeros:2x4xi32 --device %S/../dialects/ktdf_arch/Inputs/card.mlir --target %t.json 2>&1 | %FileCheck %s --check-prefix=CLASH
// CLASH: card.mlir:2:1: error: 'ktdf_arch.device' op @imported and spyre.target (the module's, or --target's) disagree: lx_bytes is 65536 on the device, 4096 there
// A fact the device does not state is the file's.
// RUN: echo '{"clock_ghz": 2.0}' > %t.clock.json
// RUN: %spyre-opt %s --device %S/../dialects/ktdf_arch/Inputs/card.mlir --target %t.clock.json | %FileCheck %s --check-prefix=CLOCK
// CLOCK: module attributes {spyre.target = {clock_ghz = 2.000000e+00 : f64}}

// A missing or unusable device file is an error naming it (exit 1).
// RUN: not %spyre-opt %s --device %t.missing.mlir 2>&1 | %FileCheck %s --check-prefix=MISSING
// MISSING: spyre-opt: error: cannot use device file '{{.*}}missing.mlir': cannot open input file
// RUN: not %spyre-run %s --func ids --arg out=zeros:2x4xi32 --device %t.missing.mlir 2>&1 | %FileCheck %s --check-prefix=NODEVICE
// NODEVICE: bad --device: cannot use device file '{{.*}}missing.mlir': cannot open input file

// A module that declares another device: a located error where they disagree.
// RUN: not %spyre-opt %S/../dialects/ktdf_arch/Inputs/card.mlir --device %S/../../../spyre_mlir/devices/spyre.mlir 2>&1 | %FileCheck %s --check-prefix=OTHER
// OTHER: card.mlir:2:1: error: 'ktdf_arch.device' op @imported and --device {{.*}}spyre.mlir disagree: lx_bytes is 65536 on the device, 2097152 there; cores is 2 on the device, 32 there; stick_bytes is 64 on the device, 128 there; alignment_bytes is 64 on the device, 128 there

func.func @ids(%out: index) attributes {grid = [2, 4]} {
  %i, %j = ktdp.get_compute_tile_id : index, index
  %c10 = arith.constant 10 : index
  %a = arith.muli %i, %c10 : index
  %v = arith.addi %a, %j : index
  %v32 = arith.index_cast %v : index to i32
  %t = tensor.splat %v32 : tensor<1x1xi32>
  %view = ktdp.construct_memory_view %out, sizes: [2, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x4xi32>
  %tile = ktdp.construct_access_tile %view[%i, %j] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 == 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x4xi32> -> !ktdp.access_tile<1x1xindex>
  ktdp.store %t, %tile : tensor<1x1xi32>, !ktdp.access_tile<1x1xindex>
  return
}
