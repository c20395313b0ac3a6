"""ktdp-extract-compute-groups: groups found by dataflow, outlined, marked, ordered by may-alias.

The pass's behaviour on the corpus is in test_schedule_passes.py and its lit
tests; here what later stages rely on: each outlined group function carries
`spyre.compute_group` (its declaration in the kernel's module does not), and
a store before a load of a view that may alias it keeps the two groups in
that order (`spyre_mlir.analysis.access.may_alias`)."""

from __future__ import annotations

import pytest

import spyre_mlir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.spyre import COMPUTE_GROUP_ATTR

SETS = """
#s = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#id = affine_map<(d0) -> (d0)>
"""


def tile(name: str, base: str) -> str:
    return (
        f"  %v{name} = ktdp.construct_memory_view {base}, sizes: [64], strides: [1] "
        "{coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<64xf32>\n"
        f"  %{name} = ktdp.construct_access_tile %v{name}[%c0] {{access_tile_set = #s, access_tile_order = #id}}"
        " : memref<64xf32> -> !ktdp.access_tile<64xindex>\n"
    )


# exp(x) -> s, then sqrt(s) -> out: the second group reads what the first writes.
ROUND_TRIP = (
    SETS
    + "func.func @k(%x: index, %s: index, %out: index) {\n  %c0 = arith.constant 0 : index\n"
    + tile("tx", "%x") + tile("ts", "%s") + tile("to", "%out")
    + """  %a = ktdp.load %tx : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %e = math.exp %a : tensor<64xf32>
  ktdp.store %e, %ts : tensor<64xf32>, !ktdp.access_tile<64xindex>
  %b = ktdp.load %ts : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %r = math.sqrt %b : tensor<64xf32>
  ktdp.store %r, %to : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}
"""
)


def extracted(text: str):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse("ktdp-extract-compute-groups").run(module)
    return module


def functions(module) -> dict:
    return {op.sym_name.data: op for op in module.walk() if op.name == "func.func" and op.body.blocks}


def test_groups_are_marked_and_ordered_by_their_memory():
    module = extracted(ROUND_TRIP)
    funcs = functions(module)
    groups = [name for name, f in funcs.items() if COMPUTE_GROUP_ATTR in f.attributes]
    assert groups == ["local_schedule_0", "local_schedule_1"]
    assert COMPUTE_GROUP_ATTR not in funcs["k"].attributes
    declarations = [op for op in module.walk() if op.name == "func.func" and not op.body.blocks]
    assert declarations and not any(COMPUTE_GROUP_ATTR in d.attributes for d in declarations)
    calls = [op.callee.root_reference.data for op in funcs["k"].walk() if op.name == "func.call"]
    first = {name: [op.name for op in funcs[name].walk()] for name in groups}
    assert "math.exp" in first[calls[0]] and "math.sqrt" in first[calls[1]]  # the store runs before the load


def test_groups_that_must_each_follow_the_other_are_refused_at_a_load():
    # group A: load s -> exp -> store out; group B: load out -> sqrt -> store s: each reads what the other writes.
    text = (
        SETS
        + "func.func @k(%s: index, %out: index) {\n  %c0 = arith.constant 0 : index\n"
        + tile("ts", "%s") + tile("to", "%out")
        + """  %a = ktdp.load %ts : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %b = ktdp.load %to : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %e = math.exp %a : tensor<64xf32>
  %r = math.sqrt %b : tensor<64xf32>
  ktdp.store %e, %to : tensor<64xf32>, !ktdp.access_tile<64xindex>
  ktdp.store %r, %ts : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}
"""
    )
    with pytest.raises(DiagnosticError, match="cannot extract compute groups"):
        extracted(text)


# -- dataflow-scheduler's form (`mark=false`, their `--compute-group-extraction`) ------------

from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from conftest import SHARED  # noqa: E402

THEIRS = SHARED / "corpus" / "dataflow-scheduler" / "test" / "Conversion" / "frontend" / "KTIRToScheduleIR"
EXTRACTION_TESTS = sorted((THEIRS / "ComputeGroupExtraction").glob("*.mlir"))
THEIR_CASES = [pytest.param(p, id=p.name) for p in EXTRACTION_TESTS] or [
    pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus/dataflow-scheduler not present"))
]


def their_views(module) -> dict[int, tuple[int, ...]]:
    """The constant base address (elements) and the sizes of each memory view of their tests' kernels."""
    views = {}
    for op in module.walk():
        if op.name == "ktdp.construct_memory_view":
            views[op.operands[0].owner.value.value.data] = tuple(op.result.type.get_shape())
    return views



def extracted_with(text: str, options: str = ""):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(f"ktdp-extract-compute-groups{options}").run(module)
    return module


