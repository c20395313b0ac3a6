"""Random valid KTIR kernels with a NumPy oracle by construction, run through
every back end (`PYTHONPATH=test/fuzz python -m spyre_fuzz.kernel_gen`, from
the repository root).

Where the fuzzer (`python -m spyre_fuzz`) mutates seed kernels into mostly *invalid* input, this
generator builds *valid* kernels from parts and, while it writes the MLIR,
builds the same computation in NumPy: every kernel comes with the outputs it
must produce. Kernel *N* of seed *S* is the same whatever the count
(`--seed S --show N` prints it).

What varies: the grid (none, [2], [4], [2, 2], [2, 4]) and how tile ids pick
rows and column blocks (a block per core, a cyclic `scf.for` over row blocks,
two tile-id results for rows and columns, a single-result tile id on a 2-D
grid: the linear id, dim 0 fastest, `analysis/grid.py`); f16/f32; row
counts 4..64 and columns 32..256 (multiples of 64 and not); elementwise
`arith` (addf, subf, mulf, maximumf, divf), `math.exp`/`math.sqrt`,
`linalg.add`/`linalg.mul`, `linalg.generic` with `linalg.index`
(position-dependent values, tile-local and global rows), splats
(`tensor.splat`, dense constants), `linalg.broadcast` of a row vector,
`linalg.reduce` (sum/max) over rows and back by `linalg.broadcast`
(softmax and rmsnorm shapes), `tensor.collapse_shape`/`expand_shape`,
a small `linalg.matmul`, `scf.for` over row blocks with and without an
accumulating iter_arg, an `index` scalar bounding the loop, an `f32` scalar
(unused, or an axpy `alpha * y + x`), and `spyre.tensor_layout` stick markers
on some kernels. Wider parts (each a weighted choice): marked rows of up to
512 columns (several sticks: sums and `linalg.index` across sticks, global
column positions on a column-split grid), f32 sticks of 32 and partial
sticks (a column tile of half a stick or one and a half), tail tiles (row
counts not a multiple of the row block, column blocks past the end: masked,
see below), `scf.if` guards (Triton `pid < n`, or `row < %n_rows`),
`tensor.extract` of a scalar splat back, `linalg.transpose` (of an
expression and back; of an input stored transposed, `[C, R]`, loaded as a
`[Cb, B]` tile), non-row-major views (column-major strides `[1, R]`, a
padded row stride, every other column `[2C, 2]`) and `linalg.reduce` along
dim 0 broadcast back over the rows.

The runner interprets each kernel (strict bounds; a tail-tile kernel, whose
last tiles run past a view's end, with the default masking for the source
and every output: loads read 0, stores are dropped; feature `tail(masked)`)
against its oracle (a mismatch there is a bug of this generator; the oracle
reads zero-padded inputs and drops stores past the end), then lowers it with each
configuration of `CONFIGS` and runs the output on the same arguments,
classifying each (kernel, config) as ok, refused (a located error), INTERNAL,
WRONG (runs, differs), RUNFAIL (the output does not run where the source
does), UNLOCATED (a refusal without location) or HANG (over the timeout).
"""
