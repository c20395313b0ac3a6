"""Reducing an input while it gives the same finding, and writing the
examples of each finding (`--out DIR`)."""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from spyre_fuzz.corpus import function_spans
from spyre_fuzz.mutate import FuzzInput, upstream_only
from spyre_fuzz.pool import Pool
from spyre_fuzz.report import FuzzReport, InputResult, describe_result, finding_key
from spyre_fuzz.upstream import iree_verdict


def _same_finding(key: tuple, iree_exe: str | None) -> Callable[[dict, bytes], bool]:
    def check(result: dict, data: bytes) -> bool:
        r = InputResult(FuzzInput(0, "", [], data), result)
        if key[0] == "disagreement":
            if not upstream_only(r.input.text) or r.ours is None or iree_exe is None:
                return False
            r.iree = iree_verdict(iree_exe, data)
            r.compared = r.iree.get("verdict") in ("accept", "reject")
        return finding_key(r) == key

    return check


class _Reducer:
    """Try smaller candidates (a batch per pool round); keep the first that still gives the finding."""

    def __init__(self, stages, pool: Pool, check, deadline: float, max_tries: int):
        self.stages, self.pool, self.check = stages, pool, check
        self.deadline, self.max_tries = deadline, max_tries
        self.tries = 0
        self.serial = 0

    def alive(self) -> bool:
        return self.tries < self.max_tries and time.monotonic() < self.deadline

    def first(self, candidates: list[bytes]) -> bytes | None:
        for b in range(0, len(candidates), self.pool.jobs):
            if not self.alive():
                return None
            tasks = []
            for blob in candidates[b : b + self.pool.jobs]:
                self.serial += 1
                tasks.append((f"reduce:{self.serial}", blob, self.stages))
            self.tries += len(tasks)
            res = self.pool.run(tasks)
            for key, blob, _ in tasks:
                if self.check(res[key], blob):
                    return blob
        return None


def reduce_input(
    data: bytes,
    stages: Sequence[str],
    pool: Pool,
    check: Callable[[dict, bytes], bool],
    deadline: float,
    max_tries: int,
) -> bytes:
    """Drop whole functions, then chunks of lines (ddmin-like), while the input gives the same finding."""
    r = _Reducer(stages, pool, check, deadline, max_tries)
    while r.alive():  # whole functions first: line deletions rarely keep a kernel valid
        text = data.decode("utf-8", "surrogateescape")
        spans = function_spans(text)
        if len(spans) < 2:
            break
        found = r.first([(text[:s] + text[e:]).encode("utf-8", "surrogateescape") for _, s, e in spans])
        if found is None:
            break
        data = found
    lines = data.splitlines(keepends=True)
    n = 2
    while len(lines) >= 2 and r.alive():
        chunk = max(1, math.ceil(len(lines) / n))
        starts = range(0, len(lines), chunk)
        found = r.first([b"".join(lines[:i] + lines[i + chunk :]) for i in starts])
        if found is not None:
            lines = found.splitlines(keepends=True)
            n = max(n - 1, 2)
        elif chunk == 1:
            break
        else:
            n = min(n * 2, len(lines))
    return b"".join(lines)


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-")[:60] or "x"


def write_examples(report: FuzzReport, pool: Pool, iree_exe: str | None, stages: Sequence[str]) -> None:
    cfg = report.config
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    budget_end = time.monotonic() + (cfg.minimize_budget if cfg.minimize else 0)
    per_example = cfg.minimize_budget / max(1, sum(min(cfg.examples, len(f.results)) for f in report.findings))
    for number, f in enumerate(report.findings, start=1):
        folder = out / f.category
        folder.mkdir(exist_ok=True)
        for k, r in enumerate(f.results[: cfg.examples]):
            data = r.input.data
            reduced = data
            exhaustion = len(f.key) > 2 and f.key[2] in ("RecursionError", "MemoryError")
            if cfg.minimize and time.monotonic() < budget_end and not exhaustion:
                # (not stack or memory exhaustion: a smaller input may pass only because it is smaller)
                hang = f.category == "hang"
                needed = stages if f.stage != "parse" else ("parse",)
                if f.stage == "pipeline":
                    needed = ("parse", "pipeline")
                reduced = reduce_input(
                    data,
                    needed,
                    pool,
                    _same_finding(f.key, iree_exe),
                    min(budget_end, time.monotonic() + max(per_example, 3 * cfg.timeout if hang else 5.0)),
                    max_tries=8 if hang else 400,
                )
            stem = f"{number:03d}-{k + 1}-{_slug(f.stage + '-' + f.first_line())}"
            path = folder / f"{stem}.mlir"
            path.write_bytes(reduced)
            if reduced != data:
                (folder / f"{stem}.orig.mlir").write_bytes(data)
            info = [
                f"finding: {f.category} in stage {f.stage} ({len(f.results)} inputs)",
                f"first line: {f.first_line()}",
                f"input: #{r.input.index} of fuzz seed {cfg.seed}, from seed kernel {r.input.seed}",
                *(f"mutation: {m}" for m in r.input.mutations),
                f"reduced: {len(data.splitlines())} -> {len(reduced.splitlines())} lines",
                f"replay: python -m spyre_fuzz --replay {path}",
                "",
                json.dumps(describe_result(r), indent=2, default=str),
            ]
            path.with_suffix(".txt").write_text("\n".join(info) + "\n")
            f.files.append(str(path))
