// RUN: %spyre-opt %s --split-input-file -p spatial-verify --verify-diagnostics

// Broken choreographies with locals and multicast (the program of
// test/lit/passes/spatial/spatial-verify-ext.mlir): each refused with a located error
// naming the stage and the buffer.

// A local read before anything wrote it: the accumulator's initialization
// removed (its input @w0 stays full, but the underflow comes first).
spatial.program @never_written attributes {spatial.phase = "synthesized"} {
  spatial.tensor @w : memref<8x8xf32>
  spatial.tensor @x : memref<32x8xf32>
  spatial.tensor @z : memref<16x8xf32>
  spatial.scalar @rows : index = 32
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.site @s1 at [1] engines ["load", "compute", "store"]
  spatial.buffer @w0 on @s0 : !spatial.tile<8x8xf32> depth 1 offset 0
  spatial.buffer @x0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 256
  spatial.buffer @a0 on @s0 : !spatial.tile<8x8xf32> depth 1 local offset 768
  spatial.buffer @z0 on @s0 : !spatial.tile<8x8xf32> depth 1 offset 1024
  spatial.buffer @w1 on @s1 : !spatial.tile<8x8xf32> depth 1 offset 0
  spatial.buffer @x1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 256
  spatial.buffer @a1 on @s1 : !spatial.tile<8x8xf32> depth 1 local offset 768
  spatial.buffer @z1 on @s1 : !spatial.tile<8x8xf32> depth 1 offset 1024
  spatial.stage @ldw load @w -> @w0 on @s0 engine "load"
  spatial.multicast @g reader @ldw to [@s1]
  spatial.stage @rv1 receive @g -> @w1 on @s1 engine "load"
  spatial.stage @ldx0 load @x -> @x0 on @s0 engine "load" origin affine_map<(d0) -> (d0 * 8, 0)>
  spatial.stage @ldx1 load @x -> @x1 on @s1 engine "load" origin affine_map<(d0) -> (d0 * 8 + 16, 0)>
  spatial.stage @init0 compute(@w0) -> @a0 on @s0 engine "compute" {
  ^bb0(%w: tensor<8x8xf32>):
    spatial.yield %w : tensor<8x8xf32>
  }
  spatial.stage @step0 compute(@x0, @a0) -> @a0 on @s0 engine "compute" {
  ^bb0(%x: tensor<8x8xf32>, %a: tensor<8x8xf32>):
    %s = arith.addf %a, %x : tensor<8x8xf32>
    spatial.yield %s : tensor<8x8xf32>
  }
  spatial.stage @fin0 compute(@a0) -> @z0 on @s0 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st0 store @z0 -> @z on @s0 engine "store" origin affine_map<() -> (0, 0)>
  spatial.stage @init1 compute(@w1) -> @a1 on @s1 engine "compute" {
  ^bb0(%w: tensor<8x8xf32>):
    spatial.yield %w : tensor<8x8xf32>
  }
  spatial.stage @step1 compute(@x1, @a1) -> @a1 on @s1 engine "compute" {
  ^bb0(%x: tensor<8x8xf32>, %a: tensor<8x8xf32>):
    %s = arith.addf %a, %x : tensor<8x8xf32>
    spatial.yield %s : tensor<8x8xf32>
  }
  spatial.stage @fin1 compute(@a1) -> @z1 on @s1 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st1 store @z1 -> @z on @s1 engine "store" origin affine_map<() -> (8, 0)>
  spatial.edge @ew0 from @ldw to @init0 via @w0 : !spatial.tile<8x8xf32>
  spatial.edge @ex0 from @ldx0 to @step0 via @x0 : !spatial.tile<8x8xf32>
  spatial.edge @ez0 from @fin0 to @st0 via @z0 : !spatial.tile<8x8xf32>
  spatial.edge @ew1 from @rv1 to @init1 via @w1 : !spatial.tile<8x8xf32>
  spatial.edge @ex1 from @ldx1 to @step1 via @x1 : !spatial.tile<8x8xf32>
  spatial.edge @ez1 from @fin1 to @st1 via @z1 : !spatial.tile<8x8xf32>
  spatial.semaphore @w0_full on @s0 init 0
  spatial.semaphore @x0_full on @s0 init 0
  spatial.semaphore @x0_empty on @s0 init 2
  spatial.semaphore @z0_full on @s0 init 0
  spatial.semaphore @w1_full on @s1 init 0
  spatial.semaphore @x1_full on @s1 init 0
  spatial.semaphore @x1_empty on @s1 init 2
  spatial.semaphore @z1_full on @s1 init 0
  spatial.engine @s0 "load" {
    spatial.load_step @ldw
    spatial.signal @w0_full += 1
    spatial.signal @w1_full += 1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x0_empty >= 1
      spatial.load_step @ldx0 [%k]
      spatial.signal @x0_full += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.wait @w0_full >= 1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x0_full >= 1
      // expected-error @+1 {{spatial-verify: underflow: compute_step of stage @step0 reads local buffer @a0, which was never written (run 1 of the stage, on (@s0, "compute"))}}
      spatial.compute_step @step0
      spatial.signal @x0_empty += 1
    }
    spatial.compute_step @fin0
    spatial.signal @z0_full += 1
  }
  spatial.engine @s0 "store" {
    spatial.wait @z0_full >= 1
    spatial.store_step @st0
  }
  spatial.engine @s1 "load" {
    spatial.loop %k = 0 to 2 {
      spatial.wait @x1_empty >= 1
      spatial.load_step @ldx1 [%k]
      spatial.signal @x1_full += 1
    }
  }
  spatial.engine @s1 "compute" {
    spatial.wait @w1_full >= 1
    spatial.compute_step @init1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x1_full >= 1
      spatial.compute_step @step1
      spatial.signal @x1_empty += 1
    }
    spatial.compute_step @fin1
    spatial.signal @z1_full += 1
  }
  spatial.engine @s1 "store" {
    spatial.wait @z1_full >= 1
    spatial.store_step @st1
  }
}

