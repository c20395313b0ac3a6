// The named pipeline ktir-to-spatial: a kernel becomes a verified spatial
// program of the same name that spyre-run runs with the same arguments.
// RUN: %spyre-opt %s --pipeline 'ktir-to-spatial{scalars="N=64"}' -o %t.mlir
// RUN: %FileCheck %s < %t.mlir
// RUN: %spyre-opt %t.mlir | %FileCheck %s

// The program computes what the kernel computes.
// RUN: rm -rf %t.src %t.run
// RUN: %spyre-run %s --arg x=random:2x64xf32:1 --arg w=random:1x16xf32:2 --arg y=zeros:2x64xf32 --arg N=64 --out %t.src
// RUN: %spyre-run %t.mlir --func bias --arg x=random:2x64xf32:1 --arg w=random:1x16xf32:2 --arg y=zeros:2x64xf32 --arg N=64 --out %t.run
// RUN: %python -c "import numpy as n; s = n.load(r'%t.src/y.npy'); r = n.load(r'%t.run/y.npy'); print('same' if n.array_equal(s, r) else 'different', int((s != 0).sum()))" | %FileCheck %s --check-prefix=SAME
// SAME: same 128

// Called with another N than it was specialized for, it refuses before running.
// RUN: not %spyre-run %t.mlir --func bias --arg x=random:2x64xf32:1 --arg w=random:1x16xf32:2 --arg y=zeros:2x64xf32 --arg N=32 2>&1 | %FileCheck %s --check-prefix=SPEC
// SPEC: error: program @bias is specialized for N = 64, called with N = 32

// The plan summary (stderr) and the estimate (HBM bytes: the shared weight tile is read once per step).
// RUN: %spyre-opt %s --pipeline 'ktir-to-spatial{scalars="N=64"}' --print-plan-summary 2>&1 >/dev/null | %FileCheck %s --check-prefix=PLAN
// PLAN: plan summary of spatial.program @bias (phase verified)
// PLAN: sites: 2
// PLAN: multicast groups: 1
// PLAN: @g0: reader @b0_ld1, 1 target site(s)
// PLAN: hbm bytes: read 768, written 512

// Without fusing, every site reads the weight itself.
// RUN: %spyre-opt %s --pipeline 'ktir-to-spatial{scalars="N=64",multicast=false}' --print-plan-summary 2>&1 >/dev/null | %FileCheck %s --check-prefix=PLAIN
// PLAIN: multicast groups: 0
// PLAIN: hbm bytes: read 1024, written 512

// Without the scalar's value: %N is a runtime input, the loop it bounds a trip,
// admitted as far as its tiles overlap their 64-column views.
// RUN: %spyre-opt %s --pipeline ktir-to-spatial | %FileCheck %s --check-prefix=RUNTIME
// RUNTIME: spatial.scalar @N : index{{$}}
// RUNTIME: spatial.trip @trip_N from @N per 16 bias 0 admit [0, 64]
// RUNTIME: spatial.loop %{{.*}} = 0 to trip(@trip_N) {

// CHECK-LABEL: spatial.program @bias attributes {{[{]}}
// CHECK-SAME:    spatial.certificate = {
// CHECK-SAME:    spatial.phase = "verified"
// CHECK:         spatial.scalar @N : index = 64
// CHECK:         spatial.multicast @g0 reader @b0_ld1 to [@b1]
// CHECK:         spatial.semaphore @b0_in0_full on @b0 init 0
// CHECK:         spatial.engine @b0 "load" {
// CHECK-NEXT:      spatial.loop %{{.*}} = 0 to 4 {
// CHECK-NEXT:        spatial.wait @b0_in0_empty >= 1
// CHECK-NEXT:        spatial.load_step @b0_ld0 [%{{.*}}]
// CHECK-NEXT:        spatial.signal @b0_in0_full += 1

// Each row block adds the same 16-wide weight tile to its 4 column tiles.
func.func @bias(%x: index, %w: index, %y: index, %N: index) attributes {grid = [2]} {
  %r = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %xv = ktdp.construct_memory_view %x, sizes: [2, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x64xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [1, 16], strides: [16, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<1x16xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [2, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x64xf32>
  scf.for %j = %c0 to %N step %c16 {
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
