"""Deterministic fuzzing with `spyre_mlir.tools.fuzz` (README, "Fuzzing").

A few hundred seeded mutations of the seed kernels (the corpus when
../shared is present, test/unit/kernels, examples) go through parse+verify,
the default pipeline and the interpreter in a pool of worker processes,
each with a timeout. None may end in an internal error (a traceback the
user would see as "internal error"), a hang or a dead worker; inputs that
use only upstream dialects must get iree-opt's accept/reject verdict.
A sample also goes through the installed `spyre-opt` and `spyre-run`.

A failure names the input: `python -m spyre_mlir.tools.fuzz --seed SEED
--show N` prints it, `--replay FILE` reruns a file with the traceback, and
`python -m spyre_mlir.tools.fuzz --seed SEED --count COUNT --out DIR`
writes reduced examples of every finding.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import REPO, corpus_files

from spyre_mlir.tools import fuzz

SEED = 20261201
COUNT = 300
CLI_SAMPLE = 30
JOBS = max(2, min(os.cpu_count() or 2, 4))
TIMEOUT = 10.0
BIN = Path(sys.executable).parent


# The seeds of this checkout, named explicitly: the installed fuzzer may live
# outside it (a non-editable install).
SEED_PATHS = corpus_files() + sorted((REPO / "test" / "unit" / "kernels").glob("*.mlir")) + sorted(
    (REPO / "examples").glob("*.mlir")
)
SEEDS = fuzz.load_seeds(SEED_PATHS)


@pytest.fixture(scope="module")
def campaign() -> fuzz.FuzzReport:
    config = fuzz.FuzzConfig(count=COUNT, seed=SEED, timeout=TIMEOUT, jobs=JOBS, progress=False, minimize=False,
                             seed_paths=SEED_PATHS)
    return fuzz.run(config)


def _explain(report: fuzz.FuzzReport, categories: tuple[str, ...]) -> str:
    lines = []
    for f in report.findings:
        if f.category not in categories:
            continue
        r = f.results[0]
        inputs = ", ".join(str(x.input.index) for x in f.results[:10])
        lines.append(f"[{f.category} in {f.stage}] x{len(f.results)}: {f.first_line()}")
        lines.append(f"    inputs {inputs}; first from {r.input.seed}: {'; '.join(r.input.mutations)}")
        lines.append(f"    see: python -m spyre_mlir.tools.fuzz --seed {SEED} --show {r.input.index}")
    return "\n".join(lines)


def test_generation_is_deterministic():
    a = fuzz.generate(20, SEED, SEEDS)
    b = fuzz.generate(5, SEED, SEEDS, start=15)
    assert [x.data for x in a[15:]] == [x.data for x in b]
    assert [x.data for x in a] == [x.data for x in fuzz.generate(20, SEED, SEEDS)]
    assert len({x.data for x in a}) > len(a) // 2  # varied (two mutations may happen to agree)


def test_every_input_ran(campaign: fuzz.FuzzReport):
    assert len(campaign.results) == COUNT
    assert all("parse" in r.stages for r in campaign.results)
    # Some mutants must survive parsing, or the pipeline and interpreter go untested.
    assert campaign.stage_counts()["interpret"]["accepted"] > 0


def test_no_internal_errors(campaign: fuzz.FuzzReport):
    internal = campaign.counts()["internal"]
    assert internal == 0, f"{internal} inputs end in an internal error:\n" + _explain(campaign, ("internal",))


def test_no_hangs(campaign: fuzz.FuzzReport):
    hangs = campaign.counts()["hang"]
    assert hangs == 0, f"{hangs} inputs take more than {TIMEOUT:g} s:\n" + _explain(campaign, ("hang",))


def test_no_crashes(campaign: fuzz.FuzzReport):
    crashes = campaign.counts()["crash"]
    assert crashes == 0, f"{crashes} inputs kill the process:\n" + _explain(campaign, ("crash",))


def test_same_verdict_as_iree_opt(campaign: fuzz.FuzzReport):
    if campaign.iree_exe is None:
        pytest.skip("iree-opt not installed")
    counts = campaign.iree_counts()
    assert counts["compared"] > 0
    assert counts["disagree"] == 0, (
        f"{counts['disagree']} of {counts['compared']} upstream-only inputs get a different verdict from iree-opt:\n"
        + _explain(campaign, ("disagreement",))
    )


def _cli_sample(report: fuzz.FuzzReport) -> list[fuzz.InputResult]:
    """Half inputs that parse (spyre-run gets arguments for them), half that do not; never a known hang."""
    usable = [r for r in report.results if r.category != "hang"]
    parsed = [r for r in usable if r.stages["parse"]["category"] == "accepted"]
    rejected = [r for r in usable if r.stages["parse"]["category"] != "accepted"]
    half = CLI_SAMPLE // 2
    pick = parsed[:: max(1, len(parsed) // half)][:half]
    pick += rejected[:: max(1, len(rejected) // (CLI_SAMPLE - len(pick)))][: CLI_SAMPLE - len(pick)]
    return pick


def test_cli_prints_no_traceback(campaign: fuzz.FuzzReport, tmp_path: Path):
    """Every sampled input through `spyre-opt --pipeline default`; through `spyre-run` (with the
    fuzzer's arguments) the ones that parse and a third of the others (its own reading of bad text)."""
    sample = _cli_sample(campaign)
    assert len(sample) == CLI_SAMPLE
    commands = []
    rejected = 0
    for r in sample:
        path = tmp_path / f"input-{r.input.index}.mlir"
        path.write_bytes(r.input.data)
        commands.append((r, [str(BIN / "spyre-opt"), str(path), "--pipeline", "default", "-o", os.devnull]))
        run = [str(BIN / "spyre-run"), str(path), "--timeout", "20"]
        cli = r.stages.get("cli")
        if cli:
            run += ["--func", cli["func"]] + [f"--arg={a}" for a in cli["args"]]
        elif r.stages["parse"]["category"] != "accepted":
            rejected += 1
            if rejected % 3:
                continue
        commands.append((r, run))

    def execute(item):
        r, cmd = item
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=4 * TIMEOUT + 20)
        except subprocess.TimeoutExpired:
            return r, cmd, None, "timed out"
        return r, cmd, proc.returncode, proc.stderr

    problems = []
    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        for r, cmd, code, err in pool.map(execute, commands):
            tool = Path(cmd[0]).name
            if code is None:
                problems.append(f"{tool} on input {r.input.index}: timed out ({' '.join(cmd[1:])})")
            elif code not in (0, 1) or "Traceback (most recent call last)" in err:
                tail = "\n".join(err.strip().splitlines()[-6:])
                problems.append(f"{tool} on input {r.input.index}: exit {code}\n{tail}")
    assert not problems, "\n".join(problems)
