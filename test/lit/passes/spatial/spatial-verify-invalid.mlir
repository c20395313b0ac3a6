// RUN: %spyre-opt %s --split-input-file -p spatial-verify --verify-diagnostics

// Broken choreographies of the one-site vector add (test/lit/passes/
// spatial-verify.mlir): spatial-verify refuses each with a located error
// naming the stage and the semaphore or buffer.

// A removed signal: the compute engine frees an input slot only once, after
// its loop (the wait's semaphore must still be signalled somewhere, or the
// dialect's verifier refuses it first). The load engine runs out of free
// slots after two tiles, the compute engine out of full ones: a deadlock,
// located at the first blocked wait, naming the semaphore, its value, the
// wanted count and every blocked (site, engine).
spatial.program @removed_signal attributes {spatial.phase = "synthesized", grid = [1]} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.tensor @y : memref<64x64xf16>
  spatial.tensor @z : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
  spatial.buffer @by on @s0 : !spatial.tile<16x64xf16> depth 2 offset 4096
  spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1 offset 8192
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @ldy load @y -> @by on @s0 engine "load"
  spatial.stage @add compute(@bx, @by) -> @bz on @s0 engine "compute" {
  ^bb0(%a: tensor<16x64xf16>, %b: tensor<16x64xf16>):
    %c = arith.addf %a, %b : tensor<16x64xf16>
    spatial.yield %c : tensor<16x64xf16>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @ex from @ldx to @add via @bx : !spatial.tile<16x64xf16>
  spatial.edge @ey from @ldy to @add via @by : !spatial.tile<16x64xf16>
  spatial.edge @ez from @add to @st via @bz : !spatial.tile<16x64xf16>
  spatial.semaphore @full_in on @s0 init 0
  spatial.semaphore @empty_in on @s0 init 2
  spatial.semaphore @full_out on @s0 init 0
  spatial.semaphore @empty_out on @s0 init 1
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      // expected-error @+1 {{spatial-verify: deadlock: no engine can progress; semaphore @empty_in is 0, this wait wants 1; blocked: (@s0, "load") waits on @empty_in >= 1 (value 0); (@s0, "compute") waits on @full_in >= 1 (value 0); (@s0, "store") waits on @full_out >= 1 (value 0)}}
      spatial.wait @empty_in >= 1
      spatial.load_step @ldx [%k]
      spatial.load_step @ldy [%k]
      spatial.signal @full_in += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_in >= 1
      spatial.wait @empty_out >= 1
      spatial.compute_step @add
      spatial.signal @full_out += 1
    }
    spatial.signal @empty_in += 1
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_out >= 1
      spatial.store_step @st [%k]
      spatial.signal @empty_out += 1
    }
  }
}

// -----

// A buffer depth below what the choreography needs: @empty_in lets the load
// engine run two tiles ahead, but @bx has one slot.
spatial.program @shallow attributes {spatial.phase = "synthesized", grid = [1]} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.tensor @y : memref<64x64xf16>
  spatial.tensor @z : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 1 offset 0
  spatial.buffer @by on @s0 : !spatial.tile<16x64xf16> depth 2 offset 4096
  spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1 offset 8192
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @ldy load @y -> @by on @s0 engine "load"
  spatial.stage @add compute(@bx, @by) -> @bz on @s0 engine "compute" {
  ^bb0(%a: tensor<16x64xf16>, %b: tensor<16x64xf16>):
    %c = arith.addf %a, %b : tensor<16x64xf16>
    spatial.yield %c : tensor<16x64xf16>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @ex from @ldx to @add via @bx : !spatial.tile<16x64xf16>
  spatial.edge @ey from @ldy to @add via @by : !spatial.tile<16x64xf16>
  spatial.edge @ez from @add to @st via @bz : !spatial.tile<16x64xf16>
  spatial.semaphore @full_in on @s0 init 0
  spatial.semaphore @empty_in on @s0 init 2
  spatial.semaphore @full_out on @s0 init 0
  spatial.semaphore @empty_out on @s0 init 1
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @empty_in >= 1
      // expected-error @+1 {{spatial-verify: overflow: load_step of stage @ldx writes buffer @bx, whose 1 slot(s) are all full (run 2 of the stage, on (@s0, "load"))}}
      spatial.load_step @ldx [%k]
      spatial.load_step @ldy [%k]
      spatial.signal @full_in += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_in >= 1
      spatial.wait @empty_out >= 1
      spatial.compute_step @add
      spatial.signal @empty_in += 1
      spatial.signal @full_out += 1
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_out >= 1
      spatial.store_step @st [%k]
      spatial.signal @empty_out += 1
    }
  }
}

