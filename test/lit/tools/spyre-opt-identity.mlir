// spyre-opt --print-identity: the identity (sha256:<hex>) of each chunk, and
// the compile cache (--cache-dir). See docs/identity.md.

// Chunks 1 and 2 differ only in SSA names, block labels, the private
// symbol's name, locations and attribute order: one identity. Chunk 3 changes
// an attribute value, chunk 4 the public symbol's name: two other identities.
// RUN: %spyre-opt %s --split-input-file --print-identity | %FileCheck %s
// CHECK: {{^}}sha256:[[ID:[0-9a-f]+]]{{$}}
// CHECK-NEXT: {{^}}// -----
// CHECK-NEXT: {{^}}sha256:[[ID]]{{$}}
// CHECK-NEXT: {{^}}// -----
// CHECK-NEXT: {{^}}sha256:{{[0-9a-f]+$}}
// CHECK-NEXT: {{^}}// -----
// CHECK-NEXT: {{^}}sha256:{{[0-9a-f]+$}}
// CHECK-NOT: {{.}}
// RUN: %spyre-opt %s --split-input-file --print-identity -o %t.ids
// RUN: %python -c "import sys; i = [x.strip() for x in open(sys.argv[1]).read().split('// -----')]; sys.exit(not (i[0] == i[1] and len(set(i)) == 3))" %t.ids

// With a pipeline, the identity of its output: that of the printed output
// read back, another than the input's (cse merges the equal constants), and
// still one for chunks 1 and 2.
// RUN: %spyre-opt %s --split-input-file -p cse --print-identity -o %t.after
// RUN: %spyre-opt %s --split-input-file -p cse | %spyre-opt - --split-input-file --print-identity -o %t.reread
// RUN: diff %t.after %t.reread
// RUN: %python -c "import sys; a, b = ([x.strip() for x in open(f).read().split('// -----')] for f in sys.argv[1:]); sys.exit(not (b[0] == b[1] and all(x != y for x, y in zip(a, b))))" %t.ids %t.after

// Malformed input has no identity: an error, nothing on stdout.
// RUN: not %spyre-opt %S/Inputs/bad-syntax.mlir --print-identity 2>&1 | %FileCheck %s --check-prefix=BAD
// BAD: bad-syntax.mlir:{{[0-9]+}}:{{[0-9]+}}: error:
// BAD-NOT: sha256:

// The compile cache: the second run prints the same output and reads it
// from the cache (stats on stderr only).
// RUN: rm -rf %t.cache
// RUN: %spyre-opt %s --split-input-file -p cse --cache-dir %t.cache --cache-stats -o %t.first 2>&1 | %FileCheck %s --check-prefix=MISS
// RUN: %spyre-opt %s --split-input-file -p cse --cache-dir %t.cache --cache-stats -o %t.second 2>&1 | %FileCheck %s --check-prefix=HIT
// RUN: diff %t.first %t.second
// RUN: %spyre-opt %s --split-input-file -p cse -o %t.uncached
// RUN: diff %t.first %t.uncached
// MISS: spyre-opt: compile cache {{.*}}: 0 hits, 4 misses, 4 stored
// HIT: spyre-opt: compile cache {{.*}}: 4 hits, 0 misses, 0 stored
// Another pipeline is another key.
// RUN: %spyre-opt %s --split-input-file -p canonicalize --cache-dir %t.cache --cache-stats -o %t.other 2>&1 | %FileCheck %s --check-prefix=OTHER
// OTHER: spyre-opt: compile cache {{.*}}: 0 hits, 4 misses, 4 stored
// Off by default, and for a pipeline with a pass that writes files.
// RUN: %spyre-opt %s --split-input-file -p cse --cache-stats -o %t.off 2>&1 | %FileCheck %s --check-prefix=OFF
// OFF: spyre-opt: compile cache off (no --cache-dir or $SPYRE_OPT_CACHE_DIR)
// RUN: rm -rf %t.work && mkdir -p %t.work && cd %t.work
// RUN: not %spyre-opt %s --split-input-file -p 'spyre-emit-bundle{out-dir=b}' --cache-dir %t.cache --cache-stats -o %t.off 2>&1 | %FileCheck %s --check-prefix=EFFECT
// EFFECT: spyre-opt: compile cache off (pass 'spyre-emit-bundle' writes the bundle's files)

func.func private @helper(%x: index) -> index {
  %c1 = arith.constant 1 : index
  %c1_again = arith.constant 1 : index
  %s = arith.addi %x, %c1 : index
  %r = arith.addi %s, %c1_again : index
  return %r : index
}
func.func @kernel(%a: index, %flag: i1) -> index attributes {grid = [4], spyre.note = "k"} {
  %v = func.call @helper(%a) : (index) -> index
  cf.cond_br %flag, ^then(%v : index), ^else
^then(%t: index):
  return %t : index
^else:
  return %a : index
}

// -----

func.func private @renamed(%arg: index) -> index {
  %one = arith.constant 1 : index loc("elsewhere.py":10:2)
  %one_more = arith.constant 1 : index
  %sum = arith.addi %arg, %one : index
  %res = arith.addi %sum, %one_more : index loc(unknown)
  return %res : index
}
func.func @kernel(%p: index, %b: i1) -> index attributes {spyre.note = "k", grid = [4]} {
  %call = func.call @renamed(%p) : (index) -> index
  cf.cond_br %b, ^yes(%call : index), ^no
^yes(%y: index):
  return %y : index
^no:
  return %p : index
}

// -----

func.func private @helper(%x: index) -> index {
  %c1 = arith.constant 1 : index
  %c1_again = arith.constant 1 : index
  %s = arith.addi %x, %c1 : index
  %r = arith.addi %s, %c1_again : index
  return %r : index
}
func.func @kernel(%a: index, %flag: i1) -> index attributes {grid = [8], spyre.note = "k"} {
  %v = func.call @helper(%a) : (index) -> index
  cf.cond_br %flag, ^then(%v : index), ^else
^then(%t: index):
  return %t : index
^else:
  return %a : index
}

// -----

func.func private @helper(%x: index) -> index {
  %c1 = arith.constant 1 : index
  %c1_again = arith.constant 1 : index
  %s = arith.addi %x, %c1 : index
  %r = arith.addi %s, %c1_again : index
  return %r : index
}
func.func @kernel2(%a: index, %flag: i1) -> index attributes {grid = [4], spyre.note = "k"} {
  %v = func.call @helper(%a) : (index) -> index
  cf.cond_br %flag, ^then(%v : index), ^else
^then(%t: index):
  return %t : index
^else:
  return %a : index
}
