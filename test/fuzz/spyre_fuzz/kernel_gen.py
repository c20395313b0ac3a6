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

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

# ---------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------

NP = {"f16": np.float16, "f32": np.float32}
NEG_INF = {"f16": "0xFC00", "f32": "0xFF800000"}
CONSTS = (0.5, 0.25, 1.5, -0.75, 2.0, 0.125, -1.25)
GRIDS = (None, (2,), (4,), (2, 2), (2, 4))
STICK = 64
PAD = 16  # extra elements per row of a "pad" view


def _layout2(stick: int) -> str:
    return f"phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: {stick}, 0, {stick}>"


def _layout1(stick: int) -> str:
    return f"phys_src = array<i64: 0, 0>, phys_op = array<i64: 1, 2>, phys_arg = array<i64: {stick}, {stick}>"


ID2 = "affine_map<(d0, d1) -> (d0, d1)>"
ID1 = "affine_map<(d0) -> (d0)>"


def _box2(r: int, c: int) -> str:
    return f"affine_set<(d0, d1) : (d0 >= 0, -d0 + {r - 1} >= 0, d1 >= 0, -d1 + {c - 1} >= 0)>"


def _box1(n: int) -> str:
    return f"affine_set<(d0) : (d0 >= 0, -d0 + {n - 1} >= 0)>"


def _lit(x: float) -> str:
    return repr(float(x))


@dataclass
class Param:
    name: str
    kind: str  # "ptr" (index base of an array), "index", "f32"
    shape: tuple[int, ...] = ()
    role: str = "in"  # "in" / "out" for pointers
    layout: bool = False
    value: object = None  # scalars
    view: str = "row"  # 2-D pointers: "row" (row-major), "col" (strides [1, R]), "pad" (row stride C+P), "step2" (strides [2C, 2])

    def mem_shape(self) -> tuple[int, ...]:
        """The shape of the argument array (row-major) that holds the view."""
        if len(self.shape) != 2 or self.view == "row":
            return self.shape
        r, c = self.shape
        return {"col": (c, r), "pad": (r, c + PAD), "step2": (r, 2 * c)}[self.view]

    def strides(self) -> list[int]:
        r, c = self.shape
        return {"row": [c, 1], "col": [1, r], "pad": [c + PAD, 1], "step2": [2 * c, 2]}[self.view]

    def to_mem(self, logical: np.ndarray) -> np.ndarray:
        if len(self.shape) != 2 or self.view == "row":
            return np.array(logical, copy=True)
        if self.view == "col":
            return np.ascontiguousarray(logical.T)
        mem = np.zeros(self.mem_shape(), logical.dtype)
        if self.view == "pad":
            mem[:, :self.shape[1]] = logical
        else:
            mem[:, ::2] = logical
        return mem

    def from_mem(self, mem: np.ndarray) -> np.ndarray:
        mem = np.asarray(mem).reshape(self.mem_shape())
        if len(self.shape) != 2 or self.view == "row":
            return mem
        if self.view == "col":
            return mem.T
        if self.view == "pad":
            return mem[:, :self.shape[1]]
        return mem[:, ::2]


@dataclass
class Kernel:
    seed: int
    index: int
    name: str
    text: str
    params: list[Param]
    dtype: str
    grid: tuple[int, ...] | None
    features: list[str]
    oracle: dict[str, np.ndarray]  # logical outputs
    inputs: dict[str, np.ndarray]  # logical inputs
    sums: bool  # a floating-point sum or contraction (accumulation order may differ after physicalization)
    markers: bool
    stick: int = STICK  # elements per stick of the marked views
    masked: bool = False  # tail tiles run past a view's end: run with mask_out_of_bounds (loads 0, stores dropped)

    def options(self, **kw):
        """Interpreter options of this kernel: strict bounds, or the default masking for tail-tile kernels."""
        from spyre_mlir.interpreter import InterpreterOptions

        return InterpreterOptions(mask_out_of_bounds=self.masked, **kw)

    def args(self) -> dict:
        """The interpreter arguments: device arrays (layout applied) and scalars, fresh copies."""
        from spyre_mlir.analysis.layout import Layout, to_device

        out = {}
        for p in self.params:
            if p.kind == "ptr":
                arr = self.inputs[p.name] if p.role == "in" else np.zeros(p.shape, NP[self.dtype])
                if p.layout:
                    arr = to_device(arr, Layout.stick_last(len(p.shape), self.stick))
                out[p.name] = p.to_mem(arr)
            else:
                out[p.name] = p.value
        return out

    def logical(self, name: str, arr) -> np.ndarray:
        from spyre_mlir.analysis.layout import Layout, from_device

        p = next(q for q in self.params if q.name == name)
        arr = np.asarray(arr)
        if p.layout:
            return from_device(arr, p.shape, Layout.stick_last(len(p.shape), self.stick))
        return p.from_mem(arr)

    def index_scalars(self) -> dict[str, int]:
        return {p.name: p.value for p in self.params if p.kind == "index"}

    def scalars(self) -> dict[str, object]:
        """Every scalar argument (index and f32: a spatial program is specialized for them)."""
        return {p.name: p.value for p in self.params if p.kind != "ptr"}

    def outputs(self) -> list[str]:
        return [p.name for p in self.params if p.kind == "ptr" and p.role == "out"]


