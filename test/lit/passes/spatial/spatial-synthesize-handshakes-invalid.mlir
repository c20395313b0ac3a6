// RUN: %spyre-opt %s --split-input-file -p spatial-synthesize-handshakes --verify-diagnostics

// spatial-synthesize-handshakes refuses a program in another phase than "sized".

// expected-error @+1 {{spatial-synthesize-handshakes needs a program in phase sized, got fused (program @unsized); run spatial-size-buffers first}}
spatial.program @unsized attributes {spatial.phase = "fused", grid = [1]} {
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
}

// -----

// expected-error @+1 {{spatial-synthesize-handshakes needs a program in phase sized, got synthesized (program @twice); the program is past this phase}}
spatial.program @twice attributes {spatial.phase = "synthesized", grid = [1]} {
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
}

// -----

// A sized program whose choreography already waits and signals (hand-written
// handshakes mixed in): adding ours would count every slot twice.

spatial.program @handwritten attributes {spatial.phase = "sized", grid = [1]} {
  spatial.tensor @x : memref<25xf32>
  spatial.tensor @z : memref<25xf32>
  spatial.site @s0 at [0] engines ["load", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<25xf32> depth 1 offset 0
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @st store @bx -> @z on @s0 engine "store"
  spatial.edge @e from @ldx to @st via @bx : !spatial.tile<25xf32>
  spatial.semaphore @full on @s0 init 0
  spatial.engine @s0 "load" {
    spatial.load_step @ldx
    // expected-error @+1 {{spatial-synthesize-handshakes: the choreography of program @handwritten already has its handshakes ('spatial.signal @full'): a sized program has steps only}}
    spatial.signal @full += 1
  }
  spatial.engine @s0 "store" {
    spatial.wait @full >= 1
    spatial.store_step @st
  }
}

// -----

// A multicast tile is delivered by the reader's load step: a receive stage
// has no step of its own.

spatial.program @recv attributes {spatial.phase = "sized", grid = [2]} {
  spatial.tensor @x : memref<25xf32>
  spatial.tensor @z : memref<25xf32>
  spatial.site @s0 at [0] engines ["load", "store"]
  spatial.site @s1 at [1] engines ["load", "store"]
  spatial.buffer @b0 on @s0 : !spatial.tile<25xf32> depth 1 offset 0
  spatial.buffer @b1 on @s1 : !spatial.tile<25xf32> depth 1 offset 0
  spatial.stage @ld load @x -> @b0 on @s0 engine "load"
  spatial.stage @st0 store @b0 -> @z on @s0 engine "store"
  spatial.stage @rv receive @g -> @b1 on @s1 engine "load"
  spatial.stage @st1 store @b1 -> @z on @s1 engine "store"
  spatial.multicast @g reader @ld to [@s1]
  spatial.engine @s0 "load" {
    spatial.load_step @ld
  }
  spatial.engine @s0 "store" {
    spatial.store_step @st0
  }
  spatial.engine @s1 "load" {
    // expected-error @+1 {{spatial-synthesize-handshakes: recv_step @rv: the tiles of a multicast group are delivered by its reader's load step into every receive stage's buffer; a receive stage has no step of its own}}
    spatial.recv_step @rv
  }
  spatial.engine @s1 "store" {
    spatial.store_step @st1
  }
}

// -----

// A FIFO buffer without a producer: its consumer would wait for ever.

spatial.program @orphan attributes {spatial.phase = "sized", grid = [1]} {
  spatial.tensor @z : memref<25xf32>
  spatial.site @s0 at [0] engines ["load", "store"]
  // expected-error @+1 {{spatial-synthesize-handshakes: buffer @bx (a FIFO) has no producer stage: a FIFO buffer has exactly one stage writing it}}
  spatial.buffer @bx on @s0 : !spatial.tile<25xf32> depth 1 offset 0
  spatial.stage @st store @bx -> @z on @s0 engine "store"
  spatial.engine @s0 "store" {
    spatial.store_step @st
  }
}

// -----

// A multicast reader that is never stepped: the receive buffer it fills
// would stay empty.

spatial.program @silent_reader attributes {spatial.phase = "sized", grid = [2]} {
  spatial.tensor @x : memref<25xf32>
  spatial.tensor @z : memref<25xf32>
  spatial.site @s0 at [0] engines ["load", "store"]
  spatial.site @s1 at [1] engines ["load", "store"]
  // expected-error @+1 {{spatial-synthesize-handshakes: buffer @b1: stage @ld, which fills it (it delivers the tiles of receive stage @rv), has no step in any engine (no 'load_step @ld')}}
  spatial.buffer @b1 on @s1 : !spatial.tile<25xf32> depth 1 offset 0
  spatial.buffer @b0 on @s0 : !spatial.tile<25xf32> depth 1 offset 0
  spatial.stage @ld load @x -> @b0 on @s0 engine "load"
  spatial.stage @st0 store @b0 -> @z on @s0 engine "store"
  spatial.stage @rv receive @g -> @b1 on @s1 engine "load"
  spatial.stage @st1 store @b1 -> @z on @s1 engine "store"
  spatial.multicast @g reader @ld to [@s1]
  spatial.engine @s0 "store" {
    spatial.store_step @st0
  }
  spatial.engine @s1 "store" {
    spatial.store_step @st1
  }
}
