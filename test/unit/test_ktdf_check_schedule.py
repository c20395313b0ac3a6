"""ktdf-check-schedule: the schedule rules upstream's verifiers leave to its passes, as warnings.

Each rule on IR that verifies (upstream accepts it), the warning at the op
breaking it and the remark at the op it names, the IR left as it was, and
their own valid IR that breaks a rule (BroadcastPromotion's
no-hoist-fifo-destination: a slot written, read by no stage) verifying and
getting its warning."""

from __future__ import annotations

import pytest
from conftest import SHARED

import spyre_mlir
from spyre_mlir.diagnostics import collect
from spyre_mlir.dialects.ktdf import schedule_problems
from spyre_mlir.ir import print_ir

SLOT = '!ktdf.fifo.slot<"a" -> "b", 4xf32>'
SHORT = '<"a" -> "b", 4xf32>'


def pipeline(stages: str, *, args: str = "%v: tensor<4xf32>, %a: memref<8x4xf32>, %i: index") -> str:
    """A function with one pipeline: slot %p#0, tokens %p#1 .. %p#3, and `stages`."""
    return (
        f"func.func @f({args}) {{\n"
        "  ktdf.pipeline {\n"
        f"    %p:4 = ktdf.private -> ({SLOT}, !ktdf.token, !ktdf.token, !ktdf.token) {{\n"
        f"      %s = ktdf.fifo.allocate() -> {SLOT}\n"
        "      %t0 = ktdf.create_token : !ktdf.token\n"
        "      %t1 = ktdf.create_token : !ktdf.token\n"
        "      %t2 = ktdf.create_token : !ktdf.token\n"
        f"      ktdf.private_yield %s, %t0, %t1, %t2 : {SLOT}, !ktdf.token, !ktdf.token, !ktdf.token\n"
        "    }\n"
        f"{stages}"
        "  }\n"
        "  return\n"
        "}\n"
    )


WRITE = f"      ktdf.write_to_fifo %v, %p#0 : tensor<4xf32>, {SHORT}\n"
READ = f"      %r = ktdf.read_from_fifo %p#0 : {SHORT} -> tensor<4xf32>\n"


def stage(ins: str, outs: str, body: str = "") -> str:
    return f"    ktdf.stage depends_in({ins}) depends_out({outs}) {{\n{body}    }}\n"


def check(text: str) -> tuple[list[tuple[str, str, int]], str, str]:
    """(severity, message, line) of what the pass reports, the IR before and after."""
    module = spyre_mlir.parse(text)
    before = print_ir(module)
    with collect() as seen:
        spyre_mlir.PassManager.parse("ktdf-check-schedule").run(module)
    return [(d.severity, d.message, d.location.line if d.location else 0) for d in seen], before, print_ir(module)


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    found = [k + 1 for k, line in enumerate(text.splitlines()) if needle in line]
    return found[occurrence - 1]


def test_a_well_formed_schedule_gets_no_warning():
    text = pipeline(stage("none", "%p#1", WRITE) + stage("%p#1", "none", READ))
    reported, before, after = check(text)
    assert reported == []
    assert after == before


