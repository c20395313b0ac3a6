// spyre-opt's command line: inputs without operations, flag values, -o,
// --version, --help, --list-passes.

// An empty input, one with only comments and empty `// -----` chunks are
// empty modules (exit 0), as in mlir-opt.
// RUN: %spyre-opt %S/Inputs/empty.mlir | %FileCheck %s --check-prefix=EMPTY
// RUN: %spyre-opt %S/Inputs/only-comments.mlir | %FileCheck %s --check-prefix=EMPTY
// RUN: %spyre-opt %S/Inputs/only-comments.mlir --split-input-file --verify-diagnostics | %FileCheck %s --check-prefix=EMPTY
// EMPTY: {{^}}module {
// EMPTY-NEXT: {{^}}}
// EMPTY-NOT: {{.}}
// RUN: %spyre-opt %S/Inputs/empty-chunks.mlir --split-input-file | %FileCheck %s --check-prefix=CHUNKS
// CHUNKS: {{^}}module {
// CHUNKS-NEXT: {{^}}}
// CHUNKS-NEXT: {{^}}// -----
// CHUNKS-NEXT: {{^}}module {
// CHUNKS-NEXT: {{^}}}
// CHUNKS-NEXT: {{^}}// -----
// CHUNKS-NEXT: {{^}}module {
// CHUNKS-NEXT: {{^}}}
// CHUNKS-NOT: {{.}}

// Empty flag values are errors with a clear message, not "no passes".
// RUN: not %spyre-opt %s -p '' 2>&1 | %FileCheck %s --check-prefix=NOPASSES
// NOPASSES: spyre-opt: error: argument -p/--passes: empty value; -p/--passes needs a pass list
// RUN: not %spyre-opt %s --pipeline= 2>&1 | %FileCheck %s --check-prefix=NOPIPE
// NOPIPE: spyre-opt: error: argument --pipeline: empty value; --pipeline needs a pipeline name
// RUN: not %spyre-opt %s -o '' 2>&1 | %FileCheck %s --check-prefix=NOOUT
// NOOUT: spyre-opt: error: argument -o/--output-file: empty value; -o/--output-file needs an output file name

// -o on a failing run leaves no file, not even the output of the chunks that succeeded.
// RUN: rm -f %t.out
// RUN: not %spyre-opt %S/Inputs/wrong-expectations.mlir --split-input-file -o %t.out
// RUN: not cat %t.out
// RUN: %spyre-opt %s -o %t.out
// RUN: %FileCheck %s --check-prefix=OUT < %t.out
// OUT: func.func @f

// RUN: %spyre-opt --version | %FileCheck %s --check-prefix=VERSION
// VERSION: {{^}}spyre-opt (spyre-mlir) {{[0-9]+\.[0-9]+\.[0-9]+}}

// --help explains --verify-diagnostics and offers no xDSL option spyre-opt ignores.
// RUN: %spyre-opt --help | %FileCheck %s --check-prefix=HELP
// HELP: -p and --pipeline take options as MLIR writes them: NAME{opt=v opt2=v2}
// HELP: usage error (exit 2)
// HELP: --verify-diagnostics
// HELP: expected-error {{[{][{]}}text{{[}][}]}}
// HELP: expected-note @unknown
// HELP: expected-remark-re
// HELP: only-expected
// HELP: --target FILE compiles for the target described in FILE
// RUN: %spyre-opt --help | %FileCheck %s --check-prefix=HIDDEN
// (--target is ours: a target file; xDSL's output target takes a choice in braces.)
// HIDDEN-NOT: --target {{[{]}}
// HIDDEN-NOT: --frontend
// HIDDEN-NOT: --shrink
// HIDDEN-NOT: --parsing-diagnostics
// HIDDEN-NOT: --print-between-passes
// HIDDEN-NOT: --syntax-highlight
// HIDDEN-NOT: --print-no-properties
// HIDDEN-NOT: --no-implicit-module
// HIDDEN-NOT: Available passes

