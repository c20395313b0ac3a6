"""The main job, end to end on the bundled example kernel:

1. parse and verify examples/softmax_rows.mlir (KTIR: ktdp + arith/math/tensor/linalg/scf);
2. run the default pipeline, reporting what each pass changed;
3. execute the kernel before and after the pipeline in the reference
   interpreter (8 simulated Spyre cores) on the same seeded input;
4. check both against each other and, for the bundled kernel, against a
   NumPy softmax.

    python examples/demo.py [KERNEL.mlir] [--func NAME] [--arg NAME=VALUE ...] [-o OUT_DIR]

Another kernel runs its `--func` (default: the only function) with the
`--arg` values `spyre-run` takes (FILE.npy, random:SHAPExDTYPE[:SEED],
zeros:SHAPExDTYPE, INT, FLOAT); a pointer parameter without one gets seeded
data covering the static memory views built on it (sample_args.py). Exit status 0
when every check passes, 1 on bad input or a failed check.
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
from spyre_mlir.interpreter import Interpreter
from spyre_mlir.interpreter.sample_args import MissingArgument, sample_arguments

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


DEFAULT_KERNEL = HERE / "softmax_rows.mlir"


def main() -> int:
    from spyre_mlir.tools.spyre_run import UsageError, parse_value

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernel", nargs="?", default=str(DEFAULT_KERNEL))
    ap.add_argument("--func", metavar="NAME", help="the kernel to run (default: the only function)")
    ap.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE", help="a kernel argument")
    ap.add_argument("-o", "--out", default="out", help="where to write the optimized IR (default: ./out)")
    args = ap.parse_args()
    bundled = Path(args.kernel).resolve() == DEFAULT_KERNEL

    try:
        module = spyre_mlir.parse(Path(args.kernel))
        given = {}
        for item in args.arg:
            name, _, text = item.partition("=")
            given[name] = parse_value(name, text, 2026)
    except OSError as e:
        print(f"error: cannot read '{args.kernel}': {e.strerror or e}", file=sys.stderr)
        return 1
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
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
    try:
        pm.run(module)
        interpreter = Interpreter(module)
        func_op = interpreter.kernel(args.func)
        if bundled and not given:
            x = np.random.default_rng(2026).standard_normal((256, 128)).astype(np.float16)
            given = {"out": np.zeros((256, 128), np.float16), "in": x}
        kernel_args = sample_arguments(func_op, given, seed=2026)
    except spyre_mlir.DiagnosticError as e:
        print(e.diagnostic.render(), file=sys.stderr)
        return 1
    except MissingArgument as e:
        print(f"error: {e} with --arg {e.name}=VALUE", file=sys.stderr)
        return 1
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    out_file = out_dir / (Path(args.kernel).stem + ".opt.mlir")
    out_file.write_text(ir.print_ir(module))
    print(f"  wrote {out_file}")

    func_name = func_op.sym_name.data
    print(f"\nreference interpreter, @{func_name}, seeded inputs:")
    results = {}
    for label, mod in (("before", spyre_mlir.parse(source)), ("after", module)):
        start = time.perf_counter()
        copies = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in kernel_args.items()}
        try:
            r = Interpreter(mod).run(func_name, copies)
        except spyre_mlir.DiagnosticError as e:
            print(e.diagnostic.render(), file=sys.stderr)
            return 1
        results[label] = r
        print(f"  ran the kernel {label:6} the pipeline in {(time.perf_counter() - start) * 1e3:6.1f} ms")

    ok = True
    same = results["before"].keys() == results["after"].keys() and all(
        np.array_equal(results["before"][k], results["after"][k], equal_nan=True) for k in results["before"]
    )
    print(f"  before == after (bit-exact):         {'yes' if same else 'NO'}")
    ok &= same
    if bundled:
        xf = kernel_args["in"].astype(np.float32)
        e = np.exp(xf - xf.max(axis=1, keepdims=True))
        oracle = e / e.sum(axis=1, keepdims=True)
        got = np.asarray(results["after"]["out"]).astype(np.float32)
        err = np.abs(got - oracle).max()
        close = np.allclose(got, oracle, rtol=1e-2, atol=2e-3)
        print(f"  matches NumPy softmax (f16 tolerance): {'yes' if close else 'NO'} (max abs error {err:.2e})")
        ok &= close
    print("\nOK" if ok else "\nFAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
