"""The bundle's HBM traffic and LX use, untiled and tiled, against what the kernel must move.

    python benchmarks/bundle_bench.py [--corpus DIR] [--json FILE]

Not a test. For seed 000's example and every corpus kernel: lower with
`ktir-to-bundle` untiled (no hint, LX decides) and tiled (seed 000: its
hint of 2 x 4 tiles; the corpus: `slices=2`), run the bundle in the
interpreter with the cost model, and print

- `hbm` — bytes moved between HBM and the cores by the bundle's loads and
  stores (raw bytes: the cost model's `stick_bytes=0`), all cores;
- `source` — the same figure for the source kernel (what its own
  algorithm moves: layernorm reads its input twice, the matmul re-reads
  its operands);
- `compulsory` — inputs read once and outputs written once: the size of
  every array argument and preloaded HBM array, counted once (an array the
  kernel changes is taken as an output it does not read);
- `ratio` — hbm / compulsory (1.00: nothing moved twice, nothing spilled),
  and `vs src` — hbm / source (what the bundle adds: 1.00 is nothing);
- `lx peak` — the bundle's LX peak per core (planned buffers and live
  tensors) against the 2 MiB scratchpad;
- `loops` — the `scf.for` nests the bundle dispatches (tiled groups).

A kernel that reads only part of an array has a ratio below 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "ktir"
SEED = ROOT / "test" / "unit" / "kernels" / "tiling" / "seed000_add_mul.mlir"
sys.path.insert(0, str(ROOT / "test" / "unit"))
LX = 2 * 1024 * 1024


def seed_case():
    rng = np.random.default_rng(0)
    args = {k: rng.standard_normal(1024 * 4096).astype(np.float16) for k in "abcz"}
    return "add_mul", args, {}


def compulsory(before: dict, after: dict, hbm: dict, result) -> int:
    """An array the kernel leaves unchanged is an input, read once; one it changes is an output, written once."""
    total = sum(array.nbytes for array in before.values() if isinstance(array, np.ndarray))
    return total + sum(array.nbytes for array in hbm.values())


def measure(source, name: str, args: dict, hbm: dict, options: str, strip_hint: bool):
    import spyre_mlir
    from spyre_mlir.interpreter import InterpreterOptions
    from spyre_mlir.interpreter.cost import HardwareConfig

    module = spyre_mlir.parse(source)
    if strip_hint:
        for op in module.walk():
            op.attributes.pop("spyre.slices", None)
    out = Path(tempfile.mkdtemp(prefix="bundle_bench_"))
    start = time.perf_counter()
    # our format (format=ktir): it runs with the kernel's own arguments, whose traffic this compares
    spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={out} format=ktir{options}}}").run(module)
    compile_s = time.perf_counter() - start
    bundle = out / "bundle.mlir"
    opts = InterpreterOptions(cost_model=HardwareConfig(stick_bytes=0), check_lx=False)
    result = spyre_mlir.interpret(
        bundle, "sdsc_bundle", options=opts, hbm={a: v.copy() for a, v in hbm.items()},
        **{k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()},
    )
    report = result.report
    loops = bundle.read_text().count("scf.for")
    return result, report.hbm_traffic_bytes, report.peak_lx_bytes_per_core, loops, compile_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()

    import spyre_mlir

    cases = [(SEED, *seed_case(), "", True)]  # untiled: the hint removed; tiled: the hint
    if args.corpus.is_dir():
        from conftest import kernel_arguments

        for path in sorted(args.corpus.glob("*.mlir")):
            cases.append((path, *kernel_arguments(path, seed=0), ",slices=2", False))
    else:
        print(f"(no corpus at {args.corpus}: seed 000's example only)")

    header = (
        f"{'kernel':<22} {'variant':<8} {'hbm bytes':>12} {'source':>12} {'compulsory':>12} {'ratio':>6} {'vs src':>6} "
        f"{'lx peak':>10} {'of LX':>6} {'loops':>5} {'compile s':>9}"
    )
    print(header)
    print("-" * len(header))
    rows = []
    for path, name, kwargs, hbm, tiled_options, hinted in cases:
        source_result = spyre_mlir.interpret(
            path, name, hbm={a: v.copy() for a, v in hbm.items()},
            **{k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()},
        )
        need = compulsory(kwargs, source_result, hbm, source_result)
        from spyre_mlir.interpreter import InterpreterOptions
        from spyre_mlir.interpreter.cost import HardwareConfig

        source_moved = spyre_mlir.interpret(
            path, name, options=InterpreterOptions(cost_model=HardwareConfig(stick_bytes=0), check_lx=False),
            hbm={a: v.copy() for a, v in hbm.items()},
            **{k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()},
        ).report.hbm_traffic_bytes
        variants = [("untiled", "", hinted), ("tiled", tiled_options, False)]
        for variant, options, strip in variants:
            result, moved, peak, loops, compile_s = measure(path, name, kwargs, hbm, options, strip)
            for key in source_result:
                if not np.array_equal(np.asarray(result[key]), np.asarray(source_result[key]), equal_nan=True):
                    sys.exit(f"{path.stem} {variant}: the bundle's {key!r} differs from the kernel's")
            ratio = moved / need if need else float("nan")
            row = {
                "kernel": path.stem, "variant": variant, "hbm_bytes": moved, "compulsory_bytes": need,
                "ratio": round(ratio, 4), "source_hbm_bytes": source_moved,
                "vs_source": round(moved / source_moved, 4) if source_moved else None, "peak_lx_bytes_per_core": peak, "lx_fraction": round(peak / LX, 4),
                "loops": loops, "compile_s": round(compile_s, 4),
            }
            rows.append(row)
            print(
                f"{path.stem[:22]:<22} {variant:<8} {moved:>12} {source_moved:>12} {need:>12} {ratio:>6.2f} "
                f"{moved / source_moved if source_moved else float('nan'):>6.2f} "
                f"{peak:>10} {peak / LX:>6.1%} {loops:>5} {compile_s:>9.3f}"
            )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
