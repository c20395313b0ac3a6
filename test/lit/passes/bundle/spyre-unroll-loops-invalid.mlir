// RUN: %spyre-opt %s --split-input-file -p spyre-unroll-loops --verify-diagnostics

// Every refusal of spyre-unroll-loops is a located error, raised before
// anything is rewritten.

func.func @symbolic(%n: index) {
  // expected-error @+1 {{cannot unroll a loop with a symbolic count}}
  spyre_loop.loop count(%n) tiled_dims [0] tile_sizes [1] {
  ^bb0(%k: index):
    %d = arith.addi %k, %k : index
  }
  return
}

// -----

// A symbolic count nested in a static loop: refused as well.
func.func @symbolic_inner(%n: index) {
  spyre_loop.loop count(2) tiled_dims [0] tile_sizes [1] {
  ^bb0(%i: index):
    // expected-error @+1 {{cannot unroll a loop with a symbolic count}}
    spyre_loop.loop count(%n) tiled_dims [1] tile_sizes [1] {
    ^bb1(%j: index):
      %d = arith.addi %i, %j : index
    }
  }
  return
}

// -----

// 64 x 128 = 8192 copies of the inner body: more than the default limit, 4096.
func.func @too_many() {
  // expected-error @+1 {{cannot unroll: the loop of count 64 would make 8192 copies of its body (with its nested loops), more than max-copies=4096}}
  spyre_loop.loop count(64) tiled_dims [0] tile_sizes [1] {
  ^bb0(%i: index):
    spyre_loop.loop count(128) tiled_dims [1] tile_sizes [1] {
    ^bb1(%j: index):
      %d = arith.addi %i, %j : index
    }
  }
  return
}
