"""The one affine evaluator (`spyre_mlir.analysis.affine`): maps in MLIR's `index`
arithmetic, sets exact, and the tile-set geometry built on them.

- maps: known answers (each one what real MLIR folds it to), a seeded random
  comparison with the definition (wrap after every step) over Python ints,
  int64 arrays and a mix, and the same random maps folded by real MLIR
  (iree-opt) when it is installed;
- sets: `contains`, `bounding_box` and `box_bounds` against brute-force
  enumeration of seeded random small sets (triangles, empty sets, floordiv
  and mod constraints), and exactness near 2^63 over int64 coordinates.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineConstraintExpr,
    AffineConstraintKind,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSet,
    AffineSymExpr,
)

import spyre_mlir
from spyre_mlir.analysis.affine import (
    AffineEvaluationError,
    bounding_box,
    box_bounds,
    compile_map,
    compile_set,
    contains,
    format_map,
)

ADD, MUL = AffineBinaryOpKind.Add, AffineBinaryOpKind.Mul
FLOOR, CEIL, MOD = AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.CeilDiv, AffineBinaryOpKind.Mod
GE, LE, EQ = AffineConstraintKind.ge, AffineConstraintKind.le, AffineConstraintKind.eq
MIN, MAX = -(1 << 63), (1 << 63) - 1
EDGES = [0, 1, -1, 2, -2, 3, -7, 7, 64, 1 << 31, 1 << 62, -(1 << 62), MAX, MIN, MAX - 1, MIN + 1, 12345678901234567]


def d(i: int) -> AffineExpr:
    return AffineDimExpr(i)


def s(i: int) -> AffineExpr:
    return AffineSymExpr(i)


def c(v: int) -> AffineExpr:
    return AffineConstantExpr(v)


def op(kind: AffineBinaryOpKind, a: AffineExpr, b: AffineExpr) -> AffineExpr:
    """A node as written, without xDSL's folding."""
    return AffineBinaryOpExpr(kind, a, b)


def wrap(v: int) -> int:
    return ((v - MIN) & ((1 << 64) - 1)) + MIN


