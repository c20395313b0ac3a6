"""Benchmark spyre-opt against plain xdsl-opt and real MLIR (iree-opt).

Not a test: prints the CPU seconds (user + sys) of each whole process,
start-up included, best of --repeat runs, and ratios against xdsl-opt
measured in the same run. CPU time rather than wall time because this
machine is shared: wall time moved by 50% between identical runs.

    python benchmarks/opt_bench.py [--ops 10000] [--repeat 5]
                                   [--split 1000,8000] [--large-ops 50000]

Workloads:
  startup        an empty module, printed
  parse+print    a generated module of --ops upstream ops (arith/tensor in one func)
  cse,canon      the same module through `cse,canonicalize`
  ktdp parse     a generated KTIR kernel of --ops ops (ktdp + arith); iree-opt reads
                 it in generic form with --allow-unregistered-dialect

Scaling (spyre-opt against iree-opt, no xdsl-opt column):
  split N        --split-input-file over N small functions (4 ops each); the time
                 must grow linearly with N (the ratio between the sizes is printed)
  large N        one function of N upstream ops: CPU seconds and peak memory (RSS)
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
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


def measure(cmd: list[str]) -> tuple[float, int] | None:
    """(CPU seconds, peak RSS in KiB) of one run of `cmd`; None if it failed."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            first = err.read().decode(errors="replace").strip().splitlines()[:1]
            print(f"  ! {' '.join(cmd[:2])} ... failed: {first}", file=sys.stderr)
            return None
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def best_of(cmd: list[str], repeat: int) -> float | None:
    best = best_run(cmd, repeat)
    return None if best is None else best[0]


def best_run(cmd: list[str], repeat: int) -> tuple[float, int] | None:
    """The lowest CPU time of `repeat` runs, and the lowest peak RSS."""
    runs = [measure(cmd) for _ in range(repeat)]
    if any(r is None for r in runs):
        return None
    return min(r[0] for r in runs), min(r[1] for r in runs)  # type: ignore[index]


def split_module(n_chunks: int) -> str:
    """`n_chunks` small functions separated by `// -----` (5 lines each)."""
    chunk = (
        "func.func @f{i}(%a: index) -> index {{\n  %c = arith.constant 1 : index\n"
        "  %r = arith.addi %a, %c : index\n  return %r : index\n}}\n"
    )
    return "// -----\n".join(chunk.format(i=i) for i in range(n_chunks))


def scaling(args, spyre: list[str], iree: str | None, tmp: Path) -> None:
    iree_flags = ["--mlir-disable-threading"]
    sizes = [int(n) for n in args.split.split(",") if n]
    if sizes:
        print(f"\n--split-input-file, best of {args.repeat}; CPU seconds (x: time / time of {sizes[0]} chunks)")
        print(f"{'chunks':>8} {'spyre-opt':>16} {'iree-opt':>16}")
        base: dict[str, float] = {}
        for n in sizes:
            f = tmp / f"split{n}.mlir"
            f.write_text(split_module(n))
            cells = []
            for tool_name, cmd in (("spyre", [*spyre, str(f), "--split-input-file"]),
                                   ("iree", iree and [iree, *iree_flags, str(f), "--split-input-file"])):
                r = best_run(cmd, args.repeat) if cmd else None
                if r is None:
                    cells.append("n/a")
                    continue
                base.setdefault(tool_name, r[0])
                cells.append(f"{r[0]:.3f} ({r[0] / base[tool_name]:.1f}x)")
            print(f"{n:>8} {cells[0]:>16} {cells[1]:>16}")
    if args.large_ops:
        f = tmp / "large.mlir"
        f.write_text(upstream_module(args.large_ops))
        print(f"\none function of {args.large_ops} ops ({f.stat().st_size / 1e6:.1f} MB), best of {args.repeat}")
        print(f"{'tool':12} {'CPU s':>8} {'peak RSS MiB':>13}")
        for tool_name, cmd in (("spyre-opt", [*spyre, str(f)]), ("iree-opt", iree and [iree, *iree_flags, str(f)])):
            r = best_run(cmd, args.repeat) if cmd else None
            print(f"{tool_name:12} " + ("n/a" if r is None else f"{r[0]:>8.3f} {r[1] / 1024:>13.1f}"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--split", default="1000,8000", help="chunk counts for the split workload ('' to skip)")
    ap.add_argument("--large-ops", type=int, default=50_000, help="ops of the large single file (0 to skip)")
    ap.add_argument("--only-scaling", action="store_true", help="skip the xdsl-opt comparison")
    ap.add_argument("--spyre-opt", metavar="CMD", help="command to run as spyre-opt (e.g. an older checkout's "
                    "'python old/tools/spyre_opt.py'), default: the installed one")
    args = ap.parse_args()

    spyre, xdsl, iree = tool("spyre-opt"), tool("xdsl-opt"), tool("iree-opt")
    spyre_cmd = shlex.split(args.spyre_opt) if args.spyre_opt else [spyre]
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
    if args.only_scaling:
        workloads = []
    else:
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
    scaling(args, spyre_cmd, iree, tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
