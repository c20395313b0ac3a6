// RUN: %spyre-opt %s --print-plan-summary 2>&1 >/dev/null | %FileCheck %s
// RUN: %spyre-opt %s -p spatial-verify --print-plan-summary 2>&1 >/dev/null | %FileCheck %s --check-prefix=VERIFIED
// RUN: %spyre-opt %s -p spatial-verify --plan-summary-json %t.json | %FileCheck %s --check-prefix=IR
// RUN: cat %t.json | %FileCheck %s --check-prefix=JSON

// The plan summary is reported from the structure: two sites that run the
// same choreography on their own symbols form one class per engine; the
// block shape is the buffers' tile type; LX per site is depth x tile bytes
// summed (16x64xf16 = 2048 bytes: 2 + 1 slots = 6144 bytes per site);
// each site: load 3 x 4 + compute 5 x 4 + store 3 x 4 = 44 steps.

// CHECK:      plan summary of spatial.program @neg2 (phase synthesized)
// CHECK-NEXT:   sites: 2
// CHECK-NEXT:   multicast groups: 0
// CHECK-NEXT:   block shape: 16x64xf16
// CHECK-NEXT:   site  buffers  LX bytes / limit
// CHECK-NEXT:   @s0        2  6144 / 2097152
// CHECK-NEXT:   @s1        2  6144 / 2097152
// CHECK-NEXT:   engine-program classes: 3 (of 6 engines)
// CHECK-NEXT:     class 0 "load": s0.load, s1.load
// CHECK-NEXT:     class 1 "compute": s0.compute, s1.compute
// CHECK-NEXT:     class 2 "store": s0.store, s1.store
// CHECK-NEXT:   steps: not verified (no spatial.certificate)
// CHECK-NEXT:   cycles: not simulated

// VERIFIED:      plan summary of spatial.program @neg2 (phase verified)
// VERIFIED:        engine-program classes: 3 (of 6 engines)
// VERIFIED:        steps: 88 (s0.load 12, s0.compute 20, s0.store 12, s1.load 12, s1.compute 20, s1.store 12)
// VERIFIED-NEXT:   cycles: 224 simulated (no pipelined estimate)

// stdout stays the IR.
// IR: spatial.program @neg2 attributes {{[{].*}}spatial.phase = "verified"

// JSON:      "program": "neg2",
// JSON:      "multicast_groups": {
// JSON-NEXT:   "count": 0,
// JSON:      "block_shapes": [
// JSON-NEXT:   "16x64xf16"
// JSON:      "engine_classes": {
// JSON-NEXT:   "count": 3,
// JSON-NEXT:   "engines": 6,
// JSON:      "steps": 88,
// JSON:        "simulated": 224,
// JSON-NEXT:   "pipelined_estimate": null,

spatial.program @neg2 attributes {spatial.phase = "synthesized", grid = [2]} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.tensor @z : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.site @s1 at [1] engines ["load", "compute", "store"]
  spatial.buffer @bx0 on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
  spatial.buffer @bz0 on @s0 : !spatial.tile<16x64xf16> depth 1 offset 4096
  spatial.buffer @bx1 on @s1 : !spatial.tile<16x64xf16> depth 2 offset 0
  spatial.buffer @bz1 on @s1 : !spatial.tile<16x64xf16> depth 1 offset 4096
  spatial.stage @ld0 load @x -> @bx0 on @s0 engine "load"
  spatial.stage @ng0 compute(@bx0) -> @bz0 on @s0 engine "compute" {
  ^bb0(%a: tensor<16x64xf16>):
    %c = arith.negf %a : tensor<16x64xf16>
    spatial.yield %c : tensor<16x64xf16>
  }
  spatial.stage @st0 store @bz0 -> @z on @s0 engine "store"
  spatial.stage @ld1 load @x -> @bx1 on @s1 engine "load"
  spatial.stage @ng1 compute(@bx1) -> @bz1 on @s1 engine "compute" {
  ^bb0(%a: tensor<16x64xf16>):
    %c = arith.negf %a : tensor<16x64xf16>
    spatial.yield %c : tensor<16x64xf16>
  }
  spatial.stage @st1 store @bz1 -> @z on @s1 engine "store"
  spatial.edge @ex0 from @ld0 to @ng0 via @bx0 : !spatial.tile<16x64xf16>
  spatial.edge @ez0 from @ng0 to @st0 via @bz0 : !spatial.tile<16x64xf16>
  spatial.edge @ex1 from @ld1 to @ng1 via @bx1 : !spatial.tile<16x64xf16>
  spatial.edge @ez1 from @ng1 to @st1 via @bz1 : !spatial.tile<16x64xf16>
  spatial.semaphore @full_in0 on @s0 init 0
  spatial.semaphore @empty_in0 on @s0 init 2
  spatial.semaphore @full_out0 on @s0 init 0
  spatial.semaphore @empty_out0 on @s0 init 1
  spatial.semaphore @full_in1 on @s1 init 0
  spatial.semaphore @empty_in1 on @s1 init 2
  spatial.semaphore @full_out1 on @s1 init 0
  spatial.semaphore @empty_out1 on @s1 init 1
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @empty_in0 >= 1
      spatial.load_step @ld0 [%k]
      spatial.signal @full_in0 += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_in0 >= 1
      spatial.wait @empty_out0 >= 1
      spatial.compute_step @ng0
      spatial.signal @empty_in0 += 1
      spatial.signal @full_out0 += 1
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_out0 >= 1
      spatial.store_step @st0 [%k]
      spatial.signal @empty_out0 += 1
    }
  }
  spatial.engine @s1 "load" {
    spatial.loop %j = 0 to 4 {
      spatial.wait @empty_in1 >= 1
      spatial.load_step @ld1 [%j]
      spatial.signal @full_in1 += 1
    }
  }
  spatial.engine @s1 "compute" {
    spatial.loop %j = 0 to 4 {
      spatial.wait @full_in1 >= 1
      spatial.wait @empty_out1 >= 1
      spatial.compute_step @ng1
      spatial.signal @empty_in1 += 1
      spatial.signal @full_out1 += 1
    }
  }
  spatial.engine @s1 "store" {
    spatial.loop %j = 0 to 4 {
      spatial.wait @full_out1 >= 1
      spatial.store_step @st1 [%j]
      spatial.signal @empty_out1 += 1
    }
  }
}
