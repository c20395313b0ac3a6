// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per rule of the dialect's extensions (docs/spatial.md): scalars,
// local buffers, tile origins, index arguments of compute bodies, multicast
// delivery.

spatial.program @p attributes {spatial.phase = "tiled"} {
  // expected-error @+1 {{scalar @K is of type index, but its value 3 : i32 is not}}
  "spatial.scalar"() <{sym_name = "K", type = index, value = 3 : i32}> : () -> ()
}

// -----
spatial.program @p attributes {spatial.phase = "tiled"} {
  // expected-error @+1 {{scalar @m: a scalar has an index, integer or float type, got memref<4xf32>}}
  "spatial.scalar"() <{sym_name = "m", type = memref<4xf32>, value = 3 : i32}> : () -> ()
}

// -----
spatial.program @p attributes {spatial.phase = "tiled"} {
  // expected-error @+1 {{scalar @eps: the value must be finite, got inf}}
  "spatial.scalar"() <{sym_name = "eps", type = f32, value = 0x7F800000 : f32}> : () -> ()
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.site @s0 at [0] engines ["compute"]
  // expected-error @+1 {{buffer @acc is local (one engine's variable, overwritten in place): its depth is 1, got 2}}
  spatial.buffer @acc on @s0 : !spatial.tile<16x64xf32> depth 2 local
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf32>
  spatial.site @s0 at [0] engines ["load", "compute"]
  // expected-error @+1 {{buffer @acc is local (one engine's variable), but stage @ld runs on engine "load" of site @s0 and stage @cp on engine "compute" of site @s0: every stage reading or writing a local runs on one engine}}
  spatial.buffer @acc on @s0 : !spatial.tile<16x64xf32> depth 1 local
  spatial.buffer @out on @s0 : !spatial.tile<16x64xf32> depth 1
  spatial.stage @ld load @x -> @acc on @s0 engine "load"
  spatial.stage @cp compute(@acc) -> @out on @s0 engine "compute"
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.site @s0 at [0] engines ["compute"]
  spatial.buffer @acc on @s0 : !spatial.tile<16x64xf32> depth 1 local
  spatial.buffer @out on @s0 : !spatial.tile<16x64xf32> depth 1
  spatial.stage @init compute() -> @acc on @s0 engine "compute"
  spatial.stage @use compute(@acc) -> @out on @s0 engine "compute"
  // expected-error @+1 {{edge @e goes via local buffer @acc: an edge joins two engines through a FIFO buffer, a local is one engine's variable}}
  spatial.edge @e from @init to @use via @acc : !spatial.tile<16x64xf32>
}

// -----
// Two locals of one engine may share bytes; a FIFO buffer may not share them with a local.
spatial.program @p attributes {spatial.phase = "sized"} {
  spatial.site @s0 at [0] engines ["compute"]
  spatial.buffer @a on @s0 : !spatial.tile<16x64xf32> depth 1 local offset 0
  spatial.buffer @b on @s0 : !spatial.tile<16x64xf32> depth 1 local offset 0
  // expected-error @+1 {{buffer @f at LX bytes [0, 4096) overlaps buffer @a at [0, 4096) on site @s0}}
  spatial.buffer @f on @s0 : !spatial.tile<16x64xf32> depth 1 offset 0
  spatial.stage @ca compute() -> @a on @s0 engine "compute"
  spatial.stage @cb compute(@a) -> @b on @s0 engine "compute"
}

// -----
// Locals of two different engines do not share bytes.
spatial.program @p attributes {spatial.phase = "sized"} {
  spatial.site @s0 at [0] engines ["compute", "store"]
  spatial.buffer @a on @s0 : !spatial.tile<16x64xf32> depth 1 local offset 0
  // expected-error @+1 {{buffer @b at LX bytes [2048, 6144) overlaps buffer @a at [0, 4096) on site @s0}}
  spatial.buffer @b on @s0 : !spatial.tile<16x64xf32> depth 1 local offset 2048
  spatial.stage @ca compute() -> @a on @s0 engine "compute"
  spatial.stage @cb compute() -> @b on @s0 engine "store"
}

// -----
// Before placement: the FIFO buffers of a site and its largest local must fit.
spatial.program @p attributes {spatial.phase = "placed", lx_bytes = 8192} {
  spatial.site @s0 at [0] engines ["compute"]
  spatial.buffer @f on @s0 : !spatial.tile<16x64xf32> depth 1
  spatial.buffer @small on @s0 : !spatial.tile<16xf32> depth 1 local
  // expected-error @+1 {{the buffers of site @s0 need 12288 bytes of LX (@f: 1 x 4096, @big: 1 x 8192), more than its 8192 bytes}}
  spatial.buffer @big on @s0 : !spatial.tile<32x64xf32> depth 1 local
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.site @s0 at [0] engines ["compute"]
  spatial.buffer @a on @s0 : !spatial.tile<16x64xf32> depth 1
  // expected-error @+1 {{stage @cp: only a load or store stage has a tile origin, this is a compute stage}}
  spatial.stage @cp compute() -> @a on @s0 engine "compute" origin affine_map<(d0) -> (d0, 0)>
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf32>
  spatial.site @s0 at [0] engines ["load"]
  spatial.buffer @b on @s0 : !spatial.tile<16x64xf32> depth 1
  // expected-error @+1 {{stage @ld: the origin (d0)[s0] -> (d0, s0) takes symbols; it is a map of the step's indices only}}
  spatial.stage @ld load @x -> @b on @s0 engine "load" origin affine_map<(d0)[s0] -> (d0, s0)>
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf32>
  spatial.site @s0 at [0] engines ["load"]
  spatial.buffer @b on @s0 : !spatial.tile<16x64xf32> depth 1
  // expected-error @+1 {{stage @ld: the origin (d0) -> (d0 * 16) gives 1 coordinate(s), tensor @x has rank 2: one per tensor dim}}
  spatial.stage @ld load @x -> @b on @s0 engine "load" origin affine_map<(d0) -> (d0 * 16)>
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.tensor @x : memref<64x64xf32>
  spatial.site @s0 at [0] engines ["load"]
  spatial.buffer @b on @s0 : !spatial.tile<1024xf32> depth 1
  // expected-error @+1 {{stage @ld: with an origin, the tile has the tensor's rank: !spatial.tile<1024xf32> (buffer @b) has rank 1, tensor @x rank 2}}
  spatial.stage @ld load @x -> @b on @s0 engine "load" origin affine_map<(d0) -> (d0 * 16, 0)>
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.tensor @x : memref<64x64xf32>
  spatial.site @s0 at [0] engines ["load"]
  spatial.buffer @b on @s0 : !spatial.tile<16x64xf32> depth 1 offset 0
  spatial.stage @ld load @x -> @b on @s0 engine "load" origin affine_map<(d0, d1) -> (d0 * 16, d1)>
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      // expected-error @+1 {{load_step @ld: the origin of stage @ld is a map of 2 index(es) ((d0, d1) -> (d0 * 16, d1)), the step gives 1}}
      spatial.load_step @ld [%k]
    }
  }
}

