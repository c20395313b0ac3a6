"""The outcome of a campaign: results per input, distinct findings, the table
and the JSON report."""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from spyre_fuzz.corpus import REPO, Seed
from spyre_fuzz.mutate import MUTATORS, FuzzInput
from spyre_fuzz.stages import BAD, CATEGORIES, SEVERITY, STAGES
from spyre_fuzz.upstream import our_verdict

if TYPE_CHECKING:
    from spyre_fuzz.campaign import FuzzConfig  # which builds the report

LABELS = {
    "accepted": "accepted",
    "located": "located user error",
    "unlocated": "unlocated user error",
    "internal": "internal error",
    "hang": "hang (timeout)",
    "crash": "crash (worker died)",
    "skipped": "not run",
}


@dataclass
class InputResult:
    input: FuzzInput
    stages: dict[str, dict]
    upstream_only: bool = False
    iree: dict | None = None
    compared: bool = False

    @property
    def category(self) -> str:
        cats = [o["category"] for o in self.stages.values() if o.get("category") in SEVERITY]
        return max(cats, key=SEVERITY.__getitem__) if cats else "accepted"

    @property
    def ours(self) -> str | None:
        return our_verdict(self.stages)

    @property
    def disagrees(self) -> bool:
        return self.compared and self.iree is not None and self.iree.get("verdict") != self.ours

    def bad_stage(self) -> tuple[str, dict] | None:
        for stage in STAGES:
            o = self.stages.get(stage)
            if o and o["category"] in BAD + ("unlocated",):
                return stage, o
        return None


_NORMALIZE = [
    (re.compile(r"%[\w.$\-]+"), "%V"),
    (re.compile(r"@[\w.$\-]+"), "@S"),
    (re.compile(r"\^[\w.$\-]+"), "^B"),
    (re.compile(r"0x[0-9a-fA-F]+"), "N"),
    (re.compile(r"\d+"), "N"),
    (re.compile(r"'[^']{20,}'"), "'...'"),
    (re.compile(r'"[^"]*"'), '"S"'),
]


def normalize(message: str) -> str:
    for pattern, repl in _NORMALIZE:
        message = pattern.sub(repl, message)
    return message[:160]


def finding_key(r: InputResult) -> tuple | None:
    """What makes two inputs the same finding (None: not a finding)."""
    bad = r.bad_stage()
    if bad is not None:
        stage, o = bad
        cat = o["category"]
        if cat in ("hang", "crash"):
            # Where a hang was caught varies from run to run: prefer the loop that spins (an scf op's
            # step in the interpreter) to the innermost frame, and no line numbers.
            loop = next((f for f in o.get("frames") or [] if "interpreter/ops_scf.py" in f), None)
            return (cat, stage, re.sub(r":\d+ in ", " in ", loop or o.get("site") or "?"))
        if cat == "internal":
            frames = o.get("frames") or []
            kind = o.get("cause", o["type"]).split(":")[0]
            # The innermost frame names the bug; not for exhaustion, whose innermost frame is arbitrary.
            site = "" if kind in ("RecursionError", "MemoryError") or not frames else frames[-1]
            site = re.sub(r":\d+ in ", " in ", site)
            return (cat, stage, kind, site or normalize(o["message"]))
        return (cat, stage, normalize(o["message"]))
    if r.disagrees:
        return ("disagreement", "parse", f"ours {r.ours}, iree-opt {r.iree.get('verdict')}")
    return None


@dataclass
class Finding:
    key: tuple
    results: list[InputResult]
    files: list[str] = field(default_factory=list)

    @property
    def category(self) -> str:
        return self.key[0]

    @property
    def stage(self) -> str:
        return self.key[1]

    def first_line(self) -> str:
        r = self.results[0]
        if self.category == "disagreement":
            err = (r.iree or {}).get("error") or ""
            ours = r.stages["parse"]
            mine = f"ours: {ours.get('location') or ''} {ours.get('message', 'accepted')}".strip()
            return f"ours {r.ours} / iree-opt {r.iree.get('verdict')}; {mine}" + (f"; iree-opt: {err}" if err else "")
        o = r.stages[self.stage]
        if self.category in ("hang", "crash"):
            return f"{o['message']}; at {o.get('site') or '?'}"
        head = f"{o.get('type')}: {o['message']}" if o.get("type") != "DiagnosticError" else o["message"]
        if o.get("cause"):
            head += f" (cause {o['cause']})"
        return head