// -----
// A recv_step is a marker: the group's tiles are delivered at its reader's
// load step, so a choreography that steps a receive stage is refused.
spatial.program @recv_step attributes {spatial.phase = "synthesized"} {
  spatial.tensor @w : memref<8x8xf32>
  spatial.tensor @x : memref<32x8xf32>
  spatial.tensor @z : memref<16x8xf32>
  spatial.scalar @rows : index = 32
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.site @s1 at [1] engines ["load", "compute", "store"]
  spatial.buffer @w0 on @s0 : !spatial.tile<8x8xf32> depth 1 offset 0
  spatial.buffer @x0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 256
  spatial.buffer @a0 on @s0 : !spatial.tile<8x8xf32> depth 1 local offset 768
  spatial.buffer @z0 on @s0 : !spatial.tile<8x8xf32> depth 1 offset 1024
  spatial.buffer @w1 on @s1 : !spatial.tile<8x8xf32> depth 1 offset 0
  spatial.buffer @x1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 256
  spatial.buffer @a1 on @s1 : !spatial.tile<8x8xf32> depth 1 local offset 768
  spatial.buffer @z1 on @s1 : !spatial.tile<8x8xf32> depth 1 offset 1024
  spatial.stage @ldw load @w -> @w0 on @s0 engine "load"
  spatial.multicast @g reader @ldw to [@s1]
  spatial.stage @rv1 receive @g -> @w1 on @s1 engine "load"
  spatial.stage @ldx0 load @x -> @x0 on @s0 engine "load" origin affine_map<(d0) -> (d0 * 8, 0)>
  spatial.stage @ldx1 load @x -> @x1 on @s1 engine "load" origin affine_map<(d0) -> (d0 * 8 + 16, 0)>
  spatial.stage @init0 compute(@w0) -> @a0 on @s0 engine "compute" {
  ^bb0(%w: tensor<8x8xf32>):
    spatial.yield %w : tensor<8x8xf32>
  }
  spatial.stage @step0 compute(@x0, @a0) -> @a0 on @s0 engine "compute" {
  ^bb0(%x: tensor<8x8xf32>, %a: tensor<8x8xf32>):
    %s = arith.addf %a, %x : tensor<8x8xf32>
    spatial.yield %s : tensor<8x8xf32>
  }
  spatial.stage @fin0 compute(@a0) -> @z0 on @s0 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st0 store @z0 -> @z on @s0 engine "store" origin affine_map<() -> (0, 0)>
  spatial.stage @init1 compute(@w1) -> @a1 on @s1 engine "compute" {
  ^bb0(%w: tensor<8x8xf32>):
    spatial.yield %w : tensor<8x8xf32>
  }
  spatial.stage @step1 compute(@x1, @a1) -> @a1 on @s1 engine "compute" {
  ^bb0(%x: tensor<8x8xf32>, %a: tensor<8x8xf32>):
    %s = arith.addf %a, %x : tensor<8x8xf32>
    spatial.yield %s : tensor<8x8xf32>
  }
  spatial.stage @fin1 compute(@a1) -> @z1 on @s1 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st1 store @z1 -> @z on @s1 engine "store" origin affine_map<() -> (8, 0)>
  spatial.edge @ew0 from @ldw to @init0 via @w0 : !spatial.tile<8x8xf32>
  spatial.edge @ex0 from @ldx0 to @step0 via @x0 : !spatial.tile<8x8xf32>
  spatial.edge @ez0 from @fin0 to @st0 via @z0 : !spatial.tile<8x8xf32>
  spatial.edge @ew1 from @rv1 to @init1 via @w1 : !spatial.tile<8x8xf32>
  spatial.edge @ex1 from @ldx1 to @step1 via @x1 : !spatial.tile<8x8xf32>
  spatial.edge @ez1 from @fin1 to @st1 via @z1 : !spatial.tile<8x8xf32>
  spatial.semaphore @w0_full on @s0 init 0
  spatial.semaphore @x0_full on @s0 init 0
  spatial.semaphore @x0_empty on @s0 init 2
  spatial.semaphore @z0_full on @s0 init 0
  spatial.semaphore @w1_full on @s1 init 0
  spatial.semaphore @x1_full on @s1 init 0
  spatial.semaphore @x1_empty on @s1 init 2
  spatial.semaphore @z1_full on @s1 init 0
  spatial.engine @s0 "load" {
    spatial.load_step @ldw
    spatial.signal @w0_full += 1
    spatial.signal @w1_full += 1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x0_empty >= 1
      spatial.load_step @ldx0 [%k]
      spatial.signal @x0_full += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.wait @w0_full >= 1
    spatial.compute_step @init0
    spatial.loop %k = 0 to 2 {
      spatial.wait @x0_full >= 1
      spatial.compute_step @step0
      spatial.signal @x0_empty += 1
    }
    spatial.compute_step @fin0
    spatial.signal @z0_full += 1
  }
  spatial.engine @s0 "store" {
    spatial.wait @z0_full >= 1
    spatial.store_step @st0
  }
  spatial.engine @s1 "load" {
    // expected-error @+1 {{spatial-verify: recv_step @rv1 does not run: the tiles of a multicast group are delivered into its receive stages' buffers at its reader's load_step (a recv_step is a marker)}}
    spatial.recv_step @rv1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x1_empty >= 1
      spatial.load_step @ldx1 [%k]
      spatial.signal @x1_full += 1
    }
  }
  spatial.engine @s1 "compute" {
    spatial.wait @w1_full >= 1
    spatial.compute_step @init1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x1_full >= 1
      spatial.compute_step @step1
      spatial.signal @x1_empty += 1
    }
    spatial.compute_step @fin1
    spatial.signal @z1_full += 1
  }
  spatial.engine @s1 "store" {
    spatial.wait @z1_full >= 1
    spatial.store_step @st1
  }
}

