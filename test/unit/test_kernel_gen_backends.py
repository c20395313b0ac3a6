"""Every back end on a seeded sample of generated kernels (issue 22): each
(kernel, configuration) either equals the source or is refused with a located
error; never a wrong result, an internal error, an unlocated refusal, a failing
run of what a back end produced, or a hang.

The kernels run through `spyre_fuzz.kernel_gen.run.Runner`, the generator's own
worker process, so a hang fails its case after the runner's timeout instead of
stopping the suite. To fit about a minute on two shared cores, the cheap
configurations (`CHEAP`, which stop before bundles and spatial tiling) run on
the first `CHEAP_KERNELS` kernels of `SEED`, and every other configuration of
`CONFIGS` (the bundle and spatial ones, together about 3x the cost of the cheap ones)
on the first `ALL_KERNELS`.

A failure names the kernel and its reproduction, e.g.

    cd test/fuzz && python -m spyre_fuzz.kernel_gen --seed 7 --show 38 --run 'ktir-to-bundle{out-dir=D}'

Known findings are strict xfails in `KNOWN_FINDINGS`, so a fix is noticed."""

from __future__ import annotations

import shutil

import pytest
from spyre_fuzz.kernel_gen.run import CONFIGS, Runner

SEED = 7
CHEAP = tuple(c for c in ("default", "physicalize", "ktir-to-schedule") if c in CONFIGS)
CHEAP_KERNELS = 250
ALL_KERNELS = 50
TIMEOUT = 60.0  # seconds per (kernel, configuration); the slowest take about a second

KNOWN_FINDINGS: dict[tuple[int, int, str], str] = {
    # (seed, index, configuration): the finding, as the runner reports it
}


def configs_of(index: int) -> tuple[str, ...]:
    return CONFIGS if index < ALL_KERNELS else CHEAP


def _cases() -> list:
    cases = []
    for index in range(max(CHEAP_KERNELS, ALL_KERNELS)):
        for config in configs_of(index):
            finding = KNOWN_FINDINGS.get((SEED, index, config))
            marks = [pytest.mark.xfail(strict=True, reason=finding)] if finding else []
            cases.append(pytest.param(index, config, id=f"{index}-{config}", marks=marks))
    return cases


def run_kernel(runner: Runner, index: int) -> dict:
    """The runner's result for kernel `index` (source and per-configuration outcomes).
    After a hang or a crash the runner drops the kernel's remaining configurations:
    those run again, each round settling at least the first of them."""
    wanted = configs_of(index)
    result = runner.run(SEED, index, wanted)
    while result["source"]["category"] == "ok":
        rest = [c for c in wanted if result["configs"].get(c, {"category": "skipped"})["category"] == "skipped"]
        if not rest:
            break
        again = runner.run(SEED, index, rest)
        result["source"] = again["source"]
        result["configs"].update(again["configs"])
    return result


@pytest.fixture(scope="module")
def outcomes():
    """kernel index -> `run_kernel`'s result, run on first use."""
    runner = Runner(TIMEOUT)
    results: dict[int, dict] = {}

    def outcome(index: int) -> dict:
        if index not in results:
            results[index] = run_kernel(runner, index)
        return results[index]

    yield outcome
    runner.close()
    shutil.rmtree(runner.tmp, ignore_errors=True)


@pytest.mark.parametrize("index,config", _cases())
def test_backend_equals_source_or_refuses(outcomes, index, config):
    result = outcomes(index)
    reproduce = (
        f"reproduce: cd test/fuzz && python -m spyre_fuzz.kernel_gen --seed {SEED} --show {index} --run '{config}'"
    )
    source = result["source"]
    assert source["category"] == "ok", f"kernel {index}: source {source['category']} {source['message']}\n{reproduce}"
    got = result["configs"].get(config, {"category": "missing", "message": "the runner reported nothing"})
    assert got["category"] in ("ok", "refused"), (
        f"kernel {index}, {config}: {got['category']} {got['message']}\n{reproduce}"
    )