def body_ops(function) -> list[str]:
    """The names of the ops of `function`'s body in pre-order, without the implicit `scf.yield`s
    and the bodies of linalg ops (printed only for a generic)."""
    return [
        op.name for op in function.walk()
        if op is not function and op.name != "scf.yield" and not op.parent_op().name.startswith("linalg.")
    ]


def test_the_public_form_is_theirs_unmarked_groups_in_named_modules():
    module = extracted_with(ROUND_TRIP, "{mark=false}")
    kernel_module, *holders = module.ops
    assert kernel_module.sym_name is None
    assert [h.sym_name.data for h in holders] == ["local_schedule_0", "local_schedule_1"]
    for holder in holders:
        (definition,) = holder.ops
        assert definition.sym_name == holder.sym_name
        assert COMPUTE_GROUP_ATTR not in definition.attributes
    declarations = [op.sym_name.data for op in kernel_module.ops if op.name == "func.func" and not op.body.blocks]
    assert declarations == ["local_schedule_0", "local_schedule_1"]
    assert COMPUTE_GROUP_ATTR in functions(extracted(ROUND_TRIP))["local_schedule_0"].attributes  # the default marks


def test_a_group_is_written_as_they_write_it_each_op_after_what_it_reads():
    # The output's tile is built between the compute and the store; the empty tensor between the loads and the
    # compute. Their extraction writes what the first op of the group reads first (the input's view and tile),
    # then the group's ops in their order, each after what it reads: the loads, the empty tensor, the output's
    # view, the compute, the output's tile, the store.
    text = (
        SETS
        + "func.func @k(%x: index, %out: index) {\n  %c0 = arith.constant 0 : index\n"
        + tile("tx", "%x")
        + """  %a = ktdp.load %tx : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %vto = ktdp.construct_memory_view %out, sizes: [64], strides: [1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %s = linalg.add ins(%a, %a : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %to = ktdp.construct_access_tile %vto[%c0] {access_tile_set = #s, access_tile_order = #id} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  ktdp.store %s, %to : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}
"""
    )
    group = functions(extracted_with(text, "{mark=false}"))["local_schedule_0"]
    assert body_ops(group) == [
        "ktdp.construct_memory_view", "arith.constant", "ktdp.construct_access_tile", "ktdp.load", "tensor.empty",
        "ktdp.construct_memory_view", "linalg.add", "ktdp.construct_access_tile", "ktdp.store", "func.return",
    ]


def _their_sequences(path: Path) -> dict[str, list[str]]:
    """From their CHECK lines: each function's op names in order (how they print is not compared here)."""
    import re

    sequences: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text().splitlines():
        if not line.startswith("// CHECK:"):
            continue
        text = line[len("// CHECK:"):].strip()
        if match := re.match(r"func\.func (?:private )?@(\w+)\(", text):
            current = sequences.setdefault(match.group(1), []) if "private" not in text else None
            continue
        if text.startswith("module"):
            current = None
        if current is None or not text or text == "}":
            continue
        op = re.match(r"[\w.]+", re.sub(r"^%\[\[\w+(?::[^\]]*)?\]\] = ", "", text)).group(0)  # pyright: ignore
        current.append({"call": "func.call", "return": "func.return"}.get(op, op))
    return sequences


@pytest.mark.parametrize("path", THEIR_CASES)
def test_their_extraction_tests_groups_and_calls_in_their_order(path):
    """Their expected output, op by op in each function (kernel and groups); the printing is
    compared by test_dataflow_scheduler_lit.py."""
    module = extracted_with(path.read_text(), "{mark=false}")
    ours = {name: body_ops(f) for name, f in functions(module).items()}
    assert ours == _their_sequences(path)


@pytest.mark.parametrize("mark", ["", "{mark=false}"])
@pytest.mark.parametrize("path", THEIR_CASES)
def test_their_extraction_tests_compute_the_same_before_and_after(path, mark):
    """Translation validation: the interpreter runs their kernel before and after the extraction
    (calls into the groups' modules) on the same HBM and gets the same HBM back."""
    text = path.read_text()
    before = spyre_mlir.parse(text)
    kernel = next(op.sym_name.data for op in before.walk() if op.name == "func.func")
    rng = np.random.default_rng(0)
    views = their_views(before)  # some overlap: one array covers them all
    start, end = min(views), max(a + int(np.prod(shape)) for a, shape in views.items())
    hbm = {start: rng.standard_normal(end - start).astype(np.float16)}
    expected = spyre_mlir.interpret(before, kernel, hbm={a: x.copy() for a, x in hbm.items()})
    got = spyre_mlir.interpret(extracted_with(text, mark), kernel, hbm={a: x.copy() for a, x in hbm.items()})
    for address in hbm:
        np.testing.assert_array_equal(got[f"hbm@{address}"], expected[f"hbm@{address}"])
    assert any(not np.array_equal(expected[f"hbm@{a}"], hbm[a]) for a in hbm), "the kernel stores nothing"