class _Gen:
    """Builds one kernel: MLIR lines and, for each tile, a NumPy program."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.n = 0
        self.lines: list[str] = []
        self.ind = "  "

    def fresh(self, base: str) -> str:
        self.n += 1
        return f"%{base}{self.n}"

    def emit(self, line: str) -> None:
        self.lines.append(self.ind + line)

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)


@dataclass
class Val:
    """A tensor value of the body: its SSA name, NumPy evaluator over a tile
    context, shape and a bound on its magnitude."""

    ssa: str
    fn: object
    shape: tuple[int, ...]
    bound: float
    nonneg: bool = False


@dataclass
class Body:
    g: _Gen
    T: str
    B: int
    Cb: int
    leaves: list  # callables returning a Val (tile loads)
    feats: set = field(default_factory=set)
    sums: bool = False

    @property
    def np(self):
        return NP[self.T]

    def ty(self, shape) -> str:
        return "tensor<" + "x".join(map(str, shape)) + f"x{self.T}>"

    # -- leaves ---------------------------------------------------------------
    def splat(self, shape) -> Val:
        g, T, npt = self.g, self.T, self.np
        c = g.pick(CONSTS)
        if g.chance(0.5):
            s = g.fresh("cs")
            g.emit(f"{s} = arith.constant {_lit(c)} : {T}")
            v = g.fresh("splat")
            g.emit(f"{v} = tensor.splat {s} : {self.ty(shape)}")
            self.feats.add("tensor.splat")
        else:
            v = g.fresh("dense")
            g.emit(f"{v} = arith.constant dense<{_lit(c)}> : {self.ty(shape)}")
            self.feats.add("dense-splat")
        return Val(v, lambda ctx, c=c, shape=shape: np.full(shape, npt(c), npt), shape, abs(c), c >= 0)

    def leaf(self) -> Val:
        return self.g.pick(self.leaves)()

    # -- expressions ----------------------------------------------------------
    def expr(self, depth: int) -> Val:
        g = self.g
        if depth <= 0:
            return self.leaf() if g.chance(0.85) else self.splat((self.B, self.Cb))
        kinds = ["bin", "bin", "bin", "named", "exp", "generic", "reshape", "rowvec", "reduce", "extract",
                 "transpose"]
        kinds = [k for k in kinds if k in self.allowed]
        k = g.pick(kinds)
        if k == "bin":
            return self.binary(self.expr(depth - 1), self.expr(depth - 1 - int(g.chance(0.5))))
        if k == "named":
            return self.named(self.expr(depth - 1), self.expr(depth - 2))
        if k == "exp":
            a = self.expr(depth - 1)
            if a.bound > 3:
                return self.binary(a, self.leaf())
            return self.exp(a)
        if k == "generic":
            return self.generic(self.expr(depth - 1))
        if k == "reshape":
            return self.reshape(self.expr(depth - 1))
        if k == "rowvec" and self.rowvec is not None:
            return self.binary(self.expr(depth - 1), self.rowvec())
        if k == "reduce":
            return self.reduce_pattern(self.expr(depth - 1))
        if k == "extract":
            return self.binary(self.expr(depth - 1), self.extract(self.expr(depth - 1)))
        if k == "transpose":
            return self.transpose(self.expr(depth - 1))
        return self.binary(self.expr(depth - 1), self.leaf())

    allowed = ("bin", "named", "exp", "generic", "reshape", "rowvec", "reduce", "extract", "transpose")
    rowvec = None
    row_ssa = None  # the SSA name of the tile's first row (index), for global-row generics
    col_ssa = None  # the SSA name of the tile's first column (index), when not 0

    def extract(self, a: Val) -> Val:
        """tensor.extract of one element of `a`, splat back to [B, Cb]."""
        g, npt = self.g, self.np
        B, Cb = self.B, self.Cb
        i, j = int(g.rng.integers(B)), int(g.rng.integers(Cb))
        ci, cj, e, v = g.fresh("ei"), g.fresh("ej"), g.fresh("elt"), g.fresh("esplat")
        g.emit(f"{ci} = arith.constant {i} : index")
        g.emit(f"{cj} = arith.constant {j} : index")
        g.emit(f"{e} = tensor.extract {a.ssa}[{ci}, {cj}] : {self.ty(a.shape)}")
        g.emit(f"{v} = tensor.splat {e} : {self.ty((B, Cb))}")
        self.feats.add("tensor.extract")
        return Val(v, lambda ctx: np.full((B, Cb), a.fn(ctx)[i, j], npt), (B, Cb), a.bound, a.nonneg)

    def transpose(self, a: Val) -> Val:
        """linalg.transpose to [Cb, B], an op there, and back."""
        g, npt = self.g, self.np
        B, Cb = self.B, self.Cb
        e1, t1, e2, t2 = g.fresh("e"), g.fresh("tr"), g.fresh("e"), g.fresh("trb")
        g.emit(f"{e1} = tensor.empty() : {self.ty((Cb, B))}")
        g.emit(f"{t1} = linalg.transpose ins({a.ssa} : {self.ty((B, Cb))}) outs({e1} : {self.ty((Cb, B))}) permutation = [1, 0]")
        k = g.pick(CONSTS)
        kk = self.splat_const(k, (Cb, B))
        m = g.fresh("tm")
        op = g.pick(["mulf", "addf"])
        g.emit(f"{m} = arith.{op} {t1}, {kk.ssa} : {self.ty((Cb, B))}")
        g.emit(f"{e2} = tensor.empty() : {self.ty((B, Cb))}")
        g.emit(f"{t2} = linalg.transpose ins({m} : {self.ty((Cb, B))}) outs({e2} : {self.ty((B, Cb))}) permutation = [1, 0]")
        self.feats.add("linalg.transpose")
        if op == "mulf":
            return Val(t2, lambda ctx: np.ascontiguousarray((a.fn(ctx).T * npt(k)).astype(npt).T), (B, Cb),
                       a.bound * abs(k))
        return Val(t2, lambda ctx: np.ascontiguousarray((a.fn(ctx).T + npt(k)).astype(npt).T), (B, Cb),
                   a.bound + abs(k))

    def binary(self, a: Val, b: Val) -> Val:
        g, npt = self.g, self.np
        ops = ["addf", "subf", "mulf", "maximumf"]
        if a.bound * b.bound > 2000:
            ops = ["addf", "subf", "maximumf"]
        if b.nonneg and b.bound >= 0.125 and not any(o == "divf" for o in ops) and g.chance(0.15):
            ops = ["divf"]
        op = g.pick(ops)
        if op == "divf" and (b.bound < 0.125 or not b.nonneg):
            op = "addf"
        if op == "divf":
            # divide by (b + 1): positive, away from 0
            one = self.splat_const(1.0, b.shape)
            b = self._bin("addf", b, one, b.bound + 1, True)
            return self._bin("divf", a, b, a.bound, a.nonneg)
        bound = {"addf": a.bound + b.bound, "subf": a.bound + b.bound, "mulf": a.bound * b.bound,
                 "maximumf": max(a.bound, b.bound)}[op]
        nonneg = {"addf": a.nonneg and b.nonneg, "subf": False, "mulf": a.nonneg and b.nonneg,
                  "maximumf": a.nonneg or b.nonneg}[op]
        _ = npt
        return self._bin(op, a, b, bound, nonneg)

    def splat_const(self, c: float, shape) -> Val:
        g, npt = self.g, self.np
        v = g.fresh("k")
        g.emit(f"{v} = arith.constant dense<{_lit(c)}> : {self.ty(shape)}")
        return Val(v, lambda ctx: np.full(shape, npt(c), npt), tuple(shape), abs(c), c >= 0)

    def _bin(self, op: str, a: Val, b: Val, bound: float, nonneg: bool) -> Val:
        g = self.g
        v = g.fresh(op[:3])
        g.emit(f"{v} = arith.{op} {a.ssa}, {b.ssa} : {self.ty(a.shape)}")
        self.feats.add(f"arith.{op}")
        f = {"addf": np.add, "subf": np.subtract, "mulf": np.multiply, "maximumf": np.maximum,
             "divf": np.divide}[op]
        npt = self.np
        return Val(v, lambda ctx: f(a.fn(ctx), b.fn(ctx)).astype(npt), a.shape, bound, nonneg)

    def named(self, a: Val, b: Val) -> Val:
        g = self.g
        op = "mul" if a.bound * b.bound <= 2000 and g.chance(0.5) else "add"
        e = g.fresh("e")
        g.emit(f"{e} = tensor.empty() : {self.ty(a.shape)}")
        v = g.fresh("l" + op)
        t = self.ty(a.shape)
        g.emit(f"{v} = linalg.{op} ins({a.ssa}, {b.ssa} : {t}, {t}) outs({e} : {t}) -> {t}")
        self.feats.add(f"linalg.{op}")
        f = np.multiply if op == "mul" else np.add
        npt = self.np
        bound = a.bound * b.bound if op == "mul" else a.bound + b.bound
        return Val(v, lambda ctx: f(a.fn(ctx), b.fn(ctx)).astype(npt), a.shape, bound,
                   a.nonneg and b.nonneg)

    def exp(self, a: Val) -> Val:
        g = self.g
        v = g.fresh("exp")
        g.emit(f"{v} = math.exp {a.ssa} : {self.ty(a.shape)}")
        self.feats.add("math.exp")
        npt = self.np
        return Val(v, lambda ctx: np.exp(a.fn(ctx)).astype(npt), a.shape, float(np.exp(a.bound)) + 1, True)

    def generic(self, a: Val) -> Val:
        """x * c1 + pos * c2, pos a linalg.index (tile-local row or column, or global row)."""
        g, T, npt = self.g, self.T, self.np
        B, Cb = self.B, self.Cb
        which = g.pick(["col", "row"] + (["grow"] if self.row_ssa else []) + (["gcol", "gcol"] if self.col_ssa else []))
        c1 = g.pick((1.0, 0.5, -1.0, 2.0))
        c2 = 1.0 / 128 if which in ("col", "gcol") else 1.0 / 32
        t = self.ty(a.shape)
        e = g.fresh("e")
        g.emit(f"{e} = tensor.empty() : {t}")
        v = g.fresh("gen")
        x, o = g.fresh("x"), g.fresh("o")
        g.emit(f"{v} = linalg.generic {{indexing_maps = [{ID2}, {ID2}], iterator_types = [\"parallel\", \"parallel\"]}}"
               f" ins({a.ssa} : {t}) outs({e} : {t}) {{")
        g.emit(f"^bb0({x}: {T}, {o}: {T}):")
        pos = g.fresh("pos")
        g.emit(f"  {pos} = linalg.index {1 if which in ('col', 'gcol') else 0} : index")
        if which in ("grow", "gcol"):
            gp = g.fresh("gpos")
            g.emit(f"  {gp} = arith.addi {pos}, {self.row_ssa if which == 'grow' else self.col_ssa} : index")
            pos = gp
        p32, pf, k1, k2, m1, m2, y = (g.fresh(s) for s in ("p32", "pf", "k", "k", "m", "m", "y"))
        g.emit(f"  {p32} = arith.index_cast {pos} : index to i32")
        g.emit(f"  {pf} = arith.sitofp {p32} : i32 to {T}")
        g.emit(f"  {k1} = arith.constant {_lit(c1)} : {T}")
        g.emit(f"  {k2} = arith.constant {_lit(c2)} : {T}")
        g.emit(f"  {m1} = arith.mulf {x}, {k1} : {T}")
        g.emit(f"  {m2} = arith.mulf {pf}, {k2} : {T}")
        g.emit(f"  {y} = arith.addf {m1}, {m2} : {T}")
        g.emit(f"  linalg.yield {y} : {T}")
        g.emit(f"}} -> {t}")
        self.feats.add(f"linalg.generic+index({which})")

        def fn(ctx):
            if which in ("col", "gcol"):
                p = np.broadcast_to(np.arange(Cb)[None, :], (B, Cb))
                if which == "gcol":
                    p = p + ctx["col"]
            else:
                p = np.broadcast_to(np.arange(B)[:, None], (B, Cb))
                if which == "grow":
                    p = p + ctx["row"]
            pfv = p.astype(np.int32).astype(npt)
            return (a.fn(ctx) * npt(c1)).astype(npt) + (pfv * npt(c2)).astype(npt)

        posmax = 1024 / 128 if which in ("col", "gcol") else (64 / 32)
        return Val(v, lambda ctx: fn(ctx).astype(npt), a.shape, a.bound * abs(c1) + posmax + 0.1)

    def reshape(self, a: Val) -> Val:
        g = self.g
        B, Cb = self.B, self.Cb
        t = self.ty(a.shape)
        k = g.pick(CONSTS)
        npt = self.np
        if g.chance(0.5) or Cb % 2:
            n = B * Cb
            f = g.fresh("flat")
            g.emit(f"{f} = tensor.collapse_shape {a.ssa} [[0, 1]] : {t} into {self.ty((n,))}")
            kk = self.splat_const(k, (n,))
            m = g.fresh("fm")
            g.emit(f"{m} = arith.mulf {f}, {kk.ssa} : {self.ty((n,))}")
            v = g.fresh("back")
            g.emit(f"{v} = tensor.expand_shape {m} [[0, 1]] output_shape [{B}, {Cb}] : {self.ty((n,))} into {t}")
            self.feats.add("collapse->expand")
        else:
            s3 = (B, Cb // 2, 2)
            f = g.fresh("x3")
            g.emit(f"{f} = tensor.expand_shape {a.ssa} [[0], [1, 2]] output_shape [{B}, {Cb // 2}, 2] : {t} into {self.ty(s3)}")
            kk = self.splat_const(k, s3)
            m = g.fresh("fm")
            g.emit(f"{m} = arith.mulf {f}, {kk.ssa} : {self.ty(s3)}")
            v = g.fresh("back")
            g.emit(f"{v} = tensor.collapse_shape {m} [[0], [1, 2]] : {self.ty(s3)} into {t}")
            self.feats.add("expand->collapse")
        return Val(v, lambda ctx: (a.fn(ctx) * npt(k)).astype(npt), a.shape, a.bound * abs(k))

    def reduce(self, a: Val, kind: str, dim: int = 1) -> Val:
        """linalg.reduce over dim 1 (sum or max) -> [B] (dim 0: -> [Cb])."""
        g, T, npt = self.g, self.T, self.np
        B, Cb = self.B, self.Cb
        if dim == 0:
            B, Cb = Cb, B  # the kept extent is B below, the reduced one Cb
        init = g.fresh("init")
        if kind == "sum":
            z = g.fresh("z")
            g.emit(f"{z} = arith.constant 0.0 : {T}")
            g.emit(f"{init} = tensor.splat {z} : {self.ty((B,))}")
            self.sums = True
        else:
            z = g.fresh("ninf")
            g.emit(f"{z} = arith.constant {NEG_INF[T]} : {T}")
            g.emit(f"{init} = tensor.splat {z} : {self.ty((B,))}")
        v = g.fresh("red")
        comb = "arith.addf" if kind == "sum" else "arith.maximumf"
        g.emit(f"{v} = linalg.reduce {{ {comb} }} ins({a.ssa} : {self.ty(a.shape)}) outs({init} : {self.ty((B,))}) dimensions = [{dim}]")
        self.feats.add(f"linalg.reduce({kind}{', dim0' if dim == 0 else ''})")
        if kind == "sum":
            return Val(v, lambda ctx: np.sum(a.fn(ctx).astype(np.float32), axis=dim, dtype=np.float32).astype(npt),
                       (B,), a.bound * Cb, a.nonneg)
        return Val(v, lambda ctx: np.max(a.fn(ctx), axis=dim).astype(npt), (B,), a.bound, False)

    def bcast_cols(self, r: Val) -> Val:
        """linalg.broadcast of a [Cb] vector over the rows."""
        g = self.g
        e = g.fresh("e")
        t = self.ty((self.B, self.Cb))
        g.emit(f"{e} = tensor.empty() : {t}")
        v = g.fresh("bc")
        g.emit(f"{v} = linalg.broadcast ins({r.ssa} : {self.ty((self.Cb,))}) outs({e} : {t}) dimensions = [0]")
        self.feats.add("linalg.broadcast(row)")
        B, Cb = self.B, self.Cb
        return Val(v, lambda ctx: np.broadcast_to(r.fn(ctx)[None, :], (B, Cb)).copy(), (B, Cb), r.bound, r.nonneg)

    def bcast_rows(self, r: Val) -> Val:
        g = self.g
        e = g.fresh("e")
        t = self.ty((self.B, self.Cb))
        g.emit(f"{e} = tensor.empty() : {t}")
        v = g.fresh("bc")
        g.emit(f"{v} = linalg.broadcast ins({r.ssa} : {self.ty((self.B,))}) outs({e} : {t}) dimensions = [1]")
        self.feats.add("linalg.broadcast(col)")
        B, Cb = self.B, self.Cb
        return Val(v, lambda ctx: np.broadcast_to(r.fn(ctx)[:, None], (B, Cb)).copy(), (B, Cb), r.bound, r.nonneg)

    def reduce_pattern(self, a: Val) -> Val:
        g = self.g
        pat = g.pick(["softmax", "rmsnorm", "center", "plain", "dim0", "dim0"])
        if pat == "dim0":  # a reduction along the rows (dim 0) and back
            m = self.bcast_cols(self.reduce(a, g.pick(["max", "sum"]), dim=0))
            if g.chance(0.5):
                return self._bin("subf", a, m, a.bound * (self.B + 1), False)
            return m
        if pat == "softmax" and a.bound <= 30:
            m = self.bcast_rows(self.reduce(a, "max"))
            d = self._bin("subf", a, m, 2 * a.bound, False)
            d.bound = 2 * a.bound
            if d.bound > 10:
                return self._bin("subf", a, m, 2 * a.bound, False)
            ex = self.exp(d)
            ex.bound = 1.0
            s = self.bcast_rows(self.reduce(ex, "sum"))
            self.feats.add("softmax")
            return self._bin("divf", ex, s, 1.0, True)
        if pat == "rmsnorm" and a.bound <= 30:
            sq = self._bin("mulf", a, a, a.bound * a.bound, True)
            ss = self.reduce(sq, "sum")
            nn = self.row_const(float(self.Cb))
            ms = self._bin("divf", ss, nn, a.bound * a.bound, True)
            eps = self.row_const(0.0625)
            ms2 = self._bin("addf", ms, eps, ms.bound + 0.0625, True)
            sd = self.g.fresh("sqrt")
            self.g.emit(f"{sd} = math.sqrt {ms2.ssa} : {self.ty((self.B,))}")
            npt = self.np
            sv = Val(sd, lambda ctx: np.sqrt(ms2.fn(ctx)).astype(npt), (self.B,), a.bound + 1, True)
            self.feats.add("rmsnorm")
            y = self._bin("divf", a, self.bcast_rows(sv), 4 * min(a.bound, 1.0) * np.sqrt(self.Cb) + 1, False)
            return y
        if pat == "center":
            m = self.bcast_rows(self.reduce(a, g.pick(["max", "sum"])))
            return self._bin("subf", a, m, a.bound * (self.Cb + 1), False)
        r = self.reduce(a, g.pick(["max", "sum"]))
        return self.bcast_rows(r)

    def row_const(self, c: float) -> Val:
        return self.splat_const(c, (self.B,))


# -- work distribution -------------------------------------------------------


@dataclass
class Scheme:
    name: str
    grid: tuple[int, ...] | None
    R: int  # rows of the input views
    B: int  # rows per tile
    C: int  # columns of views
    Cb: int  # columns per tile
    loop: bool
    nrows: bool  # loop bounded by an index scalar
    nrows_value: int = 0
    # per core: list of (row, col) tile origins, in execution order
    tiles: dict = field(default_factory=dict)
    out_block: dict = field(default_factory=dict)  # accumulate mode: core -> (row, col) of its out tile
    tail: bool = False  # the last tiles run past the views' end (masked)
    guard: bool = False  # an scf.if keeps the tiles of cores >= active from running
    active: int = 0
    guard_kind: str = ""  # "pid" (tile id < active) or "n_rows" (first row < %n_rows)
    partial: bool = False  # column tiles cover part of a stick


def _cores(grid):
    from spyre_mlir.analysis.grid import linear_order

    if grid is None:
        return [(0, (0,))]
    return list(enumerate(linear_order(tuple(grid))))


def _choose_scheme(g: _Gen, T: str, acc: bool, force_stick: bool, stick: int = STICK) -> Scheme:
    grid = g.pick(GRIDS)
    ncores = 1 if grid is None else int(np.prod(grid))
    options = []
    if grid is None:
        options = ["whole", "loop"]
    elif len(grid) == 1:
        options = ["block", "cyclic"]
    else:
        options = ["rowcol", "linear", "linear-loop", "pair-linear"]
    name = g.pick(options)
    if force_stick and grid is not None and len(grid) == 2 and g.chance(0.5):
        name = "rowcol"  # column blocks: partial sticks
    if acc and name in ("whole", "block", "rowcol", "linear", "pair-linear"):
        name = {"whole": "loop", "block": "cyclic", "rowcol": "linear-loop", "linear": "linear-loop",
                "pair-linear": "linear-loop"}[name]
    loop = name in ("loop", "cyclic", "linear-loop")
    # columns
    colsplit = grid[1] if name == "rowcol" else 1
    partial = False
    if force_stick:
        if colsplit > 1 and g.chance(0.5):
            # partial sticks: a tile covers half a stick, or one and a half
            Cb = g.pick([stick // 2, stick // 2, 3 * stick // 2])
            partial = True
        elif colsplit > 1:
            Cb = g.pick([stick, 2 * stick, 4 * stick])
        else:
            # several sticks per row: up to 512 columns
            Cb = g.pick([stick, 2 * stick, 3 * stick, 4 * stick, 5 * stick, 6 * stick, 8 * stick])
            if Cb > 512:
                Cb = 512
    else:
        Cb = g.pick([32, 48, 64, 96, 128, 160] if colsplit == 1 else [32, 48, 64, 96, 128])
    C = Cb * colsplit
    cap = 512 if force_stick else 256
    if C > cap:
        Cb = cap // colsplit // 32 * 32 or 32
        C = Cb * colsplit
    # rows
    rowcores = grid[0] if name == "rowcol" else ncores
    tail = g.chance(0.2)
    guard = (not tail and not acc and name in ("block", "rowcol", "linear", "pair-linear")
             and rowcores > 1 and g.chance(0.35))
    active = rowcores - int(g.rng.integers(1, rowcores)) if guard else rowcores
    for _ in range(40):
        B = g.pick([1, 2, 4, 8, 16])
        iters = g.pick([2, 3, 4]) if loop else 1
        R = active * B * iters
        if tail and B > 1:
            R -= int(g.rng.integers(1, B))
        if (1 if tail else 4) <= R <= 64 and B * Cb <= 4096 and not (tail and B == 1):
            break
    else:
        B, iters, tail = 2, (2 if loop else 1), False
        R = active * B * iters
    ctail = 0
    if tail and name == "rowcol" and not force_stick and g.chance(0.5):
        ctail = g.pick([16, Cb // 2]) if Cb > 16 else 0  # the last column block runs past the end too
        C -= ctail
    nrows = loop and g.chance(0.6)
    s = Scheme(name, grid, R, B, C, Cb, loop, nrows)
    s.nrows_value = R
    s.tail, s.guard, s.active, s.partial = tail or bool(ctail), guard, active, partial
    s.guard_kind = g.pick(["pid", "n_rows"]) if guard else ""
    if nrows and not tail and g.chance(0.3) and R // (rowcores * B) > 1:
        s.nrows_value = R - rowcores * B  # the last round of iterations does not run
    bound = s.nrows_value if nrows else R
    for core, coords in _cores(grid):
        if name == "whole":
            tl = [(0, 0)]
        elif name == "loop":
            tl = [(r, 0) for r in range(0, bound, B)]
        elif name == "block":
            tl = [(core * B, 0)]
        elif name == "cyclic":
            tl = [(r, 0) for r in range(core * B, bound, ncores * B)]
        elif name == "rowcol":
            tl = [(coords[0] * B, coords[1] * Cb)]
        elif name in ("linear", "pair-linear"):
            tl = [(core * B, 0)]
        else:  # linear-loop
            tl = [(r, 0) for r in range(core * B, bound, ncores * B)]
        if guard:  # scf.if (tile < active): the other cores do nothing
            tl = [t for t in tl if (coords[0] if name == "rowcol" else core) < active]
        s.tiles[core] = tl
        s.out_block[core] = (core * B, 0) if name != "rowcol" else (coords[0] * B, coords[1] * Cb)
    return s


def _emit_tile_ids(g: _Gen, s: Scheme) -> dict:
    """Emit the tile-id prologue; returns SSA names: 'lin' (linear row-block
    number), 'i', 'j'."""
    ids = {}
    if s.grid is None:
        return ids
    if s.name == "rowcol":
        i, j = g.fresh("ti"), g.fresh("tj")
        g.emit(f"{i}, {j} = ktdp.get_compute_tile_id : index, index")
        ids["i"], ids["j"] = i, j
    elif s.name == "pair-linear":
        i, j = g.fresh("ti"), g.fresh("tj")
        g.emit(f"{i}, {j} = ktdp.get_compute_tile_id : index, index")
        g0 = g.fresh("cg")
        g.emit(f"{g0} = arith.constant {s.grid[0]} : index")
        m, lin = g.fresh("jm"), g.fresh("pid")
        g.emit(f"{m} = arith.muli {j}, {g0} : index")
        g.emit(f"{lin} = arith.addi {m}, {i} : index")
        ids["lin"] = lin
    else:
        t = g.fresh("pid")
        g.emit(f"{t} = ktdp.get_compute_tile_id : index")
        ids["lin"] = t
    return ids


def _const_index(g: _Gen, v: int, cache: dict) -> str:
    if v not in cache:
        n = g.fresh(f"c{v}_")
        g.emit(f"{n} = arith.constant {v} : index")
        cache[v] = n
    return cache[v]


def generate(seed: int, index: int) -> Kernel:
    """Kernel `index` of `seed` (independent of how many are generated)."""
    rng = np.random.default_rng([seed, index, 0x6b67])
    g = _Gen(rng)
    T = g.pick(["f16", "f32"])
    npt = NP[T]
    family = g.pick(["map", "map", "map", "acc", "matmul"])
    markers = g.chance(0.35)
    stick = STICK if T == "f16" else g.pick([32, 32, 64])
    acc = family == "acc"
    s = _choose_scheme(g, T, acc, markers and family != "matmul", stick)
    if s.C % stick or (family == "matmul" and s.Cb % stick):
        markers = False
    feats = [f"grid={list(s.grid) if s.grid else 'none'}", f"scheme={s.name}", T, family]
    name = f"gen_{seed}_{index}"
    nin = g.pick([1, 2, 2, 3])
    rowvec = family != "matmul" and g.chance(0.35)
    K = g.pick([16, 32, 64]) if family == "matmul" else 0
    mm_markers = family == "matmul" and markers and K % stick == 0
    if family == "matmul":
        markers = mm_markers
    params: list[Param] = []
    in_cols = K if family == "matmul" else s.C
    for k in range(nin):
        params.append(Param(f"x{k}", "ptr", (s.R, in_cols), "in", markers and in_cols % stick == 0))
    xt = family != "matmul" and g.chance(0.2)  # an input stored transposed ([C, R]), loaded and linalg.transpose'd
    if xt:
        params.append(Param("xt", "ptr", (s.C, s.R), "in"))
    if rowvec:
        params.append(Param("w", "ptr", (s.C,), "in", markers and g.chance(0.7)))
    if family == "matmul":
        params.append(Param("wm", "ptr", (K, s.C), "in", markers))
    out_rows = s.R if not acc else (1 if s.grid is None else int(np.prod(s.grid))) * s.B
    params.append(Param("out", "ptr", (out_rows, s.C), "out", markers and g.chance(0.8)))
    for p in params:  # non-row-major views (never marked)
        if len(p.shape) == 2 and not p.layout and g.chance(0.15):
            p.view = g.pick(["col", "col", "pad", "step2"])
    if s.nrows:
        params.append(Param("n_rows", "index", value=s.nrows_value))
    if s.guard and s.guard_kind == "n_rows":
        params.append(Param("n_rows", "index", value=s.R))
    alpha_used = False
    if g.chance(0.3):
        alpha_used = family != "matmul" and g.chance(0.7)
        params.insert(int(rng.integers(len(params) + 1)),
                      Param("alpha", "f32", value=g.pick(CONSTS) if alpha_used else 1.5))
    if any(p.layout for p in params):
        feats.append("markers")
    markers = any(p.layout for p in params)

    # inputs
    inputs = {}
    for p in params:
        if p.kind == "ptr" and p.role == "in":
            inputs[p.name] = rng.uniform(-1, 1, p.shape).astype(npt)

    sig = ", ".join(f"%{p.name}: {'index' if p.kind != 'f32' else 'f32'}" for p in params)
    attrs = f" attributes {{grid = [{', '.join(map(str, s.grid))}]}}" if s.grid else ""
    head = f"func.func @{name}({sig}){attrs} {{"
    ids = _emit_tile_ids(g, s)
    consts: dict = {}
    c0 = _const_index(g, 0, consts)
    # views
    views = {}
    for p in params:
        if p.kind != "ptr":
            continue
        v = g.fresh(p.name + "_v")
        if len(p.shape) == 2:
            r, c = p.shape
            st = p.strides()
            g.emit(f"{v} = ktdp.construct_memory_view %{p.name}, sizes: [{r}, {c}], strides: [{st[0]}, {st[1]}] "
                   f"{{coordinate_set = {_box2(r, c)}, memory_space = #ktdp.memory_space<global>}} : memref<{r}x{c}x{T}>")
            if p.view != "row":
                feats.append(f"view({p.name})={p.view}")
            if p.layout:
                g.emit(f"spyre.tensor_layout {v} {{{_layout2(stick)}}} : memref<{r}x{c}x{T}>")
        else:
            (n,) = p.shape
            g.emit(f"{v} = ktdp.construct_memory_view %{p.name}, sizes: [{n}], strides: [1] "
                   f"{{coordinate_set = {_box1(n)}, memory_space = #ktdp.memory_space<global>}} : memref<{n}x{T}>")
            if p.layout:
                g.emit(f"spyre.tensor_layout {v} {{{_layout1(stick)}}} : memref<{n}x{T}>")
        views[p.name] = v

    # column origin of this core's tile
    if s.name == "rowcol":
        cb = _const_index(g, s.Cb, consts)
        col = g.fresh("col")
        g.emit(f"{col} = arith.muli {ids['j']}, {cb} : index")
    else:
        col = c0
    # row origin (non-loop) / loop bounds
    B = s.B
    ncores = 1 if s.grid is None else int(np.prod(s.grid))
    if s.name == "whole":
        row0 = c0
    elif s.name == "loop":
        row0 = None
        lo, step = c0, _const_index(g, B, consts)
    elif s.name == "rowcol":
        row0 = g.fresh("row")
        g.emit(f"{row0} = arith.muli {ids['i']}, {_const_index(g, B, consts)} : index")
    else:
        start = g.fresh("start")
        g.emit(f"{start} = arith.muli {ids['lin']}, {_const_index(g, B, consts)} : index")
        if s.loop:
            row0 = None
            lo, step = start, _const_index(g, ncores * B, consts)
        else:
            row0 = start
    hi = "%n_rows" if s.nrows else _const_index(g, s.R, consts)
    out_row = None
    if acc:
        if s.grid is None:
            out_row = c0
        else:
            out_row = g.fresh("orow")
            g.emit(f"{out_row} = arith.muli {ids['lin']}, {_const_index(g, B, consts)} : index")

    body = Body(g, T, B, s.Cb, [])
    if family == "matmul":
        body.Cb = K  # pre-matmul expressions are on [B, K]
    if s.name == "rowcol":
        body.col_ssa = col

    def make_body(row: str) -> Val:
        """Emit the tile body at row origin `row` (SSA); returns the result [B, Cb] Val."""
        Cb = body.Cb
        loads = []
        for k in range(nin):
            p = params[[q.name for q in params].index(f"x{k}")]

            def load(p=p, k=k):
                if k in cache:
                    return cache[k]
                t = g.fresh(f"{p.name}_t")
                cols = p.shape[1]
                ccol = col if family != "matmul" else c0
                g.emit(f"{t} = ktdp.construct_access_tile {views[p.name]}[{row}, {ccol}] {{access_tile_set = {_box2(B, Cb)}, "
                       f"access_tile_order = {ID2}}} : memref<{p.shape[0]}x{cols}x{T}> -> !ktdp.access_tile<{B}x{Cb}xindex>")
                d = g.fresh(f"{p.name}_d")
                g.emit(f"{d} = ktdp.load {t} : !ktdp.access_tile<{B}x{Cb}xindex> -> {body.ty((B, Cb))}")
                name_ = p.name
                mm = family == "matmul"
                v = Val(d, lambda ctx, name_=name_, Cb=Cb, mm=mm: ctx["inputs"][name_][
                    ctx["row"]:ctx["row"] + B, (0 if mm else ctx["col"]):(0 if mm else ctx["col"]) + Cb].copy(),
                    (B, Cb), 1.0)
                cache[k] = v
                return v

            loads.append(load)
        cache: dict = {}
        if xt:
            def load_t():
                if "xt" not in cache:
                    Cb_ = s.Cb
                    t = g.fresh("xt_t")
                    g.emit(f"{t} = ktdp.construct_access_tile {views['xt']}[{col}, {row}] {{access_tile_set = {_box2(Cb_, B)}, "
                           f"access_tile_order = {ID2}}} : memref<{s.C}x{s.R}x{T}> -> !ktdp.access_tile<{Cb_}x{B}xindex>")
                    d = g.fresh("xt_d")
                    g.emit(f"{d} = ktdp.load {t} : !ktdp.access_tile<{Cb_}x{B}xindex> -> {body.ty((Cb_, B))}")
                    e = g.fresh("e")
                    g.emit(f"{e} = tensor.empty() : {body.ty((B, Cb_))}")
                    v = g.fresh("xt_tr")
                    g.emit(f"{v} = linalg.transpose ins({d} : {body.ty((Cb_, B))}) outs({e} : {body.ty((B, Cb_))}) "
                           "permutation = [1, 0]")
                    body.feats.add("linalg.transpose(input)")
                    cache["xt"] = Val(v, lambda ctx: np.ascontiguousarray(
                        ctx["inputs"]["xt"][ctx["col"]:ctx["col"] + Cb_, ctx["row"]:ctx["row"] + B].T), (B, Cb_), 1.0)
                return cache["xt"]

            loads.append(load_t)
        body.leaves = loads
        body.row_ssa = row
        if rowvec:
            wv = {}

            def rowv():
                if "v" not in wv:
                    n = s.C
                    t = g.fresh("w_t")
                    g.emit(f"{t} = ktdp.construct_access_tile {views['w']}[{col}] {{access_tile_set = {_box1(s.Cb)}, "
                           f"access_tile_order = {ID1}}} : memref<{n}x{T}> -> !ktdp.access_tile<{s.Cb}xindex>")
                    d = g.fresh("w_d")
                    g.emit(f"{d} = ktdp.load {t} : !ktdp.access_tile<{s.Cb}xindex> -> {body.ty((s.Cb,))}")
                    e = g.fresh("e")
                    g.emit(f"{e} = tensor.empty() : {body.ty((B, s.Cb))}")
                    bv = g.fresh("wb")
                    g.emit(f"{bv} = linalg.broadcast ins({d} : {body.ty((s.Cb,))}) outs({e} : {body.ty((B, s.Cb))}) dimensions = [0]")
                    body.feats.add("linalg.broadcast(rowvec)")
                    Cb_ = s.Cb
                    wv["v"] = Val(bv, lambda ctx: np.broadcast_to(
                        ctx["inputs"]["w"][ctx["col"]:ctx["col"] + Cb_][None, :], (B, Cb_)).copy(), (B, Cb_), 1.0)
                return wv["v"]

            body.rowvec = rowv
            body.leaves = loads + [rowv]
        depth = g.pick([1, 2, 2, 3, 3, 4])
        if family == "matmul":
            body.allowed = ("bin", "named", "generic", "reshape")
            a = body.expr(min(depth, 2))
            # W: [K, Cb] at column col
            t = g.fresh("wm_t")
            g.emit(f"{t} = ktdp.construct_access_tile {views['wm']}[{c0}, {col}] {{access_tile_set = {_box2(K, s.Cb)}, "
                   f"access_tile_order = {ID2}}} : memref<{K}x{s.C}x{T}> -> !ktdp.access_tile<{K}x{s.Cb}xindex>")
            wd = g.fresh("wm_d")
            ot = f"tensor<{B}x{s.Cb}x{T}>"
            g.emit(f"{wd} = ktdp.load {t} : !ktdp.access_tile<{K}x{s.Cb}xindex> -> tensor<{K}x{s.Cb}x{T}>")
            init = g.fresh("mminit")
            if g.chance(0.5):
                z, e = g.fresh("z"), g.fresh("e")
                g.emit(f"{z} = arith.constant 0.0 : {T}")
                g.emit(f"{e} = tensor.empty() : {ot}")
                g.emit(f"{init} = linalg.fill ins({z} : {T}) outs({e} : {ot}) -> {ot}")
            else:
                g.emit(f"{init} = arith.constant dense<0.0> : {ot}")
            mm = g.fresh("mm")
            g.emit(f"{mm} = linalg.matmul ins({a.ssa}, {wd} : tensor<{B}x{K}x{T}>, tensor<{K}x{s.Cb}x{T}>) "
                   f"outs({init} : {ot}) -> {ot}")
            body.feats.add("linalg.matmul")
            body.sums = True
            Cb_ = s.Cb

            def mmfn(ctx, a=a, Cb_=Cb_):
                av = a.fn(ctx).astype(np.float32)
                wv_ = ctx["inputs"]["wm"][:K, ctx["col"]:ctx["col"] + Cb_].astype(np.float32)
                return (av @ wv_).astype(npt)

            res = Val(mm, mmfn, (B, Cb_), a.bound * K)
            body.Cb = s.Cb
            if g.chance(0.5):  # relu or bias
                res = body.binary(res, body.splat((B, s.Cb)))
            body.Cb = K
            return res
        res = body.expr(depth)
        if alpha_used:  # axpy: alpha * res + x
            av = g.fresh("alpha")
            if T == "f16":
                g.emit(f"{av} = arith.truncf %alpha : f32 to f16")
            else:
                av = "%alpha"
            sp = g.fresh("alpha_s")
            g.emit(f"{sp} = tensor.splat {av} : {body.ty((B, s.Cb))}")
            aval = next(p.value for p in params if p.name == "alpha")
            al = Val(sp, lambda ctx: np.full((B, s.Cb), npt(aval), npt), (B, s.Cb), abs(aval), aval >= 0)
            res = body._bin("addf", body._bin("mulf", al, res, al.bound * res.bound, False), body.leaf(),
                            al.bound * res.bound + 1, False)
            body.feats.add("axpy(alpha)")
        return res

    g.ind = "  "
    if not s.loop and s.guard:
        ok = g.fresh("ok")
        if s.guard_kind == "pid":
            who = ids["i"] if s.name == "rowcol" else ids["lin"]
            g.emit(f"{ok} = arith.cmpi ult, {who}, {_const_index(g, s.active, consts)} : index")
        else:
            g.emit(f"{ok} = arith.cmpi slt, {row0}, %n_rows : index")
        g.emit(f"scf.if {ok} {{")
        g.ind = "    "
        res = make_body(row0)
        emit_tile_store(g, views, params, T, B, s, row0, col, res)
        g.emit("}")
        g.ind = "  "
        body.feats.add(f"scf.if({s.guard_kind})")
        emit_store = []
    elif not s.loop:
        res = make_body(row0)
        emit_store = [(res, row0)]
    else:
        iv = g.fresh("r")
        if acc:
            z = g.fresh("acc0")
            g.emit(f"{z} = arith.constant dense<0.0> : {body.ty((B, s.Cb))}")
            a_ = g.fresh("acc")
            resn = g.fresh("sum")
            g.emit(f"{resn} = scf.for {iv} = {lo} to {hi} step {step} iter_args({a_} = {z}) -> ({body.ty((B, s.Cb))}) {{")
        else:
            g.emit(f"scf.for {iv} = {lo} to {hi} step {step} {{")
        g.ind = "    "
        res = make_body(iv)
        if acc:
            n = g.fresh("nacc")
            g.emit(f"{n} = arith.addf {a_}, {res.ssa} : {body.ty((B, s.Cb))}")
            g.emit(f"scf.yield {n} : {body.ty((B, s.Cb))}")
            body.feats.add("scf.for+iter_arg")
        else:
            emit_tile_store(g, views, params, T, B, s, iv, col, res)
            g.emit("scf.yield")
            body.feats.add("scf.for")
        g.ind = "  "
        g.emit("}")
        emit_store = [(Val(resn, None, (B, s.Cb), 0), out_row)] if acc else []
    for v, row in emit_store:
        emit_tile_store(g, views, params, T, B, s, row, col, v)
    g.emit("return")
    text = head + "\n" + "\n".join(g.lines) + "\n}\n"
    text = f"// kernel_gen seed={seed} index={index}: {' '.join(feats)}\nmodule {{\n" + text + "}\n"

    # oracle
    outp = next(p for p in params if p.role == "out")
    out = np.zeros(outp.shape, npt)
    # masked loads past a view's end read 0: the oracle reads zero-padded inputs
    padded = {n: np.pad(a, [(0, 64 + 512)] * a.ndim) for n, a in inputs.items()}
    for core, tl in s.tiles.items():
        accv = np.zeros((B, s.Cb), npt)
        for (r, c) in tl:
            ctx = {"inputs": padded, "row": r, "col": c}
            val = res.fn(ctx)
            if acc:
                accv = (accv + val).astype(npt)
            else:
                dst = out[r:r + B, c:c + s.Cb]  # stores past the end are dropped
                dst[...] = val[:dst.shape[0], :dst.shape[1]]
        if acc and (not s.guard or tl):
            r, c = s.out_block[core]
            out[r:r + B, c:c + s.Cb] = accv
    if s.nrows:
        feats.append(f"n_rows={s.nrows_value}/{s.R}")
    if any(p.kind == "f32" for p in params) and not alpha_used:
        feats.append("unused-f32")
    if s.tail:
        feats.append(f"tail(masked, {s.R}x{s.C} by {B}x{s.Cb})")
    if s.guard:
        feats.append(f"guard({s.active}/{(s.grid[0] if s.name == 'rowcol' else int(np.prod(s.grid)))})")
    if markers:
        feats.append(f"stick={stick}" + (" partial" if s.partial else "") + (" multi" if s.Cb > stick else ""))
    feats += sorted(body.feats)
    return Kernel(seed, index, name, text, params, T, s.grid, feats, {"out": out}, inputs, body.sums, markers,
                  stick, s.tail)


def emit_tile_store(g, views, params, T, B, s, row, col, v: Val) -> None:
    p = next(q for q in params if q.role == "out")
    t = g.fresh("out_t")
    g.emit(f"{t} = ktdp.construct_access_tile {views['out']}[{row}, {col}] {{access_tile_set = {_box2(B, s.Cb)}, "
           f"access_tile_order = {ID2}}} : memref<{p.shape[0]}x{p.shape[1]}x{T}> -> !ktdp.access_tile<{B}x{s.Cb}xindex>")
    g.emit(f"ktdp.store {v.ssa}, {t} : tensor<{B}x{s.Cb}x{T}>, !ktdp.access_tile<{B}x{s.Cb}xindex>")


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

CONFIGS = (
    "default",
    "physicalize",
    "ktir-to-schedule",
    "ktir-to-schedule{chain-in-lx=true}",
    "ktir-to-bundle{out-dir=D}",
    "ktir-to-bundle{out-dir=D slices=2}",
    "ktir-to-spatial",
    "ktir-to-spatial{multicast=false}",
)
CATEGORIES = ("ok", "refused", "INTERNAL", "WRONG", "RUNFAIL", "UNLOCATED", "HANG")
FINDINGS = ("INTERNAL", "WRONG", "RUNFAIL", "UNLOCATED", "HANG")


def tolerance(dtype: str, ref: np.ndarray) -> tuple[float, float]:
    scale = float(np.max(np.abs(ref.astype(np.float64)))) if ref.size else 1.0
    if dtype == "f16":
        return 4e-3, 4e-3 * max(scale, 1.0)
    return 2e-5, 2e-5 * max(scale, 1.0)


def close(a: np.ndarray, b: np.ndarray, dtype: str) -> bool:
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a64.shape != b64.shape:
        return False
    rtol, atol = tolerance(dtype, b64)
    return bool(np.allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True))


def _first_line(s: str, limit: int = 300) -> str:
    s = s.strip()
    return (s.splitlines()[0] if s else "")[:limit]


def _classify_exc(exc: BaseException) -> tuple[str, str]:
    from spyre_mlir.diagnostics import DiagnosticError

    if isinstance(exc, DiagnosticError):
        d = exc.diagnostic
        msg = _first_line(d.message)
        if "internal error" in d.message:
            return "INTERNAL", msg
        if d.location is None:
            return "UNLOCATED", msg
        return "refused", msg
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" [{os.path.basename(tb[-1].filename)}:{tb[-1].lineno}]" if tb else ""
    return "INTERNAL", f"{type(exc).__name__}: {_first_line(str(exc))}{where}"


def _strict():
    from spyre_mlir.interpreter import InterpreterOptions

    return InterpreterOptions(mask_out_of_bounds=False)


def run_source(k: Kernel) -> tuple[dict | None, str | None]:
    """Interpret the source; compare with the oracle. Returns (raw outputs, generator error)."""
    import warnings

    import spyre_mlir

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = spyre_mlir.interpret(k.text, k.name, options=k.options(), **k.args())
        except Exception as exc:  # noqa: BLE001
            return None, f"source does not run: {_classify_exc(exc)[1]}"
    raw = {n: np.array(res[n]) for n in k.outputs()}
    for n in k.outputs():
        got = k.logical(n, raw[n])
        if not close(got, k.oracle[n], k.dtype):
            d = np.max(np.abs(got.astype(np.float64) - k.oracle[n].astype(np.float64)))
            return raw, f"source != oracle on '{n}' (max abs diff {d:.3g})"
    return raw, None


def config_spec(config: str, k: Kernel, outdir: str) -> str:
    spec = config.replace("out-dir=D", f"out-dir={outdir}")
    if config.startswith("ktir-to-spatial"):
        sc = k.scalars()
        if sc:
            opt = 'scalars="' + ",".join(f"{a}={b}" for a, b in sc.items()) + '"'
            spec = spec + "{" + opt + "}" if "{" not in spec else spec[:-1] + " " + opt + "}"
    return spec


def run_config(k: Kernel, config: str, source_raw: dict, workdir: str) -> tuple[str, str]:
    """(category, message) of one kernel through one configuration."""
    import warnings

    import spyre_mlir

    outdir = os.path.join(workdir, "bundle")
    spec = config_spec(config, k, outdir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            module = _parsed(k)
            pm = _pass_manager(spec)
            pm.run(module)
        except Exception as exc:  # noqa: BLE001
            return _classify_exc(exc)
        try:
            if config.startswith("ktir-to-bundle"):
                res = spyre_mlir.interpret(os.path.join(outdir, "bundle.mlir"), "sdsc_bundle",
                                           options=k.options(bundle_dir=outdir),
                                           **k.args())
            else:
                res = spyre_mlir.interpret(module, k.name, options=k.options(), **k.args())
        except Exception as exc:  # noqa: BLE001
            cat, msg = _classify_exc(exc)
            return ("INTERNAL" if cat == "INTERNAL" else "RUNFAIL"), msg
    tol_ok = k.sums and k.markers and config != "default"
    for n in k.outputs():
        got = np.asarray(res[n])
        want = source_raw[n]
        if got.shape != want.shape or got.dtype != want.dtype:
            return "WRONG", f"output '{n}' has shape/dtype {got.shape}/{got.dtype}, source {want.shape}/{want.dtype}"
        if np.array_equal(got, want, equal_nan=True):
            continue
        if tol_ok and close(k.logical(n, got), k.logical(n, want), k.dtype):
            continue
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        bad = int(np.count_nonzero(~np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=0, atol=0)))
        return "WRONG", f"output '{n}' differs from the source at {bad}/{got.size} elements (max abs diff {np.nanmax(diff):.3g})"
    return "ok", ""


_PARSED: dict = {}


def _parsed(k: Kernel):
    """A fresh copy of the kernel's module (parsed and verified once per kernel)."""
    import spyre_fuzz as fuzz

    key = (k.seed, k.index)
    if key not in _PARSED:
        _PARSED.clear()
        _PARSED[key] = fuzz.parse_text(k.text)
    return fuzz.clone_module(_PARSED[key])