// -----
// The reader loads @w twice: its own buffer @w0 has two slots, but the
// receive buffer @w1 has one, and nobody drains it before the second
// delivery: an overflow at the reader's step naming the receive stage.
spatial.program @receive_overflow attributes {spatial.phase = "synthesized"} {
  spatial.tensor @w : memref<8x8xf32>
  spatial.tensor @x : memref<32x8xf32>
  spatial.tensor @z : memref<16x8xf32>
  spatial.scalar @rows : index = 32
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.site @s1 at [1] engines ["load", "compute", "store"]
  spatial.buffer @w0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 0
  spatial.buffer @x0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 512
  spatial.buffer @a0 on @s0 : !spatial.tile<8x8xf32> depth 1 local offset 1024
  spatial.buffer @z0 on @s0 : !spatial.tile<8x8xf32> depth 1 offset 1280
  spatial.buffer @w1 on @s1 : !spatial.tile<8x8xf32> depth 1 offset 0
  spatial.buffer @x1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 256
  spatial.buffer @a1 on @s1 : !spatial.tile<8x8xf32> depth 1 local offset 768
  spatial.buffer @z1 on @s1 : !spatial.tile<8x8xf32> depth 1 offset 1024
  spatial.stage @ldw load @w -> @w0 on @s0 engine "load"
  spatial.multicast @g reader @ldw to [@s1]
  spatial.stage @rv1 receive @g -> @w1 on @s1 engine "load"
  spatial.stage @ldx0 load @x -> @x0 on @s0 engine "load" origin affine_map<(d0) -> (d0 * 8, 0)>
  spatial.stage @ldx1 load @x -> @x1 on @s1 engine "load" origin affine_map<(d0) -> (d0 * 8 + 16, 0)>
  spatial.stage @init0 compute(@w0) -> @a0 on @s0 engine "compute" {
  ^bb0(%w: tensor<8x8xf32>):
    spatial.yield %w : tensor<8x8xf32>
  }
  spatial.stage @step0 compute(@x0, @a0) -> @a0 on @s0 engine "compute" {
  ^bb0(%x: tensor<8x8xf32>, %a: tensor<8x8xf32>):
    %s = arith.addf %a, %x : tensor<8x8xf32>
    spatial.yield %s : tensor<8x8xf32>
  }
  spatial.stage @fin0 compute(@a0) -> @z0 on @s0 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st0 store @z0 -> @z on @s0 engine "store" origin affine_map<() -> (0, 0)>
  spatial.stage @init1 compute(@w1) -> @a1 on @s1 engine "compute" {
  ^bb0(%w: tensor<8x8xf32>):
    spatial.yield %w : tensor<8x8xf32>
  }
  spatial.stage @step1 compute(@x1, @a1) -> @a1 on @s1 engine "compute" {
  ^bb0(%x: tensor<8x8xf32>, %a: tensor<8x8xf32>):
    %s = arith.addf %a, %x : tensor<8x8xf32>
    spatial.yield %s : tensor<8x8xf32>
  }
  spatial.stage @fin1 compute(@a1) -> @z1 on @s1 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st1 store @z1 -> @z on @s1 engine "store" origin affine_map<() -> (8, 0)>
  spatial.edge @ew0 from @ldw to @init0 via @w0 : !spatial.tile<8x8xf32>
  spatial.edge @ex0 from @ldx0 to @step0 via @x0 : !spatial.tile<8x8xf32>
  spatial.edge @ez0 from @fin0 to @st0 via @z0 : !spatial.tile<8x8xf32>
  spatial.edge @ew1 from @rv1 to @init1 via @w1 : !spatial.tile<8x8xf32>
  spatial.edge @ex1 from @ldx1 to @step1 via @x1 : !spatial.tile<8x8xf32>
  spatial.edge @ez1 from @fin1 to @st1 via @z1 : !spatial.tile<8x8xf32>
  spatial.semaphore @w0_full on @s0 init 0
  spatial.semaphore @x0_full on @s0 init 0
  spatial.semaphore @x0_empty on @s0 init 2
  spatial.semaphore @z0_full on @s0 init 0
  spatial.semaphore @w1_full on @s1 init 0
  spatial.semaphore @x1_full on @s1 init 0
  spatial.semaphore @x1_empty on @s1 init 2
  spatial.semaphore @z1_full on @s1 init 0
  spatial.engine @s0 "load" {
    spatial.load_step @ldw
    // expected-error @+1 {{spatial-verify: overflow: load_step of stage @ldw writes buffer @w1 of receive stage @rv1, whose 1 slot(s) are all full (run 2 of the stage, on (@s0, "load"))}}
    spatial.load_step @ldw
    spatial.signal @w0_full += 1
    spatial.signal @w1_full += 1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x0_empty >= 1
      spatial.load_step @ldx0 [%k]
      spatial.signal @x0_full += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.wait @w0_full >= 1
    spatial.compute_step @init0
    spatial.loop %k = 0 to 2 {
      spatial.wait @x0_full >= 1
      spatial.compute_step @step0
      spatial.signal @x0_empty += 1
    }
    spatial.compute_step @fin0
    spatial.signal @z0_full += 1
  }
  spatial.engine @s0 "store" {
    spatial.wait @z0_full >= 1
    spatial.store_step @st0
  }
  spatial.engine @s1 "load" {
    spatial.loop %k = 0 to 2 {
      spatial.wait @x1_empty >= 1
      spatial.load_step @ldx1 [%k]
      spatial.signal @x1_full += 1
    }
  }
  spatial.engine @s1 "compute" {
    spatial.wait @w1_full >= 1
    spatial.compute_step @init1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x1_full >= 1
      spatial.compute_step @step1
      spatial.signal @x1_empty += 1
    }
    spatial.compute_step @fin1
    spatial.signal @z1_full += 1
  }
  spatial.engine @s1 "store" {
    spatial.wait @z1_full >= 1
    spatial.store_step @st1
  }
}

