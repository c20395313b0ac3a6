"""What spyre-physicalize-layouts does to kernels, and what it costs.

    python benchmarks/physicalize_bench.py [--corpus DIR] [--ops 10000] [--repeat 3] [--json FILE]

Not a test. For every corpus kernel with a markable view (global, row-major,
a last dim that is a stick multiple; markers added as the translation
validation test adds them) and for the rule kernels of
test/unit/kernels/layout/rules.mlir, prints how many ops each rule handled,
the relayouts inserted and their bytes (read + written), and the pass's
time against `cse` on the same input, measured in the same run (best of
--repeat; `PassManager.run` alone, with verification, parsing excluded). Then the same timing on a generated marked kernel of --ops ops
(a long elementwise chain between physical loads and stores).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "ktir"
RULES = ROOT / "test" / "unit" / "kernels" / "layout" / "rules.mlir"
sys.path.insert(0, str(ROOT / "test" / "unit"))


def best_pass_time(repeat: int, text: str, pipeline: str) -> float:
    """Seconds of `PassManager.run` alone (each repetition on a freshly parsed module)."""
    import spyre_mlir

    times = []
    for _ in range(repeat):
        module = spyre_mlir.parse(text)
        manager = spyre_mlir.PassManager.parse(pipeline)
        start = time.perf_counter()
        manager.run(module)
        times.append(time.perf_counter() - start)
    return min(times)


def chain_kernel(n_ops: int) -> str:
    """A marked kernel: load two [32, 128] stick-laid tiles, ~n_ops elementwise ops, store."""
    lines = [
        "#x2 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 127 >= 0)>",
        "#id2 = affine_map<(d0, d1) -> (d0, d1)>",
        "func.func @chain(%x: index, %y: index, %out: index) {",
        "  %c0 = arith.constant 0 : index",
    ]
    marker = "{phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>}"
    for name in ("x", "y", "out"):
        lines += [
            f"  %{name}v = ktdp.construct_memory_view %{name}, sizes: [32, 128], strides: [128, 1] "
            "{coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>",
            f"  spyre.tensor_layout %{name}v {marker} : memref<32x128xf32>",
            f"  %{name}t = ktdp.construct_access_tile %{name}v[%c0, %c0] "
            "{access_tile_set = #x2, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>",
        ]
    lines += [
        "  %a0 = ktdp.load %xt : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf32>",
        "  %b = ktdp.load %yt : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf32>",
        "  %half = arith.constant dense<0.5> : tensor<32x128xf32>",
    ]
    ops = ["arith.addf", "arith.mulf", "arith.subf", "arith.maximumf"]
    count = max(1, n_ops - len(lines))
    for i in range(count):
        other = "%b" if i % 3 else "%half"
        lines.append(f"  %a{i + 1} = {ops[i % 4]} %a{i}, {other} : tensor<32x128xf32>")
    lines += [f"  ktdp.store %a{count}, %outt : tensor<32x128xf32>, !ktdp.access_tile<32x128xindex>", "  return", "}"]
    return "\n".join(lines) + "\n"


def measure(name: str, text: str, repeat: int) -> dict:
    import spyre_mlir
    from spyre_mlir.passes.frontend.spyre_physicalize_layouts import LAST_RUN

    spyre_mlir.PassManager.parse("spyre-physicalize-layouts").run(spyre_mlir.parse(text))
    stats = LAST_RUN[-1]
    n_ops = sum(1 for _ in spyre_mlir.parse(text).walk())
    physicalize = best_pass_time(repeat, text, "spyre-physicalize-layouts")
    cse = best_pass_time(repeat, text, "cse")
    return {
        "kernel": name,
        "ops": n_ops,
        "rules": dict(sorted(stats.counts.items())),
        "relayouts": stats.relayouts,
        "relayout_bytes": stats.relayout_bytes,
        "unhandled": len(stats.unhandled),
        "physicalize_ms": physicalize * 1e3,
        "cse_ms": cse * 1e3,
        "ratio": physicalize / cse if cse else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--ops", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()

    from test_physicalize_layouts import add_markers

    inputs: list[tuple[str, str]] = []
    if args.corpus.is_dir():
        for path in sorted(args.corpus.glob("*.mlir")):
            text, marked = add_markers(path.read_text())
            if marked:
                inputs.append((path.stem, text))
    else:
        print(f"(no corpus at {args.corpus}: corpus rows skipped)", file=sys.stderr)
    inputs.append(("rules.mlir (all kernels)", RULES.read_text()))
    inputs.append((f"chain of {args.ops} ops", chain_kernel(args.ops)))

    rows = []
    header = f"{'kernel':<28} {'ops':>6} {'relayouts':>9} {'bytes':>9} {'phys ms':>9} {'cse ms':>8} {'ratio':>6}  rules"
    print(header)
    print("-" * len(header))
    for name, text in inputs:
        row = measure(name, text, args.repeat)
        rows.append(row)
        rules = ", ".join(f"{k} {v}" for k, v in row["rules"].items())
        print(
            f"{name:<28} {row['ops']:>6} {row['relayouts']:>9} {row['relayout_bytes']:>9} "
            f"{row['physicalize_ms']:>9.1f} {row['cse_ms']:>8.1f} {row['ratio']:>5.2f}x  {rules}"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