def _pass_manager(spec: str):
    """The pipeline's pass manager, its passes built once per process (as the fuzzer does)."""
    import spyre_fuzz as fuzz

    return fuzz.pass_manager(spec, pipeline=True)


def normalize(msg: str) -> str:
    m = re.sub(r"gen_\d+_\d+", "K", msg)
    m = re.sub(r"%[\w.]+", "%v", m)
    m = re.sub(r"\d+", "N", m)
    m = re.sub(r"/tmp/\S+", "DIR", m)
    return m[:160]


# -- worker process with a per-config timeout ---------------------------------


def _worker(conn, workdir: str) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
        while True:
            task = conn.recv()
            if task is None:
                return
            seed, index, configs = task
            try:
                k = generate(seed, index)
            except Exception as exc:  # noqa: BLE001
                conn.send(("gen", "GENERATOR", f"generation failed: {type(exc).__name__}: {exc}"))
                conn.send(("done",))
                continue
            t0 = time.time()
            raw, err = run_source(k)
            conn.send(("source", "GENERATOR" if err else "ok", err or "", round(time.time() - t0, 2), k.features))
            if raw is not None and err is None:
                for c in configs:
                    t0 = time.time()
                    try:
                        cat, msg = run_config(k, c, raw, workdir)
                    except Exception as exc:  # noqa: BLE001
                        cat, msg = _classify_exc(exc)
                    conn.send(("config", c, cat, msg, round(time.time() - t0, 2)))
            conn.send(("done",))