// -----
// A delivered tile nobody takes: @s1's accumulator starts from nothing
// read, so @w1 still holds the tile at the end.
spatial.program @receive_left_over attributes {spatial.phase = "synthesized"} {
  spatial.tensor @w : memref<8x8xf32>
  spatial.tensor @x : memref<32x8xf32>
  spatial.tensor @z : memref<16x8xf32>
  spatial.scalar @rows : index = 32
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.site @s1 at [1] engines ["load", "compute", "store"]
  spatial.buffer @w0 on @s0 : !spatial.tile<8x8xf32> depth 1 offset 0
  spatial.buffer @x0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 256
  spatial.buffer @a0 on @s0 : !spatial.tile<8x8xf32> depth 1 local offset 768
  spatial.buffer @z0 on @s0 : !spatial.tile<8x8xf32> depth 1 offset 1024
  // expected-error @+1 {{spatial-verify: buffer @w1 still holds 1 full slot(s) at the end: produced by @rv1, never consumed by no stage}}
  spatial.buffer @w1 on @s1 : !spatial.tile<8x8xf32> depth 1 offset 0
  spatial.buffer @x1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 256
  spatial.buffer @a1 on @s1 : !spatial.tile<8x8xf32> depth 1 local offset 768
  spatial.buffer @z1 on @s1 : !spatial.tile<8x8xf32> depth 1 offset 1024
  spatial.stage @ldw load @w -> @w0 on @s0 engine "load"
  spatial.multicast @g reader @ldw to [@s1]
  spatial.stage @rv1 receive @g -> @w1 on @s1 engine "load"
  spatial.stage @ldx0 load @x -> @x0 on @s0 engine "load" origin affine_map<(d0) -> (d0 * 8, 0)>
  spatial.stage @ldx1 load @x -> @x1 on @s1 engine "load" origin affine_map<(d0) -> (d0 * 8 + 16, 0)>
  spatial.stage @init0 compute(@w0) -> @a0 on @s0 engine "compute" {
  ^bb0(%w: tensor<8x8xf32>):
    spatial.yield %w : tensor<8x8xf32>
  }
  spatial.stage @step0 compute(@x0, @a0) -> @a0 on @s0 engine "compute" {
  ^bb0(%x: tensor<8x8xf32>, %a: tensor<8x8xf32>):
    %s = arith.addf %a, %x : tensor<8x8xf32>
    spatial.yield %s : tensor<8x8xf32>
  }
  spatial.stage @fin0 compute(@a0) -> @z0 on @s0 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st0 store @z0 -> @z on @s0 engine "store" origin affine_map<() -> (0, 0)>
  spatial.stage @init1 compute() -> @a1 on @s1 engine "compute" {
    %w = arith.constant dense<0.0> : tensor<8x8xf32>
    spatial.yield %w : tensor<8x8xf32>
  }
  spatial.stage @step1 compute(@x1, @a1) -> @a1 on @s1 engine "compute" {
  ^bb0(%x: tensor<8x8xf32>, %a: tensor<8x8xf32>):
    %s = arith.addf %a, %x : tensor<8x8xf32>
    spatial.yield %s : tensor<8x8xf32>
  }
  spatial.stage @fin1 compute(@a1) -> @z1 on @s1 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st1 store @z1 -> @z on @s1 engine "store" origin affine_map<() -> (8, 0)>
  spatial.edge @ew0 from @ldw to @init0 via @w0 : !spatial.tile<8x8xf32>
  spatial.edge @ex0 from @ldx0 to @step0 via @x0 : !spatial.tile<8x8xf32>
  spatial.edge @ez0 from @fin0 to @st0 via @z0 : !spatial.tile<8x8xf32>
  spatial.edge @ex1 from @ldx1 to @step1 via @x1 : !spatial.tile<8x8xf32>
  spatial.edge @ez1 from @fin1 to @st1 via @z1 : !spatial.tile<8x8xf32>
  spatial.semaphore @w0_full on @s0 init 0
  spatial.semaphore @x0_full on @s0 init 0
  spatial.semaphore @x0_empty on @s0 init 2
  spatial.semaphore @z0_full on @s0 init 0
  spatial.semaphore @w1_full on @s1 init 0
  spatial.semaphore @x1_full on @s1 init 0
  spatial.semaphore @x1_empty on @s1 init 2
  spatial.semaphore @z1_full on @s1 init 0
  spatial.engine @s0 "load" {
    spatial.load_step @ldw
    spatial.signal @w0_full += 1
    spatial.signal @w1_full += 1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x0_empty >= 1
      spatial.load_step @ldx0 [%k]
      spatial.signal @x0_full += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.wait @w0_full >= 1
    spatial.compute_step @init0
    spatial.loop %k = 0 to 2 {
      spatial.wait @x0_full >= 1
      spatial.compute_step @step0
      spatial.signal @x0_empty += 1
    }
    spatial.compute_step @fin0
    spatial.signal @z0_full += 1
  }
  spatial.engine @s0 "store" {
    spatial.wait @z0_full >= 1
    spatial.store_step @st0
  }
  spatial.engine @s1 "load" {
    spatial.loop %k = 0 to 2 {
      spatial.wait @x1_empty >= 1
      spatial.load_step @ldx1 [%k]
      spatial.signal @x1_full += 1
    }
  }
  spatial.engine @s1 "compute" {
    spatial.wait @w1_full >= 1
    spatial.compute_step @init1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x1_full >= 1
      spatial.compute_step @step1
      spatial.signal @x1_empty += 1
    }
    spatial.compute_step @fin1
    spatial.signal @z1_full += 1
  }
  spatial.engine @s1 "store" {
    spatial.wait @z1_full >= 1
    spatial.store_step @st1
  }
}