// -----

// A consumer reading a tile twice: the store engine stores each sum twice.
spatial.program @twice attributes {spatial.phase = "synthesized", grid = [1]} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.tensor @y : memref<64x64xf16>
  spatial.tensor @z : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
  spatial.buffer @by on @s0 : !spatial.tile<16x64xf16> depth 2 offset 4096
  spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1 offset 8192
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @ldy load @y -> @by on @s0 engine "load"
  spatial.stage @add compute(@bx, @by) -> @bz on @s0 engine "compute" {
  ^bb0(%a: tensor<16x64xf16>, %b: tensor<16x64xf16>):
    %c = arith.addf %a, %b : tensor<16x64xf16>
    spatial.yield %c : tensor<16x64xf16>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @ex from @ldx to @add via @bx : !spatial.tile<16x64xf16>
  spatial.edge @ey from @ldy to @add via @by : !spatial.tile<16x64xf16>
  spatial.edge @ez from @add to @st via @bz : !spatial.tile<16x64xf16>
  spatial.semaphore @full_in on @s0 init 0
  spatial.semaphore @empty_in on @s0 init 2
  spatial.semaphore @full_out on @s0 init 0
  spatial.semaphore @empty_out on @s0 init 1
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @empty_in >= 1
      spatial.load_step @ldx [%k]
      spatial.load_step @ldy [%k]
      spatial.signal @full_in += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_in >= 1
      spatial.wait @empty_out >= 1
      spatial.compute_step @add
      spatial.signal @empty_in += 1
      spatial.signal @full_out += 1
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_out >= 1
      spatial.store_step @st [%k]
      // expected-error @+1 {{spatial-verify: underflow: store_step of stage @st reads buffer @bz, which holds no full slot (run 2 of the stage, on (@s0, "store"))}}
      spatial.store_step @st [%k]
      spatial.signal @empty_out += 1
    }
  }
}

// -----

// Produced != consumed: the load engine loads five tiles of each input (the
// semaphores allow it), the compute engine adds four.
spatial.program @unconsumed attributes {spatial.phase = "synthesized", grid = [1]} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.tensor @y : memref<64x64xf16>
  spatial.tensor @z : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
  spatial.buffer @by on @s0 : !spatial.tile<16x64xf16> depth 2 offset 4096
  spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1 offset 8192
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @ldy load @y -> @by on @s0 engine "load"
  spatial.stage @add compute(@bx, @by) -> @bz on @s0 engine "compute" {
  ^bb0(%a: tensor<16x64xf16>, %b: tensor<16x64xf16>):
    %c = arith.addf %a, %b : tensor<16x64xf16>
    spatial.yield %c : tensor<16x64xf16>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  // expected-error @+1 {{spatial-verify: edge @ex: stage @ldx produced 5 tile(s) into buffer @bx, stage @add consumed 4: every produced tile must be consumed exactly as often as planned}}
  spatial.edge @ex from @ldx to @add via @bx : !spatial.tile<16x64xf16>
  spatial.edge @ey from @ldy to @add via @by : !spatial.tile<16x64xf16>
  spatial.edge @ez from @add to @st via @bz : !spatial.tile<16x64xf16>
  spatial.semaphore @full_in on @s0 init 0
  spatial.semaphore @empty_in on @s0 init 2
  spatial.semaphore @full_out on @s0 init 0
  spatial.semaphore @empty_out on @s0 init 1
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 5 {
      spatial.wait @empty_in >= 1
      spatial.load_step @ldx [%k]
      spatial.load_step @ldy [%k]
      spatial.signal @full_in += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_in >= 1
      spatial.wait @empty_out >= 1
      spatial.compute_step @add
      spatial.signal @empty_in += 1
      spatial.signal @full_out += 1
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_out >= 1
      spatial.store_step @st [%k]
      spatial.signal @empty_out += 1
    }
  }
}

// -----