// -----
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.site @s0 at [0] engines ["compute"]
  spatial.buffer @a on @s0 : !spatial.tile<16x64xf32> depth 1
  spatial.buffer @b on @s0 : !spatial.tile<16x64xf32> depth 1
  // expected-error @+1 {{stage @cp: the body takes one tile per input buffer (tensor<16x64xf32>), then index arguments only, got (tensor<16x64xf32>, index, i32)}}
  spatial.stage @cp compute(@a) -> @b on @s0 engine "compute" {
  ^bb0(%t: tensor<16x64xf32>, %j: index, %n: i32):
    spatial.yield %t : tensor<16x64xf32>
  }
}

// -----
spatial.program @p attributes {spatial.phase = "synthesized"} {
  spatial.site @s0 at [0] engines ["compute"]
  spatial.buffer @a on @s0 : !spatial.tile<16x64xf32> depth 1 local offset 0
  spatial.stage @cp compute(@a) -> @a on @s0 engine "compute" {
  ^bb0(%t: tensor<16x64xf32>, %i: index, %j: index):
    spatial.yield %t : tensor<16x64xf32>
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 4 {
      // expected-error @+1 {{compute_step @cp: the body of stage @cp takes 2 index argument(s) after its tiles, the step gives 1 index(es)}}
      spatial.compute_step @cp [%k]
    }
  }
}

// -----
spatial.program @p attributes {spatial.phase = "fused"} {
  spatial.tensor @x : memref<64x64xf32>
  spatial.site @s0 at [0] engines ["load"]
  spatial.site @s1 at [1] engines ["load"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf32> depth 1
  spatial.stage @ld load @x -> @b0 on @s0 engine "load"
  // expected-error @+1 {{multicast group @g: reader @ld is on site @s0, one of its targets: the reader keeps each tile in its own output buffer, the targets are the other sites}}
  spatial.multicast @g reader @ld to [@s0, @s1]
}

// -----
spatial.program @p attributes {spatial.phase = "fused"} {
  spatial.tensor @x : memref<64x64xf32>
  spatial.site @s0 at [0] engines ["load"]
  spatial.site @s1 at [1] engines ["load"]
  spatial.site @s2 at [2] engines ["load"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf32> depth 1
  spatial.buffer @b1 on @s1 : !spatial.tile<16x64xf32> depth 1
  spatial.stage @ld load @x -> @b0 on @s0 engine "load"
  // expected-error @+1 {{multicast group @g: target site @s2 has no receive stage of the group: each target site takes the tiles with exactly one 'receive' stage}}
  spatial.multicast @g reader @ld to [@s1, @s2]
  spatial.stage @rv1 receive @g -> @b1 on @s1 engine "load"
}

// -----
spatial.program @p attributes {spatial.phase = "fused"} {
  spatial.tensor @x : memref<64x64xf32>
  spatial.site @s0 at [0] engines ["load"]
  spatial.site @s1 at [1] engines ["load"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf32> depth 1
  spatial.buffer @b1 on @s1 : !spatial.tile<16x64xf32> depth 1
  spatial.buffer @c1 on @s1 : !spatial.tile<16x64xf32> depth 1
  spatial.stage @ld load @x -> @b0 on @s0 engine "load"
  // expected-error @+1 {{multicast group @g: target site @s1 has 2 receive stages (@rv1, @rv1b) of the group}}
  spatial.multicast @g reader @ld to [@s1]
  spatial.stage @rv1 receive @g -> @b1 on @s1 engine "load"
  spatial.stage @rv1b receive @g -> @c1 on @s1 engine "load"
}

// -----
spatial.program @p attributes {spatial.phase = "fused"} {
  spatial.tensor @x : memref<64x64xf32>
  spatial.site @s0 at [0] engines ["load"]
  spatial.site @s1 at [1] engines ["load"]
  spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf32> depth 1
  spatial.buffer @b1 on @s1 : !spatial.tile<32x64xf32> depth 1
  spatial.stage @ld load @x -> @b0 on @s0 engine "load"
  spatial.multicast @g reader @ld to [@s1]
  // expected-error @+1 {{stage @rv1 receives !spatial.tile<16x64xf32> tiles from group @g (reader @ld writes buffer @b0), but its buffer @b1 holds !spatial.tile<32x64xf32>}}
  spatial.stage @rv1 receive @g -> @b1 on @s1 engine "load"
}