// --list-passes: ours first, then the admitted upstream passes, each with a
// summary and, below it, one line per option: name=<type>, default, help.
// RUN: %spyre-opt --list-passes | %FileCheck %s --check-prefix=LIST
// LIST: {{^}}Passes of spyre-mlir:
// LIST-NEXT: {{^}}  ktdf-build-pipelines {{ +}}Turn {{.+}}
// LIST:      {{^}}  ktdp-check-inter-tile {{ +}}Check {{.+}}
// LIST:      {{^}}  ktdp-extract-compute-groups {{ +}}Outline {{.+}}
// LIST:      {{^}}  ktdp-hbm-roundtrip {{ +}}Route {{.+}}
// LIST-NEXT: {{^}}      chain-in-lx=<bool> {{ +}}default false{{$}}
// LIST:      {{^}}  ktdp-normalize-memory-space {{ +}}Rewrite {{.+}}
// LIST:      {{^}}  spatial-tile {{ +}}Lower {{.+}}
// LIST-NEXT: {{^}}      scalars=<string> {{ +}}default ""; Values of the kernel's scalar arguments {{.+}}
// LIST-NEXT: {{^}}      grid=<int,...> {{ +}}default (empty); The grid to lower for {{.+}}
// LIST:      {{^}}  spatial-place {{ +}}Pin {{.+}}
// LIST:      {{^}}  spatial-fuse-readers {{ +}}Make {{.+}}
// LIST-NEXT: {{^}}      multicast=<bool> {{ +}}default true; {{.+}}
// LIST:      {{^}}  spatial-size-buffers {{ +}}Set {{.+}}
// LIST-NEXT: {{^}}      depth=<int> {{ +}}default 2; Slots of a FIFO buffer {{.+}}
// LIST-NEXT: {{^}}      lx-bytes=<int> {{ +}}default 0; {{.+}}
// LIST:      {{^}}  spatial-synthesize-handshakes {{ +}}Wrap {{.+}}
// LIST:      {{^}}  spatial-verify {{ +}}Simulate {{.+}}
// LIST:      {{^}}  spyre-coarse-tile {{ +}}Divide {{.+}}
// LIST-NEXT: {{^}}      slices=<int> {{ +}}default unset
// LIST-NEXT: {{^}}      lx-bytes=<int> {{ +}}default unset; {{.+}}the target{{.+}}
// LIST-NEXT: {{^}}      auto-tile=<bool> {{ +}}default false
// LIST:      {{^}}  spyre-distribute-work {{ +}}Record {{.+}}
// LIST-NEXT: {{^}}      cores=<int> {{ +}}default unset; {{.+}}the target{{.+}}
// LIST:      {{^}}  spyre-emit-bundle {{ +}}Write {{.+}}
// LIST-NEXT: {{^}}      out-dir=<string> {{ +}}default unset
// LIST-NEXT: {{^}}      kernel=<string> {{ +}}default unset
// LIST:      {{^}}  spyre-fold-reshapes {{ +}}Fold {{.+}}
// LIST:      {{^}}  spyre-physicalize-layouts {{ +}}Rewrite marked views {{.+}}
// LIST-NEXT: {{^}}      report-unhandled=<bool> {{ +}}default false
// LIST-NEXT: {{^}}      check-agreement=<bool> {{ +}}default true
// LIST:      {{^}}  spyre-plan-scratchpad {{ +}}Place {{.+}}
// LIST:      {{^}}  spyre-unroll-loops {{ +}}{{.+}}
// LIST-NEXT: {{^}}      max-copies=<int> {{ +}}default 4096
// LIST:      {{^}}Upstream passes (xDSL), admitted on KTIR:
// LIST-NEXT: {{^}}  canonicalize {{ +}}Applies all canonicalization patterns.
// LIST-NEXT: {{^}}  cse {{ +}}Eliminate common subexpressions
// LIST:      {{^}}  linalg-generalize-named-ops {{ +}}Converts linalg named ops to linalg.generic.
// LIST:      {{^}}  scf-parallel-loop-tiling {{ +}}Tile {{.+}}
// LIST-NEXT: {{^}}      parallel-loop-tile-sizes=<int,...> default required
// LIST:      {{^}}  expand-math-to-polynomials {{ +}}{{.+}}
// LIST-NEXT: {{^}}      terms=<int> {{ +}}default unset; Number of terms {{.+}}
// LIST: {{^}}Options: -p 'NAME{option=value option=value}'

// --list-pipelines: each pipeline's passes, purpose, and the options its passes take.
// RUN: %spyre-opt --list-pipelines | %FileCheck %s --check-prefix=PIPES
// PIPES:      {{^}}ktir-to-bundle: spyre-raise-counted-loops,{{.*}},spyre-emit-bundle
// PIPES-NEXT: {{^}}    lower a kernel to the runtime's bundle{{.*}}
// PIPES-NEXT: {{^}}    options (ktir-to-bundle{option=value ...}; each goes to the passes that take it):
// PIPES:      {{^}}      slices=<int> {{ +}}default unset; [spyre-coarse-tile]
// PIPES-NEXT: {{^}}      lx-bytes=<int> {{ +}}default unset; [spyre-coarse-tile, spyre-plan-scratchpad] {{.+}}the target{{.+}}
// PIPES:      {{^}}      cores=<int> {{ +}}default unset; [spyre-coarse-tile, spyre-distribute-work] {{.+}}the target{{.+}}
// PIPES:      {{^}}      out-dir=<string> {{ +}}default unset; [spyre-emit-bundle]
// PIPES:      {{^}}ktir-to-spatial:
// PIPES:      {{^}}      scalars=<string> {{ +}}default ""; [spatial-tile] Values of the kernel's scalar arguments {{.+}}
// PIPES:      {{^}}      lx-bytes=<int> {{ +}}default 0; [spatial-size-buffers] {{.+}}
// PIPES:      {{^}}physicalize:
// PIPES-NEXT: {{^}}    rewrite a kernel {{.+}}
// PIPES-NEXT: {{^}}    options (physicalize{option=value ...}; each goes to the passes that take it):
// PIPES-NEXT: {{^}}      report-unhandled=<bool> {{ +}}default false; [spyre-physicalize-layouts]
// PIPES:      {{^}}      check-agreement=<bool> {{ +}}default true; [spyre-physicalize-layouts]
// RUN: %spyre-opt --list-passes | %FileCheck %s --check-prefix=LISTNOT
// LISTNOT-NOT: mlir-opt
// LISTNOT-NOT: apply-pdl
// LISTNOT-NOT: eqsat

// xDSL passes that run a program, read a file or print to stdout are not available.
// RUN: not %spyre-opt %s -p 'mlir-opt{executable="touch" arguments="%t.ran"}' 2>&1 | %FileCheck %s --check-prefix=EXEC
// EXEC: error: pass 'mlir-opt' is not available: xDSL has it, but spyre-mlir does not admit it
// RUN: not cat %t.ran
// RUN: not %spyre-opt %s -p 'apply-pdl{pdl_file="%s"}' 2>&1 | %FileCheck %s --check-prefix=FILE
// FILE: error: pass 'apply-pdl' is not available
// FILE-NOT: func.func
// RUN: not %spyre-opt %s -p eqsat-serialize-egraph 2>&1 | %FileCheck %s --check-prefix=STDOUT
// STDOUT: error: pass 'eqsat-serialize-egraph' is not available

func.func @f() {
  return
}
