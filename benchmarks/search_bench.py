"""The tiling search on the corpus: candidates, refusals, the best candidate against the untiled kernel, time.

    python benchmarks/search_bench.py [--corpus DIR] [--max-evaluations 8] [--lx-bytes N] [--json FILE]

Not a test. For seed 000's example (LX reduced to 512 KiB, so the untiled
kernel does not fit) and every corpus kernel: extract the compute groups,
run `search_tilings` in-process and on a process pool (2 workers), and
print per kernel the candidates generated, deduplicated, refused (by
reason), evaluated, the best candidate's HBM bytes and modeled cycles
against the untiled kernel's, and the search time of both engines.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "ktir"
SEED = ROOT / "test" / "unit" / "kernels" / "tiling" / "seed000_add_mul.mlir"
sys.path.insert(0, str(ROOT / "test" / "unit"))
PREFIX = "spyre-raise-counted-loops,spyre-physicalize-layouts,spyre-fold-reshapes,cse,canonicalize,ktdp-extract-compute-groups"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--max-evaluations", type=int, default=8)
    parser.add_argument("--lx-bytes", type=int, default=2 * 1024 * 1024)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    import spyre_mlir
    from spyre_mlir.passes.bundle.tiling_search import search_tilings

    rng = np.random.default_rng(0)
    cases = [("seed000_add_mul (LX 512 KiB)", SEED, {k: rng.standard_normal(1024 * 4096).astype(np.float16) for k in "abcz"},
              512 * 1024, True, {})]
    if args.corpus.is_dir():
        from conftest import kernel_arguments

        for path in sorted(args.corpus.glob("*.mlir")):
            _, kwargs, hbm = kernel_arguments(path, seed=0)
            cases.append((path.stem, path, kwargs, args.lx_bytes, False, hbm))

    header = (
        f"{'kernel':<30} {'gen':>4} {'dup':>4} {'refused':>7} {'eval':>4} {'best':<18} {'hbm best/untiled':>16} "
        f"{'cycles best/untiled':>19} {'in-proc s':>9} {'2 procs s':>9}"
    )
    print(header)
    print("-" * len(header))
    rows = []
    for label, path, kwargs, lx, strip, hbm in cases:
        module = spyre_mlir.parse(path)
        if strip:
            for op in module.walk():
                op.attributes.pop("spyre.slices", None)
        spyre_mlir.PassManager.parse(PREFIX).run(module)
        t0 = time.perf_counter()
        report = search_tilings(module, lx_bytes=lx, max_evaluations=args.max_evaluations, args=kwargs, hbm=hbm)
        inproc = time.perf_counter() - t0
        t0 = time.perf_counter()
        search_tilings(
            module, lx_bytes=lx, max_evaluations=args.max_evaluations, args=kwargs, hbm=hbm, engine="processes", jobs=2
        )
        procs = time.perf_counter() - t0
        counts = report.counts()
        for group, best in sorted(report.best.items()) or [("-", None)]:
            untiled = next((c for c in report.candidates if c.group == group and c.label == "untiled"), None)

            def ratio(attr, best=best, untiled=untiled):
                a = getattr(best, attr, None) if best else None
                b = getattr(untiled, attr, None) if untiled else None
                return f"{a / b:.2f}" if a is not None and b else "-"

            row = {
                "kernel": label, "group": group, **{k: v for k, v in counts.items() if k != "refused_by_reason"},
                "refused_by_reason": counts["refused_by_reason"], "best": best.label if best else None,
                "best_hbm_bytes": getattr(best, "hbm_bytes", None), "best_cycles": getattr(best, "cycles", None),
                "untiled_hbm_bytes": getattr(untiled, "hbm_bytes", None), "untiled_cycles": getattr(untiled, "cycles", None),
                "inprocess_s": round(inproc, 3), "processes_s": round(procs, 3),
            }
            rows.append(row)
            print(
                f"{label[:30]:<30} {counts['generated']:>4} {counts['duplicates']:>4} {counts['refused']:>7} "
                f"{counts['evaluated']:>4} {(best.label if best else '-')[:18]:<18} {ratio('hbm_bytes'):>16} "
                f"{ratio('cycles'):>19} {inproc:>9.2f} {procs:>9.2f}"
            )
        for reason, n in sorted(counts["refused_by_reason"].items(), key=lambda kv: -kv[1]):
            print(f"{'':<30}   refused x{n}: {reason[:90]}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
