"""Scaling of the mechanisms that must stay linear, as ratios measured in one run.

    python benchmarks/scaling_bench.py [--repeat 3]

Each row times a mechanism at size n and at a multiple k*n of it, and prints
the ratio of the times beside k (linear: about k; quadratic: about k*k).
These were assertions in the test suite once; a busy machine made them fail,
so they live here (tests assert behaviour, benchmarks measure speed):

- address-space locate: scattered writes into the interpreter's HBM
  (`interpreter.memory.AddressSpace.locate`), 5,000 vs 40,000 pages;
- dominance: `spyre_mlir.dominance.first_violation` on a chain of uses
  (1,500 vs 6,000) and on nested regions using an outer value (500 vs 2,000);
- walk: `Operation.walk` over 750 vs 3,000 nested `scf.execute_region`s.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.deep import call_deep


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def locate(n: int) -> Callable[[], object]:
    from spyre_mlir.interpreter.memory import AddressSpace

    def run():
        space = AddressSpace("HBM")
        for i in range(n):
            space.locate(i * 8192, i * 8192 + 4, write=True)

    return run


def _func(params: str, body: str) -> str:
    return f"func.func @f({params}) {{\n{body}\n}}\n"


def dominance_chain(n: int) -> Callable[[], object]:
    from spyre_mlir.dominance import first_violation

    body = "\n".join(f"%v{i + 1} = arith.addi %v{i}, %v0 : i32" for i in range(n))
    module = spyre_mlir.parse(_func("%v0: i32", body + "\nreturn"), verify=False)
    return lambda: first_violation(module)


def dominance_nest(n: int) -> Callable[[], object]:
    from spyre_mlir.dominance import first_violation

    level = 'scf.if %c {\n"test.use"(%x) : (i32) -> ()\n'
    text = _func("%c: i1, %x: i32", level * n + "}\n" * n + "return")
    module = call_deep(ir.parse_module, text, "<nest>", ir.make_context(allow_unregistered=True))
    return lambda: call_deep(first_violation, module)


def walk(depth: int) -> Callable[[], object]:
    src = "func.func @f() {\n" + "  scf.execute_region {\n" * depth + "  scf.yield\n  }\n" * depth + "  return\n}\n"
    module = spyre_mlir.parse(src)
    return lambda: sum(1 for _ in module.walk())


CASES = (
    ("address-space locate", locate, 5000, 8),
    ("dominance: chain of uses", dominance_chain, 1500, 4),
    ("dominance: nested regions", dominance_nest, 500, 4),
    ("walk: nested regions", walk, 750, 4),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'mechanism':28} {'n':>7} {'k':>3} {'t(n) ms':>9} {'t(k*n) ms':>10} {'ratio':>6}  (linear ~ k)")
    for name, build, n, k in CASES:
        small = best_of(args.repeat, build(n))
        large = best_of(args.repeat, build(k * n))
        print(f"{name:28} {n:>7} {k:>3} {small * 1e3:>9.1f} {large * 1e3:>10.1f} {large / small:>6.1f}")


if __name__ == "__main__":
    main()
