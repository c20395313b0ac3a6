"""The main job, end to end on the bundled example kernel:

1. parse and verify examples/softmax_rows.mlir (KTIR: ktdp + arith/math/tensor/linalg/scf);
2. run the default pipeline, reporting what each pass changed;
3. execute the kernel before and after the pipeline in the reference
   interpreter (8 simulated Spyre cores) on the same seeded input;
4. check both against a NumPy softmax, and against each other.

    python examples/demo.py [KERNEL.mlir] [-o OUT_DIR]

Exit status 0 when every check passes.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

import spyre_mlir
from spyre_mlir import ir

HERE = Path(__file__).resolve().parent


def op_counts(module) -> Counter:
    return Counter(op.name for op in module.walk())


def describe_change(before: Counter, after: Counter) -> str:
    changes = []
    for name in sorted(set(before) | set(after)):
        d = after[name] - before[name]
        if d:
            changes.append(f"{name} {d:+d}")
    return ", ".join(changes) or "no change"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernel", nargs="?", default=str(HERE / "softmax_rows.mlir"))
    ap.add_argument("-o", "--out", default="out", help="where to write the optimized IR (default: ./out)")
    args = ap.parse_args()

    try:
        module = spyre_mlir.parse(args.kernel)
    except spyre_mlir.DiagnosticError as e:
        print(e.diagnostic.render(), file=sys.stderr)
        return 1
    source = ir.print_ir(module)
    print(f"parsed and verified {args.kernel}: {sum(op_counts(module).values())} ops")

    pm = spyre_mlir.PassManager.from_pipeline("default")
    print(f"\npipeline 'default': {','.join(pm.names)}")
    counts = [op_counts(module)]
    texts = [ir.print_ir(module)]

    def report(p, m, seconds):
        counts.append(op_counts(m))
        texts.append(ir.print_ir(m))
        change = describe_change(counts[-2], counts[-1])
        if change == "no change" and texts[-2] != texts[-1]:
            change = "rewrote ops in place"
        print(f"  {p.name:30} {seconds * 1e3:6.1f} ms  {change}")

    pm.after_pass.append(report)
    pm.run(module)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    out_file = out_dir / (Path(args.kernel).stem + ".opt.mlir")
    out_file.write_text(ir.print_ir(module))
    print(f"  wrote {out_file}")

    print("\nreference interpreter, seeded input x ~ N(0, 1), 256x128 f16:")
    x = np.random.default_rng(2026).standard_normal((256, 128)).astype(np.float16)
    results = {}
    for label, mod in (("before", spyre_mlir.parse(source)), ("after", module)):
        start = time.perf_counter()
        r = spyre_mlir.interpret(mod, "softmax_rows", out=np.zeros((256, 128), np.float16), **{"in": x})
        results[label] = np.asarray(r["out"])
        print(f"  ran the kernel {label:6} the pipeline in {(time.perf_counter() - start) * 1e3:6.1f} ms")

    xf = x.astype(np.float32)
    e = np.exp(xf - xf.max(axis=1, keepdims=True))
    oracle = e / e.sum(axis=1, keepdims=True)
    ok = True
    same = np.array_equal(results["before"], results["after"])
    print(f"  before == after (bit-exact):         {'yes' if same else 'NO'}")
    ok &= same
    err = np.abs(results["after"].astype(np.float32) - oracle).max()
    close = np.allclose(results["after"].astype(np.float32), oracle, rtol=1e-2, atol=2e-3)
    print(f"  matches NumPy softmax (f16 tolerance): {'yes' if close else 'NO'} (max abs error {err:.2e})")
    ok &= close
    print("\nOK" if ok else "\nFAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
