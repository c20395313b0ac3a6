"""Kernel `index` of a seed: how tiles are distributed over the grid (the
scheme), the tile-id prologue, the loads, the body and the stores."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from spyre_fuzz.kernel_gen.body import Body, Gen, Val
from spyre_fuzz.kernel_gen.kernel import (
    CONSTS,
    GRIDS,
    ID1,
    ID2,
    NP,
    STICK,
    Kernel,
    Param,
    box1,
    box2,
    stick_layout1,
    stick_layout2,
)


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


def _choose_scheme(g: Gen, T: str, acc: bool, force_stick: bool, stick: int = STICK) -> Scheme:
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


def _emit_tile_ids(g: Gen, s: Scheme) -> dict:
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


def _const_index(g: Gen, v: int, cache: dict) -> str:
    if v not in cache:
        n = g.fresh(f"c{v}_")
        g.emit(f"{n} = arith.constant {v} : index")
        cache[v] = n
    return cache[v]


def generate(seed: int, index: int) -> Kernel:
    """Kernel `index` of `seed` (independent of how many are generated)."""
    rng = np.random.default_rng([seed, index, 0x6b67])
    g = Gen(rng)
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
                   f"{{coordinate_set = {box2(r, c)}, memory_space = #ktdp.memory_space<global>}} : memref<{r}x{c}x{T}>")
            if p.view != "row":
                feats.append(f"view({p.name})={p.view}")
            if p.layout:
                g.emit(f"spyre.tensor_layout {v} {{{stick_layout2(stick)}}} : memref<{r}x{c}x{T}>")
        else:
            (n,) = p.shape
            g.emit(f"{v} = ktdp.construct_memory_view %{p.name}, sizes: [{n}], strides: [1] "
                   f"{{coordinate_set = {box1(n)}, memory_space = #ktdp.memory_space<global>}} : memref<{n}x{T}>")
            if p.layout:
                g.emit(f"spyre.tensor_layout {v} {{{stick_layout1(stick)}}} : memref<{n}x{T}>")
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
                g.emit(f"{t} = ktdp.construct_access_tile {views[p.name]}[{row}, {ccol}] {{access_tile_set = {box2(B, Cb)}, "
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
                    g.emit(f"{t} = ktdp.construct_access_tile {views['xt']}[{col}, {row}] {{access_tile_set = {box2(Cb_, B)}, "
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
                    g.emit(f"{t} = ktdp.construct_access_tile {views['w']}[{col}] {{access_tile_set = {box1(s.Cb)}, "
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
            g.emit(f"{t} = ktdp.construct_access_tile {views['wm']}[{c0}, {col}] {{access_tile_set = {box2(K, s.Cb)}, "
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
    g.emit(f"{t} = ktdp.construct_access_tile {views['out']}[{row}, {col}] {{access_tile_set = {box2(B, s.Cb)}, "
           f"access_tile_order = {ID2}}} : memref<{p.shape[0]}x{p.shape[1]}x{T}> -> !ktdp.access_tile<{B}x{s.Cb}xindex>")
    g.emit(f"ktdp.store {v.ssa}, {t} : tensor<{B}x{s.Cb}x{T}>, !ktdp.access_tile<{B}x{s.Cb}xindex>")