@pytest.mark.parametrize(
    ("stages", "message", "at"),
    [
        (stage("none", "%p#1", WRITE) + stage("%p#1, %p#1", "%p#2", READ),
         "depends_in lists token %p#1 twice", ("ktdf.stage depends_in(%p#1, %p#1)", 1)),
        (stage("none", "%p#1", WRITE) + stage("%p#2", "%p#3", READ),
         "stage #1 waits for token %p#2 that no stage of the pipeline signals", ("ktdf.stage depends_in(%p#2)", 1)),
        (stage("%p#1", "%p#1", WRITE) + stage("%p#1", "%p#2", READ),
         "stage #0 waits for token %p#1 that it signals itself", ("ktdf.stage depends_in(%p#1) depends_out(%p#1)", 1)),
        (stage("none", "%p#1", WRITE), "stage #0 writes FIFO slot %p#0 that no stage reads", ("ktdf.stage", 1)),
        (stage("none", "%p#1", READ), "stage #0 reads FIFO slot %p#0 that no stage writes", ("ktdf.stage", 1)),
        (stage("none", "%p#1", WRITE + READ),
         "stage #0 reads FIFO slot %p#0 that it writes itself: a slot is read by a later stage than the one writing it",
         ("ktdf.stage", 1)),
        (stage("none", "%p#1", "      ktdf.data_transfer from %a[%i, %i] size [1, 2] to %p#0 : memref<8x4xf32>, "
               + SLOT + "\n") + stage("%p#1", "none", READ),
         "source size [1, 2] moves 2 elements but the FIFO slot holds 4: a transfer fills or drains its slot exactly",
         ("ktdf.data_transfer", 1)),
    ],
)
def test_each_rule_is_a_warning_at_the_op_breaking_it(stages, message, at):
    text = pipeline(stages)
    reported, before, after = check(text)
    assert reported == [("warning", message, line_of(text, *at))]
    assert after == before


def test_a_rule_naming_another_stage_remarks_at_it():
    text = pipeline(stage("none", "%p#1", WRITE) + stage("none", "%p#1", "") + stage("%p#1", "none", READ))
    reported, _, _ = check(text)
    assert reported == [
        ("warning", "stage #1 signals token %p#1, which stage #0 signals already: a token is signaled (depends_out) "
         "by exactly one stage of a pipeline", line_of(text, "ktdf.stage", 2)),
        ("remark", "stage #0 signals it here", line_of(text, "ktdf.stage", 1)),
    ]


def test_the_problems_carry_their_notes_for_other_tools():
    text = pipeline(stage("%p#1", "%p#2", READ) + stage("none", "%p#1", WRITE))
    problems = list(schedule_problems(spyre_mlir.parse(text)))
    messages = [p.message for p in problems]
    assert messages == [
        "stage #0 waits for token %p#1 that stage #1, after it, signals: a stage comes after the stages signaling "
        "its depends_in tokens",
        "stage #0 reads FIFO slot %p#0 that stage #1, after it, writes: a slot is read by a later stage than the one "
        "writing it",
    ]
    assert [note for _, note in problems[0].notes] == ["stage #1 signals it here"]


def test_slot_accesses_outside_a_stage_are_warned_not_refused():
    text = pipeline(stage("none", "%p#1", WRITE) + stage("%p#1", "none", READ)).replace(
        "      ktdf.private_yield",
        f"      %early = ktdf.read_from_fifo %s : {SHORT} -> tensor<4xf32>\n      ktdf.private_yield",
    )
    reported, _, _ = check(text)
    assert reported == [("warning", "'ktdf.read_from_fifo' outside a 'ktdf.stage': it belongs to no step of a pipeline",
                         line_of(text, "%early"))]


def test_a_transfer_of_dynamic_size_is_not_counted():
    stages = stage("none", "%p#1", "      ktdf.data_transfer from %a[%i, %i] size [1, %i] to %p#0 : memref<8x4xf32>, "
                   + SLOT + "\n") + stage("%p#1", "none", READ)
    reported, _, _ = check(pipeline(stages))
    assert reported == []


NO_HOIST = SHARED / "corpus" / "dataflow-scheduler" / "test" / "Transforms" / "BroadcastPromotion" / \
    "no-hoist-fifo-destination.mlir"


@pytest.mark.skipif(not NO_HOIST.exists(), reason="../shared/corpus/dataflow-scheduler not present")
def test_their_valid_ir_breaking_a_rule_verifies_and_is_warned():
    text = NO_HOIST.read_text()
    reported, before, after = check(text)
    assert reported == [("warning", "stage #0 writes FIFO slot %fifo_a that no stage reads",
                         line_of(text, "ktdf.stage depends_in(none) depends_out(%t)"))]
    assert after == before