class Runner:
    def __init__(self, timeout: float):
        import multiprocessing as mp

        self.ctx = mp.get_context("fork")
        self.timeout = timeout
        self.tmp = tempfile.mkdtemp(prefix="kernel_gen_")
        self.proc = None
        self._start()

    def _start(self):
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker, args=(child, self.tmp), daemon=True)
        self.proc.start()

    def _kill(self):
        with contextlib.suppress(Exception):
            self.proc.kill()
            self.proc.join(5)
        self._start()

    def run(self, seed: int, index: int, configs) -> dict:
        out = {"index": index, "source": None, "configs": {}}
        self.conn.send((seed, index, list(configs)))
        pending = list(configs)
        while True:
            if not self.conn.poll(self.timeout):
                where = pending[0] if out["source"] is not None and pending else "source"
                if where == "source":
                    out["source"] = {"category": "HANG", "message": f"source over {self.timeout:g} s"}
                else:
                    out["configs"][where] = {"category": "HANG", "message": f"over {self.timeout:g} s", "time": self.timeout}
                    for c in pending[1:]:
                        out["configs"][c] = {"category": "skipped", "message": "after a hang", "time": 0}
                self._kill()
                return out
            try:
                msg = self.conn.recv()
            except EOFError:
                where = pending[0] if pending else "source"
                code = self.proc.exitcode
                if out["source"] is None:
                    out["source"] = {"category": "INTERNAL", "message": f"worker died (exit {code})"}
                else:
                    out["configs"][where] = {"category": "INTERNAL", "message": f"worker crashed (exit {code})", "time": 0}
                self._kill()
                return out
            if msg[0] == "done":
                return out
            if msg[0] in ("gen", "source"):
                out["source"] = {"category": msg[1], "message": msg[2]}
                if msg[0] == "source":
                    out["source"]["time"] = msg[3]
                    out["features"] = msg[4]
            elif msg[0] == "config":
                _, c, cat, m, t = msg
                out["configs"][c] = {"category": cat, "message": m, "time": t}
                if c in pending:
                    pending.remove(c)

    def close(self):
        with contextlib.suppress(Exception):
            self.conn.send(None)
            self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()