// A tile left in a buffer no edge accounts for: without edge @ez, the store
// engine drains three of the four sums.
spatial.program @leftover attributes {spatial.phase = "synthesized", grid = [1]} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.tensor @y : memref<64x64xf16>
  spatial.tensor @z : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
  spatial.buffer @by on @s0 : !spatial.tile<16x64xf16> depth 2 offset 4096
  // expected-error @+1 {{spatial-verify: buffer @bz still holds 1 full slot(s) at the end: produced by @add, never consumed by @st}}
  spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1 offset 8192
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @ldy load @y -> @by on @s0 engine "load"
  spatial.stage @add compute(@bx, @by) -> @bz on @s0 engine "compute" {
  ^bb0(%a: tensor<16x64xf16>, %b: tensor<16x64xf16>):
    %c = arith.addf %a, %b : tensor<16x64xf16>
    spatial.yield %c : tensor<16x64xf16>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @ex from @ldx to @add via @bx : !spatial.tile<16x64xf16>
  spatial.edge @ey from @ldy to @add via @by : !spatial.tile<16x64xf16>
  spatial.semaphore @full_in on @s0 init 0
  spatial.semaphore @empty_in on @s0 init 2
  spatial.semaphore @full_out on @s0 init 0
  spatial.semaphore @empty_out on @s0 init 1
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @empty_in >= 1
      spatial.load_step @ldx [%k]
      spatial.load_step @ldy [%k]
      spatial.signal @full_in += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_in >= 1
      spatial.wait @empty_out >= 1
      spatial.compute_step @add
      spatial.signal @empty_in += 1
      spatial.signal @full_out += 1
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to 3 {
      spatial.wait @full_out >= 1
      spatial.store_step @st [%k]
      spatial.signal @empty_out += 1
    }
  }
}

// -----

// A program in another phase is refused.
// expected-error @+1 {{spatial-verify needs a program in phase synthesized, got sized (program @sized; a verified program is re-checked)}}
spatial.program @sized attributes {spatial.phase = "sized", grid = [1]} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.tensor @y : memref<64x64xf16>
  spatial.tensor @z : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
  spatial.buffer @by on @s0 : !spatial.tile<16x64xf16> depth 2 offset 4096
  spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1 offset 8192
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @ldy load @y -> @by on @s0 engine "load"
  spatial.stage @add compute(@bx, @by) -> @bz on @s0 engine "compute" {
  ^bb0(%a: tensor<16x64xf16>, %b: tensor<16x64xf16>):
    %c = arith.addf %a, %b : tensor<16x64xf16>
    spatial.yield %c : tensor<16x64xf16>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @ex from @ldx to @add via @bx : !spatial.tile<16x64xf16>
  spatial.edge @ey from @ldy to @add via @by : !spatial.tile<16x64xf16>
  spatial.edge @ez from @add to @st via @bz : !spatial.tile<16x64xf16>
  spatial.semaphore @full_in on @s0 init 0
  spatial.semaphore @empty_in on @s0 init 2
  spatial.semaphore @full_out on @s0 init 0
  spatial.semaphore @empty_out on @s0 init 1
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @empty_in >= 1
      spatial.load_step @ldx [%k]
      spatial.load_step @ldy [%k]
      spatial.signal @full_in += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_in >= 1
      spatial.wait @empty_out >= 1
      spatial.compute_step @add
      spatial.signal @empty_in += 1
      spatial.signal @full_out += 1
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_out >= 1
      spatial.store_step @st [%k]
      spatial.signal @empty_out += 1
    }
  }
}

// -----

// Too many steps to simulate: refused before simulating any.
spatial.program @huge attributes {spatial.phase = "synthesized", grid = [1]} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.tensor @y : memref<64x64xf16>
  spatial.tensor @z : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
  spatial.buffer @by on @s0 : !spatial.tile<16x64xf16> depth 2 offset 4096
  spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1 offset 8192
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @ldy load @y -> @by on @s0 engine "load"
  spatial.stage @add compute(@bx, @by) -> @bz on @s0 engine "compute" {
  ^bb0(%a: tensor<16x64xf16>, %b: tensor<16x64xf16>):
    %c = arith.addf %a, %b : tensor<16x64xf16>
    spatial.yield %c : tensor<16x64xf16>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @ex from @ldx to @add via @bx : !spatial.tile<16x64xf16>
  spatial.edge @ey from @ldy to @add via @by : !spatial.tile<16x64xf16>
  spatial.edge @ez from @add to @st via @bz : !spatial.tile<16x64xf16>
  spatial.semaphore @full_in on @s0 init 0
  spatial.semaphore @empty_in on @s0 init 2
  spatial.semaphore @full_out on @s0 init 0
  spatial.semaphore @empty_out on @s0 init 1
  // expected-error @+1 {{spatial-verify: program @huge takes 40000032 choreography steps, more than 10000000 (too large to simulate); (@s0, "load") alone takes 40000000}}
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 10000000 {
      spatial.wait @empty_in >= 1
      spatial.load_step @ldx [%k]
      spatial.load_step @ldy [%k]
      spatial.signal @full_in += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_in >= 1
      spatial.wait @empty_out >= 1
      spatial.compute_step @add
      spatial.signal @empty_in += 1
      spatial.signal @full_out += 1
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_out >= 1
      spatial.store_step @st [%k]
      spatial.signal @empty_out += 1
    }
  }
}