// -----
// A buffer shallower than its handshake: @x0 has one slot, but @x0_empty
// starts at 2. In lock step the compute engine happens to drain @x0 before
// the second load; in the eager schedule the load engine runs ahead as far
// as @x0_empty lets it, and the second load overflows.
spatial.program @shallow attributes {spatial.phase = "synthesized"} {
  spatial.tensor @w : memref<8x8xf32>
  spatial.tensor @x : memref<32x8xf32>
  spatial.tensor @z : memref<16x8xf32>
  spatial.scalar @rows : index = 32
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.site @s1 at [1] engines ["load", "compute", "store"]
  spatial.buffer @w0 on @s0 : !spatial.tile<8x8xf32> depth 1 offset 0
  spatial.buffer @x0 on @s0 : !spatial.tile<8x8xf32> depth 1 offset 256
  spatial.buffer @a0 on @s0 : !spatial.tile<8x8xf32> depth 1 local offset 768
  spatial.buffer @z0 on @s0 : !spatial.tile<8x8xf32> depth 1 offset 1024
  spatial.buffer @w1 on @s1 : !spatial.tile<8x8xf32> depth 1 offset 0
  spatial.buffer @x1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 256
  spatial.buffer @a1 on @s1 : !spatial.tile<8x8xf32> depth 1 local offset 768
  spatial.buffer @z1 on @s1 : !spatial.tile<8x8xf32> depth 1 offset 1024
  spatial.stage @ldw load @w -> @w0 on @s0 engine "load"
  spatial.multicast @g reader @ldw to [@s1]
  spatial.stage @rv1 receive @g -> @w1 on @s1 engine "load"
  spatial.stage @ldx0 load @x -> @x0 on @s0 engine "load" origin affine_map<(d0) -> (d0 * 8, 0)>
  spatial.stage @ldx1 load @x -> @x1 on @s1 engine "load" origin affine_map<(d0) -> (d0 * 8 + 16, 0)>
  spatial.stage @init0 compute(@w0) -> @a0 on @s0 engine "compute" {
  ^bb0(%w: tensor<8x8xf32>):
    spatial.yield %w : tensor<8x8xf32>
  }
  spatial.stage @step0 compute(@x0, @a0) -> @a0 on @s0 engine "compute" {
  ^bb0(%x: tensor<8x8xf32>, %a: tensor<8x8xf32>):
    %s = arith.addf %a, %x : tensor<8x8xf32>
    spatial.yield %s : tensor<8x8xf32>
  }
  spatial.stage @fin0 compute(@a0) -> @z0 on @s0 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st0 store @z0 -> @z on @s0 engine "store" origin affine_map<() -> (0, 0)>
  spatial.stage @init1 compute(@w1) -> @a1 on @s1 engine "compute" {
  ^bb0(%w: tensor<8x8xf32>):
    spatial.yield %w : tensor<8x8xf32>
  }
  spatial.stage @step1 compute(@x1, @a1) -> @a1 on @s1 engine "compute" {
  ^bb0(%x: tensor<8x8xf32>, %a: tensor<8x8xf32>):
    %s = arith.addf %a, %x : tensor<8x8xf32>
    spatial.yield %s : tensor<8x8xf32>
  }
  spatial.stage @fin1 compute(@a1) -> @z1 on @s1 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st1 store @z1 -> @z on @s1 engine "store" origin affine_map<() -> (8, 0)>
  spatial.edge @ew0 from @ldw to @init0 via @w0 : !spatial.tile<8x8xf32>
  spatial.edge @ex0 from @ldx0 to @step0 via @x0 : !spatial.tile<8x8xf32>
  spatial.edge @ez0 from @fin0 to @st0 via @z0 : !spatial.tile<8x8xf32>
  spatial.edge @ew1 from @rv1 to @init1 via @w1 : !spatial.tile<8x8xf32>
  spatial.edge @ex1 from @ldx1 to @step1 via @x1 : !spatial.tile<8x8xf32>
  spatial.edge @ez1 from @fin1 to @st1 via @z1 : !spatial.tile<8x8xf32>
  spatial.semaphore @w0_full on @s0 init 0
  spatial.semaphore @x0_full on @s0 init 0
  spatial.semaphore @x0_empty on @s0 init 2
  spatial.semaphore @z0_full on @s0 init 0
  spatial.semaphore @w1_full on @s1 init 0
  spatial.semaphore @x1_full on @s1 init 0
  spatial.semaphore @x1_empty on @s1 init 2
  spatial.semaphore @z1_full on @s1 init 0
  spatial.engine @s0 "load" {
    spatial.load_step @ldw
    spatial.signal @w0_full += 1
    spatial.signal @w1_full += 1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x0_empty >= 1
      // expected-error @+1 {{spatial-verify: overflow: load_step of stage @ldx0 writes buffer @x0, whose 1 slot(s) are all full (run 2 of the stage, on (@s0, "load"))}}
      spatial.load_step @ldx0 [%k]
      spatial.signal @x0_full += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.wait @w0_full >= 1
    spatial.compute_step @init0
    spatial.loop %k = 0 to 2 {
      spatial.wait @x0_full >= 1
      spatial.compute_step @step0
      spatial.signal @x0_empty += 1
    }
    spatial.compute_step @fin0
    spatial.signal @z0_full += 1
  }
  spatial.engine @s0 "store" {
    spatial.wait @z0_full >= 1
    spatial.store_step @st0
  }
  spatial.engine @s1 "load" {
    spatial.loop %k = 0 to 2 {
      spatial.wait @x1_empty >= 1
      spatial.load_step @ldx1 [%k]
      spatial.signal @x1_full += 1
    }
  }
  spatial.engine @s1 "compute" {
    spatial.wait @w1_full >= 1
    spatial.compute_step @init1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x1_full >= 1
      spatial.compute_step @step1
      spatial.signal @x1_empty += 1
    }
    spatial.compute_step @fin1
    spatial.signal @z1_full += 1
  }
  spatial.engine @s1 "store" {
    spatial.wait @z1_full >= 1
    spatial.store_step @st1
  }
}
