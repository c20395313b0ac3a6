"""The command line: `python -m spyre_fuzz.kernel_gen` (with `test/fuzz` on
`PYTHONPATH`), and the report of a run."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
import traceback
from collections import Counter

from spyre_fuzz import kernel_gen
from spyre_fuzz.kernel_gen.generator import generate
from spyre_fuzz.kernel_gen.run import CATEGORIES, CONFIGS, FINDINGS, Runner, classify, run_config, run_source


def normalize(msg: str) -> str:
    m = re.sub(r"gen_\d+_\d+", "K", msg)
    m = re.sub(r"%[\w.]+", "%v", m)
    m = re.sub(r"\d+", "N", m)
    m = re.sub(r"/tmp/\S+", "DIR", m)
    return m[:160]


def report(results: list[dict], seed: int, configs, file=sys.stdout) -> dict:
    table = {c: Counter() for c in configs}
    gen_errors = [r for r in results if r["source"] and r["source"]["category"] != "ok"]
    findings: dict = {}
    refusals: Counter = Counter()
    refusal_example: dict = {}
    for r in results:
        for c, o in r["configs"].items():
            table[c][o["category"]] += 1
            key = (c, o["category"], normalize(o["message"]))
            if o["category"] in FINDINGS:
                f = findings.setdefault(key, {"config": c, "category": o["category"], "message": o["message"],
                                              "first": r["index"], "count": 0, "kernels": []})
                f["count"] += 1
                if len(f["kernels"]) < 8:
                    f["kernels"].append(r["index"])
            elif o["category"] == "refused":
                rk = normalize(o["message"])
                refusals[rk] += 1
                refusal_example.setdefault(rk, (c, r["index"], o["message"]))
    cats = [c for c in CATEGORIES if any(table[x][c] for x in configs)] or ["ok"]
    if any(table[x]["skipped"] for x in configs):
        cats.append("skipped")
    w = max(len(c) for c in configs)
    print(f"\n{len(results)} kernels, seed {seed}; generator errors (source vs oracle): {len(gen_errors)}", file=file)
    print(f"{'config':<{w}} " + " ".join(f"{c:>9}" for c in cats), file=file)
    for c in configs:
        print(f"{c:<{w}} " + " ".join(f"{table[c][x]:>9}" for x in cats), file=file)
    for r in gen_errors[:10]:
        print(f"  GENERATOR kernel {r['index']}: {r['source']['message']}", file=file)
    print(f"\ndistinct findings: {len(findings)}", file=file)
    for f in sorted(findings.values(), key=lambda f: (f["category"], f["config"], -f["count"])):
        print(f"- [{f['category']}] {f['config']}: {f['message']}\n    {f['count']} kernel(s), e.g. {f['kernels']}; "
              f"reproduce: python -m spyre_fuzz.kernel_gen --seed {seed} --show {f['first']} "
              f"--run '{f['config']}'", file=file)
    print("\nmost frequent refusals:", file=file)
    for m, n in refusals.most_common(10):
        c, i, full = refusal_example[m]
        print(f"  {n:4d}  {full}\n        e.g. {c}, --show {i}", file=file)
    return {"table": {c: dict(v) for c, v in table.items()},
            "generator_errors": [{"index": r["index"], "message": r["source"]["message"]} for r in gen_errors],
            "findings": list(findings.values()),
            "refusals": [{"count": n, "message": refusal_example[m][2], "config": refusal_example[m][0],
                          "first": refusal_example[m][1]} for m, n in refusals.most_common(30)]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m spyre_fuzz.kernel_gen", description=kernel_gen.__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="first kernel index")
    ap.add_argument("--show", type=int, help="print kernel N (with its arguments and features) and exit")
    ap.add_argument("--run", help="with --show: run kernel N through these configs (comma-separated; 'all')")
    ap.add_argument("--configs", default="all", help="configs to run (';'-separated), default all")
    ap.add_argument("--source-only", action="store_true", help="only check each source against its oracle")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per (kernel, config)")
    ap.add_argument("--out", help="write the kernels with findings here (one .mlir each)")
    ap.add_argument("--json", help="write the results as JSON")
    a = ap.parse_args(argv)
    configs = list(CONFIGS) if a.configs == "all" else [c.strip() for c in a.configs.split(";") if c.strip()]
    if a.show is not None:
        k = generate(a.seed, a.show)
        sys.stdout.write(k.text)
        args = ", ".join(f"{p.name}={'array' + str(p.shape) if p.kind == 'ptr' else p.value}"
                         + (" (stick layout)" if p.layout else "") for p in k.params)
        print(f"// args: {args}")
        if a.run:
            run = list(CONFIGS) if a.run == "all" else [c for c in CONFIGS if c in a.run.split(";")] or [a.run]
            raw, err = run_source(k)
            print(f"// source vs oracle: {err or 'ok'}")
            if raw is not None and err is None:
                with tempfile.TemporaryDirectory() as tmp:
                    for c in run:
                        try:
                            cat, msg = run_config(k, c, raw, tmp)
                        except Exception as exc:  # noqa: BLE001
                            traceback.print_exc()
                            cat, msg = classify(exc)
                        print(f"// {c}: {cat} {msg}")
        return 0
    results = []
    t0 = time.time()
    if a.source_only:
        bad = 0
        for i in range(a.start, a.start + a.count):
            k = generate(a.seed, i)
            _, err = run_source(k)
            if err:
                bad += 1
                print(f"kernel {i}: {err}")
        print(f"{a.count} kernels, {bad} generator errors")
        return 1 if bad else 0
    runner = Runner(a.timeout)
    try:
        for n, i in enumerate(range(a.start, a.start + a.count)):
            r = runner.run(a.seed, i, configs)
            results.append(r)
            bad = [f"{c}:{o['category']}" for c, o in r["configs"].items() if o["category"] in FINDINGS]
            src = r["source"]["category"] if r["source"] else "?"
            print(f"[{n + 1}/{a.count}] kernel {i} {time.time() - t0:.0f}s source={src} "
                  + (" ".join(bad) if bad else ""), file=sys.stderr, flush=True)
    finally:
        runner.close()
    summary = report(results, a.seed, configs)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        for f in summary["findings"]:
            k = generate(a.seed, f["first"])
            safe = re.sub(r"[^\w.-]+", "_", f["config"])[:40]
            with open(os.path.join(a.out, f"{f['category']}-{safe}-{f['first']}.mlir"), "w") as fh:
                fh.write(f"// {f['category']} {f['config']}: {f['message']}\n" + k.text)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"seed": a.seed, "count": a.count, "results": results, **summary}, fh, indent=1, default=str)
    return 1 if summary["findings"] or summary["generator_errors"] else 0