@dataclass
class FuzzReport:
    config: FuzzConfig
    seeds: list[Seed]
    results: list[InputResult]
    baseline: dict[str, dict]
    elapsed: float
    iree_exe: str | None
    findings: list[Finding] = field(default_factory=list)
    iree_skipped_seeds: list[str] = field(default_factory=list)

    def counts(self) -> Counter:
        return Counter(r.category for r in self.results)

    def stage_counts(self) -> dict[str, Counter]:
        out = {s: Counter() for s in STAGES}
        for r in self.results:
            for s in STAGES:
                o = r.stages.get(s)
                out[s][o["category"] if o else "skipped"] += 1
        return out

    def iree_counts(self) -> dict:
        compared = [r for r in self.results if r.compared]
        dis = [r for r in compared if r.disagrees]
        return {
            "upstream_only": sum(r.upstream_only for r in self.results),
            "compared": len(compared),
            "agree": len(compared) - len(dis),
            "disagree": len(dis),
            "we_accept_iree_rejects": sum(r.ours == "accept" and r.iree.get("verdict") == "reject" for r in dis),
            "we_reject_iree_accepts": sum(r.ours == "reject" and r.iree.get("verdict") == "accept" for r in dis),
            "iree_crash_or_hang": sum(
                r.iree is not None and r.iree.get("verdict") in ("crash", "hang") for r in self.results
            ),
            "skipped_seeds": self.iree_skipped_seeds,
        }

    def roundtrip_failures(self) -> list[InputResult]:
        return [r for r in self.results if r.stages.get("pipeline", {}).get("roundtrip")]

    def bad(self) -> dict[str, int]:
        c = self.counts()
        return {k: c[k] for k in BAD if c[k]} | (
            {"disagreement": self.iree_counts()["disagree"]} if self.iree_counts()["disagree"] else {}
        )

    def table(self) -> str:
        c = self.counts()
        n = len(self.results)
        cfg = self.config
        lines = [
            f"spyre-mlir fuzz: {n} inputs (#{cfg.start}..#{cfg.start + n - 1}) of seed {cfg.seed} from "
            f"{len(self.seeds)} seed kernels; {cfg.jobs} workers, timeout {cfg.timeout:g} s; {self.elapsed:.1f} s",
            "",
            f"{'outcome (worst stage)':<28}{'inputs':>8}",
        ]
        for cat in CATEGORIES:
            lines.append(f"  {LABELS[cat]:<26}{c[cat]:>8}{'   <-- bug' if cat in BAD and c[cat] else ''}")
        lines += [
            "",
            f"{'stage':<14}"
            + "".join(f"{h:>11}" for h in ("accepted", "located", "unlocated", "internal", "hang", "crash", "not run")),
        ]
        for s, counter in self.stage_counts().items():
            lines.append(
                f"  {s:<12}"
                + "".join(
                    f"{counter[k]:>11}"
                    for k in ("accepted", "located", "unlocated", "internal", "hang", "crash", "skipped")
                )
            )
        rt = self.roundtrip_failures()
        lines.append(f"  (printed IR that does not parse back after the pipeline: {len(rt)})")
        lines.append("")
        if self.iree_exe is None:
            lines.append("iree-opt parity: not checked" + (" (iree-opt not found)" if cfg.iree else ""))
        else:
            ic = self.iree_counts()
            lines.append(
                f"iree-opt parity (parse+verify, upstream-only inputs): {ic['upstream_only']} upstream-only, "
                f"{ic['compared']} compared, {ic['agree']} agree, {ic['disagree']} disagree "
                f"(we accept/iree rejects {ic['we_accept_iree_rejects']}, we reject/iree accepts "
                f"{ic['we_reject_iree_accepts']}); iree-opt itself crashed or hung on {ic['iree_crash_or_hang']} (not compared)"
            )
            if ic["skipped_seeds"]:
                lines.append(
                    f"  not compared (the seed itself gets different verdicts): {', '.join(ic['skipped_seeds'])}"
                )
        bad_baseline = {k: v for k, v in self.baseline.items() if v["category"] != "accepted"}
        if bad_baseline:
            lines.append("")
            lines.append("seed kernels that are not accepted as they are (worst stage):")
            for name, v in bad_baseline.items():
                lines.append(f"  {name}: {v['category']} at {v['stage']}: {v['message']}")
        lines.append("")
        if not self.findings:
            lines.append("distinct findings: none")
        else:
            lines.append(f"distinct findings ({len(self.findings)}):")
            for f in self.findings:
                where = f"  -> {f.files[0]}" if f.files else ""
                lines.append(f"  [{f.category} in {f.stage}] x{len(f.results)}: {f.first_line()}{where}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        cfg = self.config
        return {
            "config": {
                "count": cfg.count, "seed": cfg.seed, "start": cfg.start, "timeout": cfg.timeout, "jobs": cfg.jobs,
                "iree": self.iree_exe, "interpret": cfg.interpret, "mutators": cfg.mutators or sorted(MUTATORS),
            },
            "code": _code_state(),
            "seeds": [s.name for s in self.seeds],
            "elapsed_seconds": round(self.elapsed, 2),
            "counts": {c: self.counts()[c] for c in CATEGORIES},
            "stage_counts": {s: dict(c) for s, c in self.stage_counts().items()},
            "roundtrip_failures": len(self.roundtrip_failures()),
            "iree": self.iree_counts() if self.iree_exe else None,
            "bad": self.bad(),
            "baseline": self.baseline,
            "findings": [
                {
                    "category": f.category,
                    "stage": f.stage,
                    "key": list(f.key),
                    "count": len(f.results),
                    "first_line": f.first_line(),
                    "inputs": [r.input.index for r in f.results],
                    "files": f.files,
                    "example": describe_result(f.results[0]),
                }
                for f in self.findings
            ],
            "inputs": [
                {
                    "index": r.input.index,
                    "seed": r.input.seed,
                    "mutators": [m.split(":")[0] for m in r.input.mutations],
                    "category": r.category,
                    "stages": {s: o.get("category") for s, o in r.stages.items() if isinstance(o, dict)},
                    **({"iree": r.iree.get("verdict"), "ours": r.ours} if r.iree else {}),
                }
                for r in self.results
            ],
        }  # fmt: skip


def _code_state() -> dict:
    """The commit fuzzed, and the files that differed from it (findings are about that state)."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        status = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"head": head.stdout.strip(), "modified": [line[3:] for line in status.stdout.splitlines()]}


def describe_result(r: InputResult) -> dict:
    return {
        "index": r.input.index,
        "seed": r.input.seed,
        "mutations": r.input.mutations,
        "stages": r.stages,
        "upstream_only": r.upstream_only,
        "iree": r.iree,
    }
