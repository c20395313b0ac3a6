"""Deterministic fuzzing with `spyre_fuzz` (test/fuzz/spyre_fuzz; README, "Fuzzing").

A few hundred seeded mutations of the seed kernels (the corpus when
../shared is present, test/unit/kernels, examples) go through parse+verify,
the default pipeline and the interpreter in a pool of worker processes,
each with a timeout. None may end in an internal error (a traceback the
user would see as "internal error"), a hang or a dead worker; inputs that
use only upstream dialects must get iree-opt's accept/reject verdict.
A sample also goes through the installed `spyre-opt` and `spyre-run`.

The per-input timeout only catches hangs: it is generous (a loaded machine is
slow, not hung), and no test here asserts how fast anything runs (speed is
measured in benchmarks/).

A failure names the input: `PYTHONPATH=test/fuzz python -m spyre_fuzz --seed
SEED --show N` prints it, `--replay FILE` reruns a file with the traceback,
and `python -m spyre_fuzz --seed SEED --count COUNT --out DIR` writes reduced
examples of every finding.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import REPO, corpus_files
from spyre_fuzz import stages
from spyre_fuzz.campaign import FuzzConfig, run
from spyre_fuzz.corpus import load_seeds
from spyre_fuzz.mutate import generate
from spyre_fuzz.report import FuzzReport, InputResult

SEED = 20261201
COUNT = 300
CLI_SAMPLE = 30
JOBS = max(2, min(os.cpu_count() or 2, 4))
TIMEOUT = 120.0  # hang detection, not a speed requirement
BIN = Path(sys.executable).parent


# The seeds of this checkout, named explicitly: the fuzzer may run from a copy
# outside it (see the tests at the end).
SEED_PATHS = corpus_files() + sorted((REPO / "test" / "unit" / "kernels").glob("*.mlir")) + sorted(
    (REPO / "examples").glob("*.mlir")
)
SEEDS = load_seeds(SEED_PATHS)


@pytest.fixture(scope="module")
def campaign() -> FuzzReport:
    config = FuzzConfig(count=COUNT, seed=SEED, timeout=TIMEOUT, jobs=JOBS, progress=False, minimize=False,
                             seed_paths=SEED_PATHS)
    return run(config)


def _explain(report: FuzzReport, categories: tuple[str, ...]) -> str:
    lines = []
    for f in report.findings:
        if f.category not in categories:
            continue
        r = f.results[0]
        inputs = ", ".join(str(x.input.index) for x in f.results[:10])
        lines.append(f"[{f.category} in {f.stage}] x{len(f.results)}: {f.first_line()}")
        lines.append(f"    inputs {inputs}; first from {r.input.seed}: {'; '.join(r.input.mutations)}")
        lines.append(f"    see: PYTHONPATH=test/fuzz python -m spyre_fuzz --seed {SEED} --show {r.input.index}")
    return "\n".join(lines)


def test_generation_is_deterministic():
    a = generate(20, SEED, SEEDS)
    b = generate(5, SEED, SEEDS, start=15)
    assert [x.data for x in a[15:]] == [x.data for x in b]
    assert [x.data for x in a] == [x.data for x in generate(20, SEED, SEEDS)]
    assert len({x.data for x in a}) > len(a) // 2  # varied (two mutations may happen to agree)


def test_every_input_ran(campaign: FuzzReport):
    assert len(campaign.results) == COUNT
    assert all("parse" in r.stages for r in campaign.results)
    # Some mutants must survive parsing, or the pipeline and interpreter go untested.
    assert campaign.stage_counts()["interpret"]["accepted"] > 0


def test_no_internal_errors(campaign: FuzzReport):
    internal = campaign.counts()["internal"]
    assert internal == 0, f"{internal} inputs end in an internal error:\n" + _explain(campaign, ("internal",))


def test_no_hangs(campaign: FuzzReport):
    hangs = campaign.counts()["hang"]
    assert hangs == 0, f"{hangs} inputs do not finish in {TIMEOUT:g} s (a hang):\n" + _explain(campaign, ("hang",))


def test_no_crashes(campaign: FuzzReport):
    crashes = campaign.counts()["crash"]
    assert crashes == 0, f"{crashes} inputs kill the process:\n" + _explain(campaign, ("crash",))


def test_same_verdict_as_iree_opt(campaign: FuzzReport):
    if campaign.iree_exe is None:
        pytest.skip("iree-opt not installed")
    counts = campaign.iree_counts()
    assert counts["compared"] > 0
    assert counts["disagree"] == 0, (
        f"{counts['disagree']} of {counts['compared']} upstream-only inputs get a different verdict from iree-opt:\n"
        + _explain(campaign, ("disagreement",))
    )


def _cli_sample(report: FuzzReport) -> list[InputResult]:
    """Half inputs that parse (spyre-run gets arguments for them), half that do not; never a known hang."""
    usable = [r for r in report.results if r.category != "hang"]
    parsed = [r for r in usable if r.stages["parse"]["category"] == "accepted"]
    rejected = [r for r in usable if r.stages["parse"]["category"] != "accepted"]
    half = CLI_SAMPLE // 2
    pick = parsed[:: max(1, len(parsed) // half)][:half]
    pick += rejected[:: max(1, len(rejected) // (CLI_SAMPLE - len(pick)))][: CLI_SAMPLE - len(pick)]
    return pick


def test_cli_prints_no_traceback(campaign: FuzzReport, tmp_path: Path):
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
        spyre_run = [str(BIN / "spyre-run"), str(path), "--timeout", str(int(TIMEOUT))]
        cli = r.stages.get("cli")
        if cli:
            spyre_run += ["--func", cli["func"]] + [f"--arg={a}" for a in cli["args"]]
        elif r.stages["parse"]["category"] != "accepted":
            rejected += 1
            if rejected % 3:
                continue
        commands.append((r, spyre_run))

    def execute(item):
        r, cmd = item
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=2 * TIMEOUT + 60)
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


# -- outside a checkout ----------------------------------------------------------------


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The package laid out as a wheel installs it (test_wheel.PACKAGE_DIRS), and beside it a
    copy of the fuzzer, outside the checkout."""
    import shutil

    from test_wheel import PACKAGE_DIRS

    site = tmp_path_factory.mktemp("site")
    ignore = shutil.ignore_patterns("__pycache__")
    for folder, package in PACKAGE_DIRS.items():
        shutil.copytree(REPO / folder, site.joinpath(*package.split(".")), ignore=ignore, dirs_exist_ok=True)
    shutil.copytree(Path(stages.__file__).parent, site / "spyre_fuzz", ignore=ignore)
    return site