def report(results: list[dict], seed: int, configs, file=sys.stdout) -> dict:
    table = {c: Counter() for c in configs}
    gen_errors = [r for r in results if r["source"] and r["source"]["category"] != "ok"]
    findings: dict = {}
    refusals: Counter = Counter()
    refusal_example: dict = {}
    for r in results:
        for c, o in r["configs"].items():
            table[c][o["category"]] += 1
            key = (c, o["category"], normalize(o["message"]))
            if o["category"] in FINDINGS:
                f = findings.setdefault(key, {"config": c, "category": o["category"], "message": o["message"],
                                              "first": r["index"], "count": 0, "kernels": []})
                f["count"] += 1
                if len(f["kernels"]) < 8:
                    f["kernels"].append(r["index"])
            elif o["category"] == "refused":
                rk = normalize(o["message"])
                refusals[rk] += 1
                refusal_example.setdefault(rk, (c, r["index"], o["message"]))
    cats = [c for c in CATEGORIES if any(table[x][c] for x in configs)] or ["ok"]
    if any(table[x]["skipped"] for x in configs):
        cats.append("skipped")
    w = max(len(c) for c in configs)
    print(f"\n{len(results)} kernels, seed {seed}; generator errors (source vs oracle): {len(gen_errors)}", file=file)
    print(f"{'config':<{w}} " + " ".join(f"{c:>9}" for c in cats), file=file)
    for c in configs:
        print(f"{c:<{w}} " + " ".join(f"{table[c][x]:>9}" for x in cats), file=file)
    for r in gen_errors[:10]:
        print(f"  GENERATOR kernel {r['index']}: {r['source']['message']}", file=file)
    print(f"\ndistinct findings: {len(findings)}", file=file)
    for f in sorted(findings.values(), key=lambda f: (f["category"], f["config"], -f["count"])):
        print(f"- [{f['category']}] {f['config']}: {f['message']}\n    {f['count']} kernel(s), e.g. {f['kernels']}; "
              f"reproduce: python -m spyre_fuzz.kernel_gen --seed {seed} --show {f['first']} "
              f"--run '{f['config']}'", file=file)
    print("\nmost frequent refusals:", file=file)
    for m, n in refusals.most_common(10):
        c, i, full = refusal_example[m]
        print(f"  {n:4d}  {full}\n        e.g. {c}, --show {i}", file=file)
    return {"table": {c: dict(v) for c, v in table.items()},
            "generator_errors": [{"index": r["index"], "message": r["source"]["message"]} for r in gen_errors],
            "findings": list(findings.values()),
            "refusals": [{"count": n, "message": refusal_example[m][2], "config": refusal_example[m][0],
                          "first": refusal_example[m][1]} for m, n in refusals.most_common(30)]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m spyre_fuzz.kernel_gen", description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="first kernel index")
    ap.add_argument("--show", type=int, help="print kernel N (with its arguments and features) and exit")
    ap.add_argument("--run", help="with --show: run kernel N through these configs (comma-separated; 'all')")
    ap.add_argument("--configs", default="all", help="configs to run (';'-separated), default all")
    ap.add_argument("--source-only", action="store_true", help="only check each source against its oracle")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per (kernel, config)")
    ap.add_argument("--out", help="write the kernels with findings here (one .mlir each)")
    ap.add_argument("--json", help="write the results as JSON")
    a = ap.parse_args(argv)
    configs = list(CONFIGS) if a.configs == "all" else [c.strip() for c in a.configs.split(";") if c.strip()]
    if a.show is not None:
        k = generate(a.seed, a.show)
        sys.stdout.write(k.text)
        args = ", ".join(f"{p.name}={'array' + str(p.shape) if p.kind == 'ptr' else p.value}"
                         + (" (stick layout)" if p.layout else "") for p in k.params)
        print(f"// args: {args}")
        if a.run:
            run = list(CONFIGS) if a.run == "all" else [c for c in CONFIGS if c in a.run.split(";")] or [a.run]
            raw, err = run_source(k)
            print(f"// source vs oracle: {err or 'ok'}")
            if raw is not None and err is None:
                with tempfile.TemporaryDirectory() as tmp:
                    for c in run:
                        try:
                            cat, msg = run_config(k, c, raw, tmp)
                        except Exception as exc:  # noqa: BLE001
                            traceback.print_exc()
                            cat, msg = _classify_exc(exc)
                        print(f"// {c}: {cat} {msg}")
        return 0
    results = []
    t0 = time.time()
    if a.source_only:
        bad = 0
        for i in range(a.start, a.start + a.count):
            k = generate(a.seed, i)
            _, err = run_source(k)
            if err:
                bad += 1
                print(f"kernel {i}: {err}")
        print(f"{a.count} kernels, {bad} generator errors")
        return 1 if bad else 0
    runner = Runner(a.timeout)
    try:
        for n, i in enumerate(range(a.start, a.start + a.count)):
            r = runner.run(a.seed, i, configs)
            results.append(r)
            bad = [f"{c}:{o['category']}" for c, o in r["configs"].items() if o["category"] in FINDINGS]
            src = r["source"]["category"] if r["source"] else "?"
            print(f"[{n + 1}/{a.count}] kernel {i} {time.time() - t0:.0f}s source={src} "
                  + (" ".join(bad) if bad else ""), file=sys.stderr, flush=True)
    finally:
        runner.close()
    summary = report(results, a.seed, configs)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        for f in summary["findings"]:
            k = generate(a.seed, f["first"])
            safe = re.sub(r"[^\w.-]+", "_", f["config"])[:40]
            with open(os.path.join(a.out, f"{f['category']}-{safe}-{f['first']}.mlir"), "w") as fh:
                fh.write(f"// {f['category']} {f['config']}: {f['message']}\n" + k.text)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"seed": a.seed, "count": a.count, "results": results, **summary}, fh, indent=1, default=str)
    return 1 if summary["findings"] or summary["generator_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
