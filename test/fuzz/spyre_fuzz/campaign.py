"""A fuzzing campaign: generate the inputs, run them in the pool, compare
with upstream MLIR, group the findings and write examples."""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from spyre_fuzz.corpus import load_seeds
from spyre_fuzz.mutate import FuzzInput, generate, upstream_only
from spyre_fuzz.pool import Pool
from spyre_fuzz.reduce import write_examples
from spyre_fuzz.report import Finding, FuzzReport, InputResult, finding_key
from spyre_fuzz.stages import BAD, STAGES
from spyre_fuzz.upstream import find_iree_opt, iree_verdict, iree_verdicts


@dataclass
class FuzzConfig:
    count: int = 500
    seed: int = 0
    timeout: float = 10.0
    jobs: int = field(default_factory=lambda: max(1, min(os.cpu_count() or 1, 8)))
    iree: bool = True
    interpret: bool = True
    examples: int = 3
    out: Path | None = None
    minimize: bool = True
    minimize_budget: float = 120.0
    seed_paths: list[Path] | None = None
    mutators: list[str] | None = None
    progress: bool = True
    memory_limit_mb: int = 12288
    start: int = 0


def _progress(enabled: bool):
    start = time.monotonic()
    last = [start]

    printed = [-1]

    def tick(done: int, total: int, counter: Counter, force: bool = False) -> None:
        now = time.monotonic()
        if not enabled or (not force and now - last[0] < 5.0) or printed[0] == done:
            return
        last[0], printed[0] = now, done
        bad = ", ".join(f"{k} {counter[k]}" for k in BAD)
        print(f"fuzz: {done}/{total} inputs, {now - start:.0f} s ({bad})", file=sys.stderr, flush=True)

    return tick


def run(config: FuzzConfig) -> FuzzReport:
    """Generate, run and classify `config.count` inputs; reduce and write examples."""
    started = time.monotonic()
    seeds = load_seeds(config.seed_paths)
    inputs = generate(config.count, config.seed, seeds, config.start, config.mutators)
    stages = STAGES if config.interpret else ("parse", "pipeline")
    iree_exe = find_iree_opt() if config.iree else None
    tick = _progress(config.progress)
    with Pool(config.jobs, config.timeout, config.memory_limit_mb) as pool:
        # Seeds as they are: a baseline, and which seeds iree-opt may be compared on.
        base = pool.run([(f"seed:{s.name}", s.text.encode("utf-8", "surrogateescape"), stages) for s in seeds])
        baseline = {}
        for s in seeds:
            r = InputResult(FuzzInput(-1, s.name, [], b""), base[f"seed:{s.name}"])
            stage = next((st for st in STAGES if st in r.stages and r.stages[st]["category"] == r.category), "")
            baseline[s.name] = {
                "category": r.category,
                "stage": stage if r.category != "accepted" else "",
                "message": r.stages.get(stage, {}).get("message", "") if r.category != "accepted" else "",
                "ours": r.ours,
            }
        comparable: set[str] = set()
        skipped: list[str] = []
        if iree_exe:
            up = [s for s in seeds if upstream_only(s.text)]
            verdicts = iree_verdicts(iree_exe, [s.text.encode() for s in up], jobs=config.jobs)
            for s, v in zip(up, verdicts):
                baseline[s.name]["iree"] = v.get("verdict")
                if v.get("verdict") == "accept" and baseline[s.name]["ours"] == "accept":
                    comparable.add(s.name)
                else:
                    skipped.append(s.name)

        counter: Counter = Counter()
        done = [0]

        def on_result(key: str, result: dict) -> None:
            done[0] += 1
            r = InputResult(FuzzInput(0, "", [], b""), result)
            counter[r.category] += 1
            tick(done[0], len(inputs), counter)

        raw = pool.run([(x.key, x.data, stages) for x in inputs], on_result)
        tick(done[0], len(inputs), counter, force=True)
        results = [InputResult(x, raw[x.key]) for x in inputs]

        if iree_exe:
            todo = []
            for r in results:
                r.upstream_only = upstream_only(r.input.text)
                if r.upstream_only and r.input.seed in comparable and r.ours is not None:
                    todo.append(r)
            for r, v in zip(todo, iree_verdicts(iree_exe, [r.input.data for r in todo], jobs=config.jobs)):
                r.iree = v
                # iree-opt crashing or hanging is upstream's bug: counted apart, not compared
                r.compared = v.get("verdict") in ("accept", "reject")
            for r in todo:
                if r.disagrees and r.iree.get("verdict") == "reject" and not r.iree.get("error"):
                    r.iree = iree_verdict(iree_exe, r.input.data)

        groups: dict[tuple, list[InputResult]] = {}
        for r in results:
            key = finding_key(r)
            if key is not None:
                groups.setdefault(key, []).append(r)
        order = {c: i for i, c in enumerate(("crash", "hang", "internal", "disagreement", "unlocated"))}
        findings = sorted(
            (Finding(k, v) for k, v in groups.items()), key=lambda f: (order[f.category], -len(f.results))
        )
        report = FuzzReport(config, seeds, results, baseline, 0.0, iree_exe, findings, skipped)
        if config.out is not None:
            write_examples(report, pool, iree_exe, stages)
    report.elapsed = time.monotonic() - started
    return report