def _fuzz_outside(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run([sys.executable, "-m", "spyre_fuzz", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)


def test_outside_a_checkout_without_seeds_is_a_usage_error(installed: Path, tmp_path: Path):
    where = subprocess.run([sys.executable, "-c", "import spyre_fuzz as f; print(f.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env={"PYTHONPATH": str(installed)}, timeout=300)
    assert where.stdout.strip().startswith(str(installed)), where.stderr  # the copy, not the checkout
    for args in (["--count", "5"], ["--list-seeds"], ["--show", "3"]):
        proc = _fuzz_outside(installed, tmp_path, *args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert proc.stderr.startswith("usage: python -m spyre_fuzz")
        assert "error: no seed kernels" in proc.stderr and "--seeds FILE_OR_DIR" in proc.stderr
    proc = _fuzz_outside(installed, tmp_path, "--seeds", str(tmp_path / "nope"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"error: seed kernel '{tmp_path / 'nope'}': no such file or directory" in proc.stderr
    (tmp_path / "empty").mkdir()
    proc = _fuzz_outside(installed, tmp_path, "--seeds", str(tmp_path / "empty"))
    assert proc.returncode == 2 and "no seed kernels (*.mlir) in directory" in proc.stderr


def test_outside_a_checkout_seeds_from_a_directory(installed: Path, tmp_path: Path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "softmax_rows.mlir").write_text((REPO / "examples" / "softmax_rows.mlir").read_text())
    proc = _fuzz_outside(installed, tmp_path, "--seeds", str(seeds), "--list-seeds")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["seeds/softmax_rows.mlir"]
    proc = _fuzz_outside(installed, tmp_path, "--seeds", str(seeds), "--count", "2", "--jobs", "1", "--no-iree",
                         "--no-interpret", "--quiet", "--no-minimize")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "2 inputs" in proc.stdout


# The spatial stage reuses what earlier stages computed for the same input (the
# parsed source; a run of the source with its options) instead of repeating it:
# on inputs nesting thousands of regions, parsing and verifying the text again
# cost seconds. These check the mechanism and the verdicts, not the time.


def _seed_text(name: str) -> str:
    return next(s.text for s in SEEDS if s.name == name)


RAGGED = "kernels/loops.mlir@ragged"  # one function whose plan has the spatial stage's options


def _count_parses_and_interpreters(monkeypatch) -> tuple[list, list]:
    from spyre_mlir.interpreter import Interpreter

    parses: list = []
    modules: list = []
    parse_text = stages.parse_text
    init = Interpreter.__init__

    def counting_parse(text):
        parses.append(text)
        return parse_text(text)

    def counting_init(self, source, options=None):
        modules.append(source)
        init(self, source, options)

    monkeypatch.setattr(stages, "parse_text", counting_parse)
    monkeypatch.setattr(Interpreter, "__init__", counting_init)
    return parses, modules


def test_spatial_stage_parses_once_and_reuses_the_source_run(monkeypatch):
    text = _seed_text(RAGGED)
    alone = stages.spatial_check(text)  # parses and runs everything itself
    assert alone == {"category": "accepted", "checked": 1}
    parses, modules = _count_parses_and_interpreters(monkeypatch)
    result = stages.evaluate(text.encode(), stages=("parse", "interpret", "spatial"))
    assert result["interpret"]["category"] == "accepted"
    assert result["spatial"] == alone
    assert parses == [text]  # the parse stage only
    # The interpret stage ran the source with the spatial stage's options; the spatial stage ran its program only.
    assert len(modules) == 2
    assert not [op for op in modules[0].walk() if op.name.startswith("spatial.")]  # the source
    assert [op for op in modules[1].walk() if op.name.startswith("spatial.")]  # the spatial program


def test_spatial_stage_after_the_pipeline_runs_the_source_itself(monkeypatch):
    # The interpret stage ran the pipeline's output, not the source: the spatial stage runs the source.
    text = _seed_text("kernels/grid2d.mlir@tile_ids")
    parses, modules = _count_parses_and_interpreters(monkeypatch)
    result = stages.evaluate(text.encode(), stages=("parse", "pipeline", "interpret", "spatial"))
    assert result["pipeline"]["category"] == result["interpret"]["category"] == "accepted"
    assert parses.count(text) == 1  # the parse stage; the pipeline stage parses its printed output
    assert len(modules) == 3  # interpret (the pipeline's output); spatial: the source, the program
    assert modules[1] is not modules[0] and not [op for op in modules[1].walk() if op.name.startswith("spatial.")]
    assert result["spatial"] == stages.spatial_check(text) == {"category": "accepted", "checked": 1}


def test_spatial_check_compares_with_the_reused_run():
    import numpy as np

    from spyre_mlir.interpreter import Interpreter, InterpreterOptions

    text = _seed_text(RAGGED)
    source = stages.parse_text(text)
    plans = stages.interpret_plans(source)
    assert stages.spatial_options(plans[0]) == plans[0]["options"]
    ran = Interpreter(source, InterpreterOptions(**plans[0]["options"])).run(plans[0]["func"], dict(plans[0]["args"]))
    plans = stages.interpret_plans(source)  # fresh arguments
    wrong = {key: np.asarray(value) + 1 for key, value in ran.items()}
    with pytest.raises(AssertionError, match="disagrees with its source"):
        stages.spatial_check(text, source, {"plans": plans, "runs": {0: (True, wrong)}})
    # A source that failed to run: nothing to compare.
    failed = stages.spatial_check(text, source, {"plans": plans, "runs": {0: (False, RuntimeError("no"))}})
    assert failed == {"category": "accepted", "checked": 0}
    # The source module is left as parsed: each lowering ran on a clone.
    assert stages.spatial_check(text, source) == {"category": "accepted", "checked": 1}
    assert not [op for op in source.walk() if op.name.startswith("spatial.")]
