// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per structural invariant of a spatial program (docs/spatial.md).

// expected-error @+1 {{'spatial.phase' must be one of tiled, placed, fused, sized, synthesized, verified, got "lowered"}}
spatial.program @p attributes {spatial.phase = "lowered"} {
}

// -----
// expected-error @+1 {{program @p needs a 'spatial.phase' attribute}}
spatial.program @p {
}

// -----
// expected-error @+1 {{'lx_bytes' must be a positive integer (bytes of LX per site), got 0 : i64}}
spatial.program @p attributes {spatial.phase = "tiled", lx_bytes = 0} {
}

// -----
// expected-error @+1 {{program @p holds declarations only}}
spatial.program @p attributes {spatial.phase = "tiled"} {
  func.func private @f()
}

// -----
spatial.program @p attributes {spatial.phase = "tiled"} {
  // expected-error @+1 {{buffer @b0: site @s9 is not declared in program @p}}
  spatial.buffer @b0 on @s9 : !spatial.tile<16x64xf16> depth 1
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  // expected-error @+1 {{stage @ld0: site @b0 is a 'spatial.buffer', expected a 'spatial.site'}}
  spatial.stage @ld0 load @x -> @b0 on @b0 engine "load"
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load"]
  // expected-error @+1 {{stage @ld0: output @x is a 'spatial.tensor', expected a 'spatial.buffer'}}
  spatial.stage @ld0 load @x -> @x on @s0 engine "load"
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  // expected-error @+1 {{stage @ld0 runs on engine "dma", which site @s0 does not have (its engines: load, compute)}}
  spatial.stage @ld0 load @x -> @b0 on @s0 engine "dma"
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load"]
  spatial.site @s1 at [1] engines ["load"]
  spatial.buffer @b1 on @s1 : !spatial.tile<16x64xf16> depth 1
  // expected-error @+1 {{stage @ld0 on site @s0 uses buffer @b1, which is on site @s1}}
  spatial.stage @ld0 load @x -> @b1 on @s0 engine "load"
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf32>
  spatial.site @s0 at [0] engines ["load"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  // expected-error @+1 {{stage @ld0 moves tiles of f16 (buffer @b0) from tensor @x of f32}}
  spatial.stage @ld0 load @x -> @b0 on @s0 engine "load"
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  // expected-error @+1 {{stage @ld0: a load stage has one input and one output, got 2 and 1}}
  spatial.stage @ld0 load(@x, @x) -> @b0 on @s0 engine "load"
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  // expected-error @+1 {{stage @ld0: only a compute stage has a body, this is a load stage}}
  spatial.stage @ld0 load @x -> @b0 on @s0 engine "load" {
    spatial.yield
  }
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.site @s0 at [0] engines ["compute"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.buffer @b1 on @s0 : !spatial.tile<16x64xf16> depth 1
  // expected-error @+1 {{stage @cp0: the body takes one tile per input buffer (tensor<16x64xf16>), then index arguments only, got (tensor<16x64xf32>)}}
  spatial.stage @cp0 compute(@b0) -> @b1 on @s0 engine "compute" {
  ^bb0(%a: tensor<16x64xf32>):
    %c = arith.truncf %a : tensor<16x64xf32> to tensor<16x64xf16>
    spatial.yield %c : tensor<16x64xf16>
  }
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.site @s0 at [0] engines ["compute"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.buffer @b1 on @s0 : !spatial.tile<16x64xf16> depth 1
  // expected-error @+1 {{stage @cp0: the body yields one tile per output buffer (tensor<16x64xf16>), got (none)}}
  spatial.stage @cp0 compute(@b0) -> @b1 on @s0 engine "compute" {
  ^bb0(%a: tensor<16x64xf16>):
    spatial.yield
  }
}

// -----
spatial.program @p attributes {spatial.phase = "tiled"} {
  spatial.site @s0 at [0] engines ["load"]
  // expected-error @+1 {{buffer @b0: depth must be at least 1, got 0}}
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 0
}

// -----
spatial.program @p attributes {spatial.phase = "sized"} {
  spatial.site @s0 at [0] engines ["load"]
  // expected-error @+1 {{buffer @b0 occupies LX bytes [2095104, 2099200) (2 x 2048 bytes from offset 2095104), past the 2097152 bytes of LX of site @s0}}
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 2 offset 2095104
}

// -----
// An `lx_bytes` attribute on the program overrides the 2 MiB default.
spatial.program @p attributes {spatial.phase = "sized", lx_bytes = 4096} {
  spatial.site @s0 at [0] engines ["load"]
  // expected-error @+1 {{buffer @b0 occupies LX bytes [1024, 5120) (2 x 2048 bytes from offset 1024), past the 4096 bytes of LX of site @s0}}
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 2 offset 1024
}

// -----
// Before sizing (no offsets), the sum of the buffers of each site fits the LX budget.
spatial.program @p attributes {spatial.phase = "fused", lx_bytes = 6144} {
  spatial.site @s0 at [0] engines ["load"]
  spatial.site @s1 at [1] engines ["load"]
  spatial.buffer @a on @s0 : !spatial.tile<16x64xf16> depth 2
  spatial.buffer @other on @s1 : !spatial.tile<16x64xf16> depth 3
  // expected-error @+1 {{the buffers of site @s0 need 8192 bytes of LX (@a: 2 x 2048, @b: 2 x 2048), more than its 6144 bytes}}
  spatial.buffer @b on @s0 : !spatial.tile<16x64xf16> depth 2
}

// -----
spatial.program @p attributes {spatial.phase = "sized"} {
  spatial.site @s0 at [0] engines ["load"]
  spatial.site @s1 at [1] engines ["load"]
  spatial.buffer @a on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
  spatial.buffer @c on @s1 : !spatial.tile<16x64xf16> depth 2 offset 2048
  // expected-error @+1 {{buffer @b at LX bytes [2048, 4096) overlaps buffer @a at [0, 4096) on site @s0}}
  spatial.buffer @b on @s0 : !spatial.tile<16x64xf16> depth 1 offset 2048
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.buffer @b1 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.stage @ld0 load @x -> @b0 on @s0 engine "load"
  spatial.stage @cp0 compute(@b0) -> @b1 on @s0 engine "compute"
  // expected-error @+1 {{edge @e0 carries !spatial.tile<16x32xf16> but its buffer @b0 holds !spatial.tile<16x64xf16>}}
  spatial.edge @e0 from @ld0 to @cp0 via @b0 : !spatial.tile<16x32xf16>
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.buffer @b1 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.stage @ld0 load @x -> @b0 on @s0 engine "load"
  spatial.stage @cp0 compute(@b0) -> @b1 on @s0 engine "compute"
  // expected-error @+1 {{edge @e0 is from stage @ld0, which does not write its buffer @b1}}
  spatial.edge @e0 from @ld0 to @cp0 via @b1 : !spatial.tile<16x64xf16>
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.tensor @z : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "store"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.buffer @b1 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.stage @ld0 load @x -> @b0 on @s0 engine "load"
  spatial.stage @st0 store @b1 -> @z on @s0 engine "store"
  // expected-error @+1 {{edge @e0 is to stage @st0, which does not read its buffer @b0}}
  spatial.edge @e0 from @ld0 to @st0 via @b0 : !spatial.tile<16x64xf16>
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.stage @ld0 load @x -> @b0 on @s0 engine "load"
  // expected-error @+1 {{edge @e0 joins stage @ld0 to itself: an edge joins two stages}}
  spatial.edge @e0 from @ld0 to @ld0 via @b0 : !spatial.tile<16x64xf16>
}

// -----
spatial.program @p attributes {spatial.phase = "fused"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.stage @ld0 load @x -> @b0 on @s0 engine "load"
  // expected-error @+1 {{multicast group @g0: target @b0 is a 'spatial.buffer', expected a 'spatial.site'}}
  spatial.multicast @g0 reader @ld0 to [@s0, @b0]
}

// -----
spatial.program @p attributes {spatial.phase = "fused"} {
  spatial.tensor @z : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["store"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.stage @st0 store @b0 -> @z on @s0 engine "store"
  // expected-error @+1 {{multicast group @g0: reader @st0 is a store stage, expected a load stage}}
  spatial.multicast @g0 reader @st0 to [@s0]
}

// -----
spatial.program @p attributes {spatial.phase = "fused"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load"]
  spatial.site @s1 at [1] engines ["load"]
  spatial.site @s2 at [2] engines ["load"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.buffer @b1 on @s1 : !spatial.tile<16x64xf16> depth 1
  spatial.buffer @b2 on @s2 : !spatial.tile<16x64xf16> depth 1
  spatial.stage @ld0 load @x -> @b0 on @s0 engine "load"
  spatial.multicast @g0 reader @ld0 to [@s1]
  spatial.stage @rv1 receive @g0 -> @b1 on @s1 engine "load"
  // expected-error @+1 {{stage @rv2 on site @s2 receives group @g0, which does not reach that site (its targets: @s1)}}
  spatial.stage @rv2 receive @g0 -> @b2 on @s2 engine "load"
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.site @s0 at [0, 1] engines ["load"]
  // expected-error @+1 {{site @s1 is at [0, 1], where site @s0 is already: one site per coordinate}}
  spatial.site @s1 at [0, 1] engines ["load"]
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.site @s0 at [0] engines ["load"]
  // expected-error @+1 {{engine "compute" of site @s0: site @s0 has no engine "compute" (its engines: load)}}
  spatial.engine @s0 "compute" {
  }
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.site @s0 at [0] engines ["load"]
  spatial.engine @s0 "load" {
  }
  // expected-error @+1 {{engine "load" of site @s0 has two choreographies: one 'spatial.engine' per (site, engine)}}
  spatial.engine @s0 "load" {
  }
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.site @s0 at [0] engines ["load"]
  spatial.semaphore @full on @s0 init 0
  spatial.engine @s0 "load" {
    // expected-error @+1 {{wait on @full: no engine signals semaphore @full, so the wait never ends}}
    spatial.wait @full >= 1
  }
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.site @s0 at [0] engines ["load"]
  spatial.semaphore @full on @s0 init 0
  spatial.engine @s0 "load" {
    // expected-error @+1 {{signal on @full: the count must be at least 1, got 0}}
    spatial.signal @full += 0
  }
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.site @s0 at [0] engines ["load"]
  spatial.semaphore @full on @s0 init 0
  spatial.engine @s0 "load" {
    // expected-error @+1 {{loop bounds must satisfy 0 <= lower <= upper, got 4 to 2}}
    spatial.loop %k = 4 to 2 {
      spatial.signal @full += 1
    }
  }
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.stage @ld0 load @x -> @b0 on @s0 engine "load"
  spatial.engine @s0 "compute" {
    // expected-error @+1 {{load_step @ld0: stage @ld0 runs on engine "load" of site @s0, not on this engine "compute" of site @s0}}
    spatial.load_step @ld0
  }
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.stage @ld0 load @x -> @b0 on @s0 engine "load"
  spatial.engine @s0 "load" {
    // expected-error @+1 {{store_step @ld0: stage @ld0 is a load stage, expected a store stage}}
    spatial.store_step @ld0
  }
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.site @s0 at [0] engines ["load"]
  // expected-error @+1 {{engine "load" of site @s0 holds choreography ops only}}
  spatial.engine @s0 "load" {
    %c = arith.constant 0 : index
  }
}

// -----
// Trips: a loop count read from data, with an admitted range.
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.tensor @n : memref<4xi32>
  // expected-error @+1 {{trip @t: per must be positive, got 0}}
  spatial.trip @t from @n[0] per 0 bias 0 admit [0, 8]
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.tensor @n : memref<4xi32>
  // expected-error @+1 {{trip @t: the admitted range [9, 8] is empty (LO > HI)}}
  spatial.trip @t from @n[0] per 1 bias 0 admit [9, 8]
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.tensor @n : memref<2x2xi32>
  // expected-error @+1 {{trip @t: element 4 is outside tensor @n (4 element(s), flat indices 0 to 3)}}
  spatial.trip @t from @n[4] per 1 bias 0 admit [0, 8]
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.tensor @n : memref<4xf32>
  // expected-error @+1 {{trip @t: tensor @n must have integer elements (a count is read from it), got memref<4xf32>}}
  spatial.trip @t from @n[0] per 1 bias 0 admit [0, 8]
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.site @s0 at [0] engines ["load"]
  // expected-error @+1 {{trip @t: tensor @s0 is a 'spatial.site', expected a 'spatial.tensor'}}
  spatial.trip @t from @s0[0] per 1 bias 0 admit [0, 8]
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.tensor @n : memref<4xi32>
  // expected-error @+1 {{trip @t: admit takes two values [LO, HI], got [0, 1, 2]}}
  spatial.trip @t from @n[0] per 1 bias 0 admit [0, 1, 2]
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.site @s0 at [0] engines ["load"]
  spatial.engine @s0 "load" {
    // expected-error @+1 {{loop: trip @s0 is a 'spatial.site', expected a 'spatial.trip'}}
    spatial.loop %k = 0 to trip(@s0) {
    }
  }
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.site @s0 at [0] engines ["load"]
  spatial.engine @s0 "load" {
    // expected-error @+1 {{loop: trip @t is not declared in program @p}}
    spatial.loop %k = 0 to trip(@t) {
    }
  }
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.tensor @n : memref<4xi32>
  spatial.trip @t from @n[0] per 1 bias 0 admit [0, 8]
  spatial.site @s0 at [0] engines ["load"]
  spatial.engine @s0 "load" {
    // expected-error @+1 {{a loop's upper bound is either a static count or a trip, exactly one of them}}
    "spatial.loop"() <{lower = 0 : i64, upper = 4 : i64, trip = @t}> ({
    ^bb0(%k: index):
    }) : () -> ()
  }
}
