"""Benchmark spyre-opt against plain xdsl-opt and real MLIR (iree-opt).

Not a test: prints the CPU seconds (user + sys) of each whole process,
start-up included, best of --repeat runs, and ratios against xdsl-opt
measured in the same run. CPU time rather than wall time because this
machine is shared: wall time moved by 50% between identical runs.

    python benchmarks/opt_bench.py [--ops 10000] [--repeat 5]

Workloads:
  startup        an empty module, printed
  parse+print    a generated module of --ops upstream ops (arith/tensor in one func)
  cse,canon      the same module through `cse,canonicalize`
  ktdp parse     a generated KTIR kernel of --ops ops (ktdp + arith); iree-opt reads
                 it in generic form with --allow-unregistered-dialect
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BIN = Path(sys.executable).parent


def tool(name: str) -> str | None:
    path = BIN / name
    return str(path) if path.exists() else shutil.which(name)


def upstream_module(n_ops: int, seed: int = 0) -> str:
    """~n_ops arith ops on index values, with repeats for CSE to find."""
    rng = random.Random(seed)
    lines = ["func.func @f(%a: index, %b: index) -> index {"]
    values = ["%a", "%b"]
    for i in range(n_ops - 1):
        op = rng.choice(["arith.addi", "arith.muli", "arith.subi", "arith.maxsi"])
        x, y = rng.choice(values[-50:]), rng.choice(values[-50:])
        lines.append(f"  %v{i} = {op} {x}, {y} : index")
        values.append(f"%v{i}")
    lines.append(f"  return {values[-1]} : index")
    lines.append("}")
    return "\n".join(lines) + "\n"


def ktdp_module(n_ops: int) -> str:
    """A kernel of repeated view -> tile -> load -> add -> store groups (6 ops each)."""
    lines = ["func.func @k(%x: index, %y: index) attributes {grid = [32]} {", "  %c0 = arith.constant 0 : index"]
    for i in range(max(1, n_ops // 6)):
        lines += [
            f"  %r{i} = arith.constant {i % 64} : index",
            f"  %v{i} = ktdp.construct_memory_view %x, sizes: [64, 64], strides: [64, 1] {{coordinate_set = "
            "affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>, "
            "memory_space = #ktdp.memory_space<global>} : memref<64x64xf16>",
            f"  %t{i} = ktdp.construct_access_tile %v{i}[%r{i}, %c0] {{access_tile_set = "
            "affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, "
            "access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<64x64xf16> -> !ktdp.access_tile<1x64xindex>",
            f"  %d{i} = ktdp.load %t{i} : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>",
            f"  %s{i} = arith.addf %d{i}, %d{i} : tensor<1x64xf16>",
            f"  ktdp.store %s{i}, %t{i} : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>",
        ]
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def best_of(cmd: list[str], repeat: int) -> float | None:
    best = None
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        elapsed = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if proc.returncode != 0:
            print(f"  ! {' '.join(cmd[:2])} ... failed: {proc.stderr.strip().splitlines()[:1]}", file=sys.stderr)
            return None
        best = elapsed if best is None else min(best, elapsed)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    spyre, xdsl, iree = tool("spyre-opt"), tool("xdsl-opt"), tool("iree-opt")
    if spyre is None or xdsl is None:
        print("error: spyre-opt and xdsl-opt must be installed (pip install '.[test]')", file=sys.stderr)
        return 1

    tmp = Path(tempfile.mkdtemp(prefix="spyre-bench-"))
    empty = tmp / "empty.mlir"
    empty.write_text("module {\n}\n")
    up = tmp / "upstream.mlir"
    up.write_text(upstream_module(args.ops))
    kt = tmp / "ktdp.mlir"
    kt.write_text(ktdp_module(args.ops))
    kt_generic = tmp / "ktdp-generic.mlir"
    kt_generic.write_text(
        subprocess.run([spyre, str(kt), "--print-op-generic-for=ktdp"], capture_output=True, text=True, check=True).stdout
    )

    iree_flags = ["--allow-unregistered-dialect", "--mlir-disable-threading"]
    workloads = [
        ("startup", [spyre, str(empty)], [xdsl, str(empty)], iree and [iree, str(empty)]),
        ("parse+print", [spyre, str(up)], [xdsl, str(up)], iree and [iree, *iree_flags, str(up)]),
        (
            "cse,canonicalize",
            [spyre, str(up), "-p", "cse,canonicalize"],
            [xdsl, str(up), "-p", "cse,canonicalize"],
            iree and [iree, *iree_flags, str(up), "--pass-pipeline=builtin.module(cse,canonicalize)"],
        ),
        ("ktdp parse+print", [spyre, str(kt)], [xdsl, str(kt)], iree and [iree, *iree_flags, str(kt_generic)]),
        (
            "ktdp cse,canonicalize",
            [spyre, str(kt), "-p", "cse,canonicalize"],
            [xdsl, str(kt), "-p", "cse,canonicalize"],
            iree and [iree, *iree_flags, str(kt_generic), "--pass-pipeline=builtin.module(cse,canonicalize)"],
        ),
    ]
    print(f"{args.ops} ops, best of {args.repeat}; CPU seconds (ratio to xdsl-opt)")
    print(f"{'workload':24} {'spyre-opt':>18} {'xdsl-opt':>10} {'iree-opt':>18}")
    for name, s_cmd, x_cmd, i_cmd in workloads:
        s, x = best_of(s_cmd, args.repeat), best_of(x_cmd, args.repeat)
        i = best_of(i_cmd, args.repeat) if i_cmd else None

        def cell(v: float | None) -> str:
            if v is None:
                return "n/a"
            return f"{v:.3f} ({v / x:.2f}x)" if x else f"{v:.3f}"

        print(f"{name:24} {cell(s):>18} {x if x is None else f'{x:.3f}':>10} {cell(i):>18}")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
