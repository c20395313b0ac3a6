"""A deterministic fuzzer for spyre-mlir: seeded mutations of real kernels.
It is not part of the installed package: run it from a checkout, with
`test/fuzz` on the path (from the repository root):

    export PYTHONPATH=test/fuzz
    python -m spyre_fuzz --count 3000 --seed 0 --out /tmp/fuzz-findings --json /tmp/fuzz.json
    python -m spyre_fuzz --replay /tmp/fuzz-findings/internal/001-....mlir

Seeds are the KTIR corpus (`../shared/corpus/ktir`, when present), our test
kernels (`test/unit/kernels`) and `examples/`, each whole and, for files with
several functions, each function on its own (with the aliases and callees it
needs). Input `i` of seed `S` is a function of `(S, i)` and the seed kernels
only: the same input comes back whatever `--count`, so a finding reproduces
from its number (`--show N`).

Mutations are textual, one to three per input: delete/duplicate/swap a token
or a line, move a line up or down (use before def), change an integer
literal (0, -1, near INT_MAX, huge), a float literal, an element type
(`f16` -> `f32`, ...), a tensor/memref shape, rename an SSA value (to one in
scope, a later one, an undefined one; redefine one), drop a bracket, insert
garbage bytes (invalid UTF-8 included), change an op name to a sibling op,
set an affine divisor to 0, nest regions or parentheses deeply, duplicate a
function (symbol redefinition), truncate, swap keywords, drop an attribute
entry, drop a terminator, rename a symbol.

Every input runs in a worker process (a pool of `--jobs`, each input with a
`--timeout`), through the API as a user would drive it (its bytes decoded as
UTF-8 with replacement, as `spyre-opt` reads a file):

1. `parse`: `parse_text(text)` (parse + verify the text, on a deep stack, as `spyre_mlir.parse` does);
2. `pipeline`: `PassManager.parse(PIPELINE).run(module)` (clean-up and the
   lowering to the schedule IR), then
   printing the result (as `spyre-opt` does) and reading the print back;
3. `interpret`: every function whose parameters are index / integer / float
   / small static tensors / `!ktdp.runtime_arg`, with seeded small arguments
   (an `index` parameter that is the base of a memory view gets a random
   array of the view's size, placed in HBM; others get small integers) and
   seeded interpreter options;
4. `spatial`: for each function of 3., `ktir-to-spatial` specialized for the
   plan's scalars, and the spatial program run on the same arguments: where
   the source runs, the program must run and give the same outputs
   (translation validation; a mismatch or a failing run is `internal`).

A stage does not redo what an earlier stage of the same input computed: the
text is parsed and verified once (later stages take clones of that module,
taken before the pipeline changes it in place), a module just verified is not
verified again before a pass manager or the interpreter takes it, and the
spatial stage reuses the interpret stage's run of a function when that ran
the source itself with the spatial stage's options. The verdicts are those of
doing it all again; inputs nesting thousands of regions no longer pay for it.

Each stage's outcome is one of: `accepted`; `located` (a `DiagnosticError`
with a `file:line:col`); `unlocated` (one without); `internal` (any other
exception, or a `DiagnosticError` whose message starts with "internal
error"); `hang` (the input exceeded the timeout: the worker is killed after a
Python stack dump of where it was); `crash` (the worker died). An input's
outcome is its worst stage. `internal`, `hang` and `crash` are bugs.

For inputs that use only upstream dialects (no `ktdp.` / `spyre.`), the
parse+verify verdict is compared with upstream MLIR's (`iree-opt`, without
`--allow-unregistered-dialect`: `spyre_mlir.parse` rejects unregistered ops
too, so both sides are strict), but only for mutants of seeds both sides
accept. Disagreements are bugs of parity (either side may be the one to fix);
iree-opt crashing or hanging is counted apart and not compared.

The report is a table (stdout) and JSON (`--json FILE`); up to `--examples`
inputs per distinct finding are reduced (whole functions, then chunks of
lines, within a time budget, keeping the same finding; not for stack or
memory exhaustion) and written to `--out DIR` with a `.txt` that says what
happened, how the input was made, and how to replay it (`--replay FILE`
reruns one file in-process with tracebacks, stack dump on a hang).

The modules, in the order an input meets them: `corpus` (seed kernels),
`mutate` (mutations; input `i` of a seed), `pool` (worker processes,
timeouts, stack dumps), `stages` (one input through the stages, each outcome
classified), `upstream` (iree-opt's verdict), `report` (results, findings,
table, JSON), `reduce` (smaller examples of a finding), `campaign` (all of
it for `--count` inputs) and `cli`. `kernel_gen` is the generator of valid
kernels with a NumPy oracle.
"""