def reference(e: AffineExpr, dims, syms) -> int:
    """MLIR's index arithmetic by its definition: every step on 64-bit values, wrapped."""
    if isinstance(e, AffineDimExpr):
        return dims[e.position]
    if isinstance(e, AffineSymExpr):
        return syms[e.position]
    if isinstance(e, AffineConstantExpr):
        return e.value
    assert isinstance(e, AffineBinaryOpExpr)
    a, b = reference(e.lhs, dims, syms), reference(e.rhs, dims, syms)
    if e.kind is ADD:
        return wrap(a + b)
    if e.kind is MUL:
        return wrap(a * b)
    if e.kind is FLOOR:
        return wrap(a // b)
    if e.kind is CEIL:
        return wrap(-(-a // b))
    return wrap(a % b)


def evaluate_all_ways(amap: AffineMap, dims: list[int], syms: list[int]) -> list[list[int]]:
    """The map's results over Python ints, int64 arrays, and arrays with int symbols."""
    fn = compile_map(amap)
    scalar = [int(v) for v in fn(dims, syms)]
    arrays = fn([np.array([v, v], np.int64) for v in dims], [np.array([v, v], np.int64) for v in syms])
    mixed = fn([np.array([v], np.int64) for v in dims], syms)
    as_list = [[int(np.broadcast_to(r, (2,))[k]) for r in arrays] for k in range(2)]
    return [scalar, *as_list, [int(np.asarray(r).reshape(-1)[0]) for r in mixed]]


# --------------------------------------------------------------------------
# Maps: index arithmetic
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "value", "expected"),
    [
        # Each expected value is what real MLIR (iree-opt --canonicalize) folds
        # `affine.apply` of the constant to.
        (op(FLOOR, d(0), c(2)), -7, -4),
        (op(CEIL, d(0), c(2)), -7, -3),
        (op(MOD, d(0), c(2)), -7, 1),
        (op(MOD, d(0), c(64)), -1, 63),
        (op(FLOOR, d(0), c(-2)), -7, 3),
        (op(FLOOR, op(MUL, d(0), c(4)), c(3)), 1 << 62, 0),  # the product wraps before the division
        (op(ADD, op(MUL, d(0), c(2)), c(5)), 1 << 62, MIN + 5),
        (op(CEIL, d(0), c(2)), MIN, -(1 << 62)),  # no overflow negating -2^63
        (op(ADD, d(0), c(1)), MAX, MIN),
        (op(MUL, d(0), c(MIN)), -1, MIN),
        # MLIR leaves these undefined (a non-positive divisor); here they round
        # the same way, and -2^63 floordiv -1 wraps like the sum it equals.
        (op(MOD, d(0), c(-3)), 7, -2),
        (op(CEIL, d(0), c(-2)), 7, -3),
        (op(FLOOR, d(0), c(-1)), MIN, MIN),
        (op(CEIL, d(0), c(-1)), MIN, MIN),
    ],
)
def test_map_known_answers(expr, value, expected):
    amap = AffineMap(1, 0, (expr,))
    with np.errstate(over="ignore"):  # NumPy warns of the wrap in -2^63 floordiv -1
        for results in evaluate_all_ways(amap, [value], []):
            assert results == [expected]


def random_expr(rng: random.Random, n_dims: int, n_syms: int, depth: int, positive_divisors: bool) -> AffineExpr:
    if depth == 0 or rng.random() < 0.25:
        pick = rng.random()
        if pick < 0.5 and n_dims:
            return d(rng.randrange(n_dims))
        if pick < 0.7 and n_syms:
            return s(rng.randrange(n_syms))
        return c(rng.choice(EDGES))
    kind = rng.choice([ADD, ADD, MUL, FLOOR, CEIL, MOD])
    lhs = random_expr(rng, n_dims, n_syms, depth - 1, positive_divisors)
    if kind is ADD:
        return op(ADD, lhs, random_expr(rng, n_dims, n_syms, depth - 1, positive_divisors))
    if kind is MUL:
        return op(MUL, lhs, c(rng.choice(EDGES)))
    divisors = [v for v in EDGES if v > 0] if positive_divisors else [v for v in EDGES if v != 0]
    return op(kind, lhs, c(rng.choice(divisors)))


def random_maps(seed: int, count: int, positive_divisors: bool):
    rng = random.Random(seed)
    for _ in range(count):
        n_dims, n_syms = rng.randrange(1, 3), rng.randrange(0, 2)
        amap = AffineMap(n_dims, n_syms, (random_expr(rng, n_dims, n_syms, 4, positive_divisors),))
        yield amap, [rng.choice(EDGES) for _ in range(n_dims)], [rng.choice(EDGES) for _ in range(n_syms)]


def test_maps_are_index_arithmetic_on_ints_arrays_and_mixes():
    """Python ints (exact, wrapped where it matters), int64 arrays (wrapping by
    themselves) and arrays with huge int symbols all give the definition."""
    with np.errstate(over="ignore"):
        for amap, dims, syms in random_maps(seed=7, count=3000, positive_divisors=False):
            expected = [reference(e, dims, syms) for e in amap.results]
            for results in evaluate_all_ways(amap, dims, syms):
                assert results == expected, (format_map(amap), dims, syms)


def test_map_division_by_zero_and_wide_constants_are_errors():
    by_zero = AffineMap(1, 1, (op(FLOOR, d(0), s(0)),))  # only IR built by code divides by a non-constant
    assert compile_map(by_zero)([7], [2]) == (3,)
    assert list(compile_map(by_zero)([np.array([7, -7])], [2])[0]) == [3, -4]
    with pytest.raises(AffineEvaluationError, match="divides by zero"):
        compile_map(by_zero)([7], [0])
    with pytest.raises(AffineEvaluationError, match="divides by zero"):
        compile_map(by_zero)([np.array([7, 8])], [np.array([1, 0])])
    with pytest.raises(AffineEvaluationError, match="divides by zero"):
        compile_map(AffineMap(1, 0, (op(MOD, d(0), c(0)),)))([1], [])
    with pytest.raises(AffineEvaluationError, match="does not fit in 64 bits"):
        compile_map(AffineMap(1, 0, (op(ADD, d(0), c(1 << 64)),)))


def test_interpreter_affine_apply_wraps_before_dividing():
    """The interpreter's scalar path gives what MLIR folds (it used to divide the exact product)."""
    src = """
    func.func @f(%i: index) -> index {
      %0 = affine.apply affine_map<(d0) -> ((d0 * 4) floordiv 3)>(%i)
      return %0 : index
    }"""
    assert int(spyre_mlir.interpret(src, "f", i=1 << 62)["return_0"]) == 0


IREE_OPT = shutil.which("iree-opt", path=str(Path(sys.executable).parent)) or shutil.which("iree-opt")


@pytest.mark.skipif(IREE_OPT is None, reason="iree-opt (iree-base-compiler) not installed")
def test_maps_fold_as_in_real_mlir():
    """Random maps (positive divisors: MLIR defines no other) applied to
    constants and folded by `iree-opt --canonicalize` give our values."""
    cases = list(random_maps(seed=11, count=300, positive_divisors=True))
    lines, results = [], []
    for k, (amap, dims, syms) in enumerate(cases):
        operands = []
        for j, v in enumerate(dims + syms):
            lines.append(f"  %a{k}_{j} = arith.constant {v} : index")
            operands.append(f"%a{k}_{j}")
        dim_ops, sym_ops = operands[: len(dims)], operands[len(dims) :]
        syms_text = f"[{', '.join(sym_ops)}]" if sym_ops else ""
        lines.append(f"  %r{k} = affine.apply affine_map<{format_map(amap)}>({', '.join(dim_ops)}){syms_text}")
        results.append(f"%r{k}")
    types = ", ".join(["index"] * len(cases))
    text = f"func.func @f() -> ({types}) {{\n" + "\n".join(lines) + f"\n  return {', '.join(results)} : {types}\n}}\n"
    proc = subprocess.run([IREE_OPT, "--canonicalize", "-"], input=text, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    constants = dict(re.findall(r"(%[\w-]+) = arith\.constant (-?\d+) : index", proc.stdout))
    (returned,) = re.findall(r"return (.*) :", proc.stdout)
    folded = [constants.get(name.strip()) for name in returned.split(",")]
    assert None not in folded, "MLIR left an affine.apply unfolded"
    compared = 0
    for (amap, dims, syms), theirs in zip(cases, folded):
        if all(MIN <= exact(e, dims, syms) <= MAX for r in amap.results for e in r.dfs()):
            # MLIR simplifies before it folds, as if nothing overflowed: `(d0 * c) floordiv 7`
            # becomes `d0 * (c / 7)`. Its lowering wraps every step (the test above); so
            # MLIR's folds are compared where no step overflows.
            assert compile_map(amap)(dims, syms) == (int(theirs),), (format_map(amap), dims, syms)
            compared += 1
    assert compared > 100


# --------------------------------------------------------------------------
# Sets: exact membership and geometry
# --------------------------------------------------------------------------


def exact(e: AffineExpr, dims, syms):
    """Exact integer value (floor semantics), over Python ints or int64 arrays of small values."""
    if isinstance(e, AffineDimExpr):
        return dims[e.position]
    if isinstance(e, AffineSymExpr):
        return syms[e.position]
    if isinstance(e, AffineConstantExpr):
        return e.value
    assert isinstance(e, AffineBinaryOpExpr)
    a, b = exact(e.lhs, dims, syms), exact(e.rhs, dims, syms)
    if e.kind is ADD:
        return a + b
    if e.kind is MUL:
        return a * b
    if e.kind is FLOOR:
        return a // b
    if e.kind is CEIL:
        return -(-a // b)
    return a % b


def brute_force_mask(aset: AffineSet, points: np.ndarray, syms=()) -> np.ndarray:
    dims = [points[:, i] for i in range(aset.num_dims)]
    mask = np.ones(points.shape[0], bool)
    for con in aset.constraints:
        lhs, rhs = exact(con.lhs, dims, syms), exact(con.rhs, dims, syms)
        mask &= np.asarray(lhs == rhs if con.kind is EQ else lhs >= rhs if con.kind is GE else lhs <= rhs)
    return mask


def window(n: int, radius: int) -> np.ndarray:
    axes = np.meshgrid(*[np.arange(-radius, radius + 1)] * n, indexing="ij")
    return np.stack([a.reshape(-1) for a in axes], axis=1).astype(np.int64)


def members_box(points: np.ndarray, mask: np.ndarray, n: int) -> list[tuple[int, int]]:
    members = points[mask]
    if members.shape[0] == 0:
        return [(0, -1)] * n
    return [(int(a), int(b)) for a, b in zip(members.min(axis=0), members.max(axis=0))]


def ge(e: AffineExpr) -> AffineConstraintExpr:
    return AffineConstraintExpr(GE, e, c(0))


def linear(coeffs: list[int], const: int) -> AffineExpr:
    e: AffineExpr = c(const)
    for i, k in enumerate(coeffs):
        if k:
            e = op(ADD, op(MUL, d(i), c(k)), e)
    return e


def random_set(rng: random.Random) -> tuple[AffineSet, bool]:
    """A small set, and whether each dim has explicit bounds of its own."""
    n = rng.randrange(1, 4)
    constraints = []
    all_bounded = True
    for i in range(n):
        if rng.random() < 0.8:
            lo = rng.randrange(-5, 4)
            hi = lo + rng.randrange(-1, 6)  # hi < lo: an empty set
            constraints += [ge(linear([int(j == i) for j in range(n)], -lo)), ge(linear([-int(j == i) for j in range(n)], hi))]
        else:
            all_bounded = False
    for _ in range(rng.randrange(0, 4)):
        pick = rng.random()
        coeffs = [rng.randrange(-2, 3) for _ in range(n)]
        if pick < 0.4:  # a triangle or another linear cut
            kind = rng.choice([GE, GE, LE, EQ])
            constraints.append(AffineConstraintExpr(kind, linear(coeffs, rng.randrange(-6, 7)), c(0)))
        else:  # floordiv, ceildiv, mod of a linear term
            kind = rng.choice([FLOOR, CEIL, MOD])
            term = op(kind, linear(coeffs, rng.randrange(-6, 7)), c(rng.randrange(1, 5)))
            constraints.append(AffineConstraintExpr(rng.choice([GE, LE, EQ]), term, c(rng.randrange(-2, 3))))
    return AffineSet(n, 0, tuple(constraints)), all_bounded


SETS = [
    # 0 <= d1 <= d0 <= 3: d1's upper and d0's lower bound come through the other dim
    AffineSet(2, 0, (ge(d(1)), ge(op(ADD, d(0), op(MUL, d(1), c(-1)))), ge(op(ADD, op(MUL, d(0), c(-1)), c(3))))),
    # 0 <= d0, d1 <= 3, d0 + d1 <= 2: a 3x3 box
    AffineSet(2, 0, (ge(d(0)), ge(d(1)), ge(linear([-1, 0], 3)), ge(linear([0, -1], 3)), ge(linear([-1, -1], 2)))),
    AffineSet(2, 0, (ge(d(0)), ge(d(1)), ge(linear([1, -1], 0)), ge(linear([-1, 0], 3)))),
    AffineSet(1, 0, (ge(linear([1], -1)), ge(linear([-1], 0)))),  # 1 <= d0 <= 0: empty
    AffineSet(2, 0, (ge(d(0)), ge(d(1)), ge(linear([-1, -1], -1)))),  # d0 + d1 <= -1 over d >= 0: empty, not a box
    AffineSet(2, 0, (ge(d(0)), ge(linear([-1, 0], 9)), ge(d(1)), ge(linear([0, -1], 9)),
                     AffineConstraintExpr(EQ, op(MOD, linear([1, 1], 0), c(4)), c(0)))),  # a checkerboard
]


@pytest.mark.parametrize("aset", SETS, ids=range(len(SETS)))
def test_geometry_of_triangles_and_empty_sets(aset):
    points = window(aset.num_dims, 12)
    mask = brute_force_mask(aset, points)
    assert (contains(aset, points) == mask).all()
    assert bounding_box(aset) == members_box(points, mask, aset.num_dims)


def test_geometry_matches_brute_force_on_random_sets():
    rng = random.Random(3)
    checked = unbounded = 0
    for _ in range(400):
        aset, all_bounded = random_set(rng)
        radius = 24
        points = window(aset.num_dims, radius)
        mask = brute_force_mask(aset, points)
        assert (contains(aset, points) == mask).all(), aset
        box = bounding_box(aset)
        if box is None:
            assert not all_bounded, aset  # explicit bounds on every dim always bound it
            unbounded += 1
            continue
        members = points[mask]
        if members.size and np.abs(members).max() == radius:
            continue  # the set may reach beyond the window
        assert box == members_box(points, mask, aset.num_dims), aset
        exact_box = box_bounds(aset)
        if exact_box is not None:  # the set is exactly that box
            lo, hi = np.array([b[0] for b in exact_box]), np.array([b[1] for b in exact_box])
            assert (mask == ((points >= lo) & (points <= hi)).all(axis=1)).all(), aset
        checked += 1
    assert checked > 250 and unbounded > 10, (checked, unbounded)


def substitute(e: AffineExpr, dims: list[AffineExpr]) -> AffineExpr:
    """`e` with its dims replaced, node for node (xDSL's own replacement folds, and folding wraps)."""
    if isinstance(e, AffineDimExpr):
        return dims[e.position]
    if isinstance(e, AffineBinaryOpExpr):
        return op(e.kind, substitute(e.lhs, dims), substitute(e.rhs, dims))
    return e


def test_sets_are_exact_near_2_pow_63():
    """Shifted to near the ends of int64, the random sets have the same members;
    cut by constraints whose values leave 64 bits (`d0 * 3 + C >= 0` at d0 near
    2^63), membership is still exact over int64 coordinates."""
    rng = random.Random(5)
    outcomes = set()
    for _ in range(150):
        base, _ = random_set(rng)
        n = base.num_dims
        shift = [rng.choice([MAX - 6, MIN + 6, 1 << 62]) for _ in range(n)]
        # every d_i becomes d_i - shift_i: the same set, moved
        moved = [op(ADD, d(i), c(-v)) for i, v in enumerate(shift)]
        aset = AffineSet(n, 0, tuple(
            AffineConstraintExpr(k.kind, substitute(k.lhs, moved), substitute(k.rhs, moved)) for k in base.constraints
        ))
        points = window(n, 5)
        shifted = points + np.array(shift, np.int64)
        expected = brute_force_mask(base, points)
        assert (contains(aset, shifted) == expected).all(), aset
        wide = AffineSet(n, 0, (*aset.constraints, *(
            AffineConstraintExpr(rng.choice([GE, LE]), op(ADD, op(MUL, d(i), c(rng.choice([2, 3, -2]))), c(rng.randrange(MIN, MAX))), c(0))
            for i in range(n)
        )))
        expected = brute_force_mask(wide, shifted.astype(object))  # Python ints: exact
        assert (contains(wide, shifted) == expected).all(), wide
        assert (contains(wide, shifted.astype(object)) == expected).all(), wide
        for p, e in zip(shifted[:20].tolist(), expected[:20]):
            assert bool(compile_set(wide)(p, ())) == bool(e)
        outcomes.update(expected.tolist())
    assert outcomes == {True, False}


def test_a_set_is_exact_where_int64_would_wrap():
    # d0 * 2^62 >= 0 at d0 = 2 is 2^63 >= 0: true, though int64 wraps it to -2^63
    aset = AffineSet(1, 0, (ge(op(MUL, d(0), c(1 << 62))),))
    member = compile_set(aset)
    assert list(member([np.array([2, -2, 1], np.int64)], ())) == [True, False, True]
    assert bool(member([np.int64(2)], ())) and bool(member([2], ()))
    # the lit test's set: the 4x4 box at rows 2^63 - 4 .. 2^63 - 1, cut by d0 * 3 - d1 * (2^63 - 1) >= 0
    lit = AffineSet(2, 0, (
        ge(op(ADD, d(0), c(-(MAX - 3)))), ge(op(ADD, op(MUL, d(0), c(-1)), c(MAX))),
        ge(d(1)), ge(op(ADD, op(MUL, d(1), c(-1)), c(3))),
        ge(op(ADD, op(MUL, d(0), c(3)), op(MUL, d(1), c(-MAX)))),
    ))
    assert bounding_box(lit) == [(MAX - 3, MAX), (0, 3)]


def test_negation_of_a_division_prints_as_mlir_reads_it():
    """`-(d0 floordiv 2)` printed as `-d0 floordiv 2` read back as `(-d0) floordiv 2`."""
    src = "func.func @f(%i: index) -> index {\n  %0 = affine.apply affine_map<(d0) -> (-(d0 floordiv 2))>(%i)\n  return %0 : index\n}\n"
    text = spyre_mlir.ir.print_ir(spyre_mlir.parse(src))
    assert "affine_map<(d0) -> (-(d0 floordiv 2))>" in text
    assert int(spyre_mlir.interpret(text, "f", i=1)["return_0"]) == 0


def test_symbols_of_a_set():
    # 0 <= d0 < s0, d0 mod 2 == 0
    aset = AffineSet(1, 1, (ge(d(0)), ge(op(ADD, s(0), op(MUL, d(0), c(-1)))),
                            AffineConstraintExpr(EQ, op(MOD, d(0), c(2)), c(0))))
    assert bounding_box(aset, (7,)) == [(0, 6)]
    assert bounding_box(aset, (0,)) == [(0, 0)]
    assert box_bounds(aset, (7,)) is None
    assert bounding_box(aset, ()) is None  # the symbol is not given
