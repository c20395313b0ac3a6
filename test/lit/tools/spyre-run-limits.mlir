// Limits of spyre-run: --timeout names the loop that was running, --memory-limit
// refuses allocations before they are made, a tile id without a grid warns.

// A loop that never ends stops at the timeout, at the loop.
// RUN: not %spyre-run %s --func spin --arg n=0 --timeout 0.2 2>&1 | %FileCheck %s --check-prefix=TIMEOUT
// TIMEOUT: spyre-run-limits.mlir:[[# @LINE + 54]]:3: error: execution exceeded the 0.2 s timeout in this loop
// TIMEOUT-NEXT: %r = scf.while
// TIMEOUT-NOT: Traceback

// A huge random: argument is refused before it is drawn.
// RUN: not %spyre-run %s --func no_grid --arg out=random:100000x100000xi32 --memory-limit 8GiB 2>&1 | %FileCheck %s --check-prefix=RANDOM
// RANDOM: spyre-run: error: 'random:100000x100000xi32' would allocate 111.8 GiB, over the 8 GiB memory limit (--memory-limit)

// A huge grid is refused before its cores are made.
// RUN: not %spyre-run %s --func no_grid --arg out=zeros:1xi32 --grid 100000x100000 --memory-limit 1GiB 2>&1 | %FileCheck %s --check-prefix=GRID
// GRID: spyre-run-limits.mlir:[[# @LINE + 28]]:1: error: the grid [100000, 100000] of 10000000000 cores would allocate 2.3 TiB for its cores alone, over the 1 GiB memory limit

// A huge tensor is refused when its op runs.
// RUN: not %spyre-run %s --func huge 2>&1 | %FileCheck %s --check-prefix=HUGE
// HUGE: spyre-run-limits.mlir:[[# @LINE + 56]]:3: error: 'tensor.empty' would allocate 37.3 GiB for its result tensor<100000x100000xf32>, over the

// The tile id without a grid: a warning on stderr, the run goes on (core 0 only).
// RUN: %spyre-run %s --func no_grid --arg out=zeros:1xi32 --print-outputs 2>&1 | %FileCheck %s --check-prefix=WARN
// WARN: spyre-run-limits.mlir:[[# @LINE + 21]]:3: warning: @no_grid reads the tile id but has no 'grid' attribute (and no grid was given): it runs on a single core, core 0
// WARN-NEXT: %id = ktdp.get_compute_tile_id
// WARN: out: 1 int32
// WARN-NEXT: [0]

// --grid: no warning; the last core writes last.
// RUN: %spyre-run %s --func no_grid --arg out=zeros:1xi32 --grid 4 --print-outputs 2>&1 | %FileCheck %s --check-prefix=GRID4
// GRID4-NOT: warning
// GRID4: [3]

// Bad values.
// RUN: not %spyre-run %s --func spin --arg n=0 --timeout never 2>&1 | %FileCheck %s --check-prefix=BADT
// BADT: spyre-run: error: bad timeout 'never'
// RUN: not %spyre-run %s --func spin --arg n=0 --memory-limit 2parsecs 2>&1 | %FileCheck %s --check-prefix=BADM
// BADM: spyre-run: error: bad size '2parsecs'

// Deep recursion: a located error at the documented limit.
// RUN: not %spyre-run %s --func forever --arg n=1 2>&1 | %FileCheck %s --check-prefix=DEPTH
// DEPTH: spyre-run-limits.mlir:[[# @LINE + 29]]:3: error: call depth exceeds 1000 nested calls (unbounded recursion into @forever?)

func.func @no_grid(%out: index) {
  %id = ktdp.get_compute_tile_id : index
  %id32 = arith.index_cast %id : index to i32
  %t = tensor.splat %id32 : tensor<1xi32>
  %view = ktdp.construct_memory_view %out, sizes: [1], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 == 0)>, memory_space = #ktdp.memory_space<global>} : memref<1xi32>
  %c0 = arith.constant 0 : index
  %tile = ktdp.construct_access_tile %view[%c0] {
    access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<1xi32> -> !ktdp.access_tile<1xindex>
  ktdp.store %t, %tile : tensor<1xi32>, !ktdp.access_tile<1xindex>
  return
}

func.func @spin(%n: index) -> index {
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %r = scf.while (%i = %n) : (index) -> index {
    scf.condition(%true) %i : index
  } do {
  ^bb0(%j: index):
    %k = arith.addi %j, %c1 : index
    scf.yield %k : index
  }
  return %r : index
}

func.func @forever(%n: index) -> index {
  %r = func.call @forever(%n) : (index) -> index
  return %r : index
}

func.func @huge() -> tensor<100000x100000xf32> {
  %e = tensor.empty() : tensor<100000x100000xf32>
  return %e : tensor<100000x100000xf32>
}
