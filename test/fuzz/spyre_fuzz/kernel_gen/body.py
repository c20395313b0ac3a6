"""The tile body: MLIR lines and, for each value, the NumPy function that
computes it on a tile (the oracle is built as the kernel is written)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from spyre_fuzz.kernel_gen.kernel import CONSTS, ID2, NEG_INF, NP, float_lit


class Gen:
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
    g: Gen
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
            g.emit(f"{s} = arith.constant {float_lit(c)} : {T}")
            v = g.fresh("splat")
            g.emit(f"{v} = tensor.splat {s} : {self.ty(shape)}")
            self.feats.add("tensor.splat")
        else:
            v = g.fresh("dense")
            g.emit(f"{v} = arith.constant dense<{float_lit(c)}> : {self.ty(shape)}")
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
        g.emit(f"{v} = arith.constant dense<{float_lit(c)}> : {self.ty(shape)}")
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
        g.emit(f"  {k1} = arith.constant {float_lit(c1)} : {T}")
        g.emit(f"  {k2} = arith.constant {float_lit(c2)} : {T}")
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
