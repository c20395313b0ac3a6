// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per verifier rule of spyre_loop.loop (seed 000's invariants that
// the region form does not already give).

func.func @zero() {
  // expected-error @+1 {{count must be positive, got 0}}
  spyre_loop.loop count(0) tiled_dims [0] tile_sizes [4] {
  ^bb0(%k: index):
  }
  return
}

// -----
func.func @sizes() {
  // expected-error @+1 {{2 tiled dims but 1 tile sizes}}
  spyre_loop.loop count(2) tiled_dims [0, 1] tile_sizes [4] {
  ^bb0(%k: index):
  }
  return
}

// -----
func.func @repeated() {
  // expected-error @+1 {{tiled_dims must be distinct non-negative dims, got [1, 1]}}
  spyre_loop.loop count(2) tiled_dims [1, 1] tile_sizes [4, 4] {
  ^bb0(%k: index):
  }
  return
}

// -----
func.func @nonpositive_tile() {
  // expected-error @+1 {{tile sizes must be positive, got [0]}}
  spyre_loop.loop count(2) tiled_dims [0] tile_sizes [0] {
  ^bb0(%k: index):
  }
  return
}

// -----
func.func @tiled_twice() {
  spyre_loop.loop count(2) tiled_dims [0] tile_sizes [4] {
  ^bb0(%k: index):
    // expected-error @+1 {{tiles dim 0 into 2 tiles of 3, which do not cover the enclosing loop's tile of 4}}
    spyre_loop.loop count(2) tiled_dims [0] tile_sizes [3] {
    ^bb1(%j: index):
    }
  }
  return
}

// -----
func.func @no_dims() {
  // expected-error @+1 {{tiles no dim: tiled_dims is empty}}
  spyre_loop.loop count(2) tiled_dims [] tile_sizes [] {
  ^bb0(%k: index):
  }
  return
}

// -----
func.func @two_args() {
  // expected-error @+1 {{the body takes one index argument, the tile number}}
  spyre_loop.loop count(2) tiled_dims [0] tile_sizes [2] {
  ^bb0(%k: index, %j: index):
  }
  return
}
